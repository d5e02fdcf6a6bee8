"""``gpu-eval compile``: compile every CUDA module into the kernel cache, ahead of the first call.

Each module is compiled by NVRTC for an architecture (the visible devices', or those named
with ``--arch``, which needs no GPU) and stored where every later process loads it
(:mod:`gpu_eval.cuda.kernel_cache`). The modules compile in parallel worker processes, the
slowest first, under a progress bar. NVRTC lets go of Python's lock while it compiles, so
threads would overlap as well; processes are used because nothing here relies on NVRTC being
safe to call from several threads at once, and a worker that NVRTC brings down cannot take
the command with it (benchmarks/bench_compile.py measures serial, threads and processes).
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass

__all__ = ["add_parser", "run", "compile_modules", "Compiled", "device_archs", "SLOWEST_FIRST"]

#: Modules by cold compile time, slowest first (benchmarks/RESULTS.md, "Compiled kernels"):
#: started first, they do not end the run alone on one core while the others idle.
SLOWEST_FIRST = ("equity", "deals", "games", "batch", "evaluator", "variants")


@dataclass(frozen=True)
class Compiled:
    """One module for one architecture: where its binary is, and how it got there."""

    module: str
    arch: str
    path: str
    seconds: float
    compiled: bool  # False: it was in the cache already


def add_parser(sub, count) -> None:
    """Add the ``compile`` subcommand to the ``gpu-eval`` subparsers ``sub`` (``count``: the
    command line's whole-number type).

    Examples
    --------
    >>> import argparse
    >>> sub = argparse.ArgumentParser(prog="gpu-eval").add_subparsers(dest="command")
    >>> add_parser(sub, int)
    >>> sub.choices["compile"].parse_args(["--arch", "sm_90", "--jobs", "2"]).jobs
    2
    """
    p = sub.add_parser("compile", help="compile the CUDA kernels into the cache ahead of use",
                       description="Compile every CUDA module into the kernel cache ahead of "
                                   "the first call: for the visible devices, or with --arch "
                                   "for an architecture (no GPU needed), in parallel "
                                   "processes.")
    p.add_argument("--arch", action="append", default=None,
                   help="architecture to compile for: sm_90 (H100, H200), sm_80 (A100), ...; "
                        "repeatable; default: the visible devices' (then no GPU is needed)")
    p.add_argument("--module", action="append", default=None, dest="modules",
                   help="only this module (repeatable; see --list)")
    p.add_argument("--jobs", type=count, default=None,
                   help="worker processes (default: one per CPU, at most one per module)")
    p.add_argument("--force", action="store_true", help="compile again what is cached")
    p.add_argument("--list", action="store_true", help="list the modules and exit")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def _normalise_arch(text: str) -> str:
    """``"90"``, ``"9.0"``, ``"sm_90"`` -> ``"sm_90"``; ``"compute_90"`` stays (PTX).

    Examples
    --------
    >>> [_normalise_arch(a) for a in ("90", "8.6", "SM_80", "compute_90")]
    ['sm_90', 'sm_86', 'sm_80', 'compute_90']
    """
    t = text.strip().lower()
    if t.startswith(("sm_", "compute_")):
        digits = t.split("_", 1)[1]
        prefix = t.split("_", 1)[0]
    else:
        digits, prefix = t.replace(".", ""), "sm"
    if not digits.isdigit():
        raise ValueError(f"not an architecture: {text!r} (examples: sm_90, sm_80, 90)")
    return f"{prefix}_{int(digits)}"


def device_archs() -> tuple[list[str], str]:
    """The architectures of the visible devices (one each, distinct), and why none when
    there is none.

    Examples
    --------
    >>> archs, why = device_archs()
    >>> bool(archs) or bool(why)
    True
    """
    from gpu_eval.cuda import availability, kernel_cache

    ok, why = availability.cuda_available()
    if not ok:
        return [], why
    cupy = availability.import_cupy()
    count = cupy.cuda.runtime.getDeviceCount()
    return sorted({kernel_cache.device_arch(cupy, d) for d in range(count)}), ""


def _compile_one(module: str, code: str, arch: str, force: bool) -> Compiled:
    """Worker: one module for one architecture (compiled, or found in the cache)."""
    from gpu_eval.cuda import kernel_cache, nvrtc

    nvrtc.load_nvrtc()  # importing CuPy is not this module's compile time
    t = time.perf_counter()
    path = None if force else kernel_cache.lookup(code, arch)
    compiled = path is None
    if compiled:
        path = kernel_cache.build(code, arch)
    return Compiled(module, arch, str(path), time.perf_counter() - t, compiled)


def _worker_context():
    """Forked workers where the platform has fork: they inherit CuPy's NVRTC binding, imported
    here first (a spawned worker spends seconds importing CuPy again), and they call NVRTC
    alone, never the CUDA driver, so a CUDA context of this process does not matter to them."""
    import multiprocessing

    from gpu_eval.cuda import nvrtc

    nvrtc.load_nvrtc()
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


def compile_modules(sources: dict[str, str], archs: list[str], jobs: int | None = None,
                    force: bool = False, progress: bool = True) -> list[Compiled]:
    """Compile ``sources`` (module name -> code) for each of ``archs`` into the kernel cache,
    in ``jobs`` worker processes (one job: in this process), the slowest modules first.

    Returns
    -------
    list of Compiled
        In the order the modules finished.

    Raises
    ------
    RuntimeError
        If a module does not compile (NVRTC's log in the message).

    Examples
    --------
    >>> from gpu_eval.cuda.resources import module_sources
    >>> done = compile_modules({"lows": module_sources()["lows"]}, ["sm_90"], progress=False)
    >>> done[0].module, done[0].arch
    ('lows', 'sm_90')
    """
    from gpu_eval.progress import Progress

    rank = {m: i for i, m in enumerate(SLOWEST_FIRST)}
    work = sorted(((m, a) for m in sources for a in archs),
                  key=lambda ma: (rank.get(ma[0], len(rank)), ma[0], ma[1]))
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(work)))
    done: list[Compiled] = []
    with Progress(len(work), "compiling kernels", unit=" modules", enabled=progress) as bar:
        if jobs == 1:
            for m, a in work:
                done.append(_compile_one(m, sources[m], a, force))
                bar.update(1)
            return done
        with ProcessPoolExecutor(jobs, mp_context=_worker_context()) as pool:
            pending: set[Future] = {pool.submit(_compile_one, m, sources[m], a, force)
                                    for m, a in work}
            while pending:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for f in finished:
                    done.append(f.result())
                    bar.update(1)
    return done


def run(args: argparse.Namespace) -> int:
    """The ``gpu-eval compile`` command (a mistake raises ValueError: one line, status 2).

    Examples
    --------
    >>> from gpu_eval.cli import main
    >>> main(["compile", "--arch", "sm_90", "--module", "lows"])  # doctest: +SKIP
    lows           sm_90            0.21 s  compiled
    1 of 1 compiled in 0.3 s (0.2 s of work) into /home/me/.cache/gpu_eval/kernels
    0
    """
    from gpu_eval.cuda import kernel_cache, nvrtc
    from gpu_eval.cuda.resources import module_sources

    sources = module_sources()
    if args.list:
        print("\n".join(sources))
        return 0
    unknown = sorted(set(args.modules or ()) - set(sources))
    if unknown:
        raise ValueError(f"no module {', '.join(unknown)} (one of {', '.join(sources)})")
    if args.modules:
        sources = {m: sources[m] for m in args.modules}
    if args.arch:
        archs = sorted({_normalise_arch(a) for a in args.arch})
    else:
        archs, why = device_archs()
        if not archs:
            raise ValueError(f"no GPU to compile for here ({why}); name the architecture, "
                             f"e.g. --arch sm_90 (H100, H200) or --arch sm_80 (A100)")
    nvrtc.nvrtc_version()  # NvrtcUnavailableError (a RuntimeError) says what to install
    if not kernel_cache.enabled():
        warnings.warn(f"{kernel_cache.SWITCH_ENV}=0: the launchers will not read what this "
                      f"writes", stacklevel=1)
    t = time.perf_counter()
    done = compile_modules(sources, archs, args.jobs, args.force, progress=not args.no_progress)
    wall = time.perf_counter() - t
    for c in sorted(done, key=lambda c: (c.arch, -c.seconds)):
        print(f"{c.module:<14} {c.arch:<11} {c.seconds:7.2f} s  "
              f"{'compiled' if c.compiled else 'cached'}")
    n = sum(c.compiled for c in done)
    print(f"{n} of {len(done)} compiled in {wall:.1f} s ({sum(c.seconds for c in done):.1f} s "
          f"of work) into {kernel_cache.cache_dir()}")
    return 0
