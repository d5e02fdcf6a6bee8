"""Shared test set-up: the helpers beside the tests on sys.path, and the host-built kernels."""

import sys

import pytest


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
