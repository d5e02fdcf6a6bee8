"""Every host library the suite loads, built before the test workers start.

On a fresh machine (CI) nothing is in the host-build cache, and the first test of each module
that needs a library compiles it (~45 s of g++ for all of them) while any other worker that
needs the same one waits on its lock, idle. Building them all first, as many at a time as there
are workers and the largest first, keeps both cores busy and leaves no test waiting; with a warm
cache it is a few cache lookups.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

from gpu_eval.cuda import manifest, nvrtc

from emulation import hostbuild, kernel_build

__all__ = ["build_all"]


def _jobs() -> list[tuple[str, object]]:
    """``(name, build)`` of every library, the largest module sources first (g++'s time)."""
    def size(m: manifest.Module) -> int:
        return sum((nvrtc.kernel_dir() / f).stat().st_size for f in m.files)

    mods = sorted(manifest.MODULES.values(), key=size, reverse=True)
    jobs: list[tuple[str, object]] = [(m.name, lambda n=m.name: kernel_build.build(n))
                                      for m in mods]
    jobs.insert(len(jobs) // 2, ("evaluator host library", hostbuild.build))
    return jobs


def build_all(workers: int) -> tuple[int, float]:
    """Build (or find cached) every library, ``workers`` compiles at a time.

    Returns ``(libraries, seconds)``; ``(0, seconds)`` where there is no usable compiler
    (the tests that need one skip with the reason themselves).

    Examples
    --------
    >>> n, seconds = build_all(2)   # doctest: +SKIP
    """
    t0 = time.perf_counter()
    try:
        hostbuild.find_compiler()
    except hostbuild.HostBuildUnavailableError:
        return 0, time.perf_counter() - t0
    jobs = _jobs()
    with ThreadPoolExecutor(max(1, workers)) as pool:
        futures = [pool.submit(build) for _, build in jobs]
        built = 0
        for f in futures:
            try:
                f.result()
                built += 1
            except hostbuild.HostBuildUnavailableError:
                pass  # the test that needs it reports why
    return built, time.perf_counter() - t0
