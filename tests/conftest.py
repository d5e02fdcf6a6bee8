"""Shared test set-up: the helpers beside the tests on sys.path, the host-built kernels and the
stand-in CuPy."""

import contextlib
import sys

import pytest

# --- How the suite runs in parallel (pyproject's addopts: -n auto --dist loadscope) ------------

#: Test modules by CPU time, heaviest first (measured on two cores; each is one unit of work
#: under ``--dist loadscope``). They are handed out first, so no worker starts a long module
#: while the other runs out of work (longest first). Order only: a stale name costs balance,
#: never a test.
HEAVY_FIRST = (
    "solver_tables/test_solver_tables.py",
    "cuda/test_kernel_resources.py",
    "distributed/test_distributed.py",
    "package/test_notebooks.py",
    "range_reports/test_report_equity.py",
    "range_reports/test_report_definitions.py",
    "evaluator/test_statemachine.py",
    "package/test_gpu_check.py",
    "range_reports/test_report_rank_sums.py",
    "cuda/test_cuda_variants_emulated.py",
    "solver_tables/test_hand_indexer.py",
    "evaluator/test_evaluate_exhaustive.py",
    "range_reports/test_report_distributed.py",
    "games/test_shortdeck.py",
    "equity_engine/holdem/test_shipped_table.py",
    "games/test_lows.py",
    "range_reports/test_report_cuda.py",
    "equity_engine/test_equity.py",
    "games/test_wild.py",
    "cuda/test_check_eval.py",
    "cuda/test_kernels_host.py",
    "evaluator/test_evaluate_cases.py",
    "equity_engine/board_games/test_cuda_games_emulated.py",
    "equity_engine/deals/test_equity_deals.py",
    "equity_engine/test_choose_grid.py",
    "cuda/test_streaming.py",
)


def pytest_collection_modifyitems(config, items):
    """The modules of :data:`HEAVY_FIRST` first, in its order, each module's tests together and
    in their own order; the rest as collected (a stable sort: every worker collects the same)."""
    from pathlib import Path

    tests = Path(__file__).parent
    rank = {name: i for i, name in enumerate(HEAVY_FIRST)}
    ranks: dict[str, int] = {}

    def key(item) -> int:
        p = str(item.path)
        if p not in ranks:  # once per file, not once per test
            path = Path(p)
            name = path.relative_to(tests).as_posix() if path.is_relative_to(tests) else ""
            ranks[p] = rank.get(name, len(rank))
        return ranks[p]

    items.sort(key=key)


def pytest_configure(config):
    """The controlling process makes the folder its xdist workers share for the run's
    expensive references (:func:`kernel_refs.once_per_run`: 268 MB of seven-card strengths),
    named to them by an environment variable they inherit, and removes it when the run ends
    (under pytest's own temporary folders it would be kept for three runs)."""
    import os
    import tempfile

    import kernel_refs

    if not hasattr(config, "workerinput") and kernel_refs.SHARED_DIR_VARIABLE not in os.environ:
        shared = tempfile.mkdtemp(prefix="gpu_eval_tests_")
        os.environ[kernel_refs.SHARED_DIR_VARIABLE] = shared
        config.add_cleanup(lambda: _forget_shared(shared))


def _forget_shared(shared: str) -> None:
    import os
    import shutil

    import kernel_refs

    shutil.rmtree(shared, ignore_errors=True)
    if os.environ.get(kernel_refs.SHARED_DIR_VARIABLE) == shared:
        del os.environ[kernel_refs.SHARED_DIR_VARIABLE]


def pytest_sessionstart(session):
    """The whole suite in parallel (no paths given, two or more workers): every host library
    built first, before the workers start (xdist starts them in its own, later, sessionstart),
    so no worker waits idle on another's compile (:mod:`emulation.prebuild`)."""
    config = session.config
    workers = getattr(config.option, "numprocesses", 0) or 0
    if hasattr(config, "workerinput") or config.option.collectonly or workers < 2 \
            or config.args_source is not pytest.Config.ArgsSource.TESTPATHS:
        return
    from emulation import prebuild

    built, seconds = prebuild.build_all(workers)
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line(f"host libraries: {built} built or found in the cache "
                            f"({seconds:.1f} s, {workers} at a time)")


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config):
    """``-n auto``: one worker per CPU this process may use, but no more than the test files
    named on the command line (a worker costs seconds to start and collect), and none (every
    test in this process) for a single file or where an NVIDIA driver is present, since the
    device tests share one GPU and its free memory. ``PYTEST_XDIST_AUTO_NUM_WORKERS`` (or
    ``-n N``) overrides."""
    import os
    from pathlib import Path

    from gpu_eval.cuda import driver

    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return int(os.environ["PYTEST_XDIST_AUTO_NUM_WORKERS"])
    if driver.driver_files_missing() is None:
        return 0
    n = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    paths = {Path(str(a).split("::")[0]) for a in config.args}
    if paths and not any(p.is_dir() for p in paths):
        n = min(n, len(paths))
    return n if n > 1 else 0


@pytest.fixture(scope="session")
def variant_host():
    """The variant kernels (short deck, Omaha, wild cards) built as host C++ for the CPU;
    skips the test when there is no C++ compiler."""
    from emulation import hostbuild, variants_host

    try:
        return variants_host.load()
    except hostbuild.HostBuildUnavailableError as exc:
        pytest.skip(f"cannot build the kernels for the CPU: {exc}")


@pytest.fixture
def stand_in_cupy(monkeypatch):
    """The stand-in CuPy (``tests/emulation/fake_cupy/``) installed as ``cupy``, running the
    host builds of the kernels, with every launcher's per-device caches emptied, no launches
    or races listed and default device memory; skips the test when there is no C++ compiler."""
    from gpu_eval.cuda import availability, modules

    from emulation import fake_cupy, hostbuild

    try:
        hostbuild.find_compiler()
    except hostbuild.HostBuildUnavailableError as exc:
        pytest.skip(f"cannot build the kernels for the CPU: {exc}")
    monkeypatch.setitem(sys.modules, "cupy", fake_cupy)
    modules.clear_device_caches()
    availability.cuda_available.cache_clear()
    fake_cupy.reset()
    yield fake_cupy
    modules.clear_device_caches()
    availability.cuda_available.cache_clear()
    fake_cupy.reset()


@pytest.fixture
def kernel_host():
    """Launches of any kernel's host build on NumPy arrays (``emulation.kernel_build.Host``),
    its tables the NumPy path's unless the test points them elsewhere; skips the test when
    there is no C++ compiler."""
    from emulation import hostbuild, kernel_build

    try:
        hostbuild.find_compiler()
    except hostbuild.HostBuildUnavailableError as exc:
        pytest.skip(f"cannot build the kernels for the CPU: {exc}")
    return kernel_build.Host()


@pytest.fixture(scope="session")
def seven_card_run_dir():
    """Where this run's xdist workers share the seven-card reference (kernel_refs.run_dir)."""
    import kernel_refs

    return kernel_refs.run_dir()


@pytest.fixture(scope="session")
def sm90_modules():
    """Every manifest module compiled once per session for sm_90 by NVRTC, through ptxas:
    ``{module: (ptxas's figures of its kernels, its PTX)}`` (gpu_eval.cuda.resources); skips
    where NVRTC is missing."""
    from gpu_eval.cuda import nvrtc, resources

    try:
        nvrtc.nvrtc_version()
    except nvrtc.NvrtcUnavailableError as exc:
        pytest.skip(str(exc))
    return {name: resources.report_and_ptx(src, "sm_90", module=name)
            for name, src in resources.module_sources().items()}


@pytest.fixture(scope="session")
def ptxas_report(sm90_modules):
    """ptxas's figures of every kernel of every manifest module (:func:`sm90_modules`)."""
    return [r for rows, _ in sm90_modules.values() for r in rows]


class Gpu:
    """The device a test body runs on: the stand-in CuPy, or a real GPU's CuPy.

    ``with gpu.capped(nbytes):`` leaves the current device ``nbytes`` more than it holds now
    (CuPy's pool limit, on both; on the stand-in the device's capacity too, so
    ``Device().mem_info`` says so).

    Attributes
    ----------
    cp : module
        The CuPy to make arrays with.
    real : bool
        Whether it is a real device.
    """

    def __init__(self, cp, real: bool) -> None:
        self.cp, self.real = cp, real

    def size(self, gpu: int, stand_in: int) -> int:
        """An input size: ``gpu`` on a real device, ``stand_in`` on the CPU stand-in (whose
        kernels run on two cores)."""
        return gpu if self.real else stand_in

    @contextlib.contextmanager
    def capped(self, nbytes: int):
        pool = self.cp.get_default_memory_pool()
        pool.free_all_blocks()
        old = pool.get_limit()
        pool.set_limit(size=pool.used_bytes() + int(nbytes))
        if not self.real:
            self.cp.set_device_memory(pool.used_bytes() + int(nbytes),
                                      self.cp.cuda.runtime.getDevice())
        try:
            yield
        finally:
            pool.set_limit(size=old)
            if not self.real:
                self.cp.set_device_memory(None, self.cp.cuda.runtime.getDevice())

    def devices(self) -> int:
        """How many devices there are."""
        return int(self.cp.cuda.runtime.getDeviceCount())

    def only_real(self, why: str) -> None:
        """Skip on the stand-in: for work only a GPU gets through in the time (``why``)."""
        if not self.real:
            pytest.skip(f"a real device only: {why}")


@pytest.fixture(params=["stand-in", pytest.param("cuda", marks=pytest.mark.device)])
def gpu(request):
    """One test body for both devices (as PyTorch's device-type tests and numba-cuda's
    simulator do it): the stand-in CuPy always, and a real CUDA device where one is present
    (skipped with the reason otherwise). ``pytest -m device`` runs the real-device ones only
    (benchmarks/gpu_check.sh)."""
    if request.param == "stand-in":
        yield Gpu(request.getfixturevalue("stand_in_cupy"), real=False)
        return
    from gpu_eval.cuda import availability

    availability.cuda_available.cache_clear()
    ok, reason = availability.cuda_available()
    if not ok:
        pytest.skip(reason)
    import cupy

    yield Gpu(cupy, real=True)
