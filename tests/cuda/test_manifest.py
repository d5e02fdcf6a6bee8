"""The kernel manifest (gpu_eval.cuda.manifest) against the kernel sources, its launch checks,
and what it promises: adding a kernel touches its .cu, its launcher, its record and its tests.

That each module exports exactly its records' kernels (NVRTC and ptxas for sm_90) is
tests/cuda/test_kernel_resources.py's ``test_every_kernel_is_reported``.
"""

from __future__ import annotations

import re
import shutil
import threading

import numpy as np
import pytest

from gpu_eval.cuda import manifest, modules, nvrtc, resources

from emulation import hostbuild, kernel_sources


@pytest.fixture(scope="module")
def defined():
    try:
        return kernel_sources.defined_kernels(nvrtc.kernel_dir())
    except hostbuild.HostBuildUnavailableError as exc:
        pytest.skip(f"no C++ preprocessor: {exc}")


def test_every_kernel_has_exactly_one_record_and_every_record_a_kernel(defined):
    assert sorted(defined) == sorted(manifest.KERNELS)
    for name, (source, params) in defined.items():
        record = manifest.kernel(name)
        assert record.source == source, name
        assert [(a.ctype, a.name) for a in record.args] == params, name


def test_every_kernel_file_is_in_a_module_and_every_module_file_exists():
    files = {f for m in manifest.MODULES.values() for f in m.files}
    assert files == {p.name for p in nvrtc.kernel_dir().glob("*.cu")}
    for m in manifest.MODULES.values():
        assert m.kernels, m.name
        assert all(manifest.kernel(k).source in m.files for k in m.kernels)
        assert manifest.module_of_code(manifest.module_source(m.name)) is m


def test_every_table_struct_is_a_constant_of_the_sources():
    """The ``__constant__`` structs a module's launcher uploads (its record's symbols) are
    declared so (GE_CONSTANT is ``__constant__`` on a device); that each is in the module's
    own includes is proven by its host build, which takes each one's size."""
    text = "\n".join(p.read_text() for p in nvrtc.kernel_dir().glob("*.cu*"))
    declared = set(re.findall(r"GE_CONSTANT\s+\w+\s+(\w+)", text))
    assert {s for m in manifest.MODULES.values() for s in m.symbols} <= declared


def test_outputs_are_the_pointers_not_to_const():
    k = manifest.kernel("ge_tables_river_counts")
    assert [a.name for a in k.outputs] == ["wins", "ties"] and k.output_indices == (7, 8)
    assert manifest.kernel("ge_games_low").args[1].nullable


class _Dev:
    """A device array as the checks see one: dtype, flags, data.ptr and device.id."""

    def __init__(self, a, device=0):
        self._a = np.asarray(a)
        self.dtype, self.flags = self._a.dtype, self._a.flags
        self.data = type("P", (), {"ptr": self._a.ctypes.data})()
        self.device = type("D", (), {"id": device})()


def _good():
    return (_Dev(np.zeros(4, np.uint64)), _Dev(np.zeros(4, np.uint8)), np.uint64(4))


@pytest.mark.parametrize("change, message", [
    (lambda a: a[:2], "2 arguments; the kernel takes 3"),
    (lambda a: (a[0], a[1], 4), "expected a numpy uint64 scalar"),
    (lambda a: (a[0], a[1], np.int64(4)), "expected a numpy uint64 scalar"),
    (lambda a: (_Dev(np.zeros(4, np.int64)), a[1], a[2]), "a int64 array; the kernel reads"),
    (lambda a: (_Dev(np.zeros((4, 2), np.uint64)[:, 0]), a[1], a[2]), "not C-contiguous"),
    (lambda a: (np.uint64(0), a[1], a[2]), "expected a device array of uint64, got"),
    (lambda a: (np.zeros(4, np.uint64), a[1], a[2]), "expected a device array"),
    (lambda a: (a[0], _Dev(np.zeros(4, np.uint8), device=1), a[2]), "on device 1; the kernel"),
])
def test_launch_checks_name_the_kernel_and_argument(change, message):
    k = manifest.kernel("ge_mask_counts")
    manifest.check_launch(k, (1,), (256,), _good(), device_id=0)
    with pytest.raises(manifest.LaunchError, match=message):
        manifest.check_launch(k, (1,), (256,), change(_good()), device_id=0)


def test_launch_checks_the_block_and_grid():
    k = manifest.kernel("ge_mask_counts")
    with pytest.raises(manifest.LaunchError, match=r"blocks of \(128,\)"):
        manifest.check_launch(k, (1,), (128,), _good())
    manifest.check_launch(k, (1,), (128,), _good(), host=True)  # the host build's own tests
    with pytest.raises(manifest.LaunchError, match="grid"):
        manifest.check_launch(k, (2, 2), (256,), _good())
    pairs = manifest.kernel("ge_eq_pairs")
    assert pairs.launch.dims == 2 and pairs.launch.fixed
    args = (_Dev(np.zeros(4, np.uint16)), np.uint32(1), np.uint32(1), np.uint32(1),
            _Dev(np.zeros(4, np.uint32)), _Dev(np.zeros(4, np.uint32)))
    manifest.check_launch(pairs, (3, 2), (256,), args)
    with pytest.raises(manifest.LaunchError, match="blocks"):
        manifest.check_launch(pairs, (3, 2), (128,), args, host=True)


def test_null_only_where_the_record_allows_it():
    k = manifest.kernel("ge_games_low")
    null = np.uint64(0)
    args = [_Dev(np.zeros(2, np.uint64)), null, np.int32(0), _Dev(np.zeros(4, np.uint8)),
            _Dev(np.zeros(2, np.uint8)), np.uint64(2)]
    manifest.check_launch(k, (1,), (256,), tuple(args))
    args[0] = null
    with pytest.raises(manifest.LaunchError, match=r"argument 0 \(hole\)"):
        manifest.check_launch(k, (1,), (256,), tuple(args))


_TOY = r"""
// A kernel added the way docs/architecture.md ("Adding a kernel") says: this file, a record,
// a launcher, tests; nothing else.
#include "ge_common.cuh"
GE_GLOBAL void ge_toy_scale(const ge_u32* __restrict__ x, ge_u32 factor,
                            ge_u64* __restrict__ out, ge_u64 n) {
    for (ge_u64 i = ge_thread_index(); i < n; i += ge_thread_count())
        out[i] = (ge_u64)x[i] * factor;
}
"""


def _toy_launcher(cupy, x, factor):
    """The toy kernel's launcher: a module per device, one launch over the rows."""
    state = modules.cached_device_state(_TOY_STATES, threading.Lock(), _toy_state)
    d_x = cupy.asarray(np.ascontiguousarray(x, dtype=np.uint32))
    out = cupy.empty(len(x), dtype=cupy.uint64)
    state.launch("ge_toy_scale", len(x), (d_x, np.uint32(factor), out, np.uint64(len(x))))
    return out.get()


def _toy_state(cupy, dev):
    module, kernels = modules.compile_module(cupy, "toy", dev)
    props = cupy.cuda.runtime.getDeviceProperties(dev)
    return modules.DeviceState(dev, module, kernels, [], None, int(props["multiProcessorCount"]),
                               {"ge_toy_scale": 4})


_TOY_STATES: dict = modules.device_cache()


def test_adding_a_kernel_needs_its_file_record_launcher_and_tests_only(
        tmp_path, monkeypatch, stand_in_cupy, defined):
    """A new kernel in a copy of kernels/: with its .cu, its manifest record and a launcher
    (both written here), the host build, the stand-in, the launch checks, the resource
    report's module list and the sanitizer job's list of kernels to cover take it, unedited."""
    from emulation import kernel_build, sanitize

    kdir = tmp_path / "kernels"
    shutil.copytree(nvrtc.kernel_dir(), kdir)
    (kdir / "toy.cu").write_text(_TOY)
    monkeypatch.setattr(nvrtc, "kernel_dir", lambda: kdir)
    record = manifest.kernel_record("ge_toy_scale", "toy.cu",
                              "const ge_u32* x, ge_u32 factor, ge_u64* out, ge_u64 n",
                              manifest.STRIDE)
    monkeypatch.setitem(manifest.KERNELS, record.name, record)
    monkeypatch.setitem(manifest.MODULES, "toy", manifest.Module(
        "toy", "toy kernels", ("toy.cu",), (), (record.name,)))
    # The record matches the source, read as the manifest test reads every kernel.
    found = kernel_sources.defined_kernels(kdir)
    assert found["ge_toy_scale"] == ("toy.cu", [(a.ctype, a.name) for a in record.args])
    assert set(found) == set(manifest.KERNELS)
    # The stand-in runs it through its host build, derived from the record.
    x = np.arange(1000, dtype=np.uint32)
    assert (_toy_launcher(stand_in_cupy, x, 3) == 3 * x.astype(np.uint64)).all()
    assert stand_in_cupy.launches[-1][0] == "ge_toy_scale"
    assert "toy" in resources.module_sources()
    assert "ge_toy_scale" in sanitize.required_kernels()  # the sanitizer job demands a case
    assert "ge_toy_scale" in _small_launches().every_kernel_name()  # and the device script's
    kernel_build.forget()


def _small_launches():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    try:
        import gpu_small_launches
    finally:
        sys.path.pop(0)
    return gpu_small_launches


def test_per_count_records_make_the_modules_parts(stand_in_cupy):
    """The kernels made once per player count (records with ``players``) are a module's
    :class:`~gpu_eval.cuda.manifest.PlayerKernels`, the one list the launchers, the parts
    the kernel cache compiles (``GE_PLAYERS``) and the stand-in's exports all read."""
    from gpu_eval.cuda import games_module
    from gpu_eval.equity_engine.batch import cuda_engine as cuda_batch
    from gpu_eval.equity_engine.deals import cuda_engine as cuda_deals
    from gpu_eval.equity_engine.holdem import cuda_engine as cuda_equity

    for launcher in (cuda_equity, games_module, cuda_deals, cuda_batch):
        m = manifest.module(launcher.MODULE)
        assert launcher.PLAYER_KERNELS is m.players and launcher.KERNELS == m.kernels
        assert set(m.kernels) == {k.name for k in manifest.KERNELS.values()
                                  if k.source in m.files}
        for n in m.players.counts:
            own = {k.name for k in manifest.KERNELS.values()
                   if k.players == n and k.source in m.files}
            assert set(m.players.names(n)) == set(m.players.base) | own
    assert manifest.module("games").players.per_count == ("ge_games_showdown_{n}",
                                                         "ge_games_sample_{n}")
    assert manifest.module("deals").players.counts == tuple(range(2, 9))
    assert manifest.module("evaluator").players.names() == manifest.module("evaluator").kernels
    assert manifest.module("evaluator").players.counts == ()
    with pytest.raises(ValueError, match="no kernels for 11 players"):
        manifest.module_source("games", 11)
    assert manifest.every_kernel_name() == set(manifest.KERNELS)
    assert _small_launches().every_kernel_name() == set(manifest.KERNELS)
    part = stand_in_cupy.RawModule(code=manifest.module_source("games", 3))
    part.get_function("ge_games_sample_3")
    part.get_function("ge_games_low")
    with pytest.raises(AssertionError, match="3 players exports no kernel ge_games_sample_4"):
        part.get_function("ge_games_sample_4")
