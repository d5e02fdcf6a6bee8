"""Stream order on the CUDA paths, checked on the CPU with tests/emulation/fake_cupy/.

The stand-in CuPy queues the work of our own streams until they are synchronised or waited on,
and a launch that reads a buffer written on another stream without being ordered after that
write (an event recorded after it and waited on, or a host synchronisation) reads poison.
So a missing ``wait_event`` gives wrong strengths here, as it may on a real device.
"""

from __future__ import annotations

import numpy as np
import pytest

import gpu_eval as ge
from gpu_eval.cuda import holdem
from gpu_eval.cuda import variants as CV
from gpu_eval.evaluator import bitmask

import kernel_refs as R
import variant_cases as VC


@pytest.fixture
def fake(stand_in_cupy):
    return stand_in_cupy

def _masks(n: int, seed: int = 3):
    ids = R.random_hands(np.random.default_rng(seed), n, 7)
    masks = R.ids_to_masks(ids)
    return masks, bitmask.evaluate_masks(masks)


def test_stand_in_models_stream_order(fake):
    """The model itself: a launch on a stream of ours that does not wait for the upload on
    the caller's stream reads poison; with the event wait it reads the data."""
    masks, want = _masks(2_000)
    state = holdem.get_module()
    stream = fake.cuda.Stream(non_blocking=True)

    def run(wait: bool) -> np.ndarray:
        d_in = fake.asarray(masks)  # written on the caller's (null) stream
        ready = fake.cuda.get_current_stream().record()
        with stream:
            if wait:
                stream.wait_event(ready)
            out = fake.empty(len(masks), dtype=fake.uint16)
            state.launch("ge_eval_masks", len(masks), (d_in, out, np.uint64(len(masks))))
            host = np.empty(len(masks), np.uint16)
            queued = fake.launches[-1]
            assert fake.cuda.get_current_stream() is stream and queued[0] == "ge_eval_masks"
        stream.synchronize()
        out.get(out=host, stream=stream)
        return host

    fake.races.clear()
    bad = run(wait=False)
    assert len(fake.races) == 1 and "without waiting" in fake.races[0]
    assert (bad != want).mean() > 0.9  # the poisoned input gave wrong strengths
    fake.races.clear()
    np.testing.assert_array_equal(run(wait=True), want)
    assert fake.races == []


def test_queued_work_runs_only_when_synchronised(fake):
    masks, want = _masks(500)
    state = holdem.get_module()
    stream = fake.cuda.Stream(non_blocking=True)
    d_in = fake.asarray(masks)
    fake.cuda.runtime.deviceSynchronize()
    with stream:
        out = fake.empty(len(masks), dtype=fake.uint16)
        state.launch("ge_eval_masks", len(masks), (d_in, out, np.uint64(len(masks))))
    assert stream.done < stream.seq  # queued, not run
    assert (out.view(np.ndarray).view(np.uint8) == fake.POISON).all()
    stream.synchronize()
    np.testing.assert_array_equal(out.get(), want)
    assert fake.races == []


def test_omaha_shared_board_streamed_waits_for_its_upload(fake):
    """Problem 1 of issue 17: the shared board is uploaded on the caller's stream and read by
    the streaming slots' launches, which must wait for it (they did not)."""
    rng = np.random.default_rng(11)
    cards = VC.deal(rng, 3_000, 9)
    hole, board = cards[:, :4], cards[0, 4:]
    ok = ~np.isin(hole, board).any(axis=1)
    want = ge.evaluate_omaha(hole[ok], board, game="omaha", backend="numpy")
    got = CV.omaha_ids_cuda(hole[ok], board, chunk_rows=500)
    assert fake.races == []
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("chunk_rows", [None, 777])
def test_streamed_paths_are_ordered(fake, chunk_rows):
    """Every streamed path of the evaluator runs without an unordered read."""
    masks, want = _masks(3_000, seed=5)
    np.testing.assert_array_equal(holdem.evaluate_masks_cuda(masks, chunk_rows=chunk_rows), want)
    ids = R.random_hands(np.random.default_rng(5), 3_000, 7)
    np.testing.assert_array_equal(holdem.evaluate_ids_cuda(ids, chunk_rows=chunk_rows), want)
    assert fake.races == []
