"""Shared test set-up: the helpers beside the tests on sys.path, and the host-built kernels."""

import sys
from pathlib import Path

import pytest

# The reference evaluator and helpers live beside the tests.
sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(scope="session")
def variant_host():
    """The variant kernels (short deck, Omaha, wild cards) built as host C++ for the CPU;
    skips the test when there is no C++ compiler."""
    from emulation import hostbuild, variants_host

    try:
        return variants_host.load()
    except hostbuild.HostBuildUnavailableError as exc:
        pytest.skip(f"cannot build the kernels for the CPU: {exc}")
