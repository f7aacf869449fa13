#!/usr/bin/env python3
"""The same as `boardq play ...`."""

import sys

from boardq.commands import main

if __name__ == "__main__":
    sys.exit(main(["play", *sys.argv[1:]]))
