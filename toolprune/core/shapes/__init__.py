"""Shapes of JSON input, each behind the same small contract.

A shape module has a ``NAME`` (the ``shape=`` of the ``-v`` line) and answers four questions
about one input:

- **claim** (detect): is this input mine? A cheap look at the scanned top levels, no scoring;
  ``claim(text, top, options, stats)`` returns the plan to score, or None;
- **units**: which spans are scored (array elements, map members, paragraphs of a string);
- **render**: the output, given the decisions and the spill ids;
- **records**: what the spill store keeps so that ``toolprune omitted`` returns each drop.

``records`` finds the containers worth pruning in any JSON document (arrays of records, maps
of records, looked for through chains of wrappers); ``tree`` holds the decisions and renders
the output from raw spans only; ``mcp`` recognises MCP tool results and prunes their content
items; ``wrapper`` prunes the one long string of an object as text. Nothing here does I/O or
imports the CLI.

Adding a shape is one module with ``NAME`` and ``claim``, one entry in :data:`JSON`, and one
golden folder under ``tests/golden``.
"""

from __future__ import annotations

import importlib

JSON = ("mcp", "wrapper", "records")
"""The JSON shapes in the order they are tried: the first that claims an input plans it (an MCP
result is also an object with one long string, and holds arrays of records)."""


def json_shapes() -> list:
    """The modules of :data:`JSON`, imported on first use (text inputs never load them)."""
    return [importlib.import_module(f"{__name__}.{name}") for name in JSON]
