"""Build the golden inputs from tests/fixtures/qa_sample.jsonl.

    python tests/golden/make_inputs.py      # writes tests/golden/<case>/{input.bin,args.json}

Expected outputs are (re)written by ``TOOLPRUNE_REGEN_GOLDEN=1 pytest tests/test_golden.py``;
review the diff before committing it.
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).parent
ITEMS = [json.loads(line) for line in (HERE.parent / "fixtures" / "qa_sample.jsonl").open(encoding="utf-8")]
EN = [i for i in ITEMS if i["source"].startswith("xquad")]
JA = [i for i in ITEMS if i["lang"] == "ja"]
HOTPOT = [i for i in ITEMS if i["source"].startswith("hotpot")]


def paras(items):
    return [p for item in items for p in item["paragraphs"]]


def case(name: str, data: bytes | str, *args: str) -> None:
    folder = HERE / name
    folder.mkdir(exist_ok=True)
    (folder / "input.bin").write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    (folder / "args.json").write_text(json.dumps(list(args), ensure_ascii=False) + "\n", encoding="utf-8")


def main() -> None:
    en_doc = "\n\n".join(paras(EN[:2]))
    q_en = EN[0]["question"]
    case("en_text", en_doc, "--basis", q_en)
    case("en_text_crlf", en_doc.replace("\n", "\r\n"), "--basis", q_en)
    case("en_text_lang_ja", en_doc, "--basis", q_en, "--lang", "ja")
    case("en_text_strong", en_doc, "--basis", q_en, "--threshold", "strong")
    case("en_text_no_final_newline_gentle", en_doc.rstrip("\n"), "--basis", q_en, "--threshold", "0.1")
    case("ja_text", "\n\n".join(paras(JA[:3])) + "\n", "--basis", JA[0]["question"])
    case("hotpot_multihop", "\n\n".join(paras(HOTPOT[:1])) + "\n", "--basis", HOTPOT[0]["question"])

    en = paras(EN[:2])
    fenced = "\n\n".join(
        en[:3]
        + ["```python\ndef interstate_upgrade(route):\n\n    # a blank line inside the fence\n\n    return route\n```"]
        + en[3:6]
        + ["~~~\nplain tilde fence\n\nwith a blank line\n~~~"]
        + en[6:]
    )
    case("fenced_code", fenced + "\n", "--basis", q_en)
    merges = "\n\n".join(
        ["# Title line"] + en[:4] + ["short middle line", "another short one"] + en[4:] + ["-- end --"]
    )
    case("merges_start_middle_end", merges + "\n", "--basis", q_en)
    big = " ".join(en[10:])  # one paragraph > 6,000 chars: fixed, never scored, always kept
    case("fixed_unit", "\n\n".join(en[:10] + [big] + en[10:]) + "\n", "--basis", q_en)

    case("outcome_small", "\n\n".join(en[:2]) + "\n", "--basis", q_en)
    case("outcome_not_text", en_doc.encode("utf-8") + b"\xff\xfe tail\n", "--basis", q_en)
    case("outcome_nul", en_doc + "\x00\n", "--basis", q_en)
    case("outcome_no_basis", en_doc, "--basis", "ok thanks, continue")
    records = json.dumps([{"id": i, "text": p} for i, p in enumerate(en)], ensure_ascii=False)
    case("outcome_structured", records, "--basis", q_en, "--json-strict")  # a top-level array, its type kept
    wrapped = json.dumps({"items": [{"id": i, "text": p} for i, p in enumerate(en)]}, ensure_ascii=False)
    case("json_records_en", wrapped, "--basis", q_en)
    tool_result = json.dumps({"type": "text", "text": en_doc, "isError": False}, ensure_ascii=True)
    case("json_wrapper_en", tool_result, "--basis", q_en)
    case("outcome_all_dropped", en_doc, "--basis", "Quarterly kubernetes autoscaler latency budget")
    tagged = ["Interstate report: " + p for p in en]
    case("outcome_nothing_dropped", "\n\n".join(tagged) + "\n", "--basis", "the interstate report, please")
    case("outcome_nothing_dropped_fixed_only", big + "\n", "--basis", q_en)
    below = tagged[:9] + ["Unrelated footnote: kubernetes autoscaler latency budget, quarterly. " * 4] + tagged[9:12]
    case("outcome_below_floor", "\n\n".join(below) + "\n", "--basis", "the interstate report, please")

    json_shapes(en, q_en)


def json_shapes(en: list[str], q_en: str) -> None:
    """One folder per JSON shape agents see (real captures from tests/fixtures where we have them)."""
    fixtures = HERE.parent / "fixtures"
    readme = (fixtures / "mcp" / "filesystem_read_text_file_readme.json").read_bytes()
    json_q = "How does toolprune keep JSON valid when it drops array elements, and what does _pruned contain?"
    case("mcp_envelope_text", readme, "--basis", json_q)
    hook_view = json.dumps(json.loads(readme)["result"], ensure_ascii=False)  # the result as a hook sees it
    case("mcp_hook_text", hook_view, "--basis", json_q)
    graph = (fixtures / "mcp" / "memory_read_graph.json").read_bytes()
    case("mcp_text_json", graph, "--basis", "Which paragraphs mention the Interstate or State Route upgrade?")
    items = [{"type": "text", "text": f"result {i}: {p}"} for i, p in enumerate(en)]
    case("mcp_content_items", json.dumps({"content": items, "isError": False}, ensure_ascii=False), "--basis", q_en)
    pip_list = (fixtures / "json" / "pip_list.json").read_bytes()
    case("json_top_array", pip_list, "--basis", "Which version of requests and urllib3 is installed?")
    nodes = [{"number": i, "title": p.split(".")[0][:80], "body": p} for i, p in enumerate(en)]
    graphql = {"data": {"repository": {"name": "routes", "issues": {"totalCount": len(nodes), "nodes": nodes}}}}
    case("json_graphql_nodes", json.dumps(graphql, indent=2, ensure_ascii=False), "--basis", q_en)
    express = (fixtures / "json" / "npm_view_express.json").read_bytes()
    case("json_map_of_records", express, "--basis", "When was express 4.18.2 released, and when was version 5.0.0 published?")
    pods = [
        {"metadata": {"name": f"pod-{k}"}, "containers": [{"name": f"c{k}-{i}", "log": p} for i, p in enumerate(en[k::2])]}
        for k in range(2)
    ]
    case("json_big_elements", json.dumps({"apiVersion": "v1", "kind": "PodList", "items": pods}, ensure_ascii=False), "--basis", q_en)
    records = json.dumps([{"id": i, "text": p} for i, p in enumerate(en)], ensure_ascii=False)
    case("json_big_integers", '{"checksum": ' + "7" * 5000 + ', "items": ' + records + "}", "--basis", q_en)
    half = len(en) // 2
    colliding = {
        "jsonrpc": "2.0",
        "result.tools": [{"name": f"a{i}", "description": p} for i, p in enumerate(en[:half])],
        "result": {"tools": [{"name": f"b{i}", "description": p} for i, p in enumerate(en[half:])]},
    }
    case("json_colliding_keys", json.dumps(colliding, ensure_ascii=False), "--basis", q_en)
    field_cases(q_en)
    structure_cases()
    log_cases()


def field_cases(q_en: str) -> None:
    """Long strings inside records: big elements whose bulk is one readme each (``pip inspect``),
    the same inside an MCP text item with its ``structuredContent`` copy, and a record whose own
    fields answer while none of its containers' units is relevant (``npm view``)."""
    readmes = ["\n\n".join(item["paragraphs"]) for item in EN[:4]]
    packages = [
        {"metadata": {"name": f"pkg-{k}", "version": f"{k}.0.1", "requires_dist": [f"dep-{k} >=1.{k}"], "description": readme},
         "installer": "pip", "requested": k == 0}
        for k, readme in enumerate(readmes)
    ]  # fmt: skip
    case("json_big_element_fields", json.dumps({"version": "1", "installed": packages}, indent=2, ensure_ascii=False),
         "--basis", q_en)  # fmt: skip
    issues = {"issues": [{"number": k, "title": f"issue {k}", "body": "\n\n".join(EN[k]["paragraphs"][-5:] * 2)} for k in range(3)]}
    result = {"content": [{"type": "text", "text": json.dumps(issues, indent=2)}], "structuredContent": issues, "isError": False}
    case("mcp_text_json_fields", json.dumps(result), "--basis", q_en)
    # an MCP server's dict result (fastmcp's): the page one object down, and its structuredContent copy
    page = {"success": True, "path": "notes.md", "operation": "read", "details": {"content": "\n\n".join(EN[0]["paragraphs"])}}
    nested = {"content": [{"type": "text", "text": json.dumps(page)}], "structuredContent": page, "isError": False}
    case("mcp_text_json_nested_wrapper", json.dumps(nested), "--basis", q_en)
    # a whole input whose one long string is three objects down
    api = {"status": "ok", "data": {"page": {"title": "Notes", "content": "\n\n".join(EN[0]["paragraphs"])}}}
    case("json_wrapper_nested", json.dumps(api, indent=2), "--basis", q_en)
    versions = [f"{major}.{minor}.{patch}" for major in range(1, 5) for minor in range(5) for patch in range(4)]
    record = {
        "_id": "routeplanner@4.4.3", "name": "routeplanner", "dist-tags": {"latest": "4.4.3"}, "versions": versions,
        "time": {v: f"20{10 + i // 8}-0{1 + i % 8}-1{i % 10}T10:00:00.000Z" for i, v in enumerate(versions)},
        "description": "Plans road upgrades", "license": "MIT", "engines": {"node": ">=20.18.0"},
    }  # fmt: skip
    case("json_all_below_record", json.dumps(record, indent=2), "--basis", "routeplanner の最新版を CI で動かしたい。Node.js は何以上が必要？")


def structure_cases() -> None:
    """Kinds with structure-aware units: a git log (a commit's header kept with its message),
    rST directives (a directive kept with its body), grep output (grouped by file, never pinned),
    a long Markdown list (split into its items, a kept item with its lead-in)."""
    words = [p.split(". ")[0] for p in paras(EN[:2])]
    commits = []
    for k in range(10):
        subject = "Retry uploads when the socket resets mid-transfer" if k == 6 else words[k % len(words)][:70]
        diff = "\n".join(
            [f"diff --git a/pkg/mod{k}.py b/pkg/mod{k}.py", "index 1111111..2222222 100644",
             f"--- a/pkg/mod{k}.py", f"+++ b/pkg/mod{k}.py", "@@ -1,3 +1,4 @@"]
            + [f"+    # {words[(k + j) % len(words)][:90]}" for j in range(4)]
        )  # fmt: skip
        commits.append(
            f"commit {k:040x}\nAuthor: Dev {k} <dev{k}@example.invalid>\nDate:   Mon Nov {k + 1} 10:00:00 2026 +0000\n\n"
            f"    {subject}\n\n    {words[(k + 3) % len(words)][:90]}\n\n{diff}\n"
        )
    case("text_gitlog", "\n".join(commits), "--basis", "which commit retries uploads when the socket resets?")
    entries = ["Configuration\n=============", words[0]]
    for k in range(24):
        body = "The largest request body in bytes; larger uploads are refused" if k == 9 else words[k % len(words)][:100]
        entries.append(f".. py:data:: SETTING_{k}\n\n    {body}\n    {words[(k + 1) % len(words)][:100]}\n\n    Default: ``{k}``")
    case("text_rst_directives", "\n\n".join(entries) + "\n", "--basis", "which setting refuses large uploads, the request body in bytes?")
    grep = []
    for f in range(16):
        word = "retry_backoff" if f == 5 else "render_frame"
        grep += [f"src/pkg/mod{f}.py:{10 * j + 1}:    {word} = {words[(f + j) % len(words)][:60]!r}" for j in range(5)]
    grep.insert(2, "src/pkg/mod0.py:99:    raise ValueError('error: failed to parse')")
    case("text_grep_by_file", "\n".join(grep) + "\n", "--basis", "where is retry_backoff set?")
    items = [f"*   ``--option-{k}``: {words[k % len(words)][:150]}" for k in range(24)]
    items[8] = "*   ``--debounce-interval=SECONDS``: after a change, wait until nothing else changes for this long, then restart once."
    about = paras(EN[:2])[:2]
    readme = ["# watcher", words[0], "## About", *about, "## Usage", "    $ watcher run --command CMD [options] [directory]", "**Options:**",
              "\n".join(items), "## License", words[1]]  # fmt: skip
    case("text_markdown_long_list", "\n\n".join(readme) + "\n", "--basis", "how do I wait for changes to settle before it restarts?")


def repeated_errors_log() -> str:
    """A GitHub Actions job whose test step prints the same failure for 80 inputs (numbers
    differ) with a stack trace each, then fails."""
    stamp = "2026-12-01T10:00:{:02d}.0000000Z "
    out = [stamp.format(0) + "##[group]Run actions/checkout@v4", stamp.format(0) + "##[endgroup]"]
    out += [stamp.format(1) + f"Receiving objects: {k}% ({k * 12}/1200)" for k in range(0, 100, 2)]
    out += [stamp.format(2) + "##[group]Run npm ci", stamp.format(2) + "##[endgroup]"]
    out += [stamp.format(3) + f"added {k} packages in {k % 7}s" for k in range(120)]
    out += [stamp.format(4) + "##[group]Run npm test", stamp.format(4) + "##[endgroup]", stamp.format(4) + "> parser@1.4.0 test",
            stamp.format(4) + "> node test/run.js"]
    for k in range(80):
        out += [stamp.format(5 + k % 50) + f"Error: cannot parse record {k + 1} at offset {k * 512}: unexpected end of input",
                stamp.format(5 + k % 50) + "    at Parser.read (src/parser.js:88:13)",
                stamp.format(5 + k % 50) + "    at Object.<anonymous> (test/run.js:21:5)"]
    out += [stamp.format(58) + "80 of 80 records failed to parse",
            stamp.format(59) + "##[error]Process completed with exit code 1."]
    return "\n".join(out) + "\n"


def log_cases() -> None:
    log = repeated_errors_log()
    case("log_repeated_errors", log, "--basis", "why did the build fail?", "--max-chars", "6000")
    case("log_repeated_errors_ja", log, "--basis", "why did the build fail?", "--max-chars", "6000", "--lang", "ja")
    case("log_repeated_errors_unbounded", log, "--basis", "why did the build fail?")


if __name__ == "__main__":
    main()
