"""Line blocks for logs: boundaries, the pinned tail and signal lines."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import cli, restore
from toolprune.core.lines import (
    MAX_CHARS, MAX_LINES, MIN_LINES, SPACED_BLOCKS, block_lines, coarse, pinned, split_lines,
)
from toolprune.core.logtext import LogText
from toolprune.core.models import Options
from toolprune.service import run
from toolprune.core.text import split_text
from toolprune.scorers.base import Scorer
from toolprune.spill import SpillStore

LOG = (Path(__file__).parent / "golden" / "log_cidiff_commonslang" / "input.bin").read_bytes()


def blocks(text: str, tail: int = 0) -> list[str]:
    units, _ = split_lines(text, tail)
    return [text[u.start : u.end] for u in units]


@pytest.mark.parametrize("n, size", [(100, MIN_LINES), (800, 20), (1_000, 25), (1_600, MAX_LINES), (50_000, MAX_LINES)])
def test_blocks_are_bounded_in_lines_and_chars(n, size):
    """About 40 blocks a log: a short test run in 8-line blocks, a long CI log in 40-line ones."""
    assert block_lines(n) == size
    text = "\n".join(f"step {i} ok" for i in range(n))
    sizes = [b.count("\n") + 1 for b in blocks(text)]
    assert max(sizes) == size and sum(sizes) == n
    wide = "\n".join("x" * 300 for _ in range(30))
    assert all(len(b) <= MAX_CHARS for b in blocks(wide))


def test_a_short_log_without_blank_lines_is_cut_into_blocks():
    """Over 4,000 chars, a few paragraphs are too coarse to prune: a ``pip --dry-run`` of 120
    lines is one paragraph, and becomes blocks of 8 lines."""
    text = "\n".join(f"Collecting package-{i}>=1.0 (from app==2.0) from the index" for i in range(120))
    assert 4_000 < len(text) < 8_000
    units = split_text(text)
    assert len(units) == 1 and coarse(text, units)
    assert len(blocks(text)) == 120 // MIN_LINES


def test_a_blank_line_ends_a_block_and_is_in_none():
    text = "\n".join(["step ok"] * 3 + ["", "  ", ""] + ["build ok"] * 3)
    assert blocks(text) == ["step ok\nstep ok\nstep ok", "build ok\nbuild ok\nbuild ok"]


def test_double_spaced_output_keeps_its_blank_lines_inside_blocks():
    """A blank line after every line would make a unit of every line (2.5 million of them on 10
    MB); a blank line ends a block only from the block's ninth line on (``MIN_LINES`` + 1), so
    the blocks hold the blank lines before it, never first or last. Not the usual 40-line blocks:
    in those, a log just over the bound kept 6 times what it kept just under it."""
    text = "\n\n".join(f"step {i} ok" for i in range(SPACED_BLOCKS + 2_000)) + "\n"
    made = blocks(text)
    assert {b.count("\n") + 1 for b in made[:-1]} == {MIN_LINES + 1}
    # triple-spaced: the ninth line is the second of a run of blank lines, so the block ends at
    # its seventh, and the block with the run after it spans nine lines, as above
    spaced_more = "\n\n\n".join(f"step {i} ok" for i in range(SPACED_BLOCKS + 2_000)) + "\n"
    assert {b.count("\n") + 1 for b in blocks(spaced_more)[:-1]} == {MIN_LINES - 1}
    # longer output: blocks grow with it, never many more than SPACED_BLOCKS of them (memory), up
    # to the usual 40-line blocks, where no blank line ends one
    for times in (100_000, 400_000):
        units, numbered = split_lines("x\n\n" * times, 0)
        assert len(units) <= max(SPACED_BLOCKS, 2 * times // MAX_LINES) + 1
    assert {last - first + 1 for first, last in numbered[:-1]} == {MAX_LINES - 1}
    assert "".join(b.replace("\n", "") for b in made) == text.replace("\n", "")
    assert all(b.strip() == b and "\n\n" in b for b in made)
    units, numbered = split_lines(text, 0)
    for unit, (first, last) in zip(units, numbered):  # the line numbers are still the block's own
        assert text.split("\n")[first - 1 : last] == text[unit.start : unit.end].split("\n")
    # one blank line every MIN_LINES lines or fewer still ends a block, as in any log, and so
    # does every blank line of shorter double-spaced output (a unit a line costs little there)
    sparse = "\n\n".join("\n".join(f"step {i}.{k}" for k in range(MIN_LINES)) for i in range(SPACED_BLOCKS + 100))
    short = "\n\n".join(f"step {i} ok" for i in range(SPACED_BLOCKS - 100))
    assert all("\n\n" not in b for b in blocks(sparse) + blocks(short))


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_double_spaced_output_over_the_bound_comes_back_whole(newline):
    """Past ``SPACED_BLOCKS`` the blocks hold blank lines: what is kept is verbatim, the failure
    lines are there, and every dropped block comes back exactly through ``omitted``."""
    lines = [f"2026-12-01 10:00:{i % 60:02d} INFO worker {i % 7} processed chunk {i}" for i in range(SPACED_BLOCKS + 1)]
    for i in range(500, len(lines), 2_500):
        lines[i] = f"2026-12-01 10:00:00 ERROR worker 3 failed to fetch chunk {i}: connection reset"
    data = (2 * newline).join(lines).encode() + newline.encode()
    proc = cli("-v", "--basis", "why did the workers fail to fetch chunks?", input=data, check=True)
    assert "split=lines" in proc.stderr.decode() and "outcome=ok" in proc.stderr.decode()
    for i in range(500, len(lines), 2_500):
        assert f"failed to fetch chunk {i}: connection reset".encode() in proc.stdout
    assert restore(proc.stdout) == data


_PEAK = """
import re, sys
from toolprune.core.models import Options
from toolprune.core.pipeline import plan
from toolprune.scorers.lexical import LexicalScorer
def status(name):
    with open("/proc/self/status") as f:
        return int(re.search(name + r":\\s+(\\d+) kB", f.read()).group(1)) * 1024
data = bytes.fromhex(sys.argv[1]) * int(sys.argv[2])
plan(data[:40_000], Options("error in module", threshold=0.2), LexicalScorer())  # imported and compiled
try:  # the peak so far is this process's own, not its parent's (which a fork passes on): reset it
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
except OSError:
    print("no clear_refs")
    sys.exit()
before = status("VmRSS")
plan(data, Options("error in module", threshold=0.2), LexicalScorer())
print(status("VmHWM") - before)
"""


@pytest.mark.parametrize(
    "line, times, bound",
    # (measured: 36, 19, 25, 17 and 2 times the input; the code before the blank-line work took
    # 145, 189, 124 and 234 times, 9-line blocks of spaced output in any length 52 and 43, the
    # byte-order marks' regex with a group per mark 42)
    [(b"\n", 1_000_000, 45), (b"x\n\n\n", 250_000, 30), (b" \r\n", 350_000, 40), (b"x\n\n", 333_333, 30),
     (b"\xef\xbb\xbf", 333_333, 8)],
)
def test_blank_lines_cost_memory_by_the_block_not_by_the_line(line, times, bound):
    """1 MB of blank lines, of double- or triple-spaced lines or of byte-order marks: a byte a
    line and a unit a block. A set of line numbers and a repeated pattern's backtracking states
    had taken 120 to 230 times the input (and the marks, read as a JSON document's opening, 40
    times). The peak is the child's own: a forked process starts with its parent's peak (pytest's
    hundreds of MB), which hid every one of these until it was reset."""
    import subprocess
    import sys

    ran = subprocess.run([sys.executable, "-c", _PEAK, line.hex(), str(times)], capture_output=True, check=True)
    if ran.stdout.strip() == b"no clear_refs":
        pytest.skip("no /proc/self/clear_refs to reset the peak memory with")
    assert int(ran.stdout) < bound * len(line) * times


@pytest.mark.parametrize(
    "marker",
    ["##[group]Run tests", "::group::Build", "[Pipeline] stage", "travis_fold:start:install", "===== FAILURES =====",
     "_____ test_one _____", "[INFO] --- maven-surefire-plugin:3.0.0:test ---", "> Task :compileJava", "$ make test"],
)
def test_blocks_break_at_the_structure_a_log_shows(marker):
    text = "\n".join(["setup line"] * 5 + [marker] + ["work line"] * 5)
    assert blocks(text)[1].startswith(marker)


def test_tail_lines_get_blocks_of_their_own_and_line_numbers_are_right():
    text = "\n".join(f"line {i}" for i in range(1, 31)) + "\n"
    units, lines = split_lines(text, tail=5)
    assert lines[-1] == (26, 30)
    assert text[units[-1].start : units[-1].end] == "\n".join(f"line {i}" for i in range(26, 31))


def test_carriage_returns_inside_a_line_do_not_split_it():
    text = "download 10%\r download 50%\r download 100%\nnext\n"
    units, lines = split_lines(text, 0)
    assert lines == [(1, 2)] and text[units[0].start : units[0].end] == text.rstrip("\n")


def test_signal_blocks_and_their_continuations_are_pinned():
    frames = "\n".join(f"\tat org.example.Frame{i}(Frame.java:{i})" for i in range(60))
    text = "\n".join(["build step"] * 50 + ["java.lang.AssertionError: expected 1"] + [frames] + ["after"] * 50)
    units, lines = split_lines(text, 0)
    pins = pinned(text, units, lines, 0, None)
    kept = "".join(text[units[i].start : units[i].end] for i in sorted(pins))
    assert "AssertionError" in kept and "Frame0(" in kept and "Frame59" in kept
    assert kept.count("after") < 40 and kept.count("build step") < 40  # whole blocks, not the whole log


def _kept_lines(text: str) -> str:
    units, lines = split_lines(text, 0)
    return "".join(text[units[i].start : units[i].end] for i in sorted(pinned(text, units, lines, 0, None)))


def test_an_indented_listing_after_a_warning_is_continued_for_two_blocks_only():
    """``pip debug`` prints one WARNING line, then hundreds of indented tags: they are not the
    warning's continuation, and the blocks past the bound are left to the scorer."""
    tags = [f"  cp{39 - i // 40}-abi3-manylinux_2_{i % 40}_x86_64" for i in range(400)]
    text = "\n".join(["WARNING: This command is only meant for debugging."] + tags)
    kept = _kept_lines(text)
    size = block_lines(len(tags) + 1)
    assert "WARNING:" in kept and tags[-1 + 2 * size] in kept  # the hit's block and two more
    assert tags[3 * size] not in kept and tags[-1] not in kept


def test_a_jenkins_trace_is_continued_across_its_caused_and_also_lines():
    """Jenkins remoting writes a chained exception as ``Caused: X`` and ``Also:   X`` at the start
    of a line; a block that opens on one still continues the trace (the corpus's astor_1278)."""
    frames = [f"\tat hudson.remoting.Channel.call(Channel.java:{i})" for i in range(7)]
    trace = ["FATAL: hudson.remoting.Channel$OrderlyShutdown: Command Close created at", *frames,
             "Caused: hudson.remoting.Channel$OrderlyShutdown",
             "Also:   hudson.remoting.Channel$CallSiteStackTrace: Remote call to builder01", *frames,
             "Caused: hudson.remoting.RequestAbortedException", *frames]
    text = "\n".join([f" > git config core.sparsecheckout # timeout={i}" for i in range(72)] + trace + ["Finished"])
    assert block_lines(len(text.splitlines())) == MIN_LINES  # the trace's "Caused:" lines start blocks
    units, lines = split_lines(text, 0)
    assert any(text[u.start : u.end].startswith("Caused: ") for u in units)
    kept = _kept_lines(text)
    assert all(line in kept for line in trace)


def test_a_stack_trace_is_continued_past_the_bound_even_with_colour_after_the_indent():
    frames = [f"    \x1b[1mat\x1b[m org.example.Frame{i} (\x1b[1mFrame.java:{i}\x1b[m)" for i in range(300)]
    text = "\n".join(["build step"] * 50 + ["\x1b[1;31mERROR\x1b[m No space left on device"] + frames + ["after"] * 50)
    kept = _kept_lines(text)
    assert "Frame0 " in kept and "Frame299 " in kept and kept.count("after") < 40


@pytest.mark.parametrize(
    "line, pinned_",
    [("[ERROR] Tests run: 10, Failures: 1", True), ("Tests run: 10, Failures: 0, Errors: 0", False),
     ("0 errors", False), ("src/main.c:12:5: error: expected ';'", True), ("npm ERR! code 1", True),
     ("Process exited with code 2", True), ("exit status 0", False), ("-Werror=format-security enabled", False),
     ("##[error]Process completed with exit code 1.", True), ("E   assert 1 == 2", True),
     ("\x1b[31mFAILED\x1b[0m tests/test_x.py::test_y", True), ("all good", False)],
)
def test_default_signal_pattern(line, pinned_):
    text = "\n".join(["quiet"] * 10 + [line] + ["quiet"] * 10)
    units, lines = split_lines(text, 0)
    hit = any(line in text[units[i].start : units[i].end] for i in pinned(text, units, lines, 0, None))
    assert hit is pinned_


def test_signal_regex_replaces_the_default():
    """``--signal`` replaces the default pattern: its lines are pinned, an ``error:`` line
    forty lines away (another block) is not."""
    text = "\n".join(["quiet"] * 45 + ["BOOM happened"] + ["quiet"] * 40 + ["error: ignored now"] + ["quiet"] * 45)
    units, lines = split_lines(text, 0)
    pins = pinned(text, units, lines, 0, r"BOOM")
    kept = [text[units[i].start : units[i].end] for i in pins]
    assert any("BOOM" in k for k in kept)
    assert not any("error:" in k for k in kept)
    assert any("error:" in text[units[i].start : units[i].end] for i in pinned(text, units, lines, 0, None))


def test_logs_are_coarse_prose_is_not():
    text = LOG.decode()
    assert coarse(text, split_text(text))
    prose = "\n\n".join("A paragraph of ordinary prose, long enough to read. " * 4 for _ in range(60))
    assert not coarse(prose, split_text(prose))


class Nothing(Scorer):
    name = "nothing"

    def score(self, request, batch):
        return [0.0] * len(batch)


def test_pinned_units_survive_even_when_every_score_is_zero(tmp_path):
    result = run(LOG, Options(basis="why did the build fail?"), Nothing(), SpillStore(tmp_path))
    assert result.outcome == "ok" and result.stats.split == "lines"
    out = result.output.decode()
    assert "[ERROR] Failures:" in out and out.rstrip().endswith(LOG.decode().rstrip().splitlines()[-1])


@pytest.mark.parametrize("crlf", [False, True])
def test_a_pruned_log_restores_exactly(crlf, tmp_path):
    data = LOG.replace(b"\n", b"\r\n") if crlf else LOG
    env = {"TOOLPRUNE_SPILL_DIR": str(tmp_path)}
    proc = cli("-v", "--basis", "why did the build fail?", input=data, env=env, check=True)
    assert "split=lines" in proc.stderr.decode()
    assert restore(proc.stdout, env) == data


def test_indented_documentation_is_not_a_log():
    from toolprune.core.lines import loglike

    manual = "\n".join(f"       option{i}\n              Explains what option {i} does, errors included." for i in range(150))
    assert not loglike(manual)
    assert loglike(LOG.decode())


def test_a_compilers_tilde_underline_is_no_code_fence():
    """``tsc --pretty`` (real output, batch 47 of the real-output set) underlines what it blames
    with ``~~~~`` in the middle of a line: a log all the same, its errors pinned. Before, the
    ``~~~`` read as a Markdown fence, the 448 lines as paragraphs, and "why did this job fail?"
    lost one of its three error lines at 0.87 reduction. A fence opens a line."""
    from toolprune.core.lines import fenced, loglike

    case = Path(__file__).resolve().parent.parent / "bench" / "realout" / "cases" / "log-npm-trpc-client-typecheck-server-v10-pin"
    text = (case / "input.bin").read_text(encoding="utf-8")
    assert "~~~" in text and not fenced(text) and loglike(text)
    assert fenced("intro\n~~~python\ncode\n~~~\n") and fenced("intro\n   ```\ncode\n```")
    assert not fenced("x = 1  # ~~~ not a fence\n    ~~~~ indented four: code, not a fence\n")
    log = "\n".join(f"step {i}: compiled ok" for i in range(250))
    assert loglike(log) and not loglike(log + "\n```\nfenced\n```\n")
    for bytes_read in (LogText(log.encode()), LogText((log + "\n~~~\n").encode())):  # a large log stays bytes
        assert fenced(bytes_read) is ("~~~\n" in str(bytes_read))


# --------------------------------------------------------------------------- large inputs in pieces

from hypothesis import example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from toolprune.core import lines as lines_module  # noqa: E402
from toolprune.core import logtext  # noqa: E402


def test_a_blank_assertion_line_never_hides_the_location_line_after_it():
    # pytest writes "E" lines with only spaces after them (a blank line of a diff)
    text = "log\nE       \ntests/test_a.py:12: AssertionError\n"
    found = lines_module.signal_positions(text)
    assert 4 in found and text.index("tests/") in found
    assert lines_module.signal_positions("log\nE\n\nmore\n") == []


_PARTS = st.sampled_from(
    list("ab \t\n\r=-_$>") + ["error", "FAILED", "\x1b[31m", "x.py:3: ", "E  ", "##[group]", "0 errors", "ünï"]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_PARTS, max_size=300).map("".join), st.integers(1, 40), st.integers(0, 25))
@example("error\n0 errors", 1, 0)  # "0" at the start of the next line once hid the error line
@example("\nE  \nx.py:3: ", 1, 0)  # the "E  " match once ran over the line break and hid the next line
@example("E\n\nx", 1, 0)  # and made "E" a signal line when a blank line followed it
def test_scanning_in_pieces_finds_what_one_scan_finds(text, chunk, tail):
    """Large inputs are scanned piece by piece (bounded memory); the result must not depend on
    where the pieces are cut."""
    whole = (lines_module.split_lines(text, tail), sorted(lines_module.signal_positions(text)))
    assert list(lines_module.line_starts(text)) == [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
    saved = lines_module.CHUNK, logtext.PIECE
    lines_module.CHUNK = logtext.PIECE = chunk  # the pieces of a str, and those a LogText is read in
    lines_module._wrapped[0] = None  # scanned again: not the LogText (and its scan) made for ``whole``
    try:
        assert list(lines_module.line_starts(text)) == [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
        assert (lines_module.split_lines(text, tail), sorted(lines_module.signal_positions(text))) == whole
    finally:
        lines_module.CHUNK, logtext.PIECE = saved


def test_a_long_python_traceback_is_continued_past_the_bound():
    """A Python frame is two or three lines (``File "…"``, its source line, a caret line): a
    40-line block of a long traceback opens with the source or the caret line as often as with
    ``File``, and such a block is still a frame of the trace (its middle was dropped)."""
    frames = []
    for i in range(80):
        frames += [f'  File "/srv/app/deep.py", line {3 * i + 3}, in level_{i}', f"    return level_{i + 1}(y)",
                   "           ^^^^^^^^^^^^^^^^^^"]  # fmt: skip
    text = "\n".join(["build step"] * 50 + ["Traceback (most recent call last):"] + frames
                     + ["ValueError: label length exceeded"] + ["after"] * 50)  # fmt: skip
    units, lines = split_lines(text, 0)
    kept = "\n".join(text[units[i].start : units[i].end] for i in sorted(pinned(text, units, lines, 0, None)))
    assert all(frame in kept.split("\n") for frame in frames) and kept.count("after") < 40


@pytest.mark.parametrize(
    ("text", "signal", "line"),
    [
        ("ok\n\x1b[31mERROR\x1b[0m disk full\nok\n", "^ERROR", 1),  # a coloured line still starts with ERROR
        ("ok\r\nthe build failed\r\nok\r\n", "failed$", 1),  # a CRLF log's line still ends with failed
        ("ok\r\n\x1b[1;31mFATAL\x1b[0m: stop\r\nok\r\n", r"^FATAL: stop$", 1),
        ("ok\nplain ERROR\n", "^ERROR", None),  # ^ still means the start of a line
    ],
)
def test_a_user_signal_reads_lines_without_colour_codes_or_cr(text, signal, line):
    found = lines_module.signal_positions(text, signal)
    if line is None:
        assert found == []
        return
    assert len(found) == 1 and text.count("\n", 0, found[0]) == line
    assert text[found[0]] in "EFf"  # the position is that of the match in the input as it is


@settings(max_examples=200, deadline=None)
@given(st.lists(_PARTS, max_size=30).map("".join))
def test_a_user_signal_matches_where_it_would_in_the_text_without_codes(text):
    """Positions map back exactly: each one, with the codes and CRs that follow it removed,
    starts the same match as in the stripped text."""
    bare = re.sub(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\r(?=\n)", "", text)
    found = lines_module.signal_positions(text, "error|^a")
    assert len(found) == len(lines_module.signal_positions(bare, "error|^a"))
    for pos in found:
        rest = re.sub(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\r(?=\n)", "", text[pos:])
        assert re.match("error|a", rest)


GCC = (Path(__file__).parent / "fixtures" / "logs" / "gcc_warnings_and_error.txt").read_bytes()


def test_a_compiler_error_is_the_failure_and_its_warnings_pin_nothing(tmp_path):
    """gcc prints 120 ``file:line:col: warning:`` diagnostics, then one ``error:``. The error names
    the failure: it and its source lines are kept, the warnings are scored like any line."""
    env = {"TOOLPRUNE_SPILL_DIR": str(tmp_path)}
    proc = cli("-v", "--basis", "why does the build fail?", input=GCC, env=env, check=True)
    out = proc.stdout.decode()
    assert b"outcome=ok" in proc.stderr
    assert "many.c:364:17: error: implicit declaration of function ‘compute_total’" in out
    assert "  364 |     int total = compute_total(3);" in out
    assert out.count("warning:") < 10 and len(out) < len(GCC) // 5
    assert restore(proc.stdout, env) == GCC
    asked = cli("--basis", "which variables are unused?", input=GCC, env=env, check=True).stdout
    assert asked.count(b"warning: unused variable") == 60  # what the request asks for is all there


def test_a_long_line_of_signal_words_is_read_in_linear_time():
    """A compiler warning is looked for only at line starts: tried at each of the 300,000 words
    of this line, the pattern read the rest of the line each time (the prune ran out of time)."""
    log = b"build start\n" + b"error." * 300_000 + b"\n" + b"x\n" * 300
    proc = cli("-v", "--timeout", "15", "--basis", "why did the build fail", input=log)
    assert proc.returncode == 0 and proc.stdout == log
    assert b"outcome=timeout" not in proc.stderr and b"outcome=below_floor" in proc.stderr


@pytest.mark.parametrize("name", ["gcc_gxx_build.txt", "gcc_gxx_build_colour.txt"])
def test_a_cxx_error_in_a_header_with_a_plus_in_its_path_is_located_coloured_or_not(tmp_path, name):
    """g++ reports the error in ``/usr/include/c++/12/bits/stl_uninitialized.h:90:56: error:``
    (a "+" in the path), and with -fdiagnostics-color every part is wrapped in colour codes: the
    failure is still located, its instantiation chain kept and 121 warnings before it dropped."""
    log = (Path(__file__).parent / "fixtures" / "logs" / name).read_bytes()
    env = {"TOOLPRUNE_SPILL_DIR": str(tmp_path)}
    proc = cli("-v", "--basis", "why did the build fail?", input=log, env=env, check=True)
    out = re.sub(r"\x1b\[[0-9;]*[mK]", "", proc.stdout.decode())
    assert b"outcome=ok" in proc.stderr and b"threshold=0.5" in proc.stderr
    assert "stl_uninitialized.h:90:56: error: static assertion failed" in out
    assert "In file included from /usr/include/c++/12/vector:63," in out
    assert "bad.cc:6:29:   required from here" in out
    assert out.count("warning:") <= 3 and len(proc.stdout) < len(log) // 5
    assert restore(proc.stdout, env) == log


def test_a_test_runs_report_is_a_log_however_indented():
    """pydub's tests run with ``--tb=long`` on a machine without ffmpeg (a real run): 94 % of the
    lines are indented source of the frames. Read as paragraphs, the failure line was dropped."""
    from toolprune.core.lines import loglike

    case = Path(__file__).parent / "fixtures" / "realout" / "ja-pytest-en-pydub-no-ffmpeg-collection-error-audioop-py313"
    data = (case / "input.bin").read_bytes()
    assert loglike(data.decode())
    proc = cli("-v", "--basis", "which program is missing, and which warnings matter for Python 3.13?", input=data, check=True)
    assert "split=lines" in proc.stderr.decode()
    assert b"E               FileNotFoundError: [Errno 2] No such file or directory: 'ffmpeg'" in proc.stdout
    assert b"DeprecationWarning: 'audioop' is deprecated" in proc.stdout


def _short_run_pruned_as_a_log(name: str, request: str):
    """A real test run of under 200 lines from the fixtures, read as a log and pruned: its bytes
    and the finished ``toolprune -v`` process."""
    from toolprune.core.lines import loglike

    data = (Path(__file__).parent / "fixtures" / "realout" / name / "input.bin").read_bytes()
    assert data.count(b"\n") < 200 and loglike(data.decode())
    proc = cli("-v", "--basis", request, input=data, check=True)
    assert "split=lines" in proc.stderr.decode() and "outcome=ok" in proc.stderr.decode()
    return data, proc


def test_a_short_failing_test_run_is_a_log_and_a_short_help_page_is_not():
    """cssselect's tests with one expected value changed (a real run of 180 lines, under the 200
    a log needs): read as paragraphs, the ``>       assert`` line and the ``E`` line saying what
    differed went with the function's source around them. A help page as short, whose sections
    are ``=====`` rules like pytest's, stays a document."""
    from toolprune.core.lines import loglike

    request = "Which selector's check is failing, at which line, and what element did the selection return?"
    data, proc = _short_run_pruned_as_a_log("pytest-cssselect-nth-last-child-3n-plus-1-index-diff", request)
    assert b'>       assert pcss("li:nth-last-child(3n+1)") == [' in proc.stdout
    assert b"E         At index 1 diff: 'fourth-li' != 'third-li'" in proc.stdout
    assert restore(proc.stdout) == data  # kept verbatim, every dropped block returned exactly
    rules = "\n".join(f"{'=' * 30} SECTION {n} =====\n" + "  -x, --option-{n}    does one thing\n" * 6 for n in range(8))
    assert rules.count("\n") > 40 and not loglike(rules)
    notes = rules.replace("SECTION 3", "SECTION 3\nERROR handling was reworked: every failure now names its file")
    assert not loglike(notes)  # three rules and an ERROR line, but no run's summary: release notes (an audit's case)


def test_a_short_failing_quiet_test_run_is_a_log_too():
    """``pytest -q`` prints its summary without the ``=====`` rules (``1 failed, 123 passed, 2
    deselected, 21 warnings in 3.00s``): pyshp's failing run of 132 lines was read as paragraphs
    and dropped its ``E   AssertionError`` line at 0.195."""
    from toolprune.core.lines import loglike

    request = "Which test fails and what name length did the library actually write? How many tests passed?"
    data, proc = _short_run_pruned_as_a_log(
        "pytest-pyshp-long-field-name-kept-length-expected-vs-written-test-or-library-pass-count", request
    )
    assert b"E           AssertionError: assert 10 == 20" in proc.stdout
    assert b"1 failed, 123 passed, 2 deselected, 21 warnings in 3.00s" in proc.stdout
    assert restore(proc.stdout) == data
    assert not loglike(data.decode().replace("1 failed, 123 passed", "1 failure, 123 passes"))  # no summary, no log


def test_a_coloured_test_run_is_a_log_too():
    from toolprune.core.lines import loglike

    case = Path(__file__).parent / "fixtures" / "realout" / "ja-pytest-en-pydub-no-ffmpeg-collection-error-audioop-py313"
    lines = (case / "input.bin").read_text(encoding="utf-8").split("\n")
    coloured = "\n".join(f"\x1b[31m{line}\x1b[0m" if line[:1] in "E_=" and line.strip() else line for line in lines)
    assert loglike(coloured)  # pytest --color=yes: the report's lines open with an escape
