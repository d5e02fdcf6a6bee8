"""Range reports as text: the table a Flopzilla user reads at a glance (``str(report)``, the
``gpu-eval report`` command)."""

from __future__ import annotations

import numpy as np

__all__ = ["report_text", "street_text", "boards_text", "pct"]


def pct(x: float) -> str:
    return "" if x is None or not np.isfinite(x) else f"{100 * x:.1f}%"


def _side_head(name: str, side) -> str:
    n = len(side.combos)
    return f"{name}: {side.label} ({n:,} combo{'s' * (n != 1)} on this board, weight {side.total_weight:g})"


def _rows(kind: str, report) -> list[str]:
    tables = [report.hero.class_table() if kind == "class" else report.hero.draw_table()]
    if report.villain is not None:
        tables.append(report.villain.class_table() if kind == "class"
                      else report.villain.draw_table())
    names = tables[0][kind]
    labels = {k.name: k.label for k in (report.hero.classes if kind == "class"
                                        else report.hero.draw_kinds)}
    lines = []
    for i, name in enumerate(names):
        if not any(t["combos"][i] for t in tables):
            continue
        row = f"{labels[name]:<28}"
        for t in tables:
            row += f"{int(t['combos'][i]):>7} {pct(t['share'][i]):>7} {pct(t['equity'][i]):>7}   "
        lines.append(row.rstrip())
    return lines


def report_text(report) -> str:
    """A :class:`~gpu_eval.range_reports.results.RangeReport` as a table.

    Examples
    --------
    >>> import gpu_eval as ge
    >>> print(ge.range_report("QQ+", board="Kd7c2h"))  # doctest: +NORMALIZE_WHITESPACE
    board Kd7c2h (holdem): 15 combos classified
    hero: QQ+ (15 combos on this board, weight 15)
                                         hero
    made hand                    combos   share  equity
    set                               3   20.0%
    overpair                          6   40.0%
    pocket pair below top pair        6   40.0%
    """
    lines = [f"board {report.board} ({report.game}"
             + (f", dead {report.dead}" if report.dead else "") + f"): {report.method}"]
    lines.append(_side_head("hero", report.hero))
    if report.villain is not None:
        lines.append(_side_head("villain", report.villain))
        lines.append(f"hero equity {pct(report.equity)}, villain equity "
                     f"{pct(1 - report.equity) if report.equity is not None else ''}")
    head = f"{'':<28}{'hero':^23}   " + (f"{'villain':^23}" if report.villain is not None else "")
    cols = f"{'combos':>7} {'share':>7} {'equity':>7}   "
    both = cols * (2 if report.villain is not None else 1)
    lines += [head.rstrip(), (f"{'made hand':<28}" + both).rstrip()]
    lines += _rows("class", report)
    draws = _rows("draw", report)
    if draws:
        lines += [(f"{'draws':<28}" + both).rstrip()] + draws
    return "\n".join(lines)


def street_text(s) -> str:
    """A :class:`~gpu_eval.range_reports.results.StreetReport` as a table: a row per card."""
    lines = [f"every {s.street} of {s.board} ({s.game}"
             + (f", dead {s.dead}" if s.dead else "") + f"): {len(s.cards)} cards, {s.method}"]
    lines.append(f"{'card':<6}{'hero eq':>9}{'villain eq':>12}  hero's most common class")
    for i, c in enumerate(s.cards):
        r = s.reports[i]
        t = r.hero.class_table()
        j = int(np.argmax(t["share"]))
        he = "" if s.hero_equity is None else pct(s.hero_equity[i])
        ve = "" if s.villain_equity is None else pct(s.villain_equity[i])
        lines.append(f"{c:<6}{he:>9}{ve:>12}  {t['class'][j]} {pct(t['share'][j])}")
    return "\n".join(lines)


def boards_text(b) -> str:
    """A :class:`~gpu_eval.range_reports.results.BoardsReport` in a few lines: the overall
    equity, the best and worst boards, the equity by suits and pairing."""
    lines = [f"{len(b.boards):,} boards ({b.game}"
             + (f", dead {b.dead}" if b.dead else "") + f"): {b.method}"]
    lines.append(f"hero: {b.labels[0]}" + (f"  villain: {b.labels[1]}" if b.labels[1] else ""))
    if b.overall is not None:
        lines.append(f"hero equity over every board: {pct(b.overall)}")
        e = np.asarray(b.hero_equity)
        ok = np.flatnonzero(~np.isnan(e))
        if len(ok):
            order = ok[np.argsort(e[ok], kind="stable")]
            lines.append(f"worst board for the hero: {b.boards[order[0]]} {pct(e[order[0]])}; "
                         f"best: {b.boards[order[-1]]} {pct(e[order[-1]])}")
        for key in ("suits", "pairing"):
            t = b.by_texture(key)
            lines.append(f"by {key}: " + ", ".join(
                f"{g} {pct(x)}" for g, x in zip(t["group"], t["hero_equity"])))
    return "\n".join(lines)
