"""Run a job's steps the way a CI runner logs them, to make CI-shaped logs from real runs.

    python bench/logs/ci_run.py --format github|travis|plain --cwd DIR 'NAME::COMMAND' ...

Each step runs in ``bash -e`` in DIR, its stdout and stderr interleaved as they come. The first
failing step ends the job, as on a runner. ``github`` writes the raw-log form of GitHub Actions
(a timestamp before every line, ``##[group]Run …``/``##[endgroup]`` around each step's header,
``##[error]Process completed with exit code N.``); ``travis`` the Travis form (``travis_fold``
around set-up steps, ``$ command``, ``The command "…" exited with N.``); ``plain`` only the
commands' own output. The host of every URL is replaced by ``<host>``; nothing else is changed. The runner's own lines are the documented forms of those two services as
they appear in real logs; everything else in the log is what the commands printed here.
"""

from __future__ import annotations

import argparse
import datetime
import re
import subprocess
import sys

_HOST = re.compile(r"(https?://)[^/\s'\"]+")


def redact(line: str) -> str:
    """Hide every URL's host (the package indexes the set-up steps talk to): ``https://<host>/…``."""
    return _HOST.sub(r"\1<host>", line)


def stamp() -> str:
    now = datetime.datetime.now(datetime.timezone.utc)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond:06d}0Z "


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--format", choices=("github", "travis", "plain"), default="github")
    ap.add_argument("--cwd", default=".")
    ap.add_argument("steps", nargs="+", help="NAME::COMMAND")
    args = ap.parse_args()
    gh = args.format == "github"
    out = sys.stdout

    def say(line: str) -> None:
        out.write((stamp() if gh else "") + redact(line) + "\n")
        out.flush()

    if gh:
        say("Current runner version: '2.321.0'")
        say("##[group]Operating System")
        say("Debian GNU/Linux")
        say("##[endgroup]")
    code = 0
    for n, step in enumerate(args.steps):
        name, _, command = step.partition("::")
        if gh:
            say(f"##[group]Run {command.splitlines()[0]}")
            for extra in command.splitlines()[1:]:
                say(extra)
            say("shell: /usr/bin/bash -e {0}")
            say("##[endgroup]")
        elif args.format == "travis":
            fold = n < len(args.steps) - 1 and name.startswith("install")
            if fold:
                out.write(f"travis_fold:start:{name}\r\x1b[0K")
            out.write(f"$ {command}\n")
        proc = subprocess.Popen(["bash", "-e", "-c", command], cwd=args.cwd, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, errors="replace")
        for line in proc.stdout:
            say(line.rstrip("\n")) if gh else out.write(redact(line))
        code = proc.wait()
        if args.format == "travis":
            if fold:
                out.write(f"travis_fold:end:{name}\r\x1b[0K")
            if code:
                out.write(f'\nThe command "{command}" exited with {code}.\n')
        if code:
            if gh:
                say(f"##[error]Process completed with exit code {code}.")
            break
    if gh:
        say("Post job cleanup.")
        say("Cleaning up orphan processes")
    elif args.format == "travis":
        out.write(f"\n\nDone. Your build exited with {1 if code else 0}.\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
