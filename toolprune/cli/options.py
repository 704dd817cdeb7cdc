"""Options declared once and reused by every command (typer ``Annotated`` aliases)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from toolprune.cli.flags import FLAGS

SpillDir = Annotated[
    Path | None,
    typer.Option(
        *FLAGS["spill_dir"].names,
        envvar=FLAGS["spill_dir"].env,
        show_envvar=True,
        metavar=FLAGS["spill_dir"].metavar,
        help=FLAGS["spill_dir"].help,
        show_default=False,
    ),
]
Verbose = Annotated[bool, typer.Option(*FLAGS["verbose"].names, help=FLAGS["verbose"].help)]
