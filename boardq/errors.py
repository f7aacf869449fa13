"""Errors a user can cause; the command line prints them as one line, no traceback."""

from __future__ import annotations

__all__ = ["AgentFileError", "BoardqError", "RunDirError", "UnknownGameError"]


class BoardqError(Exception):
    """Base of every error caused by input (a flag, a file, a directory)."""


class UnknownGameError(BoardqError):
    """The game name is not one boardq knows."""


class RunDirError(BoardqError):
    """A run directory is missing, unreadable, or belongs to another game or network."""


class AgentFileError(BoardqError):
    """An exported agent file is missing, corrupt, or for another game."""
