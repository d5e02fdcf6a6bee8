"""A tiny progress bar on stderr (no dependency), safe to update from worker threads.

Long equity runs show one: ``progress=None`` (the default of the public functions) turns it on
only when the run is expected to take more than :data:`AUTO_SECONDS` seconds, ``True`` always,
``False`` never. The bar redraws at most every :data:`MIN_INTERVAL` seconds, on one line, and
ends with a newline (``done`` or ``interrupted``).
"""

from __future__ import annotations

import sys
import threading
import time
from typing import TextIO

#: Runs expected to take longer than this (seconds) show a bar when ``progress=None``.
AUTO_SECONDS = 3.0
#: Smallest time between two redraws (seconds).
MIN_INTERVAL = 0.25
_WIDTH = 28


def wanted(progress: bool | None, expected_seconds: float) -> bool:
    """Whether to show a bar: ``progress`` if given, else when the run looks long.

    Examples
    --------
    >>> wanted(None, 0.5), wanted(None, 60.0), wanted(False, 60.0), wanted(True, 0.0)
    (False, True, False, True)
    """
    if progress is None:
        return expected_seconds > AUTO_SECONDS
    if not isinstance(progress, bool):
        raise TypeError(f"progress must be True, False or None, got {progress!r}")
    return progress


def _si(x: float) -> str:
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if x >= scale:
            return f"{x / scale:.1f}{unit}"
    return f"{x:.0f}"


class Progress:
    """Count work done out of ``total`` and draw a bar; a no-op when ``enabled`` is False.

    Parameters
    ----------
    total : int
        Units of work in the whole run.
    desc : str
        Text in front of the bar.
    unit : str
        Name of a unit, shown after the counts.
    enabled : bool
        Draw anything at all.
    stream : file, optional
        Where to draw (default ``sys.stderr``).

    Examples
    --------
    >>> import io
    >>> out = io.StringIO()
    >>> with Progress(10, "demo", enabled=True, stream=out) as bar:
    ...     bar.update(10)
    >>> out.getvalue().rstrip().endswith("done")
    True
    """

    def __init__(self, total: int, desc: str, *, unit: str = "", enabled: bool = True,
                 stream: TextIO | None = None) -> None:
        self.total = max(int(total), 1)
        self.desc = desc
        self.unit = unit
        self.enabled = enabled
        self.stream = stream if stream is not None else sys.stderr
        self.done = 0
        self._lock = threading.Lock()
        self._start = time.perf_counter()
        self._last = 0.0
        self._closed = False

    def update(self, n: int) -> None:
        """Add ``n`` units of finished work (from any thread)."""
        if not self.enabled or self._closed:
            return
        with self._lock:
            self.done += n
            now = time.perf_counter()
            if now - self._last >= MIN_INTERVAL or self.done >= self.total:
                self._last = now
                self._draw(now)

    def _draw(self, now: float, tail: str = "") -> None:
        frac = min(self.done / self.total, 1.0)
        fill = int(frac * _WIDTH)
        elapsed = now - self._start
        eta = f" eta {elapsed / frac - elapsed:.0f}s" if 0 < frac < 1 else ""
        line = (f"\r{self.desc} [{'#' * fill}{'.' * (_WIDTH - fill)}] {frac * 100:5.1f}% "
                f"{_si(self.done)}/{_si(self.total)}{' ' + self.unit if self.unit else ''} "
                f"{elapsed:.1f}s{eta}{tail}")
        try:
            self.stream.write(line)
            self.stream.flush()
        except (OSError, ValueError):  # a closed or broken stream never stops the computation
            self.enabled = False

    def close(self, interrupted: bool = False) -> None:
        """Finish the line, saying ``done`` or ``interrupted``."""
        if not self.enabled or self._closed:
            return
        with self._lock:
            self._closed = True
            self._draw(time.perf_counter(), " interrupted\n" if interrupted else " done\n")

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self.close(interrupted=exc_type is not None)
