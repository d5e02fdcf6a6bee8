"""The stand-in's streams and events, modelling stream order so that a missing wait fails a test
here instead of racing on a GPU.

- the null stream runs its work at once; a ``Stream()`` of our own *queues* its launches and
  async copies, which run only when the stream is synchronised, when another stream waits on
  an event recorded on it, or at ``deviceSynchronize``;
- every device buffer remembers the stream and position of its last writer; a launch or copy
  reading a buffer written on another stream that it is not ordered after (through
  ``wait_event`` on an event recorded after the write, or a host synchronisation of the
  writer before the launch was queued) reads it as poison (bytes 0x2A), as a real device
  may; :data:`races` lists each such read;
- a stream belongs to the device current when it was made, and is current per device and
  per host thread (as CuPy's current stream is); the streams' bookkeeping is serialised by
  one lock, so work submitted from several threads (a Dask worker's task threads) runs in
  submission order and an event recorded after it completes.
"""

from __future__ import annotations

import threading
import time
import weakref

import numpy as np

from emulation.fake_cupy import devices

__all__ = ["POISON", "races", "Stream", "Event", "ExternalStream", "current_stream",
           "get_current_stream", "host_sync", "device_synchronize", "wrote", "fresh",
           "eager", "writer"]

POISON = 0x2A  # what a buffer reads as before its writer ran (in range for every kernel)
races: list[str] = []  # one line per poisoned read (a missing stream-order wait)


def _root(a: np.ndarray) -> np.ndarray:
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


_WRITERS: dict[int, tuple] = {}  # id(root buffer) -> (weakref to it, stream, position)


def wrote(a, stream=None, seq=None) -> None:
    """Record that ``stream`` (default: the current one, now) wrote buffer ``a``."""
    stream = stream or current_stream()
    with _LOCK:
        if seq is None:
            stream._run_to(stream.seq)  # an eager op comes after everything queued before it
            stream.seq += 1
            stream.done = seq = stream.seq
        r = _root(np.asarray(a))
        _WRITERS[id(r)] = (weakref.ref(r), stream, seq)


def fresh(a) -> None:
    """A new allocation: no writer (stale entries of freed memory must not match)."""
    _WRITERS.pop(id(_root(np.asarray(a))), None)


def writer(a):
    """``(stream, position)`` of the last write of ``a``'s buffer, or None."""
    r = _root(np.asarray(a))
    entry = _WRITERS.get(id(r))
    if entry is None or entry[0]() is not r:
        return None
    return entry[1], entry[2]


_HOST: dict = {}  # stream -> position the host has seen completed (synchronisations)
_STREAMS: weakref.WeakSet = weakref.WeakSet()
_LOCAL = threading.local()  # per host thread: device -> its current stream (None: the null one)
#: Serialises the streams' bookkeeping (positions, queues, writers) across host threads.
_LOCK = threading.RLock()


def _current() -> dict[int, Stream | None]:
    """This thread's current streams, by device."""
    cur = getattr(_LOCAL, "streams", None)
    if cur is None:
        cur = _LOCAL.streams = {}
    return cur


class Stream:
    null: Stream

    def __init__(self, non_blocking=False, *, _null=False):
        self.non_blocking = non_blocking
        self.eager = _null
        self.device_id = None if _null else devices.current_id()
        self.synchronized = 0
        self.seq = 0    # operations submitted
        self.done = 0   # operations run
        self._queue: list = []
        self._waits: dict = {}  # stream -> position waited on through an event
        self._prev: list = []
        _STREAMS.add(self)

    def __enter__(self):
        dev = devices.current_id()
        if self.device_id is not None and self.device_id != dev:
            raise RuntimeError(f"the stand-in CuPy: a stream of device {self.device_id} made "
                               f"current on device {dev}")
        cur = _current()
        self._prev.append((dev, cur.get(dev)))  # a stack: ExternalStream may re-enter
        cur[dev] = None if self.eager else self
        return self

    def __exit__(self, *exc):
        dev, prev = self._prev.pop()
        _current()[dev] = prev
        return False

    def __hash__(self):
        return id(self)

    def synchronize(self):
        with _LOCK:
            self.synchronized += 1
            self._run_to(self.seq)
            _HOST[self] = self.seq

    def record(self, event=None):
        event = event or Event()
        event.record(self)
        return event

    def wait_event(self, event):
        if event.stream is None or event.stream is self:
            return
        event.stream._run_to(event.seq)
        self._waits[event.stream] = max(self._waits.get(event.stream, 0), event.seq)

    @property
    def ptr(self):
        return 0 if self.eager else id(self)

    def _clock(self) -> dict:
        clock = dict(_HOST)
        for s, v in self._waits.items():
            clock[s] = max(clock.get(s, 0), v)
        if not self.non_blocking and self is not Stream.null:  # legacy: waits on the null
            clock[Stream.null] = Stream.null.seq
        return clock

    def submit(self, fn, reads, writes) -> None:
        """Queue (or, on the null stream, run) ``fn(poisoned)``: ``poisoned`` maps the index
        of each read buffer not ordered after its writer to a poison copy."""
        with _LOCK:
            self.seq += 1
            op = (self.seq, self._clock(), fn, tuple(reads))
            for w in writes:
                wrote(w, self, self.seq)
            if self.eager:
                self._run_to(self.seq - 1)
                self._execute(op)
            else:
                self._queue.append(op)

    def _run_to(self, seq: int) -> None:
        with _LOCK:
            while self._queue and self._queue[0][0] <= seq:
                self._execute(self._queue.pop(0))

    def _execute(self, op) -> None:
        seq, clock, fn, reads = op
        poisoned = {}
        for i, a in enumerate(reads):
            w = writer(a)
            if w is not None and w[0] is not self and clock.get(w[0], 0) < w[1]:
                races.append(f"stream {id(self):#x} op {seq} reads a buffer written by "
                             f"stream {id(w[0]):#x} op {w[1]} without waiting for it")
                p = np.empty_like(np.asarray(a).view(np.ndarray))
                p.view(np.uint8).reshape(-1)[...] = POISON
                poisoned[i] = p
        fn(poisoned)
        self.done = max(self.done, seq)


Stream.null = Stream(_null=True)


def ExternalStream(ptr, device_id=-1) -> Stream:
    """CuPy's handle on a stream made elsewhere: here the stand-in stream with that pointer
    (0, 1 and 2, the legacy and per-thread default streams, are the null stream)."""
    if int(ptr) in (0, 1, 2):
        return Stream.null
    for stream in list(_STREAMS):
        if stream.ptr == int(ptr):
            return stream
    raise ValueError(f"the stand-in CuPy has no stream {int(ptr):#x}")


def current_stream() -> Stream:
    """The current device's current stream."""
    return _current().get(devices.current_id()) or Stream.null


def get_current_stream(device_id=None) -> Stream:
    if device_id is None:
        return current_stream()
    return _current().get(int(device_id)) or Stream.null


def host_sync(stream: Stream | None = None) -> None:
    """A blocking read back: the stream's work so far has run and the host knows it."""
    (stream or current_stream()).synchronize()


def device_synchronize() -> None:
    with _LOCK:
        for s in list(_STREAMS):
            s._run_to(s.seq)
            _HOST[s] = s.seq


def eager() -> None:
    """An operation run now on the current stream comes after the work queued there."""
    s = current_stream()
    s._run_to(s.seq)


class Event:
    def __init__(self, block=False, disable_timing=False, interprocess=False):
        self.stream, self.seq, self.host_time = None, 0, 0.0

    def record(self, stream=None):
        self.stream = stream or current_stream()
        with _LOCK:
            self.seq = self.stream.seq
        self.host_time = time.perf_counter()  # what get_elapsed_time reads: host seconds

    def synchronize(self):
        if self.stream is not None:
            with _LOCK:
                self.stream._run_to(self.seq)
                _HOST[self.stream] = max(_HOST.get(self.stream, 0), self.seq)

    @property
    def done(self):
        # A query is where the stand-in's device makes progress: the work up to the event runs
        # now, and the host has seen it complete (as cudaEventQuery's success tells it).
        if self.stream is not None:
            self.synchronize()
        return self.stream is None or self.stream.done >= self.seq


def get_elapsed_time(start: Event, stop: Event) -> float:
    """``cupy.cuda.get_elapsed_time``: milliseconds between the two records on the host's
    clock (the stand-in runs work when the host waits, so this times the calls, not a
    device)."""
    return (stop.host_time - start.host_time) * 1e3
