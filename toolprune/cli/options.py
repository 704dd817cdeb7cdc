"""Options declared once and reused by every command (typer ``Annotated`` aliases), and the
command class that writes their usage lines."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from toolprune.cli.flags import FLAGS

if TYPE_CHECKING:
    from typer._click.core import Context


class PlainUsage(typer.core.TyperCommand):
    """Usage lines as Unix tools write them: ``ID FROM [TO]``, not typer's ``{ID} {FROM} [TO]``."""

    def collect_usage_pieces(self, ctx: Context) -> list[str]:
        pieces = super().collect_usage_pieces(ctx)
        return [p[1:-1] if p.startswith("{") and p.endswith("}") else p for p in pieces]


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

GC_OLDER_THAN = "30d"
"""The default of ``gc --older-than`` (``toolprune.spill.gc.GC_AGE``, as a user writes it)."""
GC_MAX_SIZE = "1G"
"""The default of ``gc --max-size`` (``toolprune.spill.gc.GC_BYTES``, as a user writes it)."""
OlderThan = Annotated[
    str, typer.Option("--older-than", metavar="AGE", help="Remove records older than this (7d, 12h, 30m).")
]
MaxSize = Annotated[
    str, typer.Option("--max-size", metavar="SIZE", help="Then remove the oldest until the rest fits (500M, 1G).")
]
"""The options of ``toolprune gc`` and ``toolprune spill gc``, declared once."""


def option(dest: str, **extra: Any) -> Any:  # typer.Option's own return type is Any
    """A typer option built from the shared flag table."""
    flag = FLAGS[dest]
    return typer.Option(
        *flag.names, envvar=flag.env, show_envvar=flag.env is not None, metavar=flag.metavar,
        help=flag.help, **extra,
    )
