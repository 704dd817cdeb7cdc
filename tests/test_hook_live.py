"""The hooks against the real harnesses, where they are at hand (skipped otherwise):

- ``TOOLPRUNE_TEST_CODEX`` names a Codex binary (checked with 0.171.0, the ``codex`` inside
  ``npm pack @openai/codex@0.171.0-linux-x64``): ``codex exec`` runs against a fake model server
  on 127.0.0.1 that asks for one shell command and records what Codex sends back;
- ``TOOLPRUNE_TEST_GEMINI_CLI`` names Gemini CLI's ``bundle/gemini.js`` (0.61.0): ``gemini -p``
  runs against a fake Gemini API on 127.0.0.1, likewise;
- ``TOOLPRUNE_TEST_CLAUDE`` names a Claude Code binary (2.1.332): ``claude -p`` runs against a
  fake Messages API on 127.0.0.1, likewise;
- ``TOOLPRUNE_TEST_GEMINI_CORE`` names a folder where ``npm install @google/gemini-cli-core``
  (0.61.0) was run: Gemini CLI's own policy engine decides on original and rewritten commands.

Nothing leaves the machine: the model provider is the local server.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from conftest import cli, document, qa_items, restore

CODEX = os.environ.get("TOOLPRUNE_TEST_CODEX")
QUESTION = "Which State Route has been in discussion to upgrade to interstate standards?"


class FakeModel(BaseHTTPRequestHandler):
    """A Responses API that first calls ``exec_command`` with ``shell_command``, then says "done"."""

    requests: list[dict] = []
    shell_command = ""

    def log_message(self, *args) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)))
        self.requests.append(body)
        n = len(self.requests)
        if n == 1:
            item = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "exec_command",
                    "status": "completed", "arguments": json.dumps({"cmd": self.shell_command, "yield_time_ms": 10000})}
        else:
            item = {"type": "message", "id": f"msg_{n}", "role": "assistant", "status": "completed",
                    "content": [{"type": "output_text", "text": "done", "annotations": []}]}
        usage = {"input_tokens": 1, "input_tokens_details": None, "output_tokens": 1,
                 "output_tokens_details": None, "total_tokens": 2}
        events = [{"type": "response.created", "response": {"id": f"resp_{n}"}},
                  {"type": "response.output_item.done", "output_index": 0, "item": item},
                  {"type": "response.completed", "response": {"id": f"resp_{n}", "usage": usage}}]
        data = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.mark.skipif(not CODEX, reason="TOOLPRUNE_TEST_CODEX names no Codex binary")
def test_codex_gives_the_model_the_pruned_output_with_its_exit_status(tmp_path):
    output = document(qa_items("en"))
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.txt").write_text(output)
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeModel)
    FakeModel.requests, FakeModel.shell_command = [], "cat notes.txt; exit 3"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    codex_home = tmp_path / "codex-home"
    codex_home.mkdir()
    (codex_home / "config.toml").write_text(
        'model = "gpt-5.5"\nmodel_provider = "local"\n[model_providers.local]\nname = "local"\n'
        f'base_url = "http://127.0.0.1:{server.server_port}/v1"\nwire_api = "responses"\n'
    )
    path = str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", "")
    env = {**os.environ, "CODEX_HOME": str(codex_home), "OPENAI_API_KEY": "unused", "PATH": path}
    assert cli("hook", "install", "codex", env=env).returncode == 0
    try:
        proc = subprocess.run([CODEX, "exec", "--skip-git-repo-check", "--dangerously-bypass-hook-trust", QUESTION],
                              cwd=work, env=env, stdin=subprocess.DEVNULL, capture_output=True, timeout=180)
    finally:
        server.shutdown()
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    outputs = [i for i in FakeModel.requests[-1]["input"] if i.get("type") == "function_call_output"]
    assert len(outputs) == 1
    seen = outputs[0]["output"]
    prefix = "Process exited with code 3\nOutput:\n"
    assert seen.startswith(prefix + "【toolprune: "), seen[:300]
    assert "Interstate" in seen and len(seen) < 10_000
    # what the model saw restores Codex's own (token-limited) output, which begins like the file
    restored = restore(seen[len(prefix):].encode()).decode()
    assert output[:2000] in restored


GEMINI_CORE = os.environ.get("TOOLPRUNE_TEST_GEMINI_CORE")
"""A folder where ``import '@google/gemini-cli-core/…'`` resolves (``npm install`` of the 0.61.0
package), to check the rewrite against Gemini CLI's own policy engine."""

POLICY_CHECK = r"""
import { PolicyEngine } from '@google/gemini-cli-core/dist/src/policy/policy-engine.js';
import { PolicyDecision, ApprovalMode } from '@google/gemini-cli-core/dist/src/policy/types.js';
import { buildArgsPatterns } from '@google/gemini-cli-core/dist/src/policy/utils.js';
const cases = JSON.parse(process.argv[2]);
const prefix = (decision, p, priority) => buildArgsPatterns(undefined, p).map(
  (a) => ({ toolName: 'run_shell_command', argsPattern: new RegExp(a), decision, priority }));
const out = [];
for (const c of cases) {
  const rules = [{ toolName: 'run_shell_command', decision: PolicyDecision.ASK_USER, priority: 1 }];
  if (c.yolo) rules.push({ toolName: '*', decision: PolicyDecision.ALLOW, priority: 998, modes: [ApprovalMode.YOLO], allowRedirection: true });
  for (const [decision, p] of c.rules) rules.push(...prefix(decision, p, decision === 'deny' ? 999 : 2));
  const engine = new PolicyEngine({ rules, approvalMode: c.yolo ? ApprovalMode.YOLO : ApprovalMode.DEFAULT });
  const decide = async (command) => (await engine.check({ name: 'run_shell_command', args: { command } }, undefined)).decision;
  out.push({ original: await decide(c.command), rewritten: await decide(c.rewritten), naive: await decide('toolprune run -- ' + c.command) });
}
console.log(JSON.stringify(out));
"""
STRICTNESS = {"allow": 0, "ask_user": 1, "deny": 2}


@pytest.mark.skipif(not GEMINI_CORE, reason="TOOLPRUNE_TEST_GEMINI_CORE names no gemini-cli-core install")
def test_gemini_policy_never_allows_the_rewrite_more_than_the_original(tmp_path):
    from toolprune.cli.hooks.gemini import wrap

    settings = [
        ([["deny", "rm"], ["allow", "toolprune"]], "rm -rf build", False),
        ([["allow", "toolprune"]], "curl -s http://example.com/install.sh", False),
        ([["allow", "npm test"]], "npm test", False),
        ([["allow", "npm test"], ["allow", "toolprune"], ["allow", "set"]], "npm test", False),
        ([], "ls -la", False),  # known safe: allowed without a rule
        ([], "rm -rf build", False),  # dangerous: always asks
        ([["deny", "rm"]], "rm -rf build", True),
        ([], "npm test", True),
        ([["deny", "grep"]], "grep -rn 'State Route' .", False),  # double-quoted: still unwrapped and denied
        ([["allow", "toolprune"]], "grep -rn 'State Route' .", False),
    ]
    cases = [{"rules": r, "command": c, "yolo": y, "rewritten": wrap(c, "/home/u/.local/state/toolprune/sessions/s1")}
             for r, c, y in settings]
    script = Path(GEMINI_CORE) / "toolprune-policy-check.mjs"
    script.write_text(POLICY_CHECK)
    proc = subprocess.run(["node", str(script), json.dumps(cases)], capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    results = json.loads(proc.stdout.decode().strip().splitlines()[-1])
    for case, result in zip(cases, results):
        assert STRICTNESS[result["rewritten"]] >= STRICTNESS[result["original"]], (case, result)
    # the plain `toolprune run -- CMD` form would have let a denied and an asked command through
    assert results[0] == {"original": "deny", "rewritten": "deny", "naive": "allow"}
    assert results[1] == {"original": "ask_user", "rewritten": "ask_user", "naive": "allow"}
    assert results[7] == {"original": "allow", "rewritten": "allow", "naive": "allow"}  # YOLO keeps running


GEMINI_CLI = os.environ.get("TOOLPRUNE_TEST_GEMINI_CLI")
"""Gemini CLI's ``bundle/gemini.js`` (from ``npm pack @google/gemini-cli@0.61.0``), run with node."""


class FakeGemini(BaseHTTPRequestHandler):
    """A Gemini API that first calls ``run_shell_command`` with ``shell_command``, then says "done"."""

    requests: list[dict] = []
    shell_command = ""

    def log_message(self, *args) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)))
        self.requests.append({"path": self.path, "body": body})
        answered = any("functionResponse" in p for c in body.get("contents", []) for p in c.get("parts", []))
        if "streamGenerateContent" in self.path and not answered:
            parts = [{"functionCall": {"name": "run_shell_command",
                                       "args": {"command": self.shell_command, "description": "Show the notes"}}}]
        else:
            parts = [{"text": "done"}]
        chunk = {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
                 "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2}}
        sse = "alt=sse" in self.path
        data = (f"data: {json.dumps(chunk)}\n\n" if sse else json.dumps(chunk)).encode()
        self.send_response(200)
        self.send_header("content-type", "text/event-stream" if sse else "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.mark.skipif(not GEMINI_CLI, reason="TOOLPRUNE_TEST_GEMINI_CLI names no gemini.js")
def test_gemini_cli_gives_the_model_the_pruned_output_with_its_exit_code(tmp_path):
    output = document(qa_items("en"))
    work, home = tmp_path / "work", tmp_path / "home"
    work.mkdir()
    (home / ".gemini").mkdir(parents=True)
    (work / "notes.txt").write_text(output)
    (home / ".gemini" / "settings.json").write_text(json.dumps({
        "security": {"auth": {"selectedType": "gemini-api-key"}}, "general": {"disableAutoUpdate": True},
        "telemetry": {"enabled": False}, "privacy": {"usageStatisticsEnabled": False}}))
    (home / ".gemini" / "trustedFolders.json").write_text(json.dumps({str(work): "TRUST_FOLDER"}))
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeGemini)
    FakeGemini.requests, FakeGemini.shell_command = [], "cat notes.txt; exit 3"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    path = str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", "")
    env = {**os.environ, "HOME": str(home), "PATH": path, "GEMINI_API_KEY": "unused",
           "GOOGLE_GEMINI_BASE_URL": f"http://127.0.0.1:{server.server_port}"}
    assert cli("hook", "install", "gemini", env=env).returncode == 0
    try:
        proc = subprocess.run(["node", GEMINI_CLI, "-p", QUESTION, "--yolo", "-m", "gemini-2.5-flash"],
                              cwd=work, env=env, stdin=subprocess.DEVNULL, capture_output=True, timeout=180)
    finally:
        server.shutdown()
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    responses = [p["functionResponse"]["response"]["output"] for r in FakeGemini.requests
                 for c in r["body"].get("contents", []) for p in c.get("parts", []) if "functionResponse" in p]
    seen = responses[-1]
    assert "Output: 【toolprune: " in seen and "Interstate" in seen and "\nExit Code: 3\n" in seen
    assert len(seen) < len(output) // 5
    pruned = seen[seen.index("【"):seen.index("\nExit Code: 3\n")]
    assert restore(pruned.encode()).decode() == output


CLAUDE = os.environ.get("TOOLPRUNE_TEST_CLAUDE")
"""A Claude Code binary (checked with 2.1.332: ``claude`` inside ``npm pack
@anthropic-ai/claude-code-linux-x64@2.1.332``)."""


class FakeAnthropic(BaseHTTPRequestHandler):
    """A Messages API that first calls ``Bash`` with ``shell_command``, then says "done"."""

    requests: list[dict] = []
    shell_command = ""

    def log_message(self, *args) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)))
        self.requests.append(body)
        answered = any(isinstance(m.get("content"), list) and any(b.get("type") == "tool_result" for b in m["content"])
                       for m in body.get("messages", []))
        if any(t.get("name") == "Bash" for t in body.get("tools", [])) and not answered:
            block = {"type": "tool_use", "id": "toolu_01", "name": "Bash", "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps({"command": self.shell_command, "description": "Show the notes"})}
            stop = "tool_use"
        else:
            block, delta, stop = {"type": "text", "text": ""}, {"type": "text_delta", "text": "done"}, "end_turn"
        message = {"id": "msg_1", "type": "message", "role": "assistant", "model": body.get("model"), "content": [],
                   "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}
        events = [("message_start", {"type": "message_start", "message": message}),
                  ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}),
                  ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
                  ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                  ("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                     "usage": {"output_tokens": 1}}),
                  ("message_stop", {"type": "message_stop"})]
        data = "".join(f"event: {name}\ndata: {json.dumps(e)}\n\n" for name, e in events).encode()
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.mark.skipif(not CLAUDE, reason="TOOLPRUNE_TEST_CLAUDE names no Claude Code binary")
def test_claude_code_gives_the_model_the_whole_output_pruned(tmp_path):
    output = document(qa_items("en"))
    work, home = tmp_path / "work", tmp_path / "home"
    work.mkdir()
    home.mkdir()
    (work / "notes.txt").write_text(output)
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeAnthropic)
    FakeAnthropic.requests, FakeAnthropic.shell_command = [], "cat notes.txt"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    path = str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", "")
    env = {**os.environ, "HOME": str(home), "PATH": path, "ANTHROPIC_API_KEY": "unused",
           "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{server.server_port}", "DISABLE_TELEMETRY": "1",
           "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1"}
    assert cli("hook", "install", "claude-code", env=env).returncode == 0
    try:
        proc = subprocess.run([CLAUDE, "-p", QUESTION, "--allowedTools", "Bash"], cwd=work, env=env,
                              stdin=subprocess.DEVNULL, capture_output=True, timeout=180)
    finally:
        server.shutdown()
    assert proc.returncode == 0, (proc.stdout + proc.stderr).decode()[-2000:]
    results = [b for m in FakeAnthropic.requests[-1]["messages"] if isinstance(m.get("content"), list)
               for b in m["content"] if b.get("type") == "tool_result"]
    seen = results[-1]["content"]
    seen = seen if isinstance(seen, str) else "".join(b.get("text", "") for b in seen)
    # the whole 75,000-char output (over the inline limit, so persisted by Claude Code) came back pruned
    assert seen.startswith("【toolprune: ") and "Interstate" in seen and len(seen) < len(output) // 5
    pruned = seen.split("\n\n<system-reminder>")[0]
    assert restore(pruned.encode()).decode() == output
