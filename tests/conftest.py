"""Shared test set-up: the helpers beside the tests on sys.path, and the host-built kernels."""

import sys

import pytest

# --- How the suite runs in parallel (pyproject's addopts: -n auto --dist loadscope) ------------

#: Test modules by CPU time, heaviest first (measured on two cores; each is one unit of work
#: under ``--dist loadscope``). They are handed out first, so no worker starts a long module
#: while the other runs out of work (longest first). Order only: a stale name costs balance,
#: never a test.
HEAVY_FIRST = (
    "package/test_gpu_check.py",
    "solver_tables/test_solver_tables.py",
    "distributed/test_distributed.py",
    "package/test_notebooks.py",
    "cuda/test_kernel_resources.py",
    "equity_engine/test_choose_grid.py",
    "cuda/test_kernels_compile.py",
    "cuda/test_check_eval.py",
    "evaluator/test_evaluate_exhaustive.py",
    "evaluator/test_statemachine.py",
    "evaluator/test_evaluate_cases.py",
    "equity_engine/deals/test_cuda_deals_emulated.py",
    "games/test_shortdeck.py",
    "equity_engine/holdem/test_cuda_equity.py",
    "equity_engine/test_planner.py",
    "cuda/test_kernels_host.py",
    "games/test_lows.py",
    "equity_engine/board_games/test_games_kernels_host.py",
)


def pytest_collection_modifyitems(config, items):
    """The modules of :data:`HEAVY_FIRST` first, in its order, each module's tests together and
    in their own order; the rest as collected (a stable sort: every worker collects the same)."""
    from pathlib import Path

    tests = Path(__file__).parent
    rank = {name: i for i, name in enumerate(HEAVY_FIRST)}

    def key(item) -> int:
        path = Path(item.path)
        name = path.relative_to(tests).as_posix() if path.is_relative_to(tests) else ""
        return rank.get(name, len(rank))

    items.sort(key=key)


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
    """The stand-in CuPy (``tests/emulation/fake_cupy.py``) installed as ``cupy``, running the
    host builds of the kernels, with the per-device module caches of the hold'em and variant
    launchers emptied; skips the test when there is no C++ compiler."""
    from gpu_eval.cuda import availability, holdem, variants

    from emulation import fake_cupy, hostbuild, variants_host

    try:
        variants_host.load()
        hostbuild.load()
    except hostbuild.HostBuildUnavailableError as exc:
        pytest.skip(f"cannot build the kernels for the CPU: {exc}")
    monkeypatch.setitem(sys.modules, "cupy", fake_cupy)
    monkeypatch.setattr(holdem, "_STATES", {})
    monkeypatch.setattr(variants, "_STATES", {})
    availability.cuda_available.cache_clear()
    fake_cupy.launches.clear()
    fake_cupy.races.clear()
    yield fake_cupy
    availability.cuda_available.cache_clear()
    # The host builds share ge_bitmask_tables (a process-wide symbol): point it back at
    # long-lived tables before this test's "device" copies go away.
    variants_host.load()._set_tables()


def _with_module(stand_in_cupy, monkeypatch, build, launcher):
    """The stand-in CuPy once ``build()`` (a host build of a kernel module) works, with the
    launcher module's per-device cache emptied; skips the test when there is no compiler."""
    from emulation import hostbuild

    try:
        build()
    except hostbuild.HostBuildUnavailableError as exc:
        pytest.skip(f"cannot build the kernels for the CPU: {exc}")
    monkeypatch.setattr(launcher, "_STATES", {})
    return stand_in_cupy


@pytest.fixture
def stand_in_cuda_games(stand_in_cupy, monkeypatch):
    """The stand-in CuPy with the other games' module (kernels/equity_games.cu built as host
    C++, tests/emulation/games_host.py) and its per-device cache emptied."""
    from gpu_eval.cuda import games_module

    from emulation import games_host

    return _with_module(stand_in_cupy, monkeypatch, games_host.load, games_module)


@pytest.fixture
def stand_in_cuda_deals(stand_in_cupy, monkeypatch):
    """The stand-in CuPy with the board-less games' module (kernels/equity_deals.cu in the
    block emulator, tests/emulation/deals_host.py) and its per-device cache emptied."""
    from gpu_eval.equity_engine.deals import cuda_engine as cuda_deals

    from emulation import deals_host

    return _with_module(stand_in_cupy, monkeypatch, deals_host.build, cuda_deals)
