"""Regenerate the files derived from the typer app.

    python tools/generate.py          # rewrite them
    python tools/generate.py --check  # exit 1 when any is out of date (the tests run this)
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def help_text() -> str:
    import typer
    from typer.testing import CliRunner

    from toolprune.cli.app import app

    result = CliRunner().invoke(app, ["--help"], prog_name="toolprune", env={"COLUMNS": "80"}, terminal_width=78)
    assert result.exit_code == 0, result.output
    return result.output


def outputs() -> dict[Path, str]:
    text = help_text()
    module = (
        '"""`toolprune --help`, rendered from the typer app by tools/generate.py (a test checks it)."""\n\n'
        f"HELP = {text!r}\n"
    )
    return {ROOT / "toolprune" / "cli" / "helptext.py": module}


def main() -> int:
    check = "--check" in sys.argv[1:]
    stale = []
    for path, content in outputs().items():
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current != content:
            stale.append(path)
            if not check:
                path.write_text(content, encoding="utf-8")
    for path in stale:
        print(f"{'out of date' if check else 'wrote'}: {path.relative_to(ROOT)}")
    return 1 if check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
