"""toolprune: prune tool output by relevance to the request, verbatim and recoverable."""

__version__ = "0.1.0"
