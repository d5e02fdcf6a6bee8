"""Launches that report as they finish, and that Ctrl-C can stop.

A CUDA engine queues its launches and the host used to learn of them only at the end (a
blocking copy of the totals): a progress bar finished at once, after the work or before it,
and a KeyboardInterrupt waited for every queued launch, since Python handles a signal only
between bytecodes, never inside a blocking CUDA call. :class:`LaunchPacer` records a CUDA event
after each launch and keeps at most ``depth`` launches in flight: before queueing more it waits
for the oldest event by polling it (``Event.done``, a non-blocking query) with short sleeps, and
advances the bar by that launch's units once it has run. A Ctrl-C then lands within one poll
and stops the engine before its next launch: at most ``depth`` launches (each a fraction of a
second) still run on the device. Two in flight keep the device busy while the host waits.

CuPy is passed in by the caller, never imported here.
"""

from __future__ import annotations

import time
from collections import deque
from typing import Any

from gpu_eval.progress import Progress

__all__ = ["LaunchPacer", "DEPTH", "POLL_SECONDS"]

#: Launches in flight at most (the next one queued while the host waits on the oldest).
DEPTH = 2
#: Seconds between two queries of an event (short against a launch, long against a query).
POLL_SECONDS = 2e-4


class LaunchPacer:
    """Events after launches, waited on by polling; the bar advances as launches complete.

    Parameters
    ----------
    cupy : module
        CuPy (or the tests' stand-in).
    bar : Progress, optional
        Advanced by each launch's units once the launch has run.
    depth : int
        Launches in flight at most.

    Examples
    --------
    >>> pacer = LaunchPacer(cupy, bar)  # doctest: +SKIP
    >>> for lo in range(0, n, step):  # doctest: +SKIP
    ...     state.launch("ge_kernel", step, args)
    ...     pacer.launched(step)   # may wait for the launch before last
    >>> pacer.finish()  # doctest: +SKIP
    """

    def __init__(self, cupy: Any, bar: Progress | None = None, depth: int = DEPTH) -> None:
        self._cupy = cupy
        self._bar = bar
        self._depth = max(1, int(depth))
        self._pending: deque = deque()

    def launched(self, units: int) -> None:
        """Record an event after the launch just queued on the current stream (worth
        ``units`` on the bar), then wait until fewer than ``depth`` launches are in flight."""
        event = self._cupy.cuda.Event(block=False, disable_timing=True)
        event.record()
        self._pending.append((event, units))
        self._drain(self._depth - 1)

    def finish(self) -> None:
        """Wait (interruptibly) for every launch recorded so far."""
        self._drain(0)

    def _drain(self, keep: int) -> None:
        while len(self._pending) > keep:
            event, units = self._pending[0]
            while not event.done:
                time.sleep(POLL_SECONDS)  # a KeyboardInterrupt is raised here
            self._pending.popleft()
            if self._bar is not None:
                self._bar.update(units)
