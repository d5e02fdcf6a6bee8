"""Each solver table as independent chunks: what each street computes, chunk by chunk.

A :class:`TableChunks` splits one table into ``chunks`` pieces of canonical boards
(``canonical.py``); one subclass per table (:data:`TABLES`), so nothing here asks which street
it is. Running
chunk ``i`` returns either rows to *set* (the river, flop and turn tables: ``HandIndexer``
indices and their values; hands that are equal up to suits get the same values, so a row set
twice is set to the same thing) or partial sums to *add* (preflop, which weights each canonical
river board by its orbit). In-process builds, the resumable files of ``gpu-eval tables`` and the
Dask builds all run these same chunks, so they give the same bytes.

Board-major throughout: a river board's 1,326 hole strengths are computed once
(``board_strengths``) and counted with card removal (``river_counts``); a flop or turn hand's
histogram is read off the river counts of every runout board of its canonical board.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from math import comb
from typing import Any, ClassVar

import numpy as np

from gpu_eval.cards import ID_TO_MASK
from gpu_eval.combinatorics import unrank
from gpu_eval.games.registry import HOLDEM
from gpu_eval.solver_tables import canonical
from gpu_eval.solver_tables.board_strengths import strengths_of_masks
from gpu_eval.solver_tables.layout import DeckLayout, deck_layout
from gpu_eval.solver_tables.results import ROUNDS, RiverStrength, StrengthHistograms
from gpu_eval.solver_tables.river_counts import count_columns, opponents, twice_counts
from gpu_eval.suit_symmetry import SUIT_PERMS, permute_suits

__all__ = ["TableChunks", "RiverChunks", "FlopChunks", "TurnChunks", "PreflopChunks", "TABLES",
           "chunks_of", "board_counts", "twice_ehs", "bin_of", "runout_positions", "build_in_memory",
           "gather", "run_chunks"]

#: Count a flop's or turn's runouts once per orbit of the board's suit stabilizer.
SYMMETRY = True


def board_counts(masks: np.ndarray, lay: DeckLayout, backend: str = "numpy"
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(wins, ties, valid)``, each ``(B, C)``, of full river boards: every column's wins and
    ties (uint16) and whether the column is a hand at all (shares no card with the board).
    ``backend="cuda"`` counts on the GPU (kernels/solver_tables.cu), the same integers."""
    if backend == "cuda":
        from gpu_eval.solver_tables.cuda_engine import river_counts_cuda  # CuPy only here

        wins, ties = river_counts_cuda(masks, lay)
        return wins, ties, (lay.pair_masks[None, :] & masks[:, None]) == 0
    s = strengths_of_masks(masks, lay)
    wins, ties = count_columns(s, lay, 5)
    return wins, ties, s > 0


def twice_ehs(masks: np.ndarray, lay: DeckLayout, backend: str = "numpy"
              ) -> tuple[np.ndarray, np.ndarray]:
    """``(t, valid)`` of full river boards: ``t = 2 * wins + ties`` (int32) per column."""
    if backend != "cuda":
        s = strengths_of_masks(masks, lay)
        return twice_counts(s, lay, 5), s > 0
    w, ti, valid = board_counts(masks, lay, backend)
    t = 2 * w.astype(np.int32)
    t += ti
    return t, valid


def bin_of(t: np.ndarray, bins: int, opp: int) -> np.ndarray:
    """The histogram bin ``min(floor(ehs * bins), bins - 1)`` of ``t = 2 * opp * ehs``, in
    integers: ``(t * bins) // (2 * opp)``, so no rounding of a float decides a bin.

    Examples
    --------
    >>> bin_of(np.array([0, 39, 40, 1979, 1980]), 50, 990).tolist()
    [0, 0, 1, 49, 49]
    """
    t = np.asarray(t)
    wide = np.int64 if int(bins) * 2 * opp >= 2**31 else np.int32   # t * bins never overflows
    return np.minimum((t.astype(wide, copy=False) * bins) // (2 * opp), bins - 1)


@cache
def bin_table(bins: int, opp: int) -> np.ndarray:
    """``bin_of`` of every ``t`` from 0 to ``2 * opp`` (int32, read-only): a lookup, not a
    division per column."""
    out = bin_of(np.arange(2 * opp + 1), bins, opp).astype(np.int32)
    out.flags.writeable = False
    return out


@cache
def column_perms(game: str) -> np.ndarray:
    """``(24, C)``: the column of each column's pair under each suit permutation (read-only)."""
    lay = deck_layout(game)
    out = np.empty((len(SUIT_PERMS), lay.columns), dtype=np.intp)
    for i, perm in enumerate(SUIT_PERMS):
        ids = ((lay.pairs & ~np.uint8(3)) | np.array(perm, dtype=np.uint8)[lay.pairs & 3])
        h = ids.astype(np.intp) - lay.lowest_card
        lo, hi = h.min(axis=1), h.max(axis=1)
        out[i] = hi * (hi - 1) // 2 + lo
    out.flags.writeable = False
    return out


def symmetric_runouts(board_mask: np.ndarray, run_masks: np.ndarray, game: str):
    """The runouts of a board up to the suit permutations that fix the board.

    Returns ``(reps, inv, colmap)``: the representative runout masks, each runout's
    representative, and ``colmap`` ``(R, C)`` such that column ``h`` on runout ``r`` has the
    counts of column ``colmap[r, h]`` on runout ``reps[inv[r]]`` (the permutation ``g`` that
    maps the runout to its representative fixes the board, so ``(h, board + r)`` and
    ``(g h, board + g r)`` are the same hand up to suits). ``None`` when only the identity
    fixes the board.
    """
    stab = [i for i, perm in enumerate(SUIT_PERMS)
            if permute_suits(board_mask, perm) == board_mask]
    if len(stab) == 1:
        return None
    cand = np.stack([permute_suits(run_masks, SUIT_PERMS[i]) for i in stab])   # (S, R)
    which = cand.argmin(axis=0)
    rep = cand[which, np.arange(len(run_masks))]
    reps, inv = np.unique(rep, return_inverse=True)
    return reps, inv, column_perms(game)[np.array(stab)[which]]


@cache
def runout_positions(left: int, r: int) -> np.ndarray:
    """Every ``r``-subset of ``left`` remaining cards, as positions (colex order, read-only)."""
    out = unrank(np.arange(comb(left, r)), r).astype(np.intp)
    out.flags.writeable = False
    return out


def _masks(ids: np.ndarray) -> np.ndarray:
    return np.bitwise_or.reduce(ID_TO_MASK[ids], axis=-1)


@dataclass(frozen=True)
class TableChunks:
    """One table as ``chunks`` independent pieces (see the module docstring); a subclass per
    table says what its chunks compute, what arrays it fills and what result it makes.

    Examples
    --------
    >>> p = chunks_of("flop", "holdem")
    >>> type(p).__name__, p.board_cards, p.mode, p.runouts, sorted(p.arrays())
    ('FlopChunks', 3, 'set', 1081, ['counts', 'twice_sum', 'twice_sumsq'])
    """

    game: str
    bins: int = 50
    backend: str = "numpy"     # where the river boards are counted; the bytes do not depend on it

    #: The table's name (``strength_histograms(street)``; ``"river"`` for river strength).
    street: ClassVar[str]
    #: Cards of the canonical boards a chunk walks (preflop walks whole river boards).
    board_cards: ClassVar[int]
    #: Board cards the table's hands know: the runouts are the rest of five.
    known_cards: ClassVar[int]
    #: ``"set"``: a chunk returns rows and their values; ``"add"``: sums added over chunks.
    mode: ClassVar[str] = "set"
    #: Canonical boards per chunk: chunks of a few seconds each on one core.
    chunk_size: ClassVar[int]
    #: The result class (its ``from_saved`` reads a saved table back).
    result_type: ClassVar[type[RiverStrength] | type[StrengthHistograms]]

    @property
    def layout(self) -> DeckLayout:
        return deck_layout(self.game)

    @property
    def boards(self) -> np.ndarray:
        return canonical.canonical_boards(self.board_cards, self.game)

    @property
    def chunks(self) -> int:
        return -(-len(self.boards) // self.chunk_size)

    @property
    def rows(self) -> int:
        rounds = ROUNDS[self.street]
        return canonical.indexer(rounds, self.game).size(len(rounds) - 1)

    @property
    def opponents(self) -> int:
        return opponents(self.layout)

    @property
    def runouts(self) -> int:
        """Board completions of one hand: ``5 - known_cards`` cards from the deck left."""
        left = self.layout.deck_size - 2 - self.known_cards
        return comb(left, 5 - self.known_cards)

    def chunk_boards(self, i: int) -> np.ndarray:
        return self.boards[i * self.chunk_size:(i + 1) * self.chunk_size]

    def arrays(self) -> dict[str, tuple[np.dtype, tuple[int, ...]]]:  # pragma: no cover
        """The output arrays: name -> (dtype, shape)."""
        raise NotImplementedError

    def run(self, i: int) -> tuple[np.ndarray | None, dict[str, np.ndarray]]:  # pragma: no cover
        """Chunk ``i``: ``(indices, values)`` to set, or ``(None, partial sums)`` to add."""
        raise NotImplementedError

    def finish_sums(self, parts: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """The arrays from the sums of every chunk (tables whose ``mode`` is ``"add"``)."""
        raise TypeError(f"the {self.street} table sets rows; it has no sums to finish")

    def result(self, arrays: dict[str, np.ndarray]) -> Any:  # pragma: no cover
        """The result object over the finished arrays."""
        raise NotImplementedError

    def bad_row(self, arrays: dict[str, np.ndarray], a: int, b: int
                ) -> tuple[int, str] | None:  # pragma: no cover
        """The first of rows ``a:b`` holding values no such table can, and why; or None
        (:func:`gpu_eval.solver_tables.files.load_table`'s check)."""
        raise NotImplementedError


@dataclass(frozen=True)
class RiverChunks(TableChunks):
    """River strength: per hand on a full board, its wins and ties against every opponent."""

    street: ClassVar[str] = "river"
    board_cards: ClassVar[int] = 5
    known_cards: ClassVar[int] = 5
    chunk_size: ClassVar[int] = 2048
    result_type: ClassVar[type[RiverStrength] | type[StrengthHistograms]] = RiverStrength

    def arrays(self) -> dict[str, tuple[np.dtype, tuple[int, ...]]]:
        return {"wins": (np.dtype(np.uint16), (self.rows,)),
                "ties": (np.dtype(np.uint16), (self.rows,))}

    def run(self, i: int) -> tuple[np.ndarray | None, dict[str, np.ndarray]]:
        boards = self.chunk_boards(i)
        lay = self.layout
        w, t, valid = board_counts(_masks(boards), lay, self.backend)
        # The hands of the valid columns, board-major: the pair as one uint16 each and the
        # board repeated (row gathers of a few bytes are many times slower).
        col = np.flatnonzero(valid) % lay.columns
        hands = np.empty((len(col), 7), dtype=np.uint8)
        hands[:, :2] = np.take(lay.pairs.view(np.uint16).ravel(), col).view(np.uint8
                                                                            ).reshape(-1, 2)
        hands[:, 2:] = np.repeat(boards, valid.sum(axis=1), axis=0)
        idx = canonical.indexer((2, 5), self.game).index(hands, backend=self.backend)
        return idx, {"wins": w[valid], "ties": t[valid]}

    def result(self, arrays: dict[str, np.ndarray]) -> RiverStrength:
        return RiverStrength(arrays["wins"], arrays["ties"], self.game, self.opponents)

    def bad_row(self, arrays: dict[str, np.ndarray], a: int, b: int
                ) -> tuple[int, str] | None:
        total = arrays["wins"][a:b].astype(np.int64) + arrays["ties"][a:b]
        bad = np.flatnonzero(total > self.opponents)
        if not bad.size:
            return None
        i = int(bad[0])
        return a + i, f"{int(total[i]):,} wins and ties out of {self.opponents} opponents"


@dataclass(frozen=True)
class HistogramChunks(TableChunks):
    """Strength histograms: per hand, how its river equity falls in ``bins`` over the
    runouts, with the sums of twice its equity and of its square."""

    #: The histogram counts' integer type.
    count_type: ClassVar[type] = np.uint16
    result_type: ClassVar[type[RiverStrength] | type[StrengthHistograms]] = StrengthHistograms

    def arrays(self) -> dict[str, tuple[np.dtype, tuple[int, ...]]]:
        return {"counts": (np.dtype(self.count_type), (self.rows, self.bins)),
                "twice_sum": (np.dtype(np.uint64), (self.rows,)),
                "twice_sumsq": (np.dtype(np.uint64), (self.rows,))}

    def result(self, arrays: dict[str, np.ndarray]) -> StrengthHistograms:
        return StrengthHistograms(self.street, arrays["counts"], arrays["twice_sum"],
                                  arrays["twice_sumsq"], self.runouts, self.opponents,
                                  self.game, self.bins)

    def bad_row(self, arrays: dict[str, np.ndarray], a: int, b: int
                ) -> tuple[int, str] | None:
        sums = arrays["counts"][a:b].sum(axis=1, dtype=np.int64)
        top = 2 * self.opponents * self.runouts
        bad = np.flatnonzero((sums != self.runouts) | (arrays["twice_sum"][a:b] > top)
                             | (arrays["twice_sumsq"][a:b] > top * 2 * self.opponents))
        if not bad.size:
            return None
        i = int(bad[0])
        return a + i, (f"its counts add up to {int(sums[i]):,}, not the {self.runouts:,} "
                       f"runouts" if sums[i] != self.runouts
                       else "its sums exceed every runout won")

    def run(self, i: int) -> tuple[np.ndarray | None, dict[str, np.ndarray]]:
        """Flop or turn: every runout of each canonical board, each column's histogram."""
        boards = self.chunk_boards(i)
        lay, bins, opp = self.layout, self.bins, self.opponents
        k = self.board_cards
        deck = np.arange(lay.lowest_card, 52, dtype=np.uint8)
        pos = runout_positions(lay.deck_size - k, 5 - k)
        keys = (np.arange(lay.columns, dtype=np.int32) * bins)[None, :]
        idx_parts, counts, sums, sumsq = [], [], [], []
        ix = canonical.indexer(ROUNDS[self.street], self.game)
        for b in boards:
            left = deck[~np.isin(deck, b)]
            bm = _masks(b)
            run_masks = _masks(left[pos])                             # (R,)
            sym = symmetric_runouts(bm, run_masks, self.game) if SYMMETRY else None
            if sym is None:
                t, valid = twice_ehs(bm | run_masks, lay, self.backend)
            else:  # count one runout per orbit of the board's stabilizer, permute the columns
                reps, inv, colmap = sym
                t_rep, valid_rep = twice_ehs(bm | reps, lay, self.backend)
                t = t_rep[inv[:, None], colmap]
                valid = valid_rep[inv[:, None], colmap]
            hero = (lay.pair_masks & bm) == 0                         # columns off this board
            key = (keys + bin_of(t, bins, opp))[valid]
            c = np.bincount(key, minlength=lay.columns * bins).reshape(lay.columns, bins)
            t64 = np.where(valid, t, 0).astype(np.int64)
            counts.append(c[hero])
            sums.append(t64.sum(axis=0)[hero])
            sumsq.append((t64 * t64).sum(axis=0)[hero])
            cols = np.flatnonzero(hero)
            hands = np.concatenate([lay.pairs[cols], np.broadcast_to(b, (len(cols), k))], axis=1)
            idx_parts.append(ix.index(hands, backend=self.backend))
        return np.concatenate(idx_parts), {
            "counts": np.concatenate(counts).astype(self.count_type),
            "twice_sum": np.concatenate(sums).astype(np.uint64),
            "twice_sumsq": np.concatenate(sumsq).astype(np.uint64)}


@dataclass(frozen=True)
class FlopChunks(HistogramChunks):
    """Flop strength histograms: every turn and river of each canonical flop."""

    street: ClassVar[str] = "flop"
    board_cards: ClassVar[int] = 3
    known_cards: ClassVar[int] = 3
    chunk_size: ClassVar[int] = 4


@dataclass(frozen=True)
class TurnChunks(HistogramChunks):
    """Turn strength histograms: every river of each canonical turn board."""

    street: ClassVar[str] = "turn"
    board_cards: ClassVar[int] = 4
    known_cards: ClassVar[int] = 4
    chunk_size: ClassVar[int] = 64


@dataclass(frozen=True)
class PreflopChunks(HistogramChunks):
    """Preflop strength histograms: sums over the canonical river boards weighted by their
    orbit sizes, added over chunks, then one row per hand class."""

    street: ClassVar[str] = "preflop"
    board_cards: ClassVar[int] = 5
    known_cards: ClassVar[int] = 0
    mode: ClassVar[str] = "add"
    chunk_size: ClassVar[int] = 2048
    count_type: ClassVar[type] = np.uint32

    def run(self, i: int) -> tuple[np.ndarray | None, dict[str, np.ndarray]]:
        """Per column, sums over the canonical river boards weighted by their orbit sizes."""
        boards = self.chunk_boards(i)
        weights = canonical.orbit_sizes(5, self.game)[i * self.chunk_size:
                                                      (i + 1) * self.chunk_size]
        # The boards by orbit size: a few runs of equal weight, each counted without weights
        # (integer bincounts and sums) and scaled once.
        by_weight = np.argsort(weights, kind="stable")
        weights = weights[by_weight]
        lay, bins, nc = self.layout, self.bins, self.layout.columns
        t, valid = twice_ehs(_masks(boards)[by_weight], lay, self.backend)
        keys = np.take(bin_table(bins, self.opponents), t)
        keys += np.arange(nc, dtype=np.int32) * bins
        counts = np.zeros(nc * bins, dtype=np.int64)
        twice_sum = np.zeros(nc, dtype=np.int64)
        twice_sumsq = np.zeros(nc, dtype=np.int64)
        ends = np.append(np.flatnonzero(np.diff(weights)) + 1, len(weights))
        for lo, hi in zip(np.append(0, ends[:-1]), ends):
            w = int(weights[lo])
            c = np.bincount(keys[lo:hi].ravel(), minlength=nc * bins)
            c[::bins] -= (hi - lo) - valid[lo:hi].sum(axis=0)  # blocked columns fell in bin 0
            c *= w
            counts += c
            tw = t[lo:hi]
            twice_sum += w * tw.sum(axis=0, dtype=np.int64)
            twice_sumsq += w * np.square(tw).sum(axis=0, dtype=np.int64)   # t * t < 2**31
        return None, {"counts": counts.reshape(nc, bins), "twice_sum": twice_sum,
                      "twice_sumsq": twice_sumsq}

    def finish_sums(self, parts: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """The per-column sums of every chunk, as per-class rows (each class's sum divided
        by its pairs: equal hands up to suits have equal histograms, exactly)."""
        cls, size = canonical.column_classes(self.game)
        out = {}
        spec = self.arrays()
        for name, part in parts.items():
            total = np.zeros((len(size),) + part.shape[1:], dtype=np.int64)
            np.add.at(total, cls, part)
            q, r = np.divmod(total, size.reshape((-1,) + (1,) * (part.ndim - 1)))
            if r.any():  # the orbit weights make every class sum a multiple of its size
                raise AssertionError(f"preflop {name}: a class sum is not a multiple of its size")
            out[name] = q.astype(spec[name][0])
        return out


#: Every solver table, by name: adding a table is a subclass here (see the architecture page).
TABLES: dict[str, type[TableChunks]] = {
    t.street: t for t in (RiverChunks, TurnChunks, FlopChunks, PreflopChunks)}


def chunks_of(street: str, game: str = HOLDEM, bins: int = 50, backend: str = "numpy"
              ) -> TableChunks:
    """The chunks of one table; ``ValueError`` for an unknown street, game or bin count.
    ``backend`` (``auto``, ``numpy``, ``cuda``) is resolved here.

    Examples
    --------
    >>> chunks_of("river", "shortdeck").chunks
    10
    """
    from gpu_eval import backend_choice

    if street not in TABLES:
        raise ValueError(f"street {street!r}: expected one of {', '.join(TABLES)}")
    deck_layout(game)  # validates the game
    if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or not 1 <= bins <= 1980:
        raise ValueError(f"bins={bins!r}: expected an integer from 1 to 1980")
    return TABLES[street](game, int(bins), backend_choice.resolve(backend))


def run_chunks(p: TableChunks, chunks, workers: int | None = None):
    """``(i, p.run(i))`` for each chunk ``i`` of ``chunks``, as they finish, on ``workers``
    threads (default: the usable cores, at most 4; NumPy releases the GIL in the heavy
    steps). At most two chunks per thread are in flight, so memory stays bounded."""
    import os
    from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait

    chunks = list(chunks)
    if workers is None:
        workers = max(1, min(4, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                             else (os.cpu_count() or 1)))
    if workers == 1 or len(chunks) < 2:
        for i in chunks:
            yield i, p.run(i)
        return
    with ThreadPoolExecutor(workers) as pool:
        pending: dict[Future, int] = {}
        todo = iter(chunks)
        try:
            while True:
                while len(pending) < 2 * workers:
                    i = next(todo, None)
                    if i is None:
                        break
                    pending[pool.submit(p.run, i)] = i
                if not pending:
                    return
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for f in done:
                    yield pending.pop(f), f.result()
        finally:
            for f in pending:
                f.cancel()


def build_in_memory(p: TableChunks, progress=None, workers: int | None = None):
    """Run every chunk of ``p`` in this process (on ``workers`` threads) and return the
    result."""
    return gather(p, (out for _, out in run_chunks(p, range(p.chunks), workers)), progress,
                  10.0 if p.chunks > 4 else 0.0)


def gather(p: TableChunks, outputs, progress=None, seconds: float = 10.0):
    """The result of ``p`` from its chunks' outputs ``(rows or None, arrays)``, in any
    order (one process or a cluster alike): rows set in place, sums added, then finished.
    ``seconds`` is the expected run time that decides a bar when ``progress`` is None."""
    from gpu_eval.progress import Progress, wanted

    arrays = {n: np.zeros(shape, dtype=dt) for n, (dt, shape) in p.arrays().items()}
    sums = None
    with Progress(p.chunks, f"{p.street} table", unit=" chunks",
                  enabled=wanted(progress, seconds)) as bar:
        for idx, vals in outputs:
            if idx is None:
                sums = vals if sums is None else {n: sums[n] + v for n, v in vals.items()}
            else:
                for n, v in vals.items():
                    arrays[n][idx] = v
            bar.update(1)
    if sums is not None:
        arrays = p.finish_sums(sums)
    return p.result(arrays)
