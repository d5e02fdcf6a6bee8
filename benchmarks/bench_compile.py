"""Cold NVRTC compile times of every CUDA module, serial and in parallel, and a warm cache.

No GPU needed: every compile targets a named architecture (``--arch``, default sm_90) into a
fresh, empty kernel cache (a temporary ``GPU_EVAL_CACHE_DIR``), exactly as ``gpu-eval
compile`` does. Rows:

* each whole module alone, in this process: wall seconds and CPU seconds (NVRTC compiles on
  the calling thread, so CPU seconds are the compile's work even on a busy machine);
* the part of each per-player-count module a heads-up call compiles (``GE_PLAYERS=2``) and
  its base kernels alone (``GE_PLAYERS=0``);
* every module together: serial, threads (NVRTC lets go of Python's lock while it
  compiles), and ``gpu-eval compile``'s worker processes (``--jobs``);
* a paper figure for more cores: the longest-first schedule of the measured CPU seconds;
* a warm cache: a fresh process finding and reading every module's binary (what it pays
  instead of compiling; loading it into a device is the driver's, not measured here).

Usage: python benchmarks/bench_compile.py [--arch sm_90] [--jobs 2] [--cores 16] [--json F]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

from gpu_eval import cli_compile
from gpu_eval.cuda import kernel_cache, nvrtc
from gpu_eval.cuda.resources import module_sources


def fresh_cache() -> str:
    d = tempfile.mkdtemp(prefix="ge_compile_bench_")
    os.environ[kernel_cache.CACHE_DIR_ENV] = d
    return d


def timed_build(code: str, arch: str) -> tuple[float, float]:
    """(wall, CPU) seconds of one cold compile into the current cache."""
    w, c = time.perf_counter(), time.process_time()
    kernel_cache.build(code, arch)
    return time.perf_counter() - w, time.process_time() - c


def longest_first(seconds: list[float], cores: int) -> float:
    """Makespan of jobs of these seconds on ``cores`` cores, longest first."""
    load = [0.0] * cores
    for s in sorted(seconds, reverse=True):
        load[load.index(min(load))] += s
    return max(load)


def warm_lookup(sources: dict[str, str], arch: str) -> dict:
    """A fresh process: import, then find and read every module's binary (seconds)."""
    script = (
        "import time, json; t0 = time.perf_counter()\n"
        "from gpu_eval.cuda import kernel_cache, nvrtc\n"
        "from gpu_eval.cuda.resources import module_sources\n"
        "t1 = time.perf_counter(); nvrtc.load_nvrtc(); t2 = time.perf_counter()\n"
        "codes = module_sources(); t3 = time.perf_counter()\n"
        f"paths = [kernel_cache.lookup(c, {arch!r}) for c in codes.values()]\n"
        "size = sum(len(p.read_bytes()) for p in paths); t4 = time.perf_counter()\n"
        "print(json.dumps({'import_s': t1 - t0, 'cupy_import_s': t2 - t1, 'module_code_s': "
        "t3 - t2, 'find_and_read_s': t4 - t3, 'bytes': size,"
        " 'found': sum(p is not None for p in paths)}))"
    )
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True).stdout
    res = json.loads(out)
    res["process_s"] = time.perf_counter() - t
    return res


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--arch", default="sm_90")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--cores", type=int, default=16, help="cores of the paper figure")
    p.add_argument("--json", help="write the figures here")
    a = p.parse_args(argv)
    sources = module_sources()
    nvrtc.load_nvrtc()  # the import is not a compile
    print(f"NVRTC {'.'.join(map(str, nvrtc.nvrtc_version()))}, {a.arch}, {os.cpu_count()} "
          f"CPUs, load average {os.getloadavg()[0]:.1f} at the start")
    figures: dict = {"arch": a.arch, "cpus": os.cpu_count(), "load_start": os.getloadavg()[0]}

    fresh_cache()
    alone = {}
    print(f"\n{'module':<16} {'wall s':>8} {'CPU s':>8}   (each alone, cold)")
    for name, code in sources.items():
        alone[name] = timed_build(code, a.arch)
        print(f"{name:<16} {alone[name][0]:8.2f} {alone[name][1]:8.2f}", flush=True)
    figures["alone"] = {n: {"wall_s": w, "cpu_s": c} for n, (w, c) in alone.items()}

    from gpu_eval.cuda import manifest

    parts = {}
    print(f"\n{'part':<16} {'wall s':>8} {'CPU s':>8}   (what a first call compiles)")
    for name, module in manifest.MODULES.items():
        if not module.players.counts:  # compiled whole
            continue
        for players in (2, 0):
            if players == 0 and not module.players.base:
                continue
            key = f"{name} p{players}"
            parts[key] = timed_build(manifest.module_source(name, players), a.arch)
            print(f"{key:<16} {parts[key][0]:8.2f} {parts[key][1]:8.2f}", flush=True)
    figures["parts"] = {n: {"wall_s": w, "cpu_s": c} for n, (w, c) in parts.items()}

    codes = list(sources.values())
    fresh_cache()
    t = time.perf_counter()
    for code in codes:
        kernel_cache.build(code, a.arch)
    serial = time.perf_counter() - t
    fresh_cache()
    t = time.perf_counter()
    with ThreadPoolExecutor(a.jobs) as pool:
        list(pool.map(lambda c: kernel_cache.build(c, a.arch), codes))
    threads = time.perf_counter() - t
    fresh_cache()
    t = time.perf_counter()
    cli_compile.compile_modules(sources, [a.arch], a.jobs, progress=False)
    processes = time.perf_counter() - t
    cpu = [c for _, c in alone.values()]
    figures["together"] = {"serial_s": serial, "threads_s": threads, "processes_s": processes,
                           "jobs": a.jobs, "cpu_sum_s": sum(cpu),
                           "paper_makespan_s": {str(k): longest_first(cpu, k)
                                                for k in sorted({a.jobs, a.cores})}}
    print(f"\nevery module: serial {serial:.1f} s, {a.jobs} threads {threads:.1f} s, "
          f"{a.jobs} processes (gpu-eval compile) {processes:.1f} s; CPU seconds summed "
          f"{sum(cpu):.1f}; longest-first on {a.jobs} cores "
          f"{longest_first(cpu, a.jobs):.1f} s, on {a.cores} cores "
          f"{longest_first(cpu, a.cores):.1f} s (paper)")
    warm = warm_lookup(sources, a.arch)
    figures["warm"] = warm
    print(f"warm cache, fresh process: {warm['found']} of {len(sources)} binaries found and "
          f"read ({warm['bytes'] / 1e6:.1f} MB) in {warm['find_and_read_s'] * 1e3:.1f} ms after "
          f"{warm['import_s'] * 1e3:.0f} ms of gpu_eval imports, "
          f"{warm['cupy_import_s'] * 1e3:.0f} ms importing CuPy's NVRTC binding (a CUDA call "
          f"imports CuPy anyway) and {warm['module_code_s'] * 1e3:.0f} ms of module code "
          f"(sources hashed); the process took {warm['process_s']:.2f} s")
    figures["load_end"] = os.getloadavg()[0]
    print(f"load average {figures['load_end']:.1f} at the end")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(figures, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
