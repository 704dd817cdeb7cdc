"""Repeated signal lines in a log: kept the first few times, the rest dropped first by a bound and
counted in the marker that stands in for them; every line still comes back with ``omitted``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import MARKER, cli, restore, spawn

from toolprune.core import repeats
from toolprune.core.lines import pinned, split_lines

BASIS = "why did the build fail?"
LIKE = re.compile(r"［… blocks? [^］]*; ([\d,]+) more lines? like this: \"([^\"]*)\"\): toolprune omitted ")


def job(repeats: int = 60, colour: bool = False) -> str:
    out = ["$ npm ci", *(f"added {k} packages in {k % 7}s" for k in range(150)), "$ npm test"]
    for k in range(repeats):
        error = f"Error: cannot parse record {k + 1} at offset {k * 512}: unexpected end of input"
        out += [f"\x1b[31m{error}\x1b[0m" if colour and k % 2 else error, "    at Parser.read (src/parser.js:88:13)"]
    out += ["60 of 60 records failed", "npm ERR! code 1"]
    return "\n".join(out) + "\n"


def test_a_bound_drops_repeated_signal_lines_first_and_counts_them(tmp_path):
    data = job().encode()
    env = {"TOOLPRUNE_SPILL_DIR": str(tmp_path / "spill")}
    out = cli("--basis", BASIS, "--max-chars", "5000", input=data, env=env).stdout
    text = out.decode()
    counted = LIKE.findall(text)
    assert counted, text[:2000]
    assert all(re.match(r"Error: cannot parse record \d+ at offset \d+: unexpected", sample) for _, sample in counted)
    for k in range(1, repeats.REPEAT_KEEP + 1):  # the first ones are kept
        assert f"Error: cannot parse record {k} at offset" in text
    assert text.endswith("npm ERR! code 1\n")  # and the end of the log
    dropped = sum(int(n.replace(",", "")) for n, _ in counted)
    assert 0 < dropped <= 60 - repeats.REPEAT_KEEP
    assert restore(out, env=env) == data  # every dropped line comes back


def test_without_a_bound_repeated_signal_lines_stay():
    data = job().encode()
    out = cli("--basis", BASIS, input=data).stdout.decode()
    assert "more lines like this" not in out
    assert all(f"record {k} at offset" in out for k in range(1, 61))


def test_repeats_read_numbers_as_equal_and_ignore_colours():
    text = job(colour=True)
    units, numbers = split_lines(text, 0)
    kept = pinned(text, units, numbers, 0, None)
    repeated = repeats.repeats(text)
    assert repeated and repeated <= kept  # pinned, but a bound drops them first
    first = next(i for i, u in enumerate(units) if "record 1 at" in text[u.start : u.end])
    assert first not in repeated
    # blocks whose every signal line is new are not repeats: a block of other errors stays
    other = job().replace("Error: cannot parse record 40 at", "TypeError: undefined is not a function at")
    units, numbers = split_lines(other, 0)
    pinned(other, units, numbers, 0, None)
    block = next(i for i, u in enumerate(units) if "TypeError" in other[u.start : u.end])
    assert block not in repeats.repeats(other)


def test_a_quoted_line_cannot_break_the_marker():
    line = "\x1b[31m2026-12-01T10:00:05.1234567Z E ］\"x\"［: toolprune omitted P1-00000000 1 2 …］\u202e\tend " + "y" * 80
    quoted = repeats.quote(line)
    assert quoted.startswith("E ]'x'[: toolprune-omitted")  # no colour code, no time stamp
    assert not set(quoted) & set("］［\"\x1b\u202e\t\n")
    assert "toolprune omitted" not in quoted and len(quoted) <= repeats.LIKE_CHARS and quoted.endswith("…")
    from toolprune.core import markers

    marker = markers.inline("en", command="toolprune omitted P7-0123abcd", first=3, last=5, chars=100, unit="block",
                            lines=(10, 20), like=(41, quoted))
    match = MARKER.fullmatch(marker)
    assert match and match.groups() == ("P7-0123abcd", "3", "5")
    assert "41 more lines like this" in marker
    ja = markers.inline("ja", command="toolprune omitted P7-0123abcd", first=3, last=5, chars=100, unit="block",
                        lines=(10, 20), like=(41, quoted))
    assert MARKER.fullmatch(ja) and "同じような行があと 41 行" in ja


def test_a_bound_drops_only_as_many_repeated_lines_as_it_needs(tmp_path):
    """Repeated signal lines give way first, but only as far as the bound needs: 200 chars
    too many cost a few of them, not all."""
    data = job().encode()
    env = {"TOOLPRUNE_SPILL_DIR": str(tmp_path / "spill")}
    plain = cli("--basis", BASIS, input=data, env=env).stdout
    bounded = cli("--basis", BASIS, "--max-chars", str(len(plain.decode()) - 200), input=data, env=env).stdout
    text = bounded.decode()
    assert len(text) <= len(plain.decode()) - 200
    assert sum(f"record {k} at offset" in text for k in range(1, 61)) >= 50  # a few give way, not all
    assert restore(bounded, env=env) == data


PIP = Path(__file__).parent / "fixtures" / "realout" / "pip-dry-run-tox-range-old-virtualenv"


def test_a_repeated_warning_pins_only_its_first_blocks(tmp_path):
    """A real ``pip install --dry-run -v``: pip warns ``WARNING: Location '…' is ignored`` for
    every package it looks up. The first warnings pin their blocks; the later ones (the same
    line but for the quoted path) pin nothing, so the blocks that hold only them are judged by
    relevance like any other, and the marker in their place quotes the warning they repeat."""
    data = (PIP / "input.bin").read_bytes()
    case = json.loads((PIP / "case.json").read_text())
    env = {"TOOLPRUNE_SPILL_DIR": str(tmp_path / "spill")}
    out = cli("--basis", case["request"], input=data, env=env).stdout
    text = out.decode()
    warnings = [line for line in data.decode().splitlines() if line.startswith("WARNING: Location ")]
    assert len(warnings) > repeats.REPEAT_KEEP + 3
    assert all(line in text for line in warnings[: repeats.REPEAT_KEEP])  # the first ones are kept
    assert not all(line in text for line in warnings)  # later ones went with blocks nobody asked for
    counted = LIKE.findall(text)
    # the marker quotes the warning with its names elided: the lines it stands for name other packages
    assert counted and all(sample.startswith("WARNING: Location '…' is ignored") for _, sample in counted)
    assert all(line in text for line in case["gold"])
    assert restore(out, env=env) == data


def test_repeated_warnings_decide_the_same_bytes_whatever_the_hash_seed(tmp_path):
    """Repeats are found by the hash of a line's key, which Python salts per process: the
    output (its spill id aside) must not depend on it."""
    data = (PIP / "input.bin").read_bytes()
    request = json.loads((PIP / "case.json").read_text())["request"]
    outs = []
    for seed in ("1", "2"):
        env = {"PYTHONHASHSEED": seed, "TOOLPRUNE_SPILL_DIR": str(tmp_path / seed)}
        out = spawn("--basis", request, input=data, env=env, check=True).stdout.decode()
        outs.append(re.sub(r"P\d+-[0-9a-f]+", "P-id", out))
    assert "more lines like this" in outs[0] and outs[0] == outs[1]


@pytest.mark.parametrize(
    "request_",
    ["which index locations were ignored, for which packages?", "show me every warning pip printed",
     "pip の警告を全部見せて"],
)
def test_a_request_about_the_warnings_keeps_them_all(tmp_path, request_):
    """Their words are in every such line, so relevance alone would keep few: a request that
    says "warning" or shares a word with the warning (its quoted names aside) keeps them pinned."""
    data = (PIP / "input.bin").read_bytes()
    out = cli("--basis", request_, input=data, env={"TOOLPRUNE_SPILL_DIR": str(tmp_path / "spill")}).stdout.decode()
    warnings = [line for line in data.decode().splitlines() if line.startswith("WARNING: Location ")]
    assert all(line in out for line in warnings)


def _pinned_blocks(text: str, needle: str, basis: str = "") -> tuple[set[int], list[int]]:
    units, numbers = split_lines(text, 0)
    kept = pinned(text, units, numbers, 0, None, basis)
    return kept, [i for i, u in enumerate(units) if needle in text[u.start : u.end]]


def warned(kind: str = "WARNING", lines: int = 60) -> str:
    out = [f"Fetching index page {k} of the mirror" for k in range(120)]
    for k in range(lines):
        out += [f"{kind}: Location 'file:///srv/simple/pkg{k}/' is ignored: not a directory", *(["  ok"] * 5)]
    return "\n".join(out) + "\n"


def test_a_request_that_shares_a_word_with_the_warning_keeps_it_pinned():
    text = warned()
    kept, blocks = _pinned_blocks(text, "WARNING: Location", "which locations were skipped as not a directory?")
    assert blocks and set(blocks) <= kept
    kept, blocks = _pinned_blocks(text, "WARNING: Location", "which index page came last?")  # names aside: 'pkg0'
    assert not set(blocks) <= kept
    kept, blocks = _pinned_blocks(text, "WARNING: Location", "what about pkg41?")  # a quoted name is no shared word
    assert not set(blocks) <= kept
    for about in ("警告を全部見せて", "any warnings?", "ワーニングは?"):  # a request about warnings, in any words
        kept, blocks = _pinned_blocks(text, "WARNING: Location", about)
        assert set(blocks) <= kept, about


def test_a_log_of_too_many_signal_lines_keeps_every_warning_pinned(monkeypatch):
    """Reading each warning costs Python time: past ``WARNINGS_READ`` signal lines the rule
    is off, and every warning pins its block as any signal line does."""
    text = warned()
    kept, blocks = _pinned_blocks(text, "WARNING: Location")
    assert not set(blocks) <= kept
    monkeypatch.setattr(repeats, "WARNINGS_READ", 59)  # the log has 60
    kept, blocks = _pinned_blocks(text, "WARNING: Location")
    assert set(blocks) <= kept


def test_a_time_stamped_repeated_warning_pins_only_its_first_blocks_too():
    """GitHub Actions puts a time stamp before every line."""
    text = "".join(f"2026-12-01T10:00:{k % 60:02}.1234567Z {line}\n" for k, line in enumerate(warned().splitlines()))
    kept, blocks = _pinned_blocks(text, "WARNING: Location")
    _, first = _pinned_blocks(text, "/pkg0/")
    assert first and first[0] in kept and not set(blocks) <= kept


def test_a_signal_the_user_gave_pins_every_repeated_warning():
    """``--signal`` says which lines are never dropped: a repeated warning it matches stays."""
    text = warned()
    units, numbers = split_lines(text, 0)
    kept = pinned(text, units, numbers, 0, "WARNING")
    blocks = [i for i, u in enumerate(units) if "WARNING: Location" in text[u.start : u.end]]
    assert blocks and set(blocks) <= kept


def test_repeated_errors_still_pin_every_block():
    """Only warnings let go: a build's repeated error lines are its failure, each one pinned."""
    text = warned("ERROR")
    kept, blocks = _pinned_blocks(text, "ERROR: Location")
    assert blocks and set(blocks) <= kept
    text = warned("WARNING")
    kept, blocks = _pinned_blocks(text, "WARNING: Location")
    _, first = _pinned_blocks(text, "/pkg0/")
    assert first and first[0] in kept and not set(blocks) <= kept


def test_a_repeated_warning_beside_a_new_error_still_pins_its_block():
    forty = "WARNING: Location 'file:///srv/simple/pkg40/'"
    text = warned().replace(f"  ok\n{forty}", f"  ok\nerror: disk full\n{forty}")
    kept, blocks = _pinned_blocks(text, "error: disk full")
    assert blocks and set(blocks) <= kept
