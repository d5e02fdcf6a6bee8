"""No kernel spills registers to local memory at its launch bounds, and none but a short,
named list has a stack frame, checked from the compiler's own report: NVRTC runs ptxas when it
builds a cubin for sm_90 and, with -Xptxas=-v, logs each kernel's registers, stack frame and
spill bytes (gpu_eval.cuda.resources). Needs only the pip NVRTC of the test extra, so CI runs it.
"""

from __future__ import annotations

import re

import pytest

from gpu_eval.cuda import manifest, nvrtc
from gpu_eval.cuda import resources as KR


@pytest.fixture
def report(ptxas_report):
    return ptxas_report


def test_every_kernel_is_reported(report):
    """Every kernel of every manifest module, by the module it is in (that each module
    exports exactly its records is tests/cuda/test_manifest.py's)."""
    names = {(r.module, r.kernel) for r in report}
    assert names == {(m.name, k) for m in manifest.MODULES.values() for k in m.kernels}
    assert all(r.registers > 0 for r in report)


def test_every_kernel_file_is_built_for_sm90_here(report):
    """Every kernels/*.cu is in a module this report builds for sm_90 through ptxas (the
    per-file NVRTC test then checks compute_80 with the front end only), and every kernel is
    extern "C"."""
    import re

    included = set()
    for code in KR.module_sources().values():
        included |= set(re.findall(r'#include "(\w+\.cu)"', code))
    assert {p.name for p in nvrtc.kernel_dir().glob("*.cu")} <= included
    assert all(r.kernel.startswith("ge_") for r in report)


def test_no_kernel_spills(report):
    spilling = [f"{r.module}/{r.kernel}: {r.spill_stores} B stored, {r.spill_loads} B loaded "
                f"({r.registers} registers)" for r in report if r.spills]
    assert not spilling, "kernels spill to local memory:\n" + "\n".join(spilling)


#: The only kernels allowed a stack frame (module, kernel) -> most bytes, each for a reason:
#: the hold'em sampler for 4+ players keeps hole[] in local memory (indexed by the dealt
#: player; kernels/equity.cuh, GE_MC_REG_HOLES), 8 bytes a player; its NumPy twin's draws
#: kernel (ge_eq_mc_draws, tests only) holds ten players' hole[] the same way.
STACK_ALLOWED = {**{("equity", f"ge_eq_sample_{n}"): 8 * n for n in range(4, 11)},
                 ("equity", "ge_eq_mc_draws"): 80}


def test_no_stack_frame_outside_the_allow_list(report):
    """A stack frame is local memory: a register array indexed at run time, or counters the
    compiler could not keep in registers (ge_games_sample kept its tallies in 576 bytes, 866
    local loads and stores, with no spill to show for it)."""
    framed = [f"{r.module}/{r.kernel}: {r.stack} B stack frame" for r in report
              if r.stack > STACK_ALLOWED.get((r.module, r.kernel), 0)]
    assert not framed, "kernels with a stack frame:\n" + "\n".join(framed)
    assert {(r.module, r.kernel) for r in report} >= set(STACK_ALLOWED)  # no stale entry


def test_launch_bounds_are_kept(report):
    """The Monte Carlo kernels for 2 and 3 players are bounded to 3 blocks of 256 per SM
    (at most 85 registers a thread; ptxas allocates in steps of 8): the bound holds, without
    spilling."""
    by_name = {r.kernel: r for r in report}
    for n in (2, 3):
        assert by_name[f"ge_eq_sample_{n}"].registers <= 80
        # Their draw loops are unrolled: hole[] is in registers, nothing in local memory.
        assert by_name[f"ge_eq_sample_{n}"].stack == 0
    # The fused check kernel stages one block's ids: 256 rows of up to 9 bytes.
    assert by_name["ge_check_eval_ids"].shared == 256 * 9


#: Kernels whose every thread counts into the same totals: they sum their counters over the
#: block (kernels/pots.cuh) and reach global memory from the block's flush alone, so each
#: holds at most this many 64-bit global atomic adds in its code (the deal grid flushes in
#: two places, the games sampler also raises its stop flag). Each thread adding its own
#: counters was 5 N + 1 or 6 N atomics a thread, about 1.6 million a launch on an H200.
BLOCK_SUMMED = {"deals": (r"ge_deals_(grid|sample)_\d+", 2),
                "games": (r"ge_games_sample_\d+", 2)}
_GLOBAL_ADD_U64 = re.compile(r"\b(?:atom|red)(?:\.relaxed\.gpu)?\.global\.add\.u64")


def test_every_module_ptx_holds_its_kernels_unmangled(sm90_modules):
    """The PTX ptxas assembled: one ``.entry`` per manifest kernel, each by its ``extern "C"``
    name (CuPy looks kernels up by name), for sm_90."""
    for name, (_, ptx) in sm90_modules.items():
        assert ".target sm_90" in ptx, name
        entries = set(re.findall(r"\.entry\s+(\w+)", ptx))
        assert entries == set(manifest.MODULES[name].kernels), name


@pytest.mark.parametrize("module", sorted(BLOCK_SUMMED))
def test_block_summed_tallies(sm90_modules, module):
    pattern, most = BLOCK_SUMMED[module]
    found = 0
    for part in re.split(r"(?=\.visible \.entry )", sm90_modules[module][1])[1:]:
        entry = re.match(r"\.visible \.entry (\w+)", part).group(1)
        if re.fullmatch(pattern, entry):
            found += 1
            atomics = len(_GLOBAL_ADD_U64.findall(part))
            assert atomics <= most, f"{entry}: {atomics} global atomic adds in its code"
    assert found, f"{module}: no kernel matches {pattern}"


def test_parse_reads_nvcc_style_logs():
    log = ("ptxas info    : Compiling entry function 'ge_a' for 'sm_90'\n"
           "ptxas info    : Function properties for ge_a\n"
           "ptxas         .     16 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads\n"
           "ptxas info    : Used 64 registers, used 1 barriers\n"
           "ptxas info    : Compiling entry function 'ge_b' for 'sm_90'\n"
           "ptxas info    : Function properties for ge_b\n"
           "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
           "ptxas info    : Used 12 registers, 2048 bytes smem\n")
    a, b = KR.parse_ptxas_log(log, "m")
    assert (a.kernel, a.registers, a.stack, a.spill_stores, a.spill_loads, a.barriers) == (
        "ge_a", 64, 16, 8, 12, 1)
    assert a.spills and not b.spills and (b.registers, b.shared) == (12, 2048)
    assert manifest.module_source("variants") in KR.module_sources().values()
