"""Shapes of JSON input, each behind the same small contract.

A shape module has a ``NAME`` (the ``shape=`` of the ``-v`` line) and answers four questions
about one input:

- **claim** (detect): is this input mine? A cheap look at the scanned top levels, no scoring;
  ``claim(text, top, options, stats)`` returns the plan to score, or None;
- **units**: which spans are scored (array elements, map members, paragraphs of a string);
- **render**: the output, given the decisions and the spill ids;
- **records**: what the spill store keeps so that ``toolprune omitted`` returns each drop.

``records`` finds the containers worth pruning in any JSON document (arrays of records, maps
of records, looked for through chains of wrappers); ``tree`` renders the output from raw spans
only, ``decisions`` decides what is dropped, ``meta`` writes the ``_pruned`` member that names
the drops; ``mcp`` recognises MCP tool results and prunes their content items; ``wrapper``
prunes the one long string of an object as text. Nothing here does I/O or imports the CLI.

Adding a shape is one module with ``NAME`` and ``claim``, one entry in :data:`JSON`, and one
golden folder under ``tests/golden``.
"""

from __future__ import annotations

import importlib
from typing import cast  # typing is loaded on every prune anyway (core.models needs it)

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from typing import Protocol

    from toolprune.core.jsonscan import Node
    from toolprune.core.models import Options, Stats
    from toolprune.core.plans import Plan
    from toolprune.core.shapes import mcp, records, wrapper

    class Shape(Protocol):
        """What a shape module has (see above)."""

        NAME: str

        def claim(self, text: str, top: Node, options: Options, stats: Stats) -> Plan | None: ...

    _SHAPES: tuple[Shape, ...] = (mcp, wrapper, records)  # the type checker checks each module has them

JSON = ("mcp", "wrapper", "records")
"""The JSON shapes in the order they are tried: the first that claims an input plans it (an MCP
result is also an object with one long string, and holds arrays of records)."""


def json_shapes() -> list[Shape]:
    """The modules of :data:`JSON`, imported on first use (text inputs never load them)."""
    return [cast("Shape", importlib.import_module(f"{__name__}.{name}")) for name in JSON]
