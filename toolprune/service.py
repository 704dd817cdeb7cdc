"""One prune with its side effects: plan (``core``), save the records to the spill store (written
and fsynced before the pruned bytes exist, so every id in the output resolves), render, and add
the envelope. Called by the CLI and by every agent hook. Any exception becomes an exact
passthrough with a one-line note."""

from __future__ import annotations

import gc
import time

from toolprune.core.models import Options, Result, Stats
from toolprune.core.pipeline import plan
from toolprune.core.scorer import Scorer
from toolprune.spill import SpillStore


def run(data: bytes, options: Options, scorer: Scorer, store: SpillStore) -> Result:
    """Plan, spill, render. Never raises an ordinary exception: failures pass the input through.

    The cyclic garbage collector is paused meanwhile: a prune makes some 10^5 objects (units,
    spans, matches) and no reference cycles, and on an 8 MB log the collector's hundred-odd
    passes over them found nothing to free and cost ~15 ms. Memory is freed by reference
    counting as before; the collector runs again afterwards."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _run_all(data, options, scorer, store)
    finally:
        if collecting:
            gc.enable()


def _run_all(data: bytes, options: Options, scorer: Scorer, store: SpillStore) -> Result:
    started = time.monotonic()
    try:
        if options.envelope and options.budgeted():
            from toolprune import envelope

            options.envelope_room = envelope.room(options.label, data, store)
        result = _run(data, options, scorer, store)
        if options.envelope:
            from toolprune import envelope

            first_id = result.record_id.split(",")[0] if result.record_id else None
            record_id, full = envelope.spill_full(store, data, first_id)
            head = envelope.header(
                label=options.label, data=data, outcome=result.outcome, record_id=record_id, full_output=full
            )
            result.output = head + result.output
            result.stats.id = result.stats.id or record_id
            return _finish(result, started, len(head))
        return _finish(result, started)
    except Exception as exc:  # noqa: BLE001 - fail open: any error → exact passthrough
        stats = Stats(outcome="error", raw_bytes=len(data))
        reason = getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}"
        output = data
        if options.envelope:  # still a header first, with nothing kept on disk to name
            from toolprune import envelope

            output = envelope.unkept(options.label, data, "error")
        return _finish(Result("error", output, stats, note=reason, error=exc), started, len(output) - len(data))


def _run(data: bytes, options: Options, scorer: Scorer, store: SpillStore) -> Result:
    p = plan(data, options, scorer)
    stats = p.stats
    if p.outcome != "ok":
        note = None
        if p.outcome == "timeout":
            note = f"scoring did not finish within {options.timeout:g} s"
        elif p.outcome == "failed":
            note = "every scoring call failed" + (f": {p.failure}" if p.failure else "")
        return Result(p.outcome, data, stats, note=note, plan=p)
    ids = [store.save(record) for record in p.records(data)]
    output, chars = p.output(ids, options.omitted_command)
    record_id = ",".join(ids)
    stats.id = record_id
    stats.kept_bytes = len(output)
    stats.kept_chars = chars
    stats.ratio = 1.0 - stats.kept_chars / stats.raw_chars if stats.raw_chars else None
    return Result("ok", output, stats, record_id=record_id, plan=p)


def _finish(result: Result, started: float, header: int = 0) -> Result:
    """Time and outcome in the stats; for a passthrough, its size (``header``: the bytes of an
    envelope's header line before the body, which the counts leave out)."""
    stats = result.stats
    stats.outcome = result.outcome
    stats.ms = round((time.monotonic() - started) * 1000)
    if result.output is not None and result.outcome != "ok":
        body = len(result.output) - header
        stats.kept_bytes = body
        stats.kept_chars = stats.raw_chars if body == stats.raw_bytes else None
    return result
