"""Scoring: every unit eligible for scoring is sent to the scorer in fixed batches, under a
deadline, concurrently for network-bound scorers (the scorer contract is ``core/scorer.py``)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from toolprune.core.models import Options, Stats
from toolprune.core.plans import Plan
from toolprune.core.scorer import Scorer, ScorerError, ScoringRequest, ScoringTimeout, UnitTexts

MAX_IN_FLIGHT = 4
"""Batches a concurrent scorer has in flight at once."""


def batches(units: Sequence[str], max_units: int, max_chars: int) -> list[list[int]]:
    """Fixed batches from the start: at most ``max_units`` units and ``max_chars`` characters,
    cut before a unit that would exceed either (a unit larger than ``max_chars`` goes alone)."""
    out: list[list[int]] = []
    current: list[int] = []
    size = 0
    for i, chars in enumerate(units.sizes() if isinstance(units, UnitTexts) else map(len, units)):
        if current and (len(current) >= max_units or size + chars > max_chars):
            out.append(current)
            current, size = [], 0
        current.append(i)
        size += chars
    if current:
        out.append(current)
    return out


TICK = 0.25
"""Seconds between progress reports while waiting for concurrent batches."""


class Scoring:
    """Scores per unit (None: not scored, kept), the number of batches, how many failed, and
    the message of the first failed batch (in document order)."""

    __slots__ = ("scores", "batches", "failed", "error")

    def __init__(self, units: int, batches: int) -> None:
        self.scores: list[float | None] = [None] * units
        self.batches = batches
        self.failed = 0
        self.error: str | None = None


def score_all(
    scorer: Scorer,
    request: ScoringRequest,
    deadline: float,
    progress: Callable[[int, int], None] | None = None,
) -> Scoring:
    """Score every unit of ``request`` in fixed batches.

    Raises ScoringTimeout when the deadline passes; partial results are discarded. Concurrent
    scorers run up to MAX_IN_FLIGHT batches at once on daemon threads, so that a deadline or an
    interrupt never waits for a request still in flight; results are stored by batch, whatever
    order they complete in.
    """
    plan = batches(request.units, scorer.max_batch_units, scorer.max_batch_chars)
    request.deadline = deadline
    out = Scoring(len(request.units), len(plan))
    errors: dict[int, str] = {}

    def settle(k: int, values: Sequence[float | None] | None, exc: BaseException | None) -> None:
        if exc is None:
            try:
                store(plan[k], values)
                return
            except ScorerError as bad:
                exc = bad
        if not isinstance(exc, ScorerError):
            raise exc
        out.failed += 1
        errors[k] = getattr(exc, "message", None) or str(exc) or type(exc).__name__
        out.error = errors[min(errors)]

    def store(batch: list[int], values: Sequence[float | None] | None) -> None:
        if values is None or len(values) != len(batch):
            raise ScorerError(f"scorer returned {0 if values is None else len(values)} scores for {len(batch)} units")
        for i, value in zip(batch, values):
            if value is not None:
                value = float(value)
                if not 0.0 <= value <= 1.0:  # NaN fails both comparisons
                    raise ScorerError(f"scorer returned {value!r}, outside [0, 1]")
            out.scores[i] = value

    if progress is not None:
        progress(0, len(plan))  # scoring starts: the reporter's clock starts here
    if not scorer.concurrent:
        for k, batch in enumerate(plan):
            if time.monotonic() > deadline:
                raise ScoringTimeout()
            try:
                settle(k, scorer.score(request, batch), None)
            except ScorerError as failure:
                settle(k, None, failure)
            if progress is not None:
                progress(k + 1, len(plan))
        if time.monotonic() > deadline:
            raise ScoringTimeout()
        return out

    import queue
    import threading

    results: queue.SimpleQueue[tuple[int, Sequence[float | None] | None, BaseException | None]] = queue.SimpleQueue()
    order = iter(range(len(plan)))
    lock = threading.Lock()
    stop = threading.Event()

    def worker() -> None:
        while not stop.is_set():
            with lock:
                k = next(order, None)
            if k is None:
                return
            try:
                results.put((k, scorer.score(request, plan[k]), None))
            except Exception as exc:  # noqa: BLE001 - handed to the main thread, which decides
                results.put((k, None, exc))

    for _ in range(min(MAX_IN_FLIGHT, len(plan))):
        threading.Thread(target=worker, name="toolprune-scorer", daemon=True).start()
    try:
        done = 0
        while done < len(plan):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise ScoringTimeout()
            try:
                k, values, exc = results.get(timeout=min(remaining, TICK))
            except queue.Empty:
                if progress is not None:
                    progress(done, len(plan))
                continue
            done += 1
            settle(k, values, exc)
            if progress is not None:
                progress(done, len(plan))
        return out
    finally:
        stop.set()


def score(
    result: Plan, basis: str, texts: Sequence[str], scorer: Scorer, options: Options, prose: bool = True
) -> list[float | None] | None:
    """Score ``texts`` (``prose``: paragraphs of plain text, see :class:`ScoringRequest`); on a
    timeout or when every call failed, set the outcome and return None."""
    request = ScoringRequest(basis=basis, units=texts, prose=prose)
    try:
        scoring = score_all(scorer, request, time.monotonic() + options.timeout, options.progress)
    except ScoringTimeout:
        result.outcome = "timeout"
        usage(result.stats, scorer, None, result)
        return None
    usage(result.stats, scorer, scoring.batches, result)
    scorer.close()
    if scoring.failed == scoring.batches:
        result.outcome = "failed"
        result.failure = scoring.error
        return None
    return scoring.scores


def usage(stats: Stats, scorer: Scorer, batches: int | None, plan: Plan | None = None) -> None:
    """The scorer's own account of the calls for the ``-v`` line: requests sent, tokens, the
    model's version, or that it fell back (``scorer``, with a one-line ``notice`` for stderr)."""
    usage = scorer.usage()
    if usage is None:
        stats.calls = batches
        return
    if "scorer" in usage:
        stats.scorer = usage["scorer"]
        if plan is not None:
            plan.notice = usage.get("notice")
    if "calls" not in usage and "tokens" not in usage:
        stats.calls = batches
        return
    stats.calls, stats.tokens = usage.get("calls"), usage.get("tokens")
    stats.model, stats.questions = usage.get("model"), usage.get("questions")
