#!/usr/bin/env python3
"""The same as `boardq train ...`."""

import sys

from boardq.commands import main

if __name__ == "__main__":
    sys.exit(main(["train", *sys.argv[1:]]))
