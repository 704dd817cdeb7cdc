"""Options declared once and reused by every command (typer ``Annotated`` aliases)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

SpillDir = Annotated[
    Optional[Path],
    typer.Option(
        "--spill-dir",
        envvar="TOOLPRUNE_SPILL_DIR",
        show_envvar=True,
        metavar="DIR",
        help="Where pruned inputs are kept for `toolprune omitted` "
        "[default: the platform's user state dir, or $TOOLPRUNE_HOME/spill].",
        show_default=False,
    ),
]
Verbose = Annotated[
    bool,
    typer.Option("--verbose", "-v", help="Print one line of counts (never content) on stderr."),
]
Debug = Annotated[
    bool,
    typer.Option(
        "--debug", envvar="TOOLPRUNE_DEBUG", help="Show tracebacks of internal errors.", show_default=False
    ),
]
