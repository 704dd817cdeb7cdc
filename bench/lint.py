"""Lint: run mypy and ruff on toolprune/ (with the settings in pyproject.toml) and print how many
errors each reports per file, so what is left to fix is visible at a glance::

    pip install '.[lint]'
    python bench/lint.py              # every file with an error, then the totals
    python bench/lint.py --all        # every checked file, clean ones too
    python bench/lint.py -v           # and each error under its file

Exits 0 when both tools are clean, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "toolprune"
MYPY_LINE = re.compile(r"^(?P<path>[^:\n]+\.py):(?P<line>\d+): error: (?P<message>.*)$")


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, check=False)


def mypy() -> dict[str, list[str]]:
    """Each file's mypy errors, as ``line: message [code]``."""
    done = run("mypy", PACKAGE)
    if done.returncode not in (0, 1):
        sys.exit(f"lint: mypy failed to run:\n{done.stdout}{done.stderr}")
    errors: dict[str, list[str]] = defaultdict(list)
    for line in done.stdout.splitlines():
        match = MYPY_LINE.match(line)
        if match:
            errors[match["path"]].append(f"{match['line']}: {match['message']}")
    return errors


def ruff() -> dict[str, list[str]]:
    """Each file's ruff findings, as ``line: code message``."""
    done = run("ruff", "check", "--output-format", "json", "--no-fix", PACKAGE)
    if done.returncode not in (0, 1):
        sys.exit(f"lint: ruff failed to run:\n{done.stdout}{done.stderr}")
    errors: dict[str, list[str]] = defaultdict(list)
    for finding in json.loads(done.stdout or "[]"):
        path = Path(finding["filename"]).resolve().relative_to(ROOT).as_posix()
        errors[path].append(f"{finding['location']['row']}: {finding['code']} {finding['message']}")
    return errors


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--all", action="store_true", help="list clean files too")
    parser.add_argument("-v", "--verbose", action="store_true", help="show each error")
    args = parser.parse_args()

    by_tool = {"mypy": mypy(), "ruff": ruff()}
    files = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / PACKAGE).rglob("*.py"))
    totals: Counter[str] = Counter()
    width = max(map(len, files))
    print(f"{'file':<{width}}  {'mypy':>4}  {'ruff':>4}")
    for path in files:
        counts = {tool: len(errors.get(path, ())) for tool, errors in by_tool.items()}
        totals.update(counts)
        if args.all or any(counts.values()):
            print(f"{path:<{width}}  {counts['mypy']:>4}  {counts['ruff']:>4}")
            if args.verbose:
                for tool, errors in by_tool.items():
                    for error in errors.get(path, ()):
                        print(f"    {tool} {error}")
    dirty = {tool: sum(1 for p in files if errors.get(p)) for tool, errors in by_tool.items()}
    print(f"{'total':<{width}}  {totals['mypy']:>4}  {totals['ruff']:>4}")
    print(f"files with errors: mypy {dirty['mypy']}, ruff {dirty['ruff']}, of {len(files)}")
    return 0 if not any(totals.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
