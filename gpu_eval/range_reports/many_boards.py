"""Reports over many boards: every flop (its 1,755 suit classes, weighted to 22,100 flops) or
a list of boards.

A flop class is played once when both ranges and the dead cards are symmetric in the suits
(``"QQ+, AKs"``); otherwise every flop of it that the ranges tell apart is played (one per
orbit of the suit permutations that keep both ranges) and the class adds them up, each
times the flops it stands for -- as :func:`gpu_eval.distributed.flop_sweep` does, so the
overall equity is theirs (and the hero range's exact preflop equity).

The work is a list of *played boards*; :func:`board_rows` computes a span of them (the task a
cluster runs, :mod:`gpu_eval.distributed`), :func:`assemble` adds the rows up per class.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb

import numpy as np

from gpu_eval import backend_choice
from gpu_eval import progress as progress_bars
from gpu_eval.games import registry
from gpu_eval.games.registry import Game
from gpu_eval.range_reports import boards as board_sets
from gpu_eval.range_reports.columns import column_features
from gpu_eval.range_reports.draws import DRAWS
from gpu_eval.range_reports.equity import Counts, column_weights, opponents, side_counts, versus
from gpu_eval.range_reports.hands import Side, column_of_pairs, read_range
from gpu_eval.range_reports.made_hands import CLASSES
from gpu_eval.range_reports.results import BoardsReport, read_only
from gpu_eval.range_reports.symmetry import column_perms, orbit_reps, report_group, symmetrize
from gpu_eval.solver_tables.layout import deck_layout
from gpu_eval.suit_symmetry import canonical_masks, permute_suits

__all__ = ["Job", "plan_boards", "prepare", "board_rows", "assemble", "report_boards",
           "SECONDS_PER_BOARD", "BATCH"]

#: NumPy seconds per played flop of two ranges (the progress bar's estimate).
SECONDS_PER_BOARD = 0.06
#: Boards whose runouts are counted in one call (a few thousand runout boards).
BATCH = 8


@dataclass(frozen=True)
class Job:
    """What every span of played boards needs (picklable)."""

    game: str
    hero: Side
    villain: Side | None
    dead: int
    played: np.ndarray          # masks of the boards to play
    per_combo: bool
    backend: str = "numpy"      # where the runouts are counted


def plan_boards(g: Game, hero: Side, villain: Side | None, boards, dead: int
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(rows, played, row_of, mult)``: the row boards (masks), the boards to play, each
    played board's row and how many boards it stands for."""
    if isinstance(boards, str):
        if boards != "flops":
            raise ValueError(f"boards={boards!r}: expected 'flops' or a list of boards")
        flops, class_of, reps = board_sets.flop_classes(g)
        group = report_group(dead, [hero, villain])
        gcanon = canonical_masks(flops, group)
        played, first, mult = np.unique(gcanon, return_index=True, return_counts=True)
        row = class_of[first]
        keep = (played & np.uint64(dead)) == 0          # a flop with a dead card never comes
        order = np.lexsort((played[keep], row[keep]))
        return reps, played[keep][order], row[keep][order], mult[keep][order].astype(np.int64)
    rows = board_sets.parse_boards(boards, g, tuple(s for s in g.board_sizes if s >= 3))
    for i, b in enumerate(rows):
        if int(b) & dead:
            raise ValueError(f"board {i} ({board_sets.board_text(int(b))}) holds a dead card")
    return rows, rows, np.arange(len(rows)), np.ones(len(rows), dtype=np.int64)


def _fits(side: Side, board: int) -> np.ndarray:
    return (side.masks & np.uint64(board)) == 0


def board_rows(job: Job, start: int, stop: int, bar=None) -> dict[str, np.ndarray]:
    """The per-board numbers of played boards ``start .. stop - 1``: each range's class,
    draw and nut shares (weights, not yet divided), matchup weight, equity numerator, integer
    units and showdowns; with ``per_combo`` the per-combo arrays."""
    g = registry.get(job.game)
    backend = backend_choice.resolve(job.backend)   # "auto": on the worker that runs it
    boards = job.played[start:stop]
    n = len(boards)
    sides = [("hero", job.hero), ("villain", job.villain)]
    out: dict[str, np.ndarray] = {"backend": np.array([backend] * n, dtype=object)}
    for name, side in sides:
        if side is None:
            continue
        out[f"{name}_weight"] = np.zeros(n)
        out[f"{name}_class"] = np.zeros((n, len(CLASSES)))
        out[f"{name}_draws"] = np.zeros((n, len(DRAWS)))
        out[f"{name}_nuts"] = np.zeros(n)
        if job.per_combo:
            out[f"{name}_made"] = np.full((n, len(side)), 255, dtype=np.uint8)
            out[f"{name}_draw_bits"] = np.zeros((n, len(side)), dtype=np.uint16)
            out[f"{name}_nut_rank"] = np.full((n, len(side)), -1, dtype=np.int16)
            if job.villain is not None:
                out[f"{name}_equity"] = np.full((n, len(side)), np.nan)
                for key in ("wins", "ties", "matchups"):
                    out[f"{name}_{key}"] = np.full((n, len(side)), -1, dtype=np.int64)
    if job.villain is not None:
        for key in ("matchup_weight", "hero_num", "villain_num"):
            out[key] = np.zeros(n)
        out["units"] = np.zeros(n, dtype=np.int64)
        out["showdowns"] = np.zeros(n, dtype=np.int64)
    if g.is_omaha:
        _omaha_rows(job, g, boards, out, bar)
        return out
    lay = deck_layout(g.name)
    feats = _features_by_size(boards, lay, g, job.dead)
    cols = {name: column_of_pairs(s.combos, lay.lowest_card) for name, s in sides if s is not None}
    for i, b in enumerate(boards):
        b = int(b)
        for name, side in sides:
            if side is None:
                continue
            fit = _fits(side, b)
            c = cols[name][fit]
            w = side.weights[fit]
            made = feats.made[i, c]
            out[f"{name}_weight"][i] = w.sum()
            out[f"{name}_class"][i] = np.bincount(made, weights=w, minlength=len(CLASSES))
            d = feats.draws[i, c]
            out[f"{name}_draws"][i] = [w[(d >> j) & 1 == 1].sum() for j in range(len(DRAWS))]
            out[f"{name}_nuts"][i] = w[feats.nut_rank[i, c] == 0].sum()
            if job.per_combo:
                out[f"{name}_made"][i, fit] = made
                out[f"{name}_draw_bits"][i, fit] = d
                out[f"{name}_nut_rank"][i, fit] = feats.nut_rank[i, c]
    if job.villain is None:
        if bar is not None:
            bar.update(n)
        return out
    # Equity: the runouts of a batch of boards counted together, summed per board. The whole
    # ranges weigh in: a combo touching a board touches each of its runouts, so counts nothing.
    h, v = job.hero, job.villain
    wh = column_weights(cols["hero"], h.weights, lay.columns)
    wv = column_weights(cols["villain"], v.weights, lay.columns)
    # Per board, one runout per orbit of the suit permutations that keep it, the dead cards
    # and both ranges (the ranges' own group, less what moves the board).
    ranges_group = report_group(job.dead, [h, v])
    for a in range(0, n, BATCH):
        batch = [int(x) for x in boards[a:a + BATCH]]
        # Per board, the permutations that keep it: each one applied to the whole batch.
        kept = [permute_suits(boards[a:a + BATCH], p) == boards[a:a + BATCH]
                for p in ranges_group]
        groups = [tuple(p for p, k in zip(ranges_group, kept) if k[j])
                  for j in range(len(batch))]
        runs, mults = [], []
        for b, grp in zip(batch, groups):
            r = board_sets.completions(b, job.dead, g, g.full_board - bin(b).count("1"))
            idx, mult = orbit_reps(r, grp)
            runs.append(r[idx])
            mults.append(mult)
        seg = np.repeat(np.arange(len(batch)), [len(r) for r in runs])
        less, equal, w, where = versus(np.concatenate(runs), lay, wh, wv, reduce="segments",
                                       segments=seg, backend=backend,
                                       multiplicity=np.concatenate(mults))
        for j, b in enumerate(batch):
            i = a + j
            perms = column_perms(lay, groups[j])
            less[:, j] = symmetrize(less[:, j], perms)
            equal[:, j] = symmetrize(equal[:, j], perms)
            k = bin(b).count("1")
            per = comb(g.deck_size - k - bin(job.dead).count("1") - 4, g.full_board - k)
            off = (lay.pair_masks & np.uint64(b)) == 0
            opp = opponents(lay, w * off)
            for name, side, x, y in (("hero", h, 0, 1), ("villain", v, 2, 3)):
                cnt = side_counts(less[:, j], equal[:, j], opp, where[x], where[y], per)
                fit = _fits(side, b)
                c = cols[name][fit]
                sw = side.weights[fit]
                out[f"{name}_num"][i] = sw @ ((cnt.win_weight[c] + cnt.tie_weight[c] / 2) / per)
                if name == "hero":
                    out["matchup_weight"][i] = sw @ cnt.weight[c]
                    out["units"][i] = int((2 * cnt.wins[c] + cnt.ties[c]).sum())
                    out["showdowns"][i] = int(cnt.matchups[c].sum()) * per
                if job.per_combo:
                    eq, _, _ = _equity_of(cnt, c)
                    out[f"{name}_equity"][i, fit] = eq
                    out[f"{name}_wins"][i, fit] = cnt.wins[c]
                    out[f"{name}_ties"][i, fit] = cnt.ties[c]
                    out[f"{name}_matchups"][i, fit] = cnt.matchups[c]
        if bar is not None:
            bar.update(len(batch))
    return out


def _features_by_size(boards: np.ndarray, lay, g: Game, dead: int):
    """:func:`column_features` of boards of any sizes (each size evaluated together)."""
    sizes = np.bitwise_count(boards)
    if len(boards) == 0 or (sizes == sizes[0]).all():
        return column_features(boards, lay, g, dead=dead, outs=False)
    from gpu_eval.range_reports.columns import Features  # noqa: PLC0415

    parts = {int(k): column_features(boards[sizes == k], lay, g, dead=dead, outs=False)
             for k in np.unique(sizes)}
    out = {}
    for name in ("strength", "made", "draws", "straight_ranks", "nut_rank"):
        first = getattr(next(iter(parts.values())), name)
        arr = np.empty((len(boards),) + first.shape[1:], dtype=first.dtype)
        for k, f in parts.items():
            arr[sizes == k] = getattr(f, name)
        out[name] = arr
    return Features(**out)


def _equity_of(cnt: Counts, cols: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return cnt.map(lambda a: np.take(a, cols)).fractions()


def _omaha_rows(job: Job, g: Game, boards: np.ndarray, out: dict, bar) -> None:
    from gpu_eval.range_reports import omaha  # noqa: PLC0415 -- Omaha only

    for i, b in enumerate(boards):
        b = int(b)
        h = _restrict(job.hero, b)
        v = None if job.villain is None else _restrict(job.villain, b)
        rep = omaha.report_one(g, b, job.dead, h, v)
        for name, side, sr in (("hero", job.hero, rep.hero), ("villain", job.villain, rep.villain)):
            if side is None or sr is None:  # no villain: no villain's report
                continue
            fit = _fits(side, b)
            w = np.asarray(sr.weights)
            made = np.asarray(sr.made)
            out[f"{name}_weight"][i] = w.sum()
            out[f"{name}_class"][i] = np.bincount(made, weights=w, minlength=len(CLASSES))
            d = np.asarray(sr.draws)
            out[f"{name}_draws"][i] = [w[(d >> j) & 1 == 1].sum() for j in range(len(DRAWS))]
            out[f"{name}_nuts"][i] = w[np.asarray(sr.nut_rank) == 0].sum()
            if job.per_combo:
                out[f"{name}_made"][i, fit] = made
                out[f"{name}_draw_bits"][i, fit] = d
                out[f"{name}_nut_rank"][i, fit] = np.asarray(sr.nut_rank)
            # (equity comes with its counts: wins, ties, matchups, boards)
            if v is not None and sr.equity is not None and sr.boards is not None:
                eqs = np.asarray(sr.equity)
                ow = np.asarray(sr.opp_weight)
                ok = ~np.isnan(eqs)
                out[f"{name}_num"][i] = (w * ow)[ok] @ eqs[ok]
                if name == "hero":
                    out["matchup_weight"][i] = w @ ow
                    out["units"][i] = int((2 * np.asarray(sr.wins) + np.asarray(sr.ties)).sum())
                    out["showdowns"][i] = int(np.asarray(sr.matchups).sum()) * sr.boards
                if job.per_combo:
                    out[f"{name}_equity"][i, fit] = eqs
                    out[f"{name}_wins"][i, fit] = np.asarray(sr.wins)
                    out[f"{name}_ties"][i, fit] = np.asarray(sr.ties)
                    out[f"{name}_matchups"][i, fit] = np.asarray(sr.matchups)
        if bar is not None:
            bar.update(1)


def _restrict(side: Side, board: int) -> Side:
    fit = _fits(side, board)
    return Side(side.label, side.combos[fit], side.masks[fit], side.weights[fit])


def assemble(g: Game, job: Job, rows: np.ndarray, row_of: np.ndarray, mult: np.ndarray,
             parts: list[dict[str, np.ndarray]], method: str, backend: str) -> BoardsReport:
    """The :class:`BoardsReport` of the played boards' numbers (``parts``, in order)."""
    got = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    ran = sorted(set(got.pop("backend").tolist()))
    backend = "+".join(ran) if ran else backend
    nrow = len(rows)
    m = mult.astype(np.float64)

    def per_row(a):
        a = np.asarray(a, dtype=np.float64)
        out = np.zeros((nrow,) + a.shape[1:])
        np.add.at(out, row_of, a * m.reshape((-1,) + (1,) * (a.ndim - 1)))
        return out

    def shares(name):
        wt = got[f"{name}_weight"]
        with np.errstate(invalid="ignore", divide="ignore"):
            frac = lambda a: a / wt.reshape((-1,) + (1,) * (a.ndim - 1))  # noqa: E731
            flops = per_row(np.ones(len(wt)))
            cls = per_row(frac(got[f"{name}_class"])) / flops[:, None]
            draws = per_row(frac(got[f"{name}_draws"])) / flops[:, None]
            nuts = per_row(frac(got[f"{name}_nuts"])) / flops
        return read_only(cls), read_only(draws), read_only(nuts)

    hs, hd, hn = shares("hero")
    vs = vd = vn = None
    if job.villain is not None:
        vs, vd, vn = shares("villain")
    he = ve = mw = units = shows = None
    overall = None
    if job.villain is not None:
        mw = per_row(got["matchup_weight"])
        num_h = per_row(got["hero_num"])
        num_v = per_row(got["villain_num"])
        with np.errstate(invalid="ignore", divide="ignore"):
            he = read_only(np.where(mw > 0, num_h / mw, np.nan))
            ve = read_only(np.where(mw > 0, num_v / mw, np.nan))
        units = np.zeros(nrow, dtype=np.int64)
        shows = np.zeros(nrow, dtype=np.int64)
        np.add.at(units, row_of, got["units"] * mult)
        np.add.at(shows, row_of, got["showdowns"] * mult)
        overall = float(num_h.sum() / mw.sum()) if mw.sum() > 0 else float("nan")
        mw, units, shows = read_only(mw), read_only(units), read_only(shows)
    combos = None
    if job.per_combo:
        combos = _per_combo(job, got, rows, row_of)
    texts = tuple(board_sets.board_text(int(b)) for b in rows)
    sizes = np.bitwise_count(np.asarray(rows, dtype=np.uint64))
    ids = np.full((len(rows), int(sizes.max()) if len(rows) else 0), 255, dtype=np.uint8)
    for k in np.unique(sizes):
        ids[sizes == k, :k] = board_sets.mask_ids(rows[sizes == k])[:, ::-1]
    flops = np.zeros(nrow, dtype=np.int64)
    np.add.at(flops, row_of, mult)
    return BoardsReport(
        game=g.name, dead=board_sets.board_text(job.dead),
        labels=(job.hero.label, None if job.villain is None else job.villain.label),
        boards=texts, board_ids=read_only(ids), flops=read_only(flops),
        hero_share=hs, villain_share=vs, hero_draws=hd, villain_draws=vd, hero_nuts=hn,
        villain_nuts=vn, hero_equity=he, villain_equity=ve, matchup_weight=mw, units=units,
        showdowns=shows, overall=overall, method=method, backend=backend, combos=combos)


def _per_combo(job: Job, got: dict, rows: np.ndarray, row_of: np.ndarray) -> dict:
    """The per-combo arrays of each row's own board (the played board equal to it)."""
    pick = np.full(len(rows), -1, dtype=np.intp)
    played = job.played
    for i, r in enumerate(row_of):
        if played[i] == rows[r]:
            pick[r] = i
    out = {}
    for name, side in (("hero", job.hero), ("villain", job.villain)):
        if side is None:
            continue
        d = {"combos": read_only(side.combos), "hands": side.label}
        for key in ("made", "draw_bits", "nut_rank", "equity", "wins", "ties", "matchups"):
            k = f"{name}_{key}"
            if k in got:
                d["draws" if key == "draw_bits" else key] = read_only(got[k][pick])
        d["weights"] = read_only(side.weights)
        out[name] = d
    return out


def prepare(g: Game, hero, villain, boards, dead: int, per_combo: bool,
            backend: str = "numpy") -> tuple[Job, np.ndarray, np.ndarray, np.ndarray, str]:
    """Read both ranges and the boards: ``(job, rows, row_of, mult, method)``; every input
    error is raised here, before any work."""
    hs = read_range(hero, g, dead, "hero")
    vs = None if villain is None else read_range(villain, g, dead, "villain")
    rows, played, row_of, mult = plan_boards(g, hs, vs, boards, dead)
    what = f"{len(rows):,} boards" if not isinstance(boards, str) else \
        f"{len(rows):,} flop classes ({len(played):,} flops played)"
    method = what if vs is None else f"exact: {what}, every combo of both ranges"
    return Job(g.name, hs, vs, dead, played, per_combo, backend), rows, row_of, mult, method


def report_boards(g: Game, hero, villain, boards, dead: int, *, per_combo: bool = False,
                  progress: bool | None = None, backend: str = "numpy") -> BoardsReport:
    """Both ranges on many boards (see :func:`gpu_eval.range_report`)."""
    job, rows, row_of, mult, method = prepare(g, hero, villain, boards, dead, per_combo,
                                              backend)
    total = len(job.played)
    show = progress_bars.wanted(progress, SECONDS_PER_BOARD * total * (job.villain is not None))
    with progress_bars.Progress(total, "range report", unit=" boards", enabled=show) as bar:
        parts = [board_rows(job, 0, total, bar)]
    return assemble(g, job, rows, row_of, mult, parts, method, backend)
