"""The state-machine table evaluator (gpu_eval.evaluator.statemachine) against the bitmask evaluator.

Exhaustive: every 5-card hand (through ``evaluate_fsm``) and every 7-card hand (walked with
shared prefixes, in colex order) in all three layouts. The 7-card tables are generated once
per session into a temporary cache (about 5 s, the exhaustive walk about 5 s more).
"""

from __future__ import annotations

import ctypes
import doctest
import re
import struct
import subprocess
import sys
import zlib
from math import comb
from pathlib import Path

import numpy as np
import pytest

from gpu_eval import combinatorics
from gpu_eval.cards import ID_TO_MASK, parse
from gpu_eval.cuda import availability, nvrtc
from gpu_eval.evaluator import bitmask
from gpu_eval.evaluator import statemachine as sm

import kernel_refs
from emulation import hostbuild

KERNEL = nvrtc.kernel_dir() / "fsm.cu"


def _masks(ids: np.ndarray) -> np.ndarray:
    return np.bitwise_or.reduce(ID_TO_MASK[ids], axis=1)


def _random_hands(n: int, k: int, seed: int) -> np.ndarray:
    """``n`` random k-card hands in random card order."""
    rng = np.random.default_rng(seed)
    return np.argsort(rng.random((n, 52)), axis=1)[:, :k].astype(np.uint8)


@pytest.fixture(scope="session")
def fsm_cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("fsm_cache")


@pytest.fixture(scope="session")
def tables5() -> dict[str, sm.FsmTable]:
    return {lay: sm.build_table(5, lay) for lay in sm.LAYOUTS}


@pytest.fixture(scope="session")
def tables7(fsm_cache) -> dict[str, sm.FsmTable]:
    # One through the cache, as a user gets it; the machine is generated once for all three.
    tables = {"bfs": sm.load_table(7, "bfs", cache_dir=fsm_cache)}
    assert sm.cache_path(7, "bfs", fsm_cache).is_file()
    tables.update({lay: sm.build_table(7, lay) for lay in ("dfs", "veb")})
    return tables


@pytest.fixture(scope="module")
def all_five():
    ids = combinatorics.unrank(np.arange(comb(52, 5)), 5)
    return ids, bitmask.evaluate_masks(combinatorics.subset_masks(52, 5))


# --- correctness ---------------------------------------------------------------------------


def test_all_five_card_hands(tables5, all_five):
    ids, ref = all_five
    assert len(ids) == 2_598_960
    shuffled = np.take_along_axis(ids, np.argsort(np.random.default_rng(5).random(ids.shape),
                                                  axis=1), axis=1)
    for lay, t in tables5.items():
        got = sm.evaluate_fsm(ids, t)
        assert got.dtype == np.uint16
        np.testing.assert_array_equal(got, ref, err_msg=lay)
        np.testing.assert_array_equal(sm.evaluate_fsm(ids[:, ::-1], t), ref, err_msg=lay)
        np.testing.assert_array_equal(sm.evaluate_fsm(shuffled, t), ref, err_msg=lay)
    assert np.unique(ref).size == 7462


def _colex_prefix_states(data: np.ndarray, j: int, n: int) -> np.ndarray:
    """The state after walking each j-subset of ``{0..n-1}`` (ascending), in colex order:
    the subsets of ``{0..t-1}`` come first, so level j extends prefixes of level j - 1."""
    level = np.full(1, sm.ROOT, dtype=np.uint32)
    for i in range(1, j + 1):
        level = np.concatenate([np.take(data, level[: comb(t, i - 1)] + np.uint32(t))
                                for t in range(i - 1, n)])
    return level


def test_all_seven_card_hands_bfs(tables7, seven_card_run_dir):
    """All 133,784,560 hands against bitmask, on the BFS layout (chunked by the top card; the
    bitmask strengths are the run's shared ones, ``kernel_refs.seven_card_strengths``,
    whose histogram test_evaluate_exhaustive checks). The other layouts are the same
    machine: :func:`test_layouts_are_one_machine`."""
    t = tables7["bfs"]
    prefixes = _colex_prefix_states(t.data, 6, 51)
    walked = 0
    strengths = kernel_refs.seven_card_strengths(seven_card_run_dir)
    # Buffers for the largest group, reused: fresh arrays per group cost more in page faults.
    at, got, same = (np.empty(len(prefixes), dt) for dt in (np.uint32, np.uint32, bool))
    for top, _, ref in kernel_refs.seven_card_groups(strengths):
        n = len(ref)
        np.add(prefixes[:n], np.uint32(top), out=at[:n])
        np.take(t.data, at[:n], out=got[:n])
        if not np.equal(got[:n], ref, out=same[:n]).all():
            bad = int(np.flatnonzero(~same[:n])[0])
            pytest.fail(f"top card {top}, hand {bad}: fsm {got[bad]}, bitmask {ref[bad]}")
        walked += len(ref)
    assert walked == comb(52, 7)


def _same_machine(a: np.ndarray, b: np.ndarray, cards: int) -> None:
    """Assert that tables ``a`` and ``b`` are one machine with its states placed apart: walked
    together from the root, each state of ``a`` meets exactly one state of ``b`` and back (a
    bijection), the dead state meets the dead state, and the last card gives equal strengths
    in every slot. By induction every walk of ``cards`` cards, any card sequence, repeated
    cards included, ends on the same value in both: every hand, without walking each."""
    assert len(a) == len(b) and not a[:sm.SLOTS].any() and not b[:sm.SLOTS].any()  # dead stays
    blocks = len(a) // sm.SLOTS
    pa = pb = np.array([sm.ROOT // sm.SLOTS])                         # paired states' blocks
    slots = np.arange(sm.SLOTS, dtype=np.int64)
    for depth in range(cards):
        va = np.take(a, (pa[:, None] * sm.SLOTS + slots).ravel())
        vb = np.take(b, (pb[:, None] * sm.SLOTS + slots).ravel())
        if depth == cards - 1:
            assert np.array_equal(va, vb), f"strengths differ at depth {depth}"
            return
        assert np.array_equal(va == 0, vb == 0), f"dead slots differ at depth {depth}"
        live = va != 0
        ia, ib = va[live] // sm.SLOTS, vb[live] // sm.SLOTS
        a_to_b = np.full(blocks, -1, dtype=np.int64)
        b_to_a = np.full(blocks, -1, dtype=np.int64)
        a_to_b[ia], b_to_a[ib] = ib, ia
        assert (a_to_b[ia] == ib).all() and (b_to_a[ib] == ia).all(), \
            f"depth {depth + 1}: the states do not pair one to one"
        pa = np.flatnonzero(a_to_b >= 0)
        pb = a_to_b[pa]


def test_layouts_are_one_machine(tables5, tables7):
    for tables, cards in ((tables5, 5), (tables7, 7)):
        for lay in ("dfs", "veb"):
            _same_machine(tables["bfs"].data, tables[lay].data, cards)
            assert tables[lay].info.states_per_depth == tables["bfs"].info.states_per_depth


def test_a_misplaced_state_is_caught(tables5):
    """The check above fails on a layout with two slots of one state swapped."""
    bad = tables5["dfs"].data.copy()
    row = sm.ROOT + 2 * sm.SLOTS   # the third state's slots (every state is reachable)
    i, j = row, row + 1 + int(np.flatnonzero(bad[row + 1:row + sm.SLOTS] != bad[row])[0])
    bad[[i, j]] = bad[[j, i]]
    with pytest.raises(AssertionError):
        _same_machine(tables5["bfs"].data, bad, 5)


def test_seven_card_hands_in_any_order(tables7):
    ids = _random_hands(300_000, 7, seed=7)
    ref = bitmask.evaluate_masks(_masks(ids))
    for lay, t in tables7.items():
        np.testing.assert_array_equal(sm.evaluate_fsm(ids, t), ref, err_msg=lay)


def test_documented_sizes(tables5, tables7):
    # Before the final merge (the machine is still cached from the tables7 fixture).
    assert sm._machine(7).forward_states == (1, 52, 1326, 22100, 84448, 152607, 352443)
    assert tables5["bfs"].info.states_per_depth == (1, 52, 403, 1599, 4680)
    assert sm.build_table(6).info.states_per_depth == (1, 52, 1326, 5655, 19552, 48503)
    for t in tables7.values():
        i = t.info
        assert i.states_per_depth == (1, 52, 1326, 22100, 84448, 152607, 285548)
        assert i.num_states == 546_083 and i.slots == 52 * i.num_states == len(t.data)
        assert i.nbytes <= 124 * 2**20  # no larger than the two-plus-two table
        assert i.root == sm.ROOT == 52 and t.data.dtype == np.uint32
        assert not t.data[:52].any()  # the dead state
        assert not t.data.flags.writeable
    # The layouts place one machine differently.
    assert len({t.info.sha256 for t in tables7.values()}) == 3


def test_six_card_table():
    ids = _random_hands(300_000, 6, seed=6)
    ref = bitmask.evaluate_masks(_masks(ids))
    for lay in sm.LAYOUTS:
        np.testing.assert_array_equal(sm.evaluate_fsm(ids, sm.build_table(6, lay)), ref)


def test_layout_orders(tables7):
    """BFS places depths one after another; DFS places a state's first child right after
    it; every layout keeps the root at base 52."""
    for lay, t in tables7.items():
        first = int(t.data[sm.ROOT])  # child of the root by card 0 (2c)
        assert first % 52 == 0 and first > sm.ROOT, lay
    assert int(tables7["dfs"].data[sm.ROOT]) == 2 * sm.ROOT
    assert int(tables7["veb"].data[sm.ROOT]) == 2 * sm.ROOT
    assert int(tables7["bfs"].data[sm.ROOT + 51]) == 53 * sm.ROOT  # 52 depth-1 states


# --- repeated cards and bad input ----------------------------------------------------------


def test_repeated_cards(tables5):
    t = tables5["bfs"]
    a_s, k_s, q_s, j_s, t_s = parse("AsKsQsJsTs")
    with pytest.raises(ValueError, match=r"row 1: a card is repeated \(\[51, 51, 43"):
        sm.evaluate_fsm(np.array([[a_s, k_s, q_s, j_s, t_s], [a_s, a_s, q_s, j_s, t_s]]), t)
    # Unchecked, a repeat the machine can see walks into the dead state: strength 0
    # (a tracked suit; a rank whose untracked suits are all used up).
    seen = np.array([[51, 51, 43, 39, 35], [0, 4, 8, 12, 12], [51, 50, 49, 48, 51]], np.uint8)
    assert sm.evaluate_fsm(seen, t, check=False).tolist() == [0, 0, 0]


def test_bad_input(tables5):
    t = tables5["bfs"]
    with pytest.raises(ValueError, match=r"shape \(N, 5\)"):
        sm.evaluate_fsm(np.zeros((3, 7), np.uint8), t)
    with pytest.raises(ValueError, match=r"shape \(N, 5\)"):
        sm.evaluate_fsm(np.zeros(5, np.uint8), t)
    with pytest.raises(ValueError, match=r"row 1: card id 52 is out of range"):
        sm.evaluate_fsm(np.array([[0, 1, 2, 3, 4], [0, 1, 2, 3, 52]], np.uint8), t)
    with pytest.raises(ValueError, match=r"row 0: card id out of range"):
        sm.evaluate_fsm(np.array([[0, 1, 2, 3, -1]]), t)
    with pytest.raises(TypeError, match="integers"):
        sm.evaluate_fsm(np.zeros((1, 5), np.float32), t)
    with pytest.raises(TypeError, match="FsmTable"):
        sm.evaluate_fsm(np.zeros((1, 5), np.uint8), t.data)
    with pytest.raises(ValueError, match="cards=8"):
        sm.build_table(8)
    with pytest.raises(ValueError, match="layout='heap'"):
        sm.build_table(5, "heap")
    # int64 ids are accepted and give the same answers
    ids = parse(["AsKsQsJsTs", "7c5d4h3s2c"])
    assert sm.evaluate_fsm(ids.astype(np.int64), t).tolist() == [7462, 1]
    assert sm.evaluate_fsm(np.zeros((0, 5), np.uint8), t).shape == (0,)


# --- files and cache -----------------------------------------------------------------------


@pytest.fixture()
def saved5(tables5, tmp_path) -> Path:
    return sm.save_table(tables5["dfs"], tmp_path / "t5.gefsm")


def _rewrite_header(path: Path, offset: int, fmt: str, value) -> None:
    """Change one header field and fix the header CRC, as a well-formed other file would."""
    raw = bytearray(path.read_bytes())
    struct.pack_into(fmt, raw, offset, value)
    struct.pack_into("<I", raw, 124, zlib.crc32(bytes(raw[:124])))
    path.write_bytes(bytes(raw))


def test_file_roundtrip(tables5, saved5):
    t = sm.read_table(saved5, cards=5, layout="dfs")
    assert t.info == tables5["dfs"].info
    assert np.array_equal(t.data, tables5["dfs"].data)
    assert saved5.stat().st_size == 128 + 4 * t.info.slots
    assert saved5.read_bytes()[:8] == b"GEFSM\r\n\x1a"


def test_corrupt_payload_byte(saved5):
    raw = bytearray(saved5.read_bytes())
    raw[128 + 4 * 1000] ^= 0x10
    saved5.write_bytes(bytes(raw))
    with pytest.raises(ValueError, match=r"t5.gefsm: corrupt payload \(SHA-256"):
        sm.read_table(saved5)
    assert sm.read_table(saved5, verify=False).info.cards == 5


def test_corrupt_header_byte(saved5):
    raw = bytearray(saved5.read_bytes())
    raw[30] ^= 0x01  # inside the state count
    saved5.write_bytes(bytes(raw))
    with pytest.raises(ValueError, match=r"corrupt header \(CRC32"):
        sm.read_table(saved5)


def test_truncated(saved5):
    raw = saved5.read_bytes()
    saved5.write_bytes(raw[:-4])
    with pytest.raises(ValueError, match=r"truncated \(1,401,212 bytes, the header says "
                                         r"1,401,216\)"):
        sm.read_table(saved5)
    saved5.write_bytes(raw[:100])
    with pytest.raises(ValueError, match=r"truncated header \(100 of 128 bytes\)"):
        sm.read_table(saved5)
    saved5.write_bytes(raw + b"\0")
    with pytest.raises(ValueError, match="1 unexpected bytes after the table"):
        sm.read_table(saved5)


def test_wrong_cards_layout_version_magic(saved5):
    with pytest.raises(ValueError, match="holds a 5-card table, expected a 7-card one"):
        sm.read_table(saved5, cards=7)
    with pytest.raises(ValueError, match="holds layout 'dfs', expected 'veb'"):
        sm.read_table(saved5, layout="veb")
    _rewrite_header(saved5, 8, "<I", 2)
    with pytest.raises(ValueError, match="format version 2, this gpu_eval reads version 1"):
        sm.read_table(saved5)
    _rewrite_header(saved5, 8, "<I", 1)
    _rewrite_header(saved5, 16, "<I", 6)  # cards: the state counts no longer fit
    with pytest.raises(ValueError, match="inconsistent header"):
        sm.read_table(saved5)
    saved5.write_bytes(b"PK\x03\x04" + saved5.read_bytes()[4:])
    with pytest.raises(ValueError, match="not a gpu_eval state-machine table"):
        sm.read_table(saved5)


def test_load_table_cache(tmp_path, monkeypatch):
    t = sm.load_table(5, "veb", cache_dir=tmp_path)
    path = sm.cache_path(5, "veb", tmp_path)
    assert path.is_file() and path.name == "fsm5_veb_v1.gefsm"
    stamp = path.stat().st_mtime_ns
    again = sm.load_table(5, "veb", cache_dir=tmp_path)  # read back, not regenerated
    assert path.stat().st_mtime_ns == stamp and again.info == t.info
    monkeypatch.setenv("GPU_EVAL_CACHE", str(tmp_path / "env"))
    assert sm.cache_path(5, "bfs") == tmp_path / "env" / "fsm" / "fsm5_bfs_v1.gefsm"
    raw = bytearray(path.read_bytes())
    raw[-1] ^= 0xFF
    path.write_bytes(bytes(raw))
    with pytest.raises(ValueError, match="corrupt payload.*delete it"):
        sm.load_table(5, "veb", cache_dir=tmp_path)


# --- the CUDA kernel -----------------------------------------------------------------------

try:
    nvrtc.nvrtc_version()
    _NVRTC_SKIP = ""
except nvrtc.NvrtcUnavailableError as exc:
    _NVRTC_SKIP = str(exc)


@pytest.mark.skipif(bool(_NVRTC_SKIP), reason=_NVRTC_SKIP or "-")
@pytest.mark.parametrize("arch", ["compute_90", "sm_90"])
def test_kernel_compiles_under_nvrtc(arch):
    if arch.startswith("sm_"):
        assert nvrtc.compile_cubin(KERNEL, arch=arch)[:4] == b"\x7fELF"
        return
    ptx = nvrtc.compile_ptx(KERNEL, arch=arch)
    assert re.findall(r"\.entry\s+(\w+)", ptx) == ["ge_fsm_eval_ids"]


_WRAPPER = r"""
#include "fsm.cu"
// Run the kernel as a (grid x block) launch, one "thread" after another.
extern "C" void host_fsm_eval_ids(const unsigned int* table, const unsigned char* ids, int k,
                                  long long n, unsigned short* out, unsigned grid,
                                  unsigned block) {
    gridDim = {grid, 1, 1};
    blockDim = {block, 1, 1};
    for (unsigned b = 0; b < grid; ++b)
        for (unsigned t = 0; t < block; ++t) {
            blockIdx = {b, 0, 0};
            threadIdx = {t, 0, 0};
            ge_fsm_eval_ids(table, ids, k, n, out);
        }
}
"""


@pytest.fixture(scope="module")
def host_fsm(tmp_path_factory):
    """kernels/fsm.cu compiled as host C++ through kernels/host_shim.h."""
    try:
        cxx = hostbuild.find_compiler()
    except hostbuild.HostBuildUnavailableError as exc:
        pytest.skip(str(exc))
    d = tmp_path_factory.mktemp("fsm_host")
    (d / "w.cpp").write_text(_WRAPPER)
    cmd = [cxx, "-O2", "-std=c++17", "-shared", "-fPIC", "-Wall", "-Wno-unknown-pragmas",
           f"-I{nvrtc.kernel_dir()}", str(d / "w.cpp"), "-o", str(d / "fsm.so")]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    lib = ctypes.CDLL(str(d / "fsm.so"))
    fn = lib.host_fsm_eval_ids
    vp = ctypes.c_void_p
    fn.argtypes = [vp, vp, ctypes.c_int, ctypes.c_longlong, vp, ctypes.c_uint, ctypes.c_uint]
    fn.restype = None

    def run(table: sm.FsmTable, ids: np.ndarray, grid: int = 3, block: int = 5) -> np.ndarray:
        ids = np.ascontiguousarray(ids, dtype=np.uint8)
        out = np.full(len(ids), 0xFFFF, dtype=np.uint16)
        fn(table.data.ctypes.data, ids.ctypes.data, ids.shape[1], len(ids), out.ctypes.data,
           grid, block)
        return out

    return run


def test_host_kernel_all_five_card_hands(host_fsm, tables5, all_five):
    ids, ref = all_five
    for lay, t in tables5.items():
        np.testing.assert_array_equal(host_fsm(t, ids), ref, err_msg=lay)
    # Any grid covers every row exactly once.
    np.testing.assert_array_equal(host_fsm(tables5["bfs"], ids[:1001], 1, 1), ref[:1001])
    np.testing.assert_array_equal(host_fsm(tables5["bfs"], ids[:7], 4, 32), ref[:7])


def test_host_kernel_seven_card_hands(host_fsm, tables7):
    ids = _random_hands(200_000, 7, seed=17)
    for lay, t in tables7.items():
        np.testing.assert_array_equal(host_fsm(t, ids), sm.evaluate_fsm(ids, t), err_msg=lay)


@pytest.mark.skipif(not availability.cuda_available()[0], reason=availability.cuda_available()[1])
def test_cuda_matches_numpy(tables5, all_five, tables7):
    import cupy

    ids, ref = all_five
    got = sm.evaluate_fsm(cupy.asarray(ids), tables5["veb"])
    assert isinstance(got, cupy.ndarray) and got.dtype == cupy.uint16
    np.testing.assert_array_equal(cupy.asnumpy(got), ref)
    ids7 = _random_hands(1_000_000, 7, seed=27)
    for t in tables7.values():
        np.testing.assert_array_equal(cupy.asnumpy(sm.evaluate_fsm(cupy.asarray(ids7), t)),
                                      sm.evaluate_fsm(ids7, t))
    with pytest.raises(ValueError, match="row 0: a card is repeated"):
        sm.evaluate_fsm(cupy.asarray(parse(["AsAsQsJsTs"])), tables5["bfs"])


# --- packaging -----------------------------------------------------------------------------


def test_docstring_examples():
    failures, tried = doctest.testmod(sm, optionflags=doctest.ELLIPSIS)
    assert tried > 0 and failures == 0


def test_import_does_not_import_cupy():
    code = ("import sys, gpu_eval.evaluator.statemachine; "
            "assert 'cupy' not in sys.modules, 'cupy was imported'")
    subprocess.run([sys.executable, "-c", code], check=True)
