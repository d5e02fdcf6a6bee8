"""One record per CUDA kernel, and one per module of kernels: the single place that says what
each kernel is called, where it is defined, what it takes and writes, and how it is launched.

Everything else about a kernel is derived from these records:

* the launchers' modules (:func:`module_source`, the kernel names a module exports, whole or
  the part of one player count: :attr:`Module.players`) and the
  checks every launch goes through (:func:`check_launch`, applied by
  :func:`gpu_eval.cuda.modules.compile_module` to each kernel it hands out): the argument
  count, each scalar's exact type (CuPy packs a scalar by its dtype, so a wrong one shifts
  every later argument on a GPU), each pointer's element type, contiguity and device, and the
  block shape;
* :mod:`gpu_eval.cuda.resources` (the ptxas figures of every module);
* in the tests, the host build's C wrapper of each kernel, the stand-in CuPy's knowledge of
  which arguments a kernel writes, and the list of small launches run under the sanitizers.

A kernel's signature is written here as in its ``.cu`` file; ``tests/cuda/test_manifest.py``
checks it against the preprocessed sources, so a record cannot drift from its kernel.
Nothing here imports CuPy.

Examples
--------
>>> k = kernel("ge_eval_masks")
>>> k.source, [a.name for a in k.args], [a.name for a in k.outputs]
('evaluate.cu', ['masks', 'out', 'n'], ['out'])
>>> "ge_eval_masks" in module("evaluator").kernels
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gpu_eval.cuda.nvrtc import module_code

__all__ = ["Arg", "Launch", "Kernel", "Module", "PlayerKernels", "LaunchError", "KERNELS",
           "MODULES", "kernel", "module", "module_source", "module_of_code", "players_of_code",
           "check_launch", "kernel_record", "every_kernel_name", "THREADS", "STRIDE",
           "WARP_ITEMS", "BLOCK_ITEMS", "ROW_TILES", "RUNS", "TILES"]

#: Threads per block of every launch (occupancy and grids are sized for it).
THREADS = 256

# C spellings of the kernels' element types (ge_common.cuh's typedefs and the plain names).
_CTYPES: dict[str, np.dtype] = {
    **{t: np.dtype(np.uint8) for t in ("ge_u8", "unsigned char")},
    **{t: np.dtype(np.uint16) for t in ("ge_u16", "unsigned short")},
    **{t: np.dtype(np.uint32) for t in ("ge_u32", "unsigned int", "unsigned")},
    **{t: np.dtype(np.uint64) for t in ("ge_u64", "unsigned long long")},
    **{t: np.dtype(np.int32) for t in ("ge_i32", "int")},
    **{t: np.dtype(np.int64) for t in ("ge_i64", "long long")},
    "double": np.dtype(np.float64),
}
_PARAM = re.compile(r"^(const\s+)?([a-z_0-9 ]+?)\s*(\*)?\s*(\w+)$")


class LaunchError(TypeError):
    """A launch that does not match its kernel's record (a launcher bug, caught before the
    device sees it)."""


@dataclass(frozen=True)
class Arg:
    """One kernel parameter: its name, its C type as written in the kernel, the element (or
    value) dtype, and whether it is a pointer, a pointer to const, or may be null."""

    name: str
    ctype: str
    dtype: np.dtype
    pointer: bool
    const: bool
    nullable: bool = False

    @property
    def written(self) -> bool:
        """Whether the kernel may write through it (a pointer not to const)."""
        return self.pointer and not self.const


@dataclass(frozen=True)
class Launch:
    """How a kernel is launched: in words how the grid covers the work, the threads per block
    the launchers use (a kernel works with any multiple of 32 up to it, unless ``fixed``),
    and the grid's dimensions."""

    shape: str
    threads: int = THREADS
    dims: int = 1
    fixed: bool = False


#: The launch shapes in use.
STRIDE = Launch("a thread per item, striding over the rest; at most one wave of blocks")
WARP_ITEMS = Launch("a warp per item (32 items a warp for the showdowns), striding over the "
                    "rest")
BLOCK_ITEMS = Launch("a block per item (a board, a tile of boards, a row of deals), striding "
                     "over the rest")
ROW_TILES = Launch("a block per run of rows, staged in shared memory 256 rows at a time; each "
                   "thread one column in registers, striding over the columns")
RUNS = Launch("each thread a run of consecutive subsets into a per-block shared histogram")
TILES = Launch("a 2-D grid: 64 x 64 tiles of combo pairs by slices of boards; 16 x 16 threads "
               "of 4 x 4 pairs each", dims=2, fixed=True)


@dataclass(frozen=True)
class Kernel:
    """One ``extern "C"`` kernel: its name, the file defining it, its parameters, its launch,
    and for a kernel compiled once per player count (``ge_eq_showdown_3``), that count."""

    name: str
    source: str
    args: tuple[Arg, ...]
    launch: Launch
    players: int | None = None

    @property
    def outputs(self) -> tuple[Arg, ...]:
        """The parameters it writes through."""
        return tuple(a for a in self.args if a.written)

    @property
    def output_indices(self) -> tuple[int, ...]:
        """Positions of :attr:`outputs` among the arguments."""
        return tuple(i for i, a in enumerate(self.args) if a.written)

    @property
    def signature(self) -> str:
        """The parameter list, as in the kernel's source."""
        return ", ".join(f"{a.ctype} {a.name}" for a in self.args)


def kernel_record(name: str, source: str, signature: str, launch: Launch,
                  nullable: tuple[str, ...] = (), players: int | None = None) -> Kernel:
    """The record of a kernel from its parameter list as written in its ``.cu``.

    Parameters
    ----------
    name : str
        The kernel's ``extern "C"`` name.
    source : str
        The ``kernels/`` file whose text defines it (or expands the macro that does).
    signature : str
        Its parameters, ``"const ge_u64* masks, ge_u16* out, ge_u64 n"``.
    launch : Launch
        How the launchers launch it.
    nullable : tuple of str
        Pointer parameters that may be null (``numpy.uint64(0)``).
    players : int, optional
        For one of a family of kernels instantiated once per player count through
        ``GE_FOR_PLAYERS_2_TO_*`` (``kernels/ge_common.cuh``), its count; its name ends in
        ``_<count>``.

    Examples
    --------
    >>> k = kernel_record("ge_x", "x.cu", "const ge_u32* a, ge_u64* b, int n", STRIDE)
    >>> [(a.name, a.dtype.name, a.written) for a in k.args]
    [('a', 'uint32', False), ('b', 'uint64', True), ('n', 'int32', False)]
    """
    args = []
    for param in signature.split(","):
        m = _PARAM.match(" ".join(param.split()))
        if m is None or m.group(2) not in _CTYPES:
            raise AssertionError(f"{name}: cannot read parameter {param.strip()!r}")
        const, base, star, arg = m.groups()
        ctype = f"{'const ' if const else ''}{base}{'*' if star else ''}"
        args.append(Arg(arg, ctype, _CTYPES[base], bool(star), bool(const), arg in nullable))
    unknown = set(nullable) - {a.name for a in args}
    if unknown:
        raise AssertionError(f"{name}: no parameter {sorted(unknown)} to be nullable")
    if players is not None and not name.endswith(f"_{players}"):
        raise AssertionError(f"{name}: a kernel of {players} players is named ..._{players}")
    return Kernel(name, source, tuple(args), launch, players)


@dataclass(frozen=True)
class PlayerKernels:
    """A module's kernels: the ``base`` ones, and those compiled once per player count
    (``per_count`` patterns such as ``"ge_eq_showdown_{n}"``, for each of ``counts``), which
    ``GE_PLAYERS`` lets a call compile for its own count alone (``kernels/ge_common.cuh``).
    Every module has one (:attr:`Module.players`), derived from its kernels' records.

    Examples
    --------
    >>> k = PlayerKernels(("ge_x",), ("ge_y_{n}",), (2, 3))
    >>> k.names(), k.names(0), k.names(3)
    (('ge_x', 'ge_y_2', 'ge_y_3'), ('ge_x',), ('ge_x', 'ge_y_3'))
    >>> module("batch").players.counts
    (2, 3, 4, 5, 6, 7, 8, 9, 10)
    """

    base: tuple[str, ...]
    per_count: tuple[str, ...]
    counts: tuple[int, ...]

    def names(self, players: int | None = None) -> tuple[str, ...]:
        """Every kernel (``players=None``: the whole module), the base ones alone (0), or the
        base ones and those of ``players``."""
        if players is None:
            counts = self.counts
        elif players == 0:
            counts = ()
        elif players in self.counts:
            counts = (players,)
        else:
            raise ValueError(f"no kernels for {players} players (counts {self.counts})")
        return self.base + tuple(p.format(n=n) for p in self.per_count for n in counts)

    @classmethod
    def of(cls, records: list[Kernel]) -> PlayerKernels:
        """The base kernels and per-count families of ``records`` (one module's)."""
        base = tuple(k.name for k in records if k.players is None)
        families: dict[str, list[int]] = {}
        for k in records:
            if k.players is not None:
                families.setdefault(k.name[:-len(str(k.players))] + "{n}", []).append(k.players)
        counts = {tuple(sorted(c)) for c in families.values()}
        if len(counts) > 1:
            raise AssertionError(f"per-count kernels of one module over different counts: "
                                 f"{families}")
        return cls(base, tuple(families), counts.pop() if counts else ())


@dataclass(frozen=True)
class Module:
    """A module of kernels compiled together (one ``cupy.RawModule`` per device): its name,
    title, the ``.cu`` files it includes, and the ``__constant__`` table structs its launcher
    uploads."""

    name: str
    title: str
    files: tuple[str, ...]
    symbols: tuple[str, ...] = ()
    kernels: tuple[str, ...] = field(default=(), compare=False)
    players: PlayerKernels = field(default=PlayerKernels((), (), ()), compare=False)

    def __post_init__(self) -> None:
        if not (self.players.base or self.players.per_count):  # a module made by hand
            object.__setattr__(self, "players", PlayerKernels(self.kernels, (), ()))


_EVAL_ROWS = "ge_u16* out, ge_u64 n"
_CHECK_TAIL = ("int lo, int hi, ge_u64 forbidden, int param, int mask_invalid, ge_u16* out, "
               "unsigned long long* first_bad")
_COUNTS = ("unsigned long long* wins, unsigned long long* ties, unsigned long long* units, "
           "unsigned long long* valid")
_SAMPLE = ("const ge_u64* combos, const ge_u32* offsets, const double* cum, const ge_u8* modes, "
           "const ge_u64* deck, ge_u32 n_deck, ge_u64 base, int k, ge_u32 key0, ge_u32 key1, "
           "ge_u64 start, ge_u64 stop, ge_u32 max_tries, unsigned long long* totals, "
           "unsigned long long* failures")


def _evaluators() -> list[Kernel]:
    out = []
    for prefix, src in (("ge_", "evaluate.cu"), ("ge_phash_", "evaluate_phash.cu")):
        out += [
            kernel_record(f"{prefix}eval_masks", src, f"const ge_u64* masks, {_EVAL_ROWS}", STRIDE),
            kernel_record(f"{prefix}eval_ids", src, f"const ge_u8* ids, int k, {_EVAL_ROWS}", STRIDE),
            kernel_record(f"{prefix}eval_deadhorse", src, f"const ge_i32* cards, int k, {_EVAL_ROWS}",
                    STRIDE)]
    for prefix, src in (("ge_", "check_eval.cu"), ("ge_phash_", "check_eval.cu"),
                        ("ge_shortdeck_", "variants.cu"), ("ge_low_", "lowball.cu")):
        out += [
            kernel_record(f"{prefix}check_eval_masks", src,
                    f"const ge_u64* masks, ge_u64 n, {_CHECK_TAIL}", STRIDE),
            kernel_record(f"{prefix}check_eval_ids", src,
                    f"const ge_u8* ids, int k, ge_u64 n, {_CHECK_TAIL}", STRIDE)]
    return out


_RECORDS: list[Kernel] = [
    *_evaluators(),
    kernel_record("ge_ids_to_masks", "convert.cu",
            "const ge_u8* ids, int k, ge_u64* masks, ge_u8* counts, ge_u64 n", STRIDE),
    kernel_record("ge_deadhorse_to_masks", "convert.cu",
            "const ge_i32* cards, int k, ge_u64* masks, ge_u8* counts, ge_u64 n", STRIDE),
    kernel_record("ge_mask_counts", "convert.cu", "const ge_u64* masks, ge_u8* counts, ge_u64 n",
            STRIDE),
    kernel_record("ge_enumerate_counts", "enumerate.cu",
            "int k, ge_u64 start, ge_u64 stop, ge_u32 run, const ge_u64* binom, "
            "unsigned long long* hist", RUNS),
    # kernels/equity.cu: hold'em equity.
    kernel_record("ge_eq_strengths", "equity.cu",
            "const ge_u64* pool, ge_u32 n_pool, const ge_u64* boards, const ge_u8* deck_ids, "
            "int k, ge_u64 first, const ge_u64* binom, ge_u64 base, ge_u32 n_boards, ge_u16* S, "
            "ge_u32 ld", BLOCK_ITEMS, nullable=("boards", "deck_ids")),
    *(kernel_record(f"ge_eq_showdown_{n}", "equity.cu",
              f"const ge_u16* S, ge_u32 ld, ge_u32 n_boards, const ge_i32* matchups, "
              f"ge_u32 n_matchups, ge_u32 per_task, {_COUNTS}", WARP_ITEMS, players=n)
      for n in range(2, 11)),
    *(kernel_record(f"ge_eq_sample_{n}", "equity.cu", _SAMPLE, STRIDE, players=n)
      for n in range(2, 11)),
    kernel_record("ge_eq_mc_draws", "equity.cu",
            "int n, const ge_u64* combos, const ge_u32* offsets, const double* cum, "
            "const ge_u8* modes, const ge_u64* deck, ge_u32 n_deck, int k, ge_u32 key0, "
            "ge_u32 key1, ge_u64 start, ge_u64 count, ge_u32 max_tries, ge_u64* holes, "
            "ge_u64* boards, ge_u8* ok", STRIDE),
    kernel_record("ge_eq_philox", "equity.cu",
            "const ge_u32* ctr, const ge_u32* key, ge_u32* out, ge_u64 n", STRIDE),
    kernel_record("ge_eq_pairs", "equity.cu",
            "const ge_u16* S, ge_u32 ld, ge_u32 n_boards, ge_u32 n_hands, ge_u32* wins, "
            "ge_u32* ties", TILES),
    # kernels/equity_batch.cu: equity_batch's spots.
    *(kernel_record(f"ge_batch_{n}", "equity_batch.cu",
              "const ge_u64* hole, const ge_u64* board, const ge_u64* free_cards, "
              "ge_u32 n_spots, int k, ge_u32* wins, ge_u32* ties, ge_u32* units", WARP_ITEMS,
              players=n)
      for n in range(2, 11)),
    # kernels/equity_deals.cu: stud, razz and the draw games.
    kernel_record("ge_deals_strengths", "equity_deals.cu",
            "const ge_u64* masks, ge_u32 n, ge_u64 known, int eval, const ge_u8* best5, "
            "ge_u16* S, ge_u8* L", STRIDE, nullable=("L",)),
    *(kernel_record(f"ge_deals_grid_{n}", "equity_deals.cu",
              "const ge_i32* rows, const ge_u64* unions, ge_u32 n_rows, const ge_u16* S, "
              "const ge_u8* L, const ge_u32* offsets, const ge_u64* last, ge_u32 n_last, "
              "ge_u32 scale, unsigned long long* wins, unsigned long long* ties, "
              "unsigned long long* units, unsigned long long* high, unsigned long long* low, "
              "unsigned long long* n_valid", ROW_TILES if n == 2 else BLOCK_ITEMS,
              nullable=("L",), players=n)
      for n in range(2, 9)),
    *(kernel_record(f"ge_deals_sample_{n}", "equity_deals.cu",
              "const ge_u64* known, const ge_u8* need, const ge_u64* deck, ge_u32 n_deck, "
              "int eval, const ge_u8* best5, ge_u32 scale, ge_u32 key0, ge_u32 key1, "
              "ge_u64 start, ge_u64 stop, unsigned long long* totals", STRIDE,
              nullable=("best5",), players=n)
      for n in range(2, 9)),
    # kernels/equity_games.cu: Omaha, short deck, Courchevel and the hi/lo games.
    kernel_record("ge_games_strengths", "equity_games.cu",
            "const ge_u8* pool_ids, int h, ge_u32 n_pool, const ge_u8* boards, ge_u32 n_boards, "
            "int variant, const ge_u8* low_table, ge_u16* S, ge_u8* L, ge_u32 ld", STRIDE,
            nullable=("L",)),
    *(kernel_record(f"ge_games_showdown_{n}", "equity_games.cu",
              f"const ge_u16* S, const ge_u8* L, ge_u32 ld, ge_u32 n_boards, "
              f"const ge_i32* matchups, ge_u32 n_matchups, ge_u32 per_task, ge_u32 scale, "
              f"{_COUNTS}, unsigned long long* high, unsigned long long* low", STRIDE,
              nullable=("L",), players=n)
      for n in range(2, 11)),
    # shared: bit 0 one board for every row, bit 1 one hand for every board.
    kernel_record("ge_games_low", "equity_games.cu",
            "const ge_u64* hole, const ge_u64* board, int shared, const ge_u8* table, "
            "ge_u8* out, ge_u64 n", STRIDE, nullable=("board",)),
    # failures doubles as the device's stop flag (read by every thread).
    *(kernel_record(f"ge_games_sample_{n}", "equity_games.cu",
              "const ge_u64* combos, const ge_u32* offsets, const double* cum, "
              "const ge_u8* modes, const ge_u64* deck, ge_u32 n_deck, ge_u64 base, int k, "
              "int h, int variant, const ge_u8* low_table, ge_u32 scale, ge_u32 key0, "
              "ge_u32 key1, ge_u64 start, ge_u64 stop, ge_u32 max_tries, "
              "unsigned long long* totals, unsigned long long* failures", STRIDE,
              nullable=("low_table",), players=n)
      for n in range(2, 11)),
    # kernels/variants.cu: short deck, Omaha and wild cards (the fused checks are above).
    kernel_record("ge_shortdeck_eval_masks", "variants.cu",
            f"const ge_u64* masks, int variant, {_EVAL_ROWS}", STRIDE),
    kernel_record("ge_shortdeck_eval_ids", "variants.cu",
            f"const ge_u8* ids, int k, int variant, {_EVAL_ROWS}", STRIDE),
    kernel_record("ge_omaha_eval_ids", "variants.cu",
            f"const ge_u8* hole, int h, const ge_u8* board, int b, int shared_board, "
            f"{_EVAL_ROWS}", STRIDE),
    kernel_record("ge_wild_eval_masks", "variants.cu",
            f"const ge_u64* masks, const ge_u8* jokers, ge_u32 wild_ranks, int bug, "
            f"{_EVAL_ROWS}", STRIDE),
    # The other evaluators and the solver tables.
    kernel_record("ge_low_eval_masks", "lowball.cu", f"const ge_u64* masks, int game, {_EVAL_ROWS}",
            STRIDE),
    kernel_record("ge_fsm_eval_ids", "fsm.cu",
            "const unsigned int* table, const unsigned char* ids, int k, long long n, "
            "unsigned short* out", STRIDE),
    kernel_record("ge_hand_index", "hand_index.cu",
            "const ge_u8* ids, ge_u64 n, int k, int n_rounds, ge_u32 cpr, int lowest, "
            "int nranks, int all_rounds, const long long* rinfo, const long long* lookup, "
            "const long long* cfgdata, const ge_u64* binom, long long* out, "
            "ge_u64* first_bad", STRIDE),
    kernel_record("ge_tables_board_strengths", "solver_tables.cu",
            "const ge_u64* boards, ge_u32 n_boards, const ge_u64* pair_masks, ge_u32 n_cols, "
            "ge_u16* out", STRIDE),
    kernel_record("ge_tables_river_counts", "solver_tables.cu",
            "const ge_u64* boards, ge_u32 n_boards, const ge_u64* pair_masks, "
            "const ge_u16* pair_cards, ge_u32 n_cols, ge_u32 deck, ge_u32 n_strengths, "
            "ge_u16* wins, ge_u16* ties", BLOCK_ITEMS),
    # kernels/range_report.cu: the range report's weighted wins and ties, a block per board.
    kernel_record("ge_report_counts", "range_report.cu",
            "const ge_u64* boards, ge_u32 n_boards, const ge_u64* pair_masks, "
            "const ge_u16* pair_cards, ge_u32 n_cols, const ge_u16* card_start, "
            "const ge_u16* mates, const double* weights, ge_u32 n_vecs, double* less, "
            "double* equal", BLOCK_ITEMS),
]

#: Every kernel, by name.
KERNELS: dict[str, Kernel] = {}
for _k in _RECORDS:
    if _k.name in KERNELS:
        raise AssertionError(f"two records for kernel {_k.name}")
    KERNELS[_k.name] = _k


def _module(name: str, title: str, files: tuple[str, ...], symbols: tuple[str, ...] = ()
            ) -> Module:
    players = PlayerKernels.of([k for k in KERNELS.values() if k.source in files])
    return Module(name, title, files, symbols, players.names(), players)


_BITMASK = "ge_bitmask_tables"

#: Every module the package compiles, by name; a module exports the kernels of its files.
MODULES: dict[str, Module] = {m.name: m for m in (
    _module("evaluator", "hold'em evaluation kernels",
            ("evaluate.cu", "enumerate.cu", "evaluate_phash.cu", "convert.cu", "check_eval.cu"),
            (_BITMASK, "ge_phash_tables")),
    _module("equity", "equity kernels", ("equity.cu",), (_BITMASK,)),
    _module("batch", "batch equity kernels", ("equity_batch.cu",), (_BITMASK,)),
    _module("games", "game equity kernels", ("equity_games.cu",),
            ("ge_shortdeck_tables", "ge_omaha_tables")),
    _module("variants", "variant kernels", ("variants.cu", "convert.cu"),
            (_BITMASK, "ge_shortdeck_tables", "ge_omaha_tables", "ge_wild_tables")),
    _module("fsm", "state-machine kernel", ("fsm.cu",)),
    _module("indexer", "hand indexer kernel", ("hand_index.cu",)),
    _module("lows", "low kernels", ("lowball.cu", "convert.cu"), ("ge_low_tables",)),
    _module("solver_tables", "solver tables kernels", ("solver_tables.cu",), (_BITMASK,)),
    _module("deals", "deal equity kernels", ("equity_deals.cu",), (_BITMASK, "ge_low_tables")),
    _module("range_report", "range report kernels", ("range_report.cu",), (_BITMASK,)),
)}


def kernel(name: str) -> Kernel:
    """The record of kernel ``name``.

    Raises
    ------
    KeyError
        If no record has that name.

    Examples
    --------
    >>> kernel("ge_batch_2").launch is WARP_ITEMS
    True
    """
    try:
        return KERNELS[name]
    except KeyError:
        raise KeyError(f"no kernel record named {name!r} in gpu_eval.cuda.manifest") from None


def module(name: str) -> Module:
    """The record of module ``name``.

    Examples
    --------
    >>> module("lows").files
    ('lowball.cu', 'convert.cu')
    """
    try:
        return MODULES[name]
    except KeyError:
        raise KeyError(f"no module record named {name!r} in gpu_eval.cuda.manifest") from None


def module_source(name: str, players: int | None = None) -> str:
    """The code compiled for module ``name``: its files, included by name, after a first line
    carrying the kernel sources' hash (the kernel cache and CuPy's key on this text, which
    would otherwise not change when only an included header does).

    ``players`` compiles the per-player-count kernels for that count alone (0: none of them;
    ``GE_PLAYERS`` in ``kernels/ge_common.cuh``, :attr:`Module.players`); None, the default,
    the whole module.

    Examples
    --------
    >>> module_source("indexer").splitlines()[1]
    '#include "hand_index.cu"'
    >>> module_source("batch", players=3).splitlines()[1]
    '#define GE_PLAYERS 3'
    """
    m = module(name)
    if players is not None:
        m.players.names(players)  # a count the module has
    return module_code(m.title, m.files, players)


def module_of_code(code: str) -> Module:
    """The module whose :func:`module_source` ``code`` is (by the files it includes).

    Raises
    ------
    KeyError
        If no module includes exactly those files.

    Examples
    --------
    >>> module_of_code(module_source("batch")).name
    'batch'
    """
    files = tuple(re.findall(r'^#include "([\w.]+)"$', code, re.M))
    for m in MODULES.values():
        if m.files == files:
            return m
    raise KeyError(f"no module record includes {files}")


def players_of_code(code: str) -> int | None:
    """The player count a module's code is compiled for (``#define GE_PLAYERS``), None for the
    whole module.

    Examples
    --------
    >>> players_of_code(module_source("games", 4)), players_of_code(module_source("games"))
    (4, None)
    """
    found = re.search(r"^#define GE_PLAYERS (\d+)$", code, re.M)
    return None if found is None else int(found.group(1))


def every_kernel_name() -> set[str]:
    """Every kernel of every module the package compiles.

    Examples
    --------
    >>> len(every_kernel_name()) == len(KERNELS)
    True
    """
    return {k for m in MODULES.values() for k in m.kernels}


def _device_of(a: Any) -> int | None:
    dev = getattr(a, "device", None)
    return None if dev is None else int(getattr(dev, "id", dev))


def check_launch(k: Kernel, grid: tuple, block: tuple, args: tuple,
                 device_id: int | None = None, *, host: bool = False) -> None:
    """Check one launch of kernel ``k`` against its record, before it reaches a device.

    Parameters
    ----------
    k : Kernel
        The kernel's record.
    grid, block : tuple of int
        The launch geometry.
    args : tuple
        What the launch passes: device arrays (anything with ``dtype`` and ``data.ptr``) for
        pointers, ``numpy.uint64(0)`` for a null pointer where the record allows one, NumPy
        scalars of the parameter's exact type otherwise.
    device_id : int, optional
        The device the kernel's module lives on: every array must be there too.
    host : bool
        A launch of the kernel's host build (tests): NumPy arrays stand for pointers, and the
        block may be any size the kernel allows, not only the launchers'.

    Raises
    ------
    LaunchError
        Naming the kernel, the argument and what is wrong.

    Examples
    --------
    >>> try:
    ...     check_launch(kernel("ge_mask_counts"), (1,), (256,), (None, None, np.uint64(3)))
    ... except LaunchError as exc:
    ...     print(exc)
    ge_mask_counts argument 0 (masks): expected a device array of uint64, got None
    """
    block = tuple(block)
    if block != (k.launch.threads,) and (not host or k.launch.fixed or len(block) != 1
                                         or block[0] % 32 or not 0 < block[0] <= k.launch.threads):
        raise LaunchError(f"{k.name}: blocks of {block} threads; its record says "
                          f"({k.launch.threads},)")
    if not 1 <= len(tuple(grid)) <= k.launch.dims or min(grid) < 1:
        raise LaunchError(f"{k.name}: grid {tuple(grid)}; its record allows {k.launch.dims} "
                          f"dimension(s) of at least one block")
    if len(args) != len(k.args):
        raise LaunchError(f"{k.name}: {len(args)} arguments; the kernel takes {len(k.args)}")
    for i, (a, p) in enumerate(zip(args, k.args)):
        where = f"{k.name} argument {i} ({p.name})"
        if p.pointer:
            if isinstance(a, np.generic):
                if not (p.nullable and a.dtype == np.uint64 and int(a) == 0):
                    raise LaunchError(f"{where}: expected a device array of {p.dtype}"
                                      f"{' or a null pointer' if p.nullable else ''}, got {a!r}")
                continue
            ptr = getattr(getattr(a, "data", None), "ptr", None)
            if not (ptr is not None or host and isinstance(a, np.ndarray)):
                raise LaunchError(f"{where}: expected a device array of {p.dtype}, got "
                                  f"{type(a).__name__ if a is not None else None}")
            if a.dtype != p.dtype:
                raise LaunchError(f"{where}: a {a.dtype} array; the kernel reads {p.ctype}")
            if not a.flags.c_contiguous:
                raise LaunchError(f"{where}: not C-contiguous")
            dev = None if device_id is None else _device_of(a)
            if dev is not None and dev != device_id:
                raise LaunchError(f"{where}: an array on device {dev}; the kernel runs on "
                                  f"device {device_id}")
        elif not isinstance(a, np.generic) or a.dtype != p.dtype:
            raise LaunchError(f"{where}: expected a numpy {p.dtype} scalar ({p.ctype}), got "
                              f"{a!r}")
