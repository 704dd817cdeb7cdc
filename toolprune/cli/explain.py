"""Print ``--explain`` rows: a rich table on a terminal, plain columns otherwise, JSON lines for
scripts. rich is imported only here. What comes from the input (a unit's first words) is shown
inert: control characters are escaped by ``core.explain`` and rich gets it as plain ``Text``,
never as markup, so ``[/x]`` or an escape sequence in a log cannot break or drive the terminal."""

from __future__ import annotations

import json
import os

from toolprune.cli.streams import Environment
from toolprune.core.explain import rows

TYPE_CHECKING = False
if TYPE_CHECKING:
    from toolprune.core.models import Result


def show(env: Environment, result: Result, *, as_json: bool) -> None:
    """The --explain table of a prune that planned something (``result.plan`` is set)."""
    assert result.plan is not None  # the caller checks
    table = rows(result.plan, result.outcome)
    if as_json:
        for row in table:  # each row names the threshold its decision was made at (see --threshold)
            env.say(json.dumps({**row, "threshold": result.stats.threshold}, ensure_ascii=False))
        return
    title = f"toolprune --explain: outcome={result.outcome}" + (
        "" if result.outcome == "ok" else " (passed through: every unit is in the output)"
    )
    asked = result.plan.stepped_from
    if asked is not None and result.stats.threshold is not None:  # the cut at the asked threshold saved too little
        title += f" threshold={result.stats.threshold:g} (asked {asked:g}: that cut saved under 25 %)"
    if result.plan.compared:  # every entry was a candidate answer (core/compare.py)
        title += f" (entries kept whole: the request compares them by {result.plan.compared})"
    isatty = getattr(env.stderr, "isatty", lambda: False)()
    if isatty and not os.environ.get("NO_COLOR"):
        from rich.console import Console
        from rich.table import Table
        from rich.text import Text

        view = Table(title=title)
        columns = ["array"] if table and "array" in table[0] else []
        columns += ["unit", "chars", "score", "decision", "starts"]
        for name in columns:
            view.add_column(name, justify="right" if name in ("unit", "chars", "score") else "left")
        styles = {"dropped": "red", "far": "red", "passing": "red", "island": "red", "budget": "magenta",
                  "pinned": "cyan", "fixed": "yellow", "below": "dim"}
        for row in table:
            view.add_row(*(Text(_cell(row[c])) for c in columns), style=styles.get(row["decision"]))
        Console(file=env.stderr).print(view)
        return
    env.say(title)
    array = "array " if table and "array" in table[0] else ""
    env.say(f"{array}{'unit':>5} {'chars':>7} {'score':>6} {'decision':<8} starts")
    for row in table:
        prefix = f"{row['array']} " if "array" in row else ""
        cells = f"{row['unit']:>5} {row['chars']:>7} {_cell(row['score']):>6} {row['decision']:<8} {row['starts']}"
        env.say(prefix + cells)


def _cell(value: object) -> str:
    return "-" if value is None else (f"{value:.3f}" if isinstance(value, float) else str(value))
