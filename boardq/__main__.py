"""`python -m boardq ...`: the same as the `boardq` command."""

import sys

from boardq.commands import main

sys.exit(main())
