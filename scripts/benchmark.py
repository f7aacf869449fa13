"""Measures every stage of boardq training on this machine (same as `boardq bench`).

Usage: python scripts/benchmark.py tictactoe --quick
"""

from __future__ import annotations

import sys

from boardq.bench import main

if __name__ == "__main__":
    sys.exit(main())
