#!/usr/bin/env python3
"""The same as `boardq bench ...`: measures every stage of training on this machine."""

import sys

from boardq.commands import main

if __name__ == "__main__":
    sys.exit(main(["bench", *sys.argv[1:]]))
