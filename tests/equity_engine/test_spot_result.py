"""spot_result (one matchup of known hands) builds the EquityResult exact_result builds from
the same counts, every field set as its __init__ sets it."""

import copy
import dataclasses
import pickle

import numpy as np
import pytest

from gpu_eval.equity_engine.results import EquityResult, built, exact_result, spot_result


@pytest.mark.parametrize("n", [2, 3, 6])
def test_spot_result_is_exact_result_of_one_matchup(n):
    rng = np.random.default_rng(n)
    scale = int(np.lcm.reduce(np.arange(1, n + 1)))
    for _ in range(20):
        per = int(rng.integers(1, 2000))
        wins = rng.integers(0, per // n + 1, size=n)
        ties = rng.integers(0, per // n + 1, size=n)
        units = ties * int(rng.integers(1, scale))
        common = dict(labels=tuple(f"p{i}" for i in range(n)), backend="numpy", board="2c7d9h",
                      dead="")
        for counts in ((wins, ties, units), (wins.tolist(), ties.tolist(), units.tolist())):
            got = spot_result(*counts, scale, per, **common)
            ref = exact_result(wins[None], ties[None], units[None], np.array([per]), scale,
                               np.ones(1), per, **common)
            for f in dataclasses.fields(EquityResult):
                a, b = getattr(got, f.name), getattr(ref, f.name)
                if isinstance(b, np.ndarray):
                    assert a.dtype == b.dtype and not a.flags.writeable, f.name
                    np.testing.assert_array_equal(a, b, err_msg=f.name)
                else:
                    assert a == b, f.name


def test_built_result_is_a_plain_frozen_result():
    r = spot_result([3, 1], [1, 1], [1, 1], 2, 5, labels=("a", "b"), backend="numpy")
    assert type(r) is EquityResult
    names = {f.name for f in dataclasses.fields(EquityResult)}
    assert r.method == "exact: 5 boards" and not {"equity", "wins"} & set(vars(r))  # not yet
    assert r.wins.tolist() == [3, 1] and set(vars(r)) == names  # all at the first read
    with pytest.raises(AttributeError, match="no attribute 'equityy'"):
        r.equityy  # noqa: B018
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.method = "x"
    back = pickle.loads(pickle.dumps(r))
    assert back.method == r.method and back.wins.tolist() == [3, 1]
    assert dataclasses.replace(r, strategy="s").equity.tolist() == r.equity.tolist()
    assert r.to_dict()["board"] == "" and r.strategy == ""
    assert built(**{f.name: getattr(r, f.name) for f in dataclasses.fields(r)}).to_dict() \
        == r.to_dict()


def test_a_spot_result_reads_alike_before_its_arrays_are_worked_out():
    def fresh():
        return spot_result([3, 1], [1, 1], [1, 1], 2, 5, labels=("a", "b"), backend="numpy")

    ref = fresh().to_dict()
    assert pickle.loads(pickle.dumps(fresh())).to_dict() == ref
    assert dataclasses.replace(fresh(), strategy="s").to_dict() == {**ref, "strategy": "s"}
    assert repr(fresh()) == repr(fresh().__class__(**{k: getattr(fresh(), k) for k in ref}))
    assert str(fresh()) == str(pickle.loads(pickle.dumps(fresh())))
    assert copy.copy(fresh()).equity.tolist() == copy.deepcopy(fresh()).equity.tolist() \
        == ref["equity"]
