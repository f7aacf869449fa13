#!/usr/bin/env python3
"""The same as `boardq train ...`."""

import sys

from boardq.commands import entry

if __name__ == "__main__":
    entry(["train", *sys.argv[1:]])
