#!/usr/bin/env python3
"""Play against a trained agent: the same as `boardq play ...`."""

import sys

from boardq.cli import main

if __name__ == "__main__":
    sys.exit(main(["play", *sys.argv[1:]]))
