"""Ctrl-C and SIGTERM held for a few statements that must not be cut in two.

Some steps start something and only then record it: `Popen` returns the process of a command
already running, a worker pool's `submit` spawns a worker and only then lists it. An interrupt
raised between the two left what was started unknown to the clean-up, so it outlived the run
(a hung tool, a pool worker) or printed a traceback. `deferred` holds the interrupt until the
block ends, then delivers it where the clean-up knows everything.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator

INTERRUPTS = (signal.SIGINT, signal.SIGTERM)
"""What stops a run (`cli.host` turns SIGTERM into Ctrl-C)."""


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """Ctrl-C or SIGTERM during the block is held, then delivered as the block ends: to its
    handler as it would have been, or its default. Main thread only (the one that may set
    handlers and the one Python runs them in); elsewhere the block runs as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[int] = []

    def hold(signum: int, _frame: object) -> None:
        held.append(signum)

    previous = {sig: signal.signal(sig, hold) for sig in INTERRUPTS}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, signal.SIG_DFL if handler is None else handler)
        for signum in dict.fromkeys(held):
            signal.raise_signal(signum)
