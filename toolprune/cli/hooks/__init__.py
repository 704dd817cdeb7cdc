"""Hooks for agent harnesses other than Claude Code (``hook.py``), and the settings editor that
installs them: one module per harness, each answering that harness's own event schema."""
