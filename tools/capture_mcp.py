"""Capture real MCP tool results over stdio, for the test fixtures.

    python tools/capture_mcp.py SERVER_COMMAND... -- CALLS.json OUT_DIR

Speaks JSON-RPC 2.0 to the server on its stdin/stdout (one message per line): ``initialize``,
``notifications/initialized``, then one ``tools/call`` per entry of CALLS.json
(``[{"name": "out-file-stem", "tool": "...", "arguments": {...}, "save": true}, ...]``) and
writes each response line byte for byte to OUT_DIR/<name>.json. Calls with ``"save": false``
set state up (e.g. create entities) and are not written.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    split = argv.index("--")
    command, (calls_file, out_dir) = argv[:split], argv[split + 1 :]
    calls = json.loads(Path(calls_file).read_text(encoding="utf-8"))
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    next_id = iter(range(1, 10_000))

    def send(message: dict) -> None:
        proc.stdin.write(json.dumps(message).encode() + b"\n")
        proc.stdin.flush()

    def request(method: str, params: dict) -> bytes:
        rid = next(next_id)
        send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        while True:
            line = proc.stdout.readline()
            if not line:
                raise SystemExit(f"server closed its output while waiting for {method}")
            if json.loads(line).get("id") == rid:
                return line.rstrip(b"\n")

    init = request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                  "clientInfo": {"name": "toolprune-capture", "version": "0"}})
    print("server:", json.loads(init)["result"].get("serverInfo"), file=sys.stderr)
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    for call in calls:
        line = request("tools/call", {"name": call["tool"], "arguments": call.get("arguments", {})})
        if call.get("save", True):
            (out / f"{call['name']}.json").write_bytes(line)
            print(f"{call['name']}: {len(line):,} bytes", file=sys.stderr)
    proc.stdin.close()
    proc.wait(timeout=10)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
