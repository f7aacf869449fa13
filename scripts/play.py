#!/usr/bin/env python3
"""The same as `boardq play ...`."""

import sys

from boardq.commands import entry

if __name__ == "__main__":
    entry(["play", *sys.argv[1:]])
