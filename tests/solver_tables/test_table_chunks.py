"""Every solver table in ``chunks.TABLES`` is whole: what docs/architecture.md's "Adding a
solver table" asks of a new one (cheap structural checks; the tables' values are checked
against slow references in test_solver_tables.py)."""

from __future__ import annotations

import numpy as np
import pytest

from gpu_eval import cli_tables
from gpu_eval.solver_tables import chunks
from gpu_eval.solver_tables.results import ROUNDS


def test_every_table_is_named_once_everywhere():
    assert set(chunks.TABLES) == set(cli_tables.STREETS)
    assert set(chunks.TABLES) == set(ROUNDS)
    for name, cls in chunks.TABLES.items():
        assert cls.street == name and issubclass(cls, chunks.TableChunks)
        assert cls.mode in ("set", "add")
        assert 0 <= cls.known_cards <= cls.board_cards <= 5


@pytest.mark.parametrize("street", list(chunks.TABLES))
def test_result_holds_the_arrays_the_chunks_fill_and_reads_back(street):
    p = chunks.chunks_of(street, "shortdeck", 10)
    assert type(p) is chunks.TABLES[street]
    spec = p.arrays()
    arrays = {n: np.zeros((2,) + shape[1:], dtype=dt) for n, (dt, shape) in spec.items()}
    r = p.result(arrays)
    assert isinstance(r, p.result_type)
    saved = r.arrays()
    assert set(saved) >= set(spec)
    back = p.result_type.from_saved(r.meta(), saved)
    for n in spec:
        np.testing.assert_array_equal(getattr(back, n), getattr(r, n))


@pytest.mark.parametrize("street", list(chunks.TABLES))
def test_bad_row_refuses_a_forged_row(street):
    p = chunks.chunks_of(street, "shortdeck", 10)
    spec = p.arrays()
    ok = {n: np.zeros((3,) + shape[1:], dtype=dt) for n, (dt, shape) in spec.items()}
    if "counts" in ok:   # every runout in the first bin: a possible row
        ok["counts"][:, 0] = p.runouts
    assert p.bad_row(ok, 0, 3) is None
    bad = {n: a.copy() for n, a in ok.items()}
    if "wins" in bad:
        bad["wins"][2] = p.opponents + 1
    else:
        bad["counts"][2, 1] = 1
    row, why = p.bad_row(bad, 0, 3)
    assert row == 2 and why
    assert p.bad_row(bad, 0, 2) is None


def test_unknown_table_is_named():
    with pytest.raises(ValueError, match="street 'showdown': expected one of river, turn, flop, "
                                         "preflop"):
        chunks.chunks_of("showdown")
