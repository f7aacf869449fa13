"""Errors a user can cause; the command line prints them as one line, no traceback."""

from __future__ import annotations

__all__ = [
    "EXIT_ERROR",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_TERMINATED",
    "EXIT_USAGE",
    "AgentFileError",
    "BoardqError",
    "RunDirError",
    "UnknownGameError",
]

# Exit codes of every command.
EXIT_OK = 0
EXIT_ERROR = 1
"""A bad file, directory or setting (one line on stderr)."""
EXIT_USAGE = 2
"""A bad command line."""
EXIT_INTERRUPTED = 130
"""Ctrl-C (128 + SIGINT, as shells report it)."""
EXIT_TERMINATED = 143
"""`boardq train` stopped by SIGTERM (128 + SIGTERM), after saving as for Ctrl-C."""


class BoardqError(Exception):
    """Base of every error caused by input (a flag, a file, a directory)."""


class UnknownGameError(BoardqError):
    """The game name is not one boardq knows."""


class RunDirError(BoardqError):
    """A run directory is missing, unreadable, or belongs to another game or network."""


class AgentFileError(BoardqError):
    """An exported agent file is missing, corrupt, or for another game."""
