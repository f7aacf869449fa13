"""`python -m boardq ...`: the same as the `boardq` command."""

from boardq.commands import entry

entry()
