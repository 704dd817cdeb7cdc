"""SIGINT, SIGTERM and SIGHUP: the filter ends with what it read passed through, exit 128 + N.

``install()`` is the first thing ``main()`` does, so that a signal in the first milliseconds
(while modules are imported, the config file or ``--basis-file`` is read) is an exception like
any other instead of killing the process with the tool's output unwritten. A signal that the
parent set to be ignored (``nohup``, a background job's SIGINT) stays ignored.

The handler raises, except while ``deferred()`` is active: then it only records the signal, and
the code in the block (the stdin read loop, which is woken by ``signal.set_wakeup_fd``) decides
where to stop, so that a chunk already read is never lost between a ``read`` and its ``append``.
``held()`` blocks the signals instead (the output write, imports that must not be interrupted):
one that arrives meanwhile is handled as soon as the block ends.
"""

from __future__ import annotations

import signal

from toolprune.errors import Interrupted

TYPE_CHECKING = False  # typing itself is not imported on the start-up path
if TYPE_CHECKING:
    from collections.abc import Callable
    from types import TracebackType

# The context managers below are small classes: contextlib costs ~2 ms of start-up.

HANDLED = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


class _State:
    installed: set[int] = set()
    deferring = False
    pending: int | None = None


def _handler(signum: int, frame: object) -> None:
    if _State.deferring:
        if _State.pending is None:
            _State.pending = signum
        return
    raise_for(signum)


def raise_for(signum: int) -> None:
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise Interrupted(signum)


def install() -> None:
    """Handle SIGINT, SIGTERM and SIGHUP by raising (KeyboardInterrupt, Interrupted)."""
    for signum in HANDLED:
        try:
            if signal.getsignal(signum) == signal.SIG_IGN:
                continue
            signal.signal(signum, _handler)
            _State.installed.add(signum)
        except (ValueError, OSError):  # not the main thread
            return


def defer_until_run(pending: int | None = None) -> None:
    """Install the handlers in recording mode, for the imports before the filter runs; the CLI's
    ``run`` then raises a recorded signal where it passes the piped input through. ``pending``:
    a signal recorded before this module was imported (``toolprune.entry``)."""
    install()
    _State.deferring = True
    if pending is not None and _State.pending is None:
        _State.pending = pending


def release_early() -> None:
    """End the recording mode of :func:`defer_until_run` and raise the signal it recorded."""
    if _State.deferring:
        _State.deferring = False
        raise_pending()


def installed() -> bool:
    return bool(_State.installed)


class deferred:
    """Record signals instead of raising; ``with deferred() as pending`` gives a function that
    returns the pending one. A signal still pending when the block ends is raised then."""

    def __enter__(self) -> Callable[[], int | None]:
        self.outer = _State.deferring
        _State.deferring = True
        return lambda: _State.pending

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        _State.deferring = self.outer
        if kind is None and not self.outer and _State.pending is not None:
            raise_pending()


def take_pending() -> int | None:
    signum, _State.pending = _State.pending, None
    return signum


def raise_pending() -> None:
    """Raise for the signal recorded while deferring (and forget it), if there is one."""
    signum = take_pending()
    if signum is not None:
        raise_for(signum)


class held:
    """Block the handled signals for the duration of the block (a no-op off the main thread);
    one that arrives meanwhile is handled when the block ends."""

    previous: set[int | signal.Signals] | None

    def __enter__(self) -> None:
        try:
            self.previous = signal.pthread_sigmask(signal.SIG_BLOCK, HANDLED)
        except (AttributeError, ValueError, OSError):
            self.previous = None

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        if self.previous is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, self.previous)


def block_for_exit() -> None:
    """Block the handled signals for good: the outcome is decided, and a late signal must not
    turn it into a death by signal while the interpreter shuts down (it restores the default
    handlers then)."""
    try:
        signal.pthread_sigmask(signal.SIG_BLOCK, HANDLED)
    except (AttributeError, ValueError, OSError):
        pass


def exit_code(exc: BaseException) -> int:
    """128 + the signal's number, as a shell reports a process ended by it."""
    if isinstance(exc, Interrupted):
        return 128 + int(exc.signum)
    return 128 + int(signal.SIGINT)
