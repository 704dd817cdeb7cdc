"""Mutation score of the core modules whose every branch the tests are meant to pin down.

    pip install -e '.[test,mutation]'
    python bench/mutation.py                  # every module below
    python bench/mutation.py text spill       # some of them (spill: the five spill_* modules)
    python bench/mutation.py --min-score 95   # exit 1 when a module scores less

For each module, mutmut (3.x) mutates that one file in a scratch copy of the tree (``toolprune/``
and ``tests/``, in a temporary directory: the work tree is never touched) and runs, for each
mutant, the tests of the module's *fast* list that call the mutated function (mutmut maps tests to
functions in one clean run first). Every mutant that survives that, or that no fast test reaches,
is then run again against the module's *full* list (the fast tests plus the slower end-to-end and
property tests that exercise it), so a mutant counts as surviving only when the whole relevant
suite lets it through. (mutmut sees the calls made in the test process: a test that reaches the
module only through a child process does not count.)

Mutants that cannot be told apart from the original by any test (the same behaviour by another
route) are declared in ``bench/mutation_equivalents.txt``, one a line::

    <mutant name> | <the mutated line, as mutmut prints it> | <why it is equivalent>

A declaration counts only while its mutant still survives and its line still reads the same (code
that moved gives its mutants new names or lines: the declaration is then reported as stale).

    score = killed / (mutants - equivalent)

A mutant whose tests time out is counted as killed (the tests noticed), and listed. The last column,
"fast only", is the share killed by the fast list alone (the module's own unit tests): before an
equivalent is subtracted, it counts every mutant that went on to the full check as not killed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EQUIVALENTS = ROOT / "bench" / "mutation_equivalents.txt"


@dataclass
class Module:
    path: str
    fast: list[str]
    """Test files mutmut runs per mutant (only the tests that call the mutated function)."""
    slow: list[str] = field(default_factory=list)
    """Added for the check of each survivor: the rest of the relevant suite. (The property tests,
    tests/test_properties.py and tests/test_shape_properties.py, are left out: a hundred generated
    inputs for each survivor make one module's run take an hour on two shared cores.)"""

    def __post_init__(self) -> None:  # a list may name a test file that a branch does not have (yet)
        self.fast = [t for t in self.fast if (ROOT / t).exists()]
        self.slow = [t for t in self.slow if (ROOT / t).exists() and t not in self.fast]

    @property
    def full(self) -> list[str]:
        return self.fast + self.slow


JSON_FAST = [
    "tests/test_jsonshape_unit.py", "tests/test_decisions_unit.py", "tests/test_shapes.py", "tests/test_json.py",
    "tests/test_mcp_unit.py", "tests/test_tree_unit.py", "tests/test_meta_unit.py", "tests/test_shape_registry.py",
    "tests/test_wrapper_unit.py",
]
"""The unit tests of the JSON shapes (each shape module is measured against all of them)."""

MODULES = {
    "text": Module(
        "toolprune/core/text.py",
        fast=["tests/test_text_unit.py", "tests/test_text_split.py", "tests/test_text_structure.py", "tests/test_logtext.py",
              "tests/test_log_blocks.py"],
        slow=["tests/test_pipeline.py", "tests/test_golden.py"],
    ),
    "markers": Module(
        "toolprune/core/markers.py",
        fast=["tests/test_markers_unit.py", "tests/test_pipeline.py", "tests/test_golden.py"],
        slow=["tests/test_omitted.py"],
    ),
    "jsonshape": Module(
        "toolprune/core/jsonshape.py",
        fast=["tests/test_jsonshape_unit.py", "tests/test_patterns_unit.py", "tests/test_json.py", "tests/test_shapes.py"],
        slow=["tests/test_real_json.py", "tests/test_pipeline.py", "tests/test_lines.py", "tests/test_wrapper_unit.py",
              "tests/test_tree_unit.py"],
    ),
    "passing": Module(
        "toolprune/core/passing.py",
        fast=["tests/test_passing.py"],
        slow=["tests/test_lines.py", "tests/test_steps.py"],
    ),
    "budget": Module(
        "toolprune/core/budget.py",
        fast=["tests/test_budget_unit.py", "tests/test_budget.py", "tests/test_repeats.py"],
        slow=["tests/test_envelope.py", "tests/test_explain.py", "tests/test_lines.py"],
    ),
    "records": Module(
        "toolprune/core/shapes/records.py",
        fast=["tests/test_jsonshape_unit.py", "tests/test_shapes.py", "tests/test_json.py"],
        slow=["tests/test_real_json.py", "tests/test_golden.py"],
    ),
    "lines": Module(
        "toolprune/core/lines.py",
        fast=["tests/test_lines.py", "tests/test_loglike_bounds.py", "tests/test_log_blocks.py", "tests/test_logtext.py",
              "tests/test_steps.py"],
        slow=["tests/test_repeats.py", "tests/test_budget_unit.py", "tests/test_scan_prefilters.py", "tests/test_pipeline.py",
              "tests/test_golden.py"],
    ),
    "decide": Module(
        "toolprune/core/decide.py",
        fast=["tests/test_decide_unit.py", "tests/test_text_structure.py", "tests/test_pipeline.py",
              "tests/test_budget_unit.py"],
        slow=["tests/test_golden.py", "tests/test_compare.py", "tests/test_markers_unit.py", "tests/test_explain.py"],
    ),
    "kinds": Module(
        "toolprune/core/kinds.py",
        fast=["tests/test_kinds_unit.py", "tests/test_text_structure.py", "tests/test_records_text.py",
              "tests/test_embedded_json.py", "tests/test_compare.py"],
        slow=["tests/test_pipeline.py", "tests/test_golden.py", "tests/test_config_html.py"],
    ),
    "tokens": Module(
        "toolprune/core/tokens.py",
        fast=["tests/test_tokens_unit.py", "tests/test_lexical.py"],
        slow=["tests/test_text_structure.py", "tests/test_pipeline.py", "tests/test_realout_ja.py"],
    ),
    "signals": Module(
        "toolprune/core/signals.py",
        fast=["tests/test_signals_unit.py", "tests/test_lines.py", "tests/test_logtext.py", "tests/test_loglike_bounds.py",
              "tests/test_steps.py"],
        slow=["tests/test_repeats.py", "tests/test_log_blocks.py", "tests/test_pipeline.py", "tests/test_golden.py"],
    ),
    "loanwords": Module(
        "toolprune/scorers/loanwords.py",
        fast=["tests/test_loanwords.py"],
        slow=["tests/test_lexical.py", "tests/test_realout_ja.py"],
    ),
    "endpoints": Module(
        "toolprune/scorers/endpoints.py",
        fast=["tests/test_endpoints_unit.py"],
        slow=["tests/test_systemone.py", "tests/test_trust_remote.py"],
    ),
}
# the other JSON shape modules, each against the shapes' unit tests
JSON_SLOW = ["tests/test_real_json.py", "tests/test_golden.py", "tests/test_hook.py"]
MODULES.update(
    {name: Module(f"toolprune/core/shapes/{name}.py", fast=JSON_FAST, slow=JSON_SLOW)
     for name in ("mcp", "wrapper", "tree", "decisions", "meta")}
)
# the spill package, one module at a time; mutmut runs only the tests that call a mutated function,
# so the five share one list
SPILL_FAST = [
    "tests/test_spill_unit.py", "tests/test_spill_edges.py", "tests/test_spill_safety.py", "tests/test_omitted.py",
]
SPILL_SLOW = ["tests/test_spill_commands.py", "tests/test_spill_audit.py", "tests/test_faults.py"]
for _name in ("store", "format", "files", "gc", "omitted"):
    MODULES[f"spill_{_name}"] = Module(f"toolprune/spill/{_name}.py", fast=SPILL_FAST, slow=SPILL_SLOW)
GROUPS = {"spill": [key for key in MODULES if key.startswith("spill_")]}
"""Names that stand for several modules on the command line."""

KILLED = {"killed", "timeout", "caught by type check", "segfault"}


def _config(module: Module, tests: list[str]) -> str:
    def toml_list(items: list[str]) -> str:
        return "[" + ", ".join(json.dumps(i) for i in items) + "]"

    return (
        "[tool.mutmut]\n"
        'source_paths = ["toolprune"]\n'
        'also_copy = ["bench"]\n'
        f"only_mutate = {toml_list([module.path])}\n"
        f"pytest_add_cli_args_test_selection = {toml_list(tests)}\n"
        # a fixed seed: the property tests draw the same inputs for every mutant and every run
        'pytest_add_cli_args = ["-p", "no:cacheprovider", "-q", "--hypothesis-seed=0"]\n'
        "use_git_change_detection = false\n"
        "[tool.pytest.ini_options]\n"
        'testpaths = ["tests"]\n'
    )


def _scratch(module: Module) -> Path:
    work = Path(tempfile.mkdtemp(prefix="toolprune-mutation-"))
    skip = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis", "mutants")
    shutil.copytree(ROOT / "toolprune", work / "toolprune", ignore=skip)
    shutil.copytree(ROOT / "tests", work / "tests", ignore=skip)
    (work / "bench").mkdir(exist_ok=True)  # some tests read real-output cases (27 MB: linked, not copied)
    os.symlink(ROOT / "bench" / "realout", work / "bench" / "realout")  # mutmut's also_copy copies the link
    (work / "pyproject.toml").write_text(_config(module, module.fast), encoding="utf-8")
    return work


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TOOLPRUNE_", "MUTANT_", "PYTEST_"))}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # mutmut's copies are imported many times over
    return env


def _statuses(work: Path, module: Module) -> dict[str, str]:
    from mutmut.stats import status_by_exit_code

    meta = json.loads((work / "mutants" / (module.path + ".meta")).read_text(encoding="utf-8"))
    return {name: status_by_exit_code[code] for name, code in meta["exit_code_by_key"].items()}


def _changed_line(work: Path, name: str) -> str:
    """The line(s) a mutant changes, as they read after the mutation ('' for a deleted line)."""
    out = subprocess.run([sys.executable, "-m", "mutmut", "show", name], cwd=work, env=_env(),
                         capture_output=True, text=True, timeout=120).stdout
    plus = [line[1:].strip() for line in out.splitlines() if line.startswith("+") and not line.startswith("+++")]
    minus = [line[1:].strip() for line in out.splitlines() if line.startswith("-") and not line.startswith("---")]
    return " / ".join(plus) if plus else "(deleted) " + " / ".join(minus)


def _equivalents() -> dict[str, tuple[str, str]]:
    out: dict[str, tuple[str, str]] = {}
    if not EQUIVALENTS.exists():
        return out
    for raw in EQUIVALENTS.read_text(encoding="utf-8").splitlines():
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        name, rest = raw.split(" | ", 1)
        line, reason = rest.rsplit(" | ", 1)
        out[name.strip()] = (line.strip(), reason.strip())
    return out


def _mutmut(key: str, work: Path, names: list[str], args: argparse.Namespace) -> None:
    log = work / "mutmut.log"
    with log.open("ab") as handle:
        try:
            proc = subprocess.run([sys.executable, "-m", "mutmut", "run", "--max-children", str(args.jobs), *names],
                                  cwd=work, env=_env(), stdout=handle, stderr=subprocess.STDOUT, timeout=args.timeout)
        except subprocess.TimeoutExpired:
            raise SystemExit(f"{key}: mutmut did not finish in {args.timeout:g} s (log: {log})") from None
    if proc.returncode != 0:
        tail = log.read_text(encoding="utf-8", errors="replace")[-3000:]
        raise SystemExit(f"{key}: mutmut failed (exit {proc.returncode}):\n{tail}")


def measure(key: str, module: Module, args: argparse.Namespace) -> dict:
    if not module.fast:
        raise SystemExit(f"{key}: none of its fast test files exists")
    started = time.monotonic()
    work = _scratch(module)
    try:
        _mutmut(key, work, [], args)
        statuses = _statuses(work, module)
        fast_survivors = sorted(n for n, s in statuses.items() if s not in KILLED)
        if fast_survivors and module.slow:
            # the same mutants again, against the full list: mutmut maps the full list's tests to
            # functions anew and runs, for each survivor, every one of them that calls its function
            (work / "pyproject.toml").write_text(_config(module, module.full), encoding="utf-8")
            shutil.rmtree(work / "mutants")
            _mutmut(key, work, fast_survivors, args)
            again = _statuses(work, module)
            for name in fast_survivors:
                statuses[name] = again[name]
        declared = _equivalents()
        equivalent, survived, stale = [], [], []
        for name in sorted(n for n, s in statuses.items() if s not in KILLED):
            line = _changed_line(work, name)
            if name in declared and declared[name][0] == line:
                equivalent.append((name, line, declared[name][1]))
            else:
                if name in declared:
                    stale.append(f"{name}: declared for `{declared[name][0]}`, now `{line}`")
                survived.append((name, line, statuses[name]))
        prefix = module.path[:-3].replace("/", ".") + "."
        for name in declared:
            if name.startswith(prefix) and statuses.get(name, "killed") in KILLED:
                stale.append(f"{name}: declared equivalent but {statuses.get(name, 'no such mutant')}")
        total = len(statuses)
        killed = sum(s in KILLED for s in statuses.values())
        timeouts = sorted(n for n, s in statuses.items() if s == "timeout")
        counted = total - len(equivalent)
        return {
            "module": key, "path": module.path, "mutants": total, "killed": killed, "survived": len(survived),
            "equivalent": len(equivalent), "score": round(100.0 * killed / counted, 1) if counted else 100.0,
            "fast_score": round(100.0 * (total - len(fast_survivors)) / counted, 1) if counted else 100.0,
            "timeouts": timeouts, "seconds": round(time.monotonic() - started),
            "survivors": survived, "equivalents": equivalent, "stale": stale,
        }
    finally:
        if args.keep:
            print(f"  (kept {work})", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("modules", nargs="*", metavar="MODULE",
                        help=f"some of {', '.join([*MODULES, *GROUPS])} (default: all)")
    parser.add_argument("--jobs", type=int, default=2, help="mutants run at once (default 2)")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds for one module's mutmut run")
    parser.add_argument("--min-score", type=float, default=None, help="exit 1 when a module scores less")
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--keep", action="store_true", help="keep the scratch copies (their paths go to stderr)")
    parser.add_argument("-v", "--verbose", action="store_true", help="list the equivalents too")
    args = parser.parse_args(argv)
    keys = [k for key in args.modules for k in GROUPS.get(key, [key])] or list(MODULES)
    unknown = [k for k in keys if k not in MODULES]
    if unknown:
        parser.error(f"unknown module {', '.join(unknown)}: choose from {', '.join([*MODULES, *GROUPS])}")
    results = []
    for key in keys:
        print(f"{key}: mutating {MODULES[key].path} ...", file=sys.stderr, flush=True)
        results.append(measure(key, MODULES[key], args))
        r = results[-1]
        print(f"{key}: {r['mutants']} mutants, {r['killed']} killed, {r['survived']} survived, "
              f"{r['equivalent']} equivalent: {r['score']:.1f} % ({r['seconds']} s)", file=sys.stderr, flush=True)
    print(f"{'module':<13} {'path':<34} {'mutants':>7} {'killed':>6} {'survived':>8} {'equiv':>5} {'score':>7}"
          f" {'fast only':>9}")
    for r in results:
        print(f"{r['module']:<13} {r['path']:<34} {r['mutants']:>7} {r['killed']:>6} {r['survived']:>8} "
              f"{r['equivalent']:>5} {r['score']:>6.1f}% {r['fast_score']:>8.1f}%")
    for r in results:
        for name, line, status in r["survivors"]:
            print(f"{status:<9} {name}: {line}")
        for name in r["timeouts"]:
            print(f"timeout   {name} (counted as killed)")
        for text in r["stale"]:
            print(f"stale     {text}")
        if args.verbose:
            for name, line, reason in r["equivalents"]:
                print(f"equiv     {name}: {line}  ({reason})")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    if args.min_score is not None and any(r["score"] < args.min_score for r in results):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
