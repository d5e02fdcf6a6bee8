"""Every public entry point that takes cards, fed seeded random bad ids, dtypes, shapes and
array kinds (issue 27 item 6): only a right answer or a ValueError / TypeError that names what
is wrong may come back (the rules are in ``tests/bad_input.py``)."""

from __future__ import annotations

import zlib

import numpy as np
import pytest
from bad_input import SHAPES, judge, make_case, outcome, params, reshape

#: Cases per entry point: a few hundred in all, a few seconds.
CASES = 12


@pytest.mark.parametrize("entry", params("fuzz"))
def test_bad_input_gets_a_clear_error_or_the_right_answer(entry):
    rng = np.random.default_rng(zlib.crc32(entry.name.encode()))
    references = {s: outcome(entry, reshape(entry.good, s)) for s in SHAPES}
    assert references["as is"][0] == "ok", references["as is"]
    failures = []
    for _ in range(CASES):
        case = make_case(entry, rng)
        why = judge(entry, case, references[case.shape])
        if why is not None:
            failures.append(f"{case}: {why}")
    assert not failures, f"{entry.name}:\n" + "\n".join(failures)
