#!/usr/bin/env python3
"""The same as `boardq bench ...`: measures every stage of training on this machine."""

import sys

from boardq.commands import entry

if __name__ == "__main__":
    entry(["bench", *sys.argv[1:]])
