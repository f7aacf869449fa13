"""One chart to a PNG file, drawn without a display (matplotlib's Agg backend).

    with chart(path, "title", "x label", "y label") as ax:
        ax.plot(...)

The axes get their labels, title, a light grid and the legend; the figure is written
to `path` when the block ends and closed however it ends. matplotlib is imported on
use: `chart` raises ImportError where it is not installed, for callers to say so.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

__all__ = ["chart"]


@contextmanager
def chart(
    path: str | Path, title: str, xlabel: str, ylabel: str, legend: str = "best"
) -> Iterator[Any]:
    """Yields the axes of a 7 x 4.5 inch figure that is saved to `path` at the end.

    Raises:
        ImportError: matplotlib is not installed.
    """
    import matplotlib

    matplotlib.use("Agg")  # files only: no display needed
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    try:
        yield ax
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        ax.grid(alpha=0.3)
        ax.legend(loc=legend)
        fig.tight_layout()
        fig.savefig(path, dpi=100)
    finally:
        plt.close(fig)
