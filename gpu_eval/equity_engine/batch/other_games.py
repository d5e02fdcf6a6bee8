"""``equity_batch`` for the games beside hold'em: many spots of known cards, each walked
exactly by its game's own engine (Omaha and short deck:
:mod:`gpu_eval.equity_engine.board_games.numpy_engine`;
stud, razz and the draw games: :mod:`gpu_eval.equity_engine.deals.numpy_engine`), one after another,
except the small heads-up spots of the games without a board, walked together
(:func:`gpu_eval.equity_engine.deals.numpy_engine.batch_counts`: a few thousand deals each, where one
call's fixed cost would outweigh the deals).

A spot is a fixed set of cards: each player's cards (hole cards; in stud the known cards; in
a draw game the cards kept), the board where the game has one, and dead cards.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gpu_eval import card_input
from gpu_eval.games import registry

__all__ = ["spot_counts"]


def _rows(x: Any, n: int, what: str) -> list:
    """One entry per spot: ``x`` itself when it is one text (or None); else each row's text,
    or its cards read by :mod:`gpu_eval.card_input` (checked before any cast) as ``uint8``
    ids. A list may hold rows of different sizes and kinds; an array is ``(N, cards)``."""
    if x is None or isinstance(x, str):
        return [x or ""] * n
    if isinstance(x, (list, tuple)):
        if len(x) != n:
            raise ValueError(f"{len(x)} rows of {what} for {n} spots")
        return [r if isinstance(r, str) else
                np.array(card_input.card_set(r, f"{what}, row {i}"), dtype=np.uint8)
                for i, r in enumerate(x)]
    return list(card_input.card_rows(x, n, what)[0])


def _spots(hands: Any) -> list[list]:
    """Each spot's players: text as given, card ids read by :mod:`gpu_eval.card_input` as
    ``uint8`` (any integer width, ``uint64`` too in an ``(N, P, k)`` array), ``uint64`` hand
    masks (an ``(N, P)`` array, or one number per player) checked and kept as masks."""
    if isinstance(hands, str):
        raise TypeError("hands must be N lists of each player's cards, such as "
                        "[['AhAcAd', 'KsKcKd']], or an (N, P, cards) array of card ids")
    if not isinstance(hands, (list, tuple)):
        arr = card_input.integer_array(hands, "hands")
        if arr.ndim == 2 and arr.dtype == np.uint64:
            masks = card_input.card_masks(arr, "hands", axes=card_input.SPOT_AXES)
            return [list(row) for row in masks]
        if arr.ndim != 3:
            raise ValueError(f"hands must have shape (N, P, cards) (card ids) or (N, P) "
                             f"(uint64 hand masks), got {arr.shape}")
        card_input.check_range(arr, "hands", 0, card_input.TOP, axes=card_input.SPOT_AXES)
        return [list(spot) for spot in arr.astype(np.uint8)]
    spots = []
    for i, spot in enumerate(hands):
        if isinstance(spot, str):
            raise TypeError(f"hands, row {i}: expected a list of each player's cards, got the "
                            f"text {spot!r}")
        spots.append([p if isinstance(p, str) else _player(p, i, j) for j, p in
                      enumerate(spot)])
    return spots


def _player(cards_: Any, row: int, j: int):
    """One player's cards given as numbers: a ``uint64`` mask stays one, ids become ``uint8``."""
    what = f"hands{card_input.place((row, j), card_input.SPOT_AXES)}"
    arr = card_input.integer_array(cards_, what)
    if arr.ndim == 0 and arr.dtype == np.uint64:
        return card_input.card_masks(arr, what)
    return card_input.card_ids(arr, what, axes=())


def _small_deals(spots: list, b_rows: list, d_rows: list, game: str, backend: str,
                 out: dict, eq: dict, n_boards: np.ndarray) -> set[int]:
    """Fill the rows of the small heads-up spots of a game without a board (stud, the draw
    games), walked together by :func:`gpu_eval.equity_engine.deals.numpy_engine.batch_counts` on NumPy
    (every spot validated first, errors naming it); the indices of the rows filled."""
    if registry.GAMES[game].engine != "deals" or backend == "cuda" \
            or not spots or len(spots[0]) != 2:
        return set()
    from gpu_eval.equity_engine.deals import numpy_engine as deals  # noqa: PLC0415 -- hold'em never loads it

    groups: dict[tuple[int, ...], list[int]] = {}
    probs = []
    for i, (players, b, d) in enumerate(zip(spots, b_rows, d_rows)):
        try:
            probs.append(deals.prepare(players, b, d, game))
        except ValueError as exc:
            raise ValueError(f"spot {i}: {exc}") from None
        if deals.batchable(probs[-1]):
            groups.setdefault(probs[-1].need, []).append(i)
    for rows in groups.values():
        wins, ties, units, hu, lu, valid = deals.batch_counts([probs[i] for i in rows])
        scale = probs[rows[0]].scale
        total = 1.0 * valid[:, None]  # the arithmetic of each spot's own EquityResult
        win, tie_share = wins / total, units / (scale * total)
        fields = {"equity": win + tie_share, "win": win, "tie": ties / total,
                  "tie_share": tie_share, "high": hu / (scale * total),
                  "low": lu / (scale * total), "scoop": win}
        for k in eq:
            eq[k][rows] = fields[k]
        out["wins"][rows], out["ties"][rows], n_boards[rows] = wins, ties, valid
    return {i for rows in groups.values() for i in rows}


def spot_counts(hands, boards=None, dead=None, game: str = registry.STUD,
                backend: str = "auto") -> tuple:
    """Exact equity of many spots of ``game`` (any game but hold'em, which has its own), as
    the fields of ``gpu_eval.equity_engine.batch.api.BatchResult`` in order.

    Parameters
    ----------
    hands : list of list
        N spots, each a list of P players' cards (text or card ids), P the same in every
        spot.
    boards, dead : list or str, optional
        Per spot (or one text for all): the board (none in stud and the draw games) and the
        dead cards.
    game : str
        A registry game other than ``"holdem"``.
    backend : {"auto", "numpy", "cuda"}
        Handed to each spot's engine.

    Returns
    -------
    tuple
        ``equity``, ``win``, ``tie``, ``tie_share`` (N, P); ``wins``, ``ties`` (N, P) deals or
        boards won and split; ``boards`` (N,) deals (or board completions) per spot; the
        backend and the method; ``high``, ``low``, ``scoop`` (N, P) for the hi/lo games
        (each spot's :class:`~gpu_eval.EquityResult` fields), else None.

    Raises
    ------
    ValueError
        A bad spot: the message names the spot and, as :func:`gpu_eval.equity` does, the
        player.

    Examples
    --------
    >>> r = spot_counts([["Ah2h3h4h5h", "Kh2d3d4d5d"], ["7d5h4c3s2h", "Kh2d3d4d5d"]],
    ...                 game="razz")
    >>> r[0].round(6).tolist()[0], r[6].tolist(), r[9] is None
    ([0.930314, 0.069686], [671580, 671580], True)
    >>> r = spot_counts([["AhAcAdKhQc", "KsKcKdQhJc"]], game="stud-hilo")
    >>> bool(np.allclose(r[9] + r[10], r[0])), r[11].round(6).tolist()
    (True, [[0.749534, 0.250412]])
    """
    from gpu_eval.equity_engine.api import equity  # noqa: PLC0415 -- the public call, per spot

    hilo = registry.get(game, where="equity_batch()").hilo
    spots = _spots(hands)
    n = len(spots)
    if n and len({len(s) for s in spots}) != 1:
        raise ValueError("every spot needs the same number of players")
    b_rows, d_rows = _rows(boards, n, "boards"), _rows(dead, n, "dead cards")
    p = len(spots[0]) if n else 0
    out = {k: np.zeros((n, p), dtype=np.int64) for k in ("wins", "ties")}
    eq = {k: np.zeros((n, p)) for k in ("equity", "win", "tie", "tie_share")
          + (("high", "low", "scoop") if hilo else ())}
    n_boards = np.zeros(n, dtype=np.int64)
    used = set()
    done = _small_deals(spots, b_rows, d_rows, game, backend, out, eq, n_boards)
    if len(done):
        used.add("numpy")
    for i, (players, b, d) in enumerate(zip(spots, b_rows, d_rows)):
        if i in done:
            continue
        try:
            r = equity(players, board=b, dead=d, exact=True, game=game, backend=backend,
                       progress=False)
        except ValueError as exc:
            raise ValueError(f"spot {i}: {exc}") from None
        used.add(r.backend)
        for k in out:
            out[k][i] = getattr(r, k)
        for k in eq:
            eq[k][i] = getattr(r, k)
        n_boards[i] = r.boards
    arrays = [eq["equity"], eq["win"], eq["tie"], eq["tie_share"], out["wins"], out["ties"],
              n_boards]
    split = [eq[k] for k in ("high", "low", "scoop")] if hilo else [None] * 3
    for a in arrays + split:
        if a is not None:
            a.flags.writeable = False
    return (*arrays, "+".join(sorted(used)) or "numpy",
            f"exact: {n:,} {game} spot{'s' * (n != 1)}, {p} players", *split)
