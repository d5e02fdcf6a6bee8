"""Progress bars through tqdm (``tqdm.auto``), safe to update from worker threads.

Long equity runs show one: ``progress=None`` (the default of the public functions) turns it on
only when the run is expected to take more than :data:`AUTO_SECONDS` seconds, ``True`` always,
``False`` never. In Jupyter the bar is a widget (``tqdm.auto`` picks ``tqdm.notebook`` when
ipywidgets is there), in a terminal a line on stderr; either ends saying ``done`` or
``interrupted``. tqdm is imported only when a bar is actually drawn, so ``import gpu_eval``
stays light.
"""

from __future__ import annotations

import sys
import threading
import warnings
from typing import TextIO

#: Runs expected to take longer than this (seconds) show a bar when ``progress=None``.
AUTO_SECONDS = 3.0
#: Smallest time between two redraws (seconds).
MIN_INTERVAL = 0.25
# One decimal of percent, the counts with their unit, elapsed and remaining time, then the
# final word (done / interrupted).
_FORMAT = ("{desc} {percentage:5.1f}%|{bar}| {n_fmt}/{total_fmt}{unit} "
           "[{elapsed}<{remaining}]{postfix}")


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


class Progress:
    """Count work done out of ``total`` and show a tqdm bar; a no-op when ``enabled`` is False.

    Parameters
    ----------
    total : int
        Units of work in the whole run.
    desc : str
        Text in front of the bar.
    unit : str
        Name of a unit, shown after the counts.
    enabled : bool
        Draw anything at all (and count: a disabled bar's ``done`` stays 0).
    stream : file, optional
        Where to draw a text bar. Default: ``tqdm.auto``'s choice, a widget in Jupyter and
        ``sys.stderr`` elsewhere.
    shown : int, optional
        The count the bar shows instead of ``total``: the work is counted in units of
        ``total`` (what the engine does, e.g. one board per suit orbit) and shown as the same
        fraction of ``shown`` (what the result reports, e.g. every board), so the bar ends at
        the count the result then prints.

    Examples
    --------
    >>> import io
    >>> out = io.StringIO()
    >>> with Progress(10, "demo", enabled=True, stream=out) as bar:
    ...     bar.update(10)
    >>> out.getvalue().rstrip().endswith("done")
    True
    >>> out = io.StringIO()
    >>> with Progress(4, "demo", unit="boards", stream=out, shown=10) as bar:
    ...     bar.update(4)
    >>> "10/10 boards" in out.getvalue()
    True
    """

    def __init__(self, total: int, desc: str, *, unit: str = "", enabled: bool = True,
                 stream: TextIO | None = None, shown: int | None = None) -> None:
        self.total = max(int(total), 1)
        self.shown = self.total if shown is None else max(int(shown), 1)
        self.desc = desc
        self.unit = unit
        self.enabled = enabled
        self.stream = stream
        self.done = 0
        self._drawn = 0  # units of ``shown`` passed to the bar so far
        self._lock = threading.Lock()
        self._closed = False
        self._bar = self._open() if enabled else None

    def _open(self):
        if self.stream is None:
            with warnings.catch_warnings():
                # In Jupyter without ipywidgets tqdm.auto falls back to a text bar with a
                # warning; the README says to install ipywidgets for the widget.
                warnings.simplefilter("ignore")
                from tqdm.auto import tqdm  # noqa: PLC0415 -- only when a bar is drawn
        else:
            from tqdm import tqdm  # noqa: PLC0415 -- a text bar on the given stream
        try:
            return tqdm(total=self.shown, desc=self.desc, unit=f" {self.unit}" if self.unit else "",
                        unit_scale=self.shown >= 10_000, file=self.stream, mininterval=MIN_INTERVAL,
                        bar_format=_FORMAT, dynamic_ncols=True, leave=True)
        except (OSError, ValueError):  # a closed or broken stream never stops the computation
            self.enabled = False
            return None

    def update(self, n: int) -> None:
        """Add ``n`` units of finished work (from any thread)."""
        if not self.enabled or self._closed:
            return
        with self._lock:
            self.done += n
            # The same fraction of ``shown`` (whole units, never past the end).
            drawn = n if self.shown == self.total else \
                min(self.done * self.shown // self.total, self.shown) - self._drawn
            self._drawn += drawn
            try:
                if drawn:
                    self._bar.update(drawn)
            except (OSError, ValueError):
                self.enabled = False

    def write(self, line: str, file: TextIO | None = None) -> None:
        """Print ``line`` (on ``file``, default stdout) without breaking the bar: the bar is
        cleared, the line printed and the bar redrawn.

        Examples
        --------
        >>> Progress(10, "demo", enabled=False).write("a report line")
        a report line
        """
        file = sys.stdout if file is None else file
        if self.enabled and not self._closed:
            try:
                self._bar.write(line, file=file)
                return
            except (OSError, ValueError):
                self.enabled = False
        print(line, file=file)

    def close(self, interrupted: bool = False) -> None:
        """Finish the bar, saying ``done`` or ``interrupted``."""
        if not self.enabled or self._closed:
            return
        with self._lock:
            self._closed = True
            try:
                self._bar.set_postfix_str("interrupted" if interrupted else "done",
                                          refresh=False)
                self._bar.close()
            except (OSError, ValueError):
                self.enabled = False

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self.close(interrupted=exc_type is not None)
