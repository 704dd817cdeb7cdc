"""Shapes of JSON input, each behind the same small contract.

A shape module answers four questions about one input:

- **detect**: is this input mine? (a cheap look at the scanned top levels, no scoring);
- **units**: which spans are scored (array elements, map members, paragraphs of a string);
- **render**: the output, given the decisions and the spill ids;
- **records**: what the spill store keeps so that ``toolprune omitted`` returns each drop.

``records`` finds the containers worth pruning in any JSON document (arrays of records, maps
of records, looked for through chains of wrappers); ``tree`` holds the decisions and renders
the output from raw spans only; ``mcp`` recognises MCP tool results and prunes their content
items. Nothing here does I/O or imports the CLI.
"""
