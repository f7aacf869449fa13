#!/usr/bin/env python3
"""Train a self-play agent: the same as `boardq train ...`."""

import sys

from boardq.cli import main

if __name__ == "__main__":
    sys.exit(main(["train", *sys.argv[1:]]))
