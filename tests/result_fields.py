"""Comparing two equity results field by field (the CUDA tests: the device's result against
the NumPy engine's, or a seeded run against its rerun)."""

from __future__ import annotations

import numpy as np


def assert_same_fields(want, got, names) -> None:
    """Every field of ``names`` equal in ``want`` and ``got`` (arrays element for element),
    or None in both."""
    for name in names:
        a, b = getattr(want, name), getattr(got, name)
        if a is None:
            assert b is None, name
        else:
            np.testing.assert_array_equal(a, b, err_msg=name)
