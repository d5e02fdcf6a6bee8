"""Any array in, the caller's kind of array out, without a copy (gpu_eval.array_interop).

No big framework is needed: small objects here expose *only* the protocols (``__dlpack__`` /
``__dlpack_device__`` over a NumPy array, and ``__cuda_array_interface__`` alone), and the
device path runs through the stand-in CuPy. JAX (CPU) runs where it is installed (the
``test`` extra has it), PyTorch (CPU) only where it happens to be (it is too big for CI).
"""

from __future__ import annotations

import doctest
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest
from array_objects import CAIOnly, DLPackOnly

import gpu_eval as ge
from gpu_eval import array_interop
from gpu_eval.array_interop import adopt

HANDS7 = ge.cards.parse(["AhKhQhJhTh2c3d", "7c5d4h3s2c9d8d", "AsAd5c5h2s9c8c"])
HOLE = ge.cards.parse(["AsKs2c3d", "7h8h9cTc"])
BOARD = ge.cards.parse(["Qs Js Ts 6h 2d", "Qs Js Ts 6h 2d"])
STRENGTHS = np.array([7462, 1, 4897], dtype=np.uint16)
SPOTS = ge.cards.parse(["AhKh", "QsQd"]).reshape(1, 2, 2).repeat(2, axis=0)
FLOPS = ge.cards.parse(["2c7d9h", "2c7d9s"])

# (name, call, the array argument): every public function that takes ids, masks or strengths.
CALLS = [
    ("evaluate ids", ge.evaluate, HANDS7),
    ("evaluate masks", ge.evaluate, ge.cards.to_mask(HANDS7)),
    ("evaluate one hand", ge.evaluate, HANDS7[0]),
    ("evaluate_low", ge.evaluate_low, HANDS7),
    ("category", ge.category, STRENGTHS),
    ("describe", ge.describe, STRENGTHS),
    ("to_cactus_kev", ge.to_cactus_kev, STRENGTHS),
    ("from_cactus_kev", ge.from_cactus_kev, STRENGTHS),
    ("to_value", ge.to_value, STRENGTHS),
    ("from_value", ge.from_value, ge.to_value(STRENGTHS)),
    ("to_rating", ge.to_rating, STRENGTHS),
    ("from_rating", ge.from_rating, ge.to_rating(STRENGTHS)),
    ("hand_type", ge.hand_type, ge.to_rating(STRENGTHS)),
    ("describe_low", ge.describe_low, np.array([56, 0, 1], dtype=np.uint8)),
    ("compare", ge.compare, STRENGTHS.reshape(1, 3)),
    ("to_mask", ge.cards.to_mask, HANDS7),
    ("from_mask", ge.cards.from_mask, ge.cards.to_mask(HANDS7)),
    ("format ids", ge.cards.format, HANDS7),
    ("format masks", ge.cards.format, ge.cards.to_mask(HANDS7)),
    ("to_deadhorse", ge.cards.to_deadhorse, HANDS7),
    ("from_deadhorse", ge.cards.from_deadhorse, ge.cards.to_deadhorse(HANDS7)),
    ("mask_popcount", ge.cards.mask_popcount, ge.cards.to_mask(HANDS7)),
    ("equity_batch", lambda h: ge.equity_batch(h, FLOPS), SPOTS),
    ("equity board", lambda b: ge.equity(["AhKh", "QsQd"], board=b), FLOPS[0]),
    ("board_strengths", ge.board_strengths, FLOPS),
    ("HandIndexer.index", ge.HandIndexer((2, 3)).index, np.concatenate([SPOTS[:, 0], FLOPS], axis=1)),
    ("HandIndexer.unindex", lambda i: ge.HandIndexer((2, 3)).unindex(1, i),
     np.array([0, 5, 1_286_791], dtype=np.int64)),
]


def _same(got, want) -> None:
    """Results equal in value, of the same kind (NumPy arrays stay NumPy arrays here)."""
    if hasattr(want, "_fields") or hasattr(want, "__dataclass_fields__"):
        for name in (want._fields if hasattr(want, "_fields") else want.__dataclass_fields__):
            _same(getattr(got, name), getattr(want, name))
        return
    if isinstance(want, (np.ndarray, np.generic)):
        got_arr = np.asarray(got)  # 0-d for a NumPy scalar: the caller's kind holds no scalar
        assert isinstance(got, np.ndarray if isinstance(want, np.ndarray) else
                          (np.ndarray, np.generic)), type(got)
        np.testing.assert_array_equal(got_arr, want)
        assert got_arr.dtype == np.asarray(want).dtype
        return
    assert got == want


@pytest.mark.parametrize("name,fn,arg", CALLS, ids=[c[0] for c in CALLS])
def test_dlpack_only_host_object_gives_numpy_results(name, fn, arg):
    """An unknown host producer gets NumPy results (the host kind every DLPack consumer reads
    back without a copy), equal to those of NumPy input; the input is viewed, not copied,
    and left as it was."""
    before = arg.copy()
    obj = DLPackOnly(arg)
    _same(fn(obj), fn(arg))
    assert np.shares_memory(adopt(obj).array, arg)
    np.testing.assert_array_equal(arg, before)


def test_strided_views_are_read_in_place():
    """Row steps, Fortran order and reversed columns: viewed with their strides, no copy."""
    big = np.concatenate([HANDS7, HANDS7[::-1]])
    for view in (big[::2], np.asfortranarray(big), big[:, ::-1]):
        assert np.shares_memory(adopt(DLPackOnly(view)).array, view)
        np.testing.assert_array_equal(ge.evaluate(DLPackOnly(view)), ge.evaluate(view))


def test_two_array_arguments_and_lists_of_arrays():
    want = ge.evaluate_omaha(HOLE, BOARD)
    got = ge.evaluate_omaha(DLPackOnly(HOLE), board=DLPackOnly(BOARD))
    np.testing.assert_array_equal(got, want)
    rows = [STRENGTHS[:2], STRENGTHS[1:]]  # compare() takes one array per player too
    _same(ge.compare([DLPackOnly(r) for r in rows]), ge.compare(rows))


BAD = [
    ("a card twice", ge.evaluate, np.array([[0, 0, 4, 8, 12, 16, 20]], np.uint8)),
    ("an id out of range", ge.evaluate, np.array([[60, 1, 4, 8, 12]], np.uint8)),
    ("a strength off the scale", ge.category, np.array([7, 9999], np.uint16)),
    ("stray mask bits", ge.cards.from_mask, np.array([1 << 13], np.uint64)),
    ("no DeadHorse card", ge.cards.from_deadhorse, np.array([3], np.int64)),
    ("a float dtype", ge.describe, np.array([1.5])),
    ("a shared card", lambda h: ge.equity_batch(h, FLOPS), np.array([[[0, 1], [1, 2]]] * 2)),
]


@pytest.mark.parametrize("why,fn,arg", BAD, ids=[b[0] for b in BAD])
def test_bad_rows_raise_as_for_numpy(why, fn, arg):
    with pytest.raises((ValueError, TypeError)) as want:
        fn(arg)
    with pytest.raises(want.type) as got:
        fn(DLPackOnly(arg))
    assert str(got.value) == str(want.value)


def test_host_path_imports_no_gpu_or_framework_module():
    code = ("import sys, numpy as np, gpu_eval as ge\n"
            "class D:\n"
            "    def __init__(s, a): s.a = a\n"
            "    def __dlpack__(s, **k): return s.a.__dlpack__()\n"
            "    def __dlpack_device__(s): return (1, 0)\n"
            "ids = ge.cards.parse(['AhKhQhJhTh2c3d'])\n"
            "s = ge.evaluate(D(ids), backend='numpy'); ge.describe(D(s)); ge.cards.to_mask(D(ids))\n"
            "print(sorted({'cupy', 'torch', 'jax', 'jaxlib', 'numba'} & set(sys.modules)))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=60)
    assert out.stdout.strip() == "[]"


def test_plain_inputs_pass_through():
    for x in (None, "AsKs", [1, 2], 3, np.uint16(4), HANDS7):
        assert not array_interop.is_foreign(x)
        assert adopt(x).array is x
    assert array_interop.is_foreign(DLPackOnly(HANDS7))
    assert array_interop.is_foreign(CAIOnly(HANDS7))


def test_unreadable_device_type_is_a_type_error():
    with pytest.raises(TypeError, match="device type 10"):
        ge.evaluate(DLPackOnly(HANDS7, device_type=10))  # ROCm device memory


def test_device_input_without_cupy_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)  # import cupy -> ImportError
    for obj in (CAIOnly(HANDS7), DLPackOnly(HANDS7, device_type=2)):
        with pytest.raises(TypeError, match="needs CuPy"):
            ge.evaluate(obj)


# --- JAX (CPU) and PyTorch (CPU) -----------------------------------------------------------

def test_jax_in_jax_out():
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    j = jnp.asarray(HANDS7)
    got = ge.evaluate(j)
    assert isinstance(got, jax.Array) and got.dtype == jnp.uint16
    np.testing.assert_array_equal(np.asarray(got), ge.evaluate(HANDS7))
    assert np.shares_memory(adopt(j).array, np.from_dlpack(j))  # a view of JAX's buffer
    s = jnp.asarray(STRENGTHS)
    assert isinstance(ge.category(s), jax.Array)
    np.testing.assert_array_equal(np.asarray(ge.to_rating(s)), ge.to_rating(STRENGTHS))
    assert ge.describe(s) == ge.describe(STRENGTHS)  # words stay words
    r = ge.equity_batch(jnp.asarray(SPOTS), jnp.asarray(FLOPS))
    assert isinstance(r.wins, jax.Array) and r.backend == ge.equity_batch(SPOTS, FLOPS).backend
    np.testing.assert_array_equal(np.asarray(r.wins), ge.equity_batch(SPOTS, FLOPS).wins)
    with pytest.raises(ValueError, match="used twice") as got_err:
        ge.evaluate(jnp.asarray(BAD[0][2]))
    with pytest.raises(ValueError) as want_err:
        ge.evaluate(BAD[0][2])
    assert str(got_err.value) == str(want_err.value)
    if not jax.config.jax_enable_x64:  # uint64 masks would be cut to uint32: refuse
        with pytest.raises(TypeError, match="jax_enable_x64"):
            ge.cards.to_mask(j)


def test_interop_page_examples_run():
    pytest.importorskip("jax")
    page = Path(__file__).resolve().parents[2] / "docs" / "interop.md"
    failures, tried = doctest.testfile(str(page), module_relative=False)
    assert tried >= 8 and failures == 0


def test_module_examples_run():
    failures, tried = doctest.testmod(array_interop)
    assert tried >= 10 and failures == 0


def test_torch_in_torch_out():
    torch = pytest.importorskip("torch")
    t = torch.from_numpy(HANDS7.astype(np.int64))
    got = ge.evaluate(t)
    assert isinstance(got, torch.Tensor) and got.device == t.device
    np.testing.assert_array_equal(got.numpy(), ge.evaluate(HANDS7))
    assert np.shares_memory(adopt(t).array, t.numpy())
    r = ge.equity_batch(torch.from_numpy(SPOTS), torch.from_numpy(FLOPS))  # read-only results
    assert isinstance(r.equity, torch.Tensor)
    np.testing.assert_array_equal(r.wins.numpy(), ge.equity_batch(SPOTS, FLOPS).wins)


def test_torch_branch_on_the_host_never_aliases_read_only_results(monkeypatch):
    """The PyTorch host branch without PyTorch (a stand-in ``torch``): results go through
    ``torch.from_dlpack``; read-only ones (``equity_batch``'s) as copies, since a tensor
    cannot be read-only; writable ones as they are."""
    handed = []
    monkeypatch.setitem(sys.modules, "torch", types.SimpleNamespace(
        from_dlpack=lambda a: handed.append(a) or ("tensor", a)))

    class Tensor(DLPackOnly):
        pass

    Tensor.__module__ = "torch"
    r = ge.equity_batch(Tensor(SPOTS), FLOPS)
    want = ge.equity_batch(SPOTS, FLOPS)
    assert r.wins[0] == "tensor" and all(a.flags.writeable for a in handed)
    np.testing.assert_array_equal(r.wins[1], want.wins)
    handed.clear()
    kind, s = ge.evaluate(Tensor(HANDS7))
    assert kind == "tensor" and handed[0] is s  # handed over as computed, not copied
    np.testing.assert_array_equal(s, ge.evaluate(HANDS7))


# --- the device path, through the stand-in CuPy ---------------------------------------------

def test_device_dlpack_object_runs_on_the_current_stream(stand_in_cupy):
    """A CUDA producer without a stream of its own: the work runs on CuPy's current stream,
    which the producer is asked to make its data ready on; an unknown device producer gets
    CuPy results (the device kind that speaks both protocols)."""
    fake = stand_in_cupy
    stream = fake.cuda.Stream(non_blocking=True)
    masks = ge.cards.to_mask(HANDS7)
    obj = DLPackOnly(masks, device_type=2)
    with stream:
        view = adopt(obj).array
        got = ge.evaluate(obj, backend="cuda")
    assert obj.streams == [stream.ptr, stream.ptr]
    assert isinstance(view, fake.ndarray) and np.shares_memory(view, masks)
    assert isinstance(got, fake.ndarray)
    stream.synchronize()
    np.testing.assert_array_equal(got.view(np.ndarray), ge.evaluate(masks, backend="numpy"))
    assert not fake.races


def test_cai_object_runs_on_its_stream(stand_in_cupy):
    """A ``__cuda_array_interface__`` with a stream: the work is queued on that stream (CuPy's
    handle on it, ``ExternalStream``), host-only functions included."""
    fake = stand_in_cupy
    theirs = fake.cuda.Stream(non_blocking=True)
    ids = HANDS7.copy()
    obj = CAIOnly(ids, stream=theirs.ptr)
    assert np.shares_memory(adopt(obj).array, ids)
    got = ge.evaluate(obj, backend="cuda")
    assert isinstance(got, fake.ndarray)
    assert fake.writer(got)[0] is theirs  # written by a launch on the caller's stream
    theirs.synchronize()
    np.testing.assert_array_equal(got.view(np.ndarray), ge.evaluate(ids, backend="numpy"))
    cat = ge.category(CAIOnly(STRENGTHS, stream=theirs.ptr))  # host-only: back on the device
    assert isinstance(cat, fake.ndarray)
    np.testing.assert_array_equal(cat.view(np.ndarray), ge.category(STRENGTHS))
    rows = STRENGTHS.reshape(1, 3)
    duel = ge.compare(CAIOnly(rows, stream=theirs.ptr))  # compare() runs on the device
    assert isinstance(duel.share, fake.ndarray) and fake.writer(duel.share)[0] is theirs
    theirs.synchronize()
    _same(type(duel)(*(np.asarray(a.view(np.ndarray)) for a in duel)), ge.compare(rows))
    with pytest.raises(ValueError) as err:
        ge.evaluate(CAIOnly(BAD[0][2]), backend="cuda")
    with pytest.raises(ValueError) as want:
        ge.evaluate(BAD[0][2], backend="numpy")
    assert str(err.value) == str(want.value)
    assert not fake.races


def test_torch_branch_uses_the_tensors_stream(stand_in_cupy, monkeypatch):
    """The PyTorch branch without PyTorch: a stand-in ``torch`` module whose current stream is
    a stand-in CuPy stream. The work is queued on it and the result comes back through
    ``torch.from_dlpack``, pointing at the same device memory."""
    fake = stand_in_cupy
    theirs = fake.cuda.Stream(non_blocking=True)

    class Tensor(DLPackOnly):
        device = types.SimpleNamespace(index=0, type="cuda")

    Tensor.__module__ = "torch"
    torch = types.SimpleNamespace(
        cuda=types.SimpleNamespace(current_stream=lambda device: types.SimpleNamespace(
            cuda_stream=theirs.ptr)),
        from_dlpack=lambda a: ("torch tensor of", a))
    monkeypatch.setitem(sys.modules, "torch", torch)
    t = Tensor(ge.cards.to_mask(HANDS7), device_type=2)
    kind, got = ge.evaluate(t, backend="cuda")
    assert kind == "torch tensor of" and isinstance(got, fake.ndarray)
    assert t.streams == [theirs.ptr]
    assert fake.writer(got)[0] is theirs
    theirs.synchronize()
    np.testing.assert_array_equal(got.view(np.ndarray), ge.evaluate(HANDS7, backend="numpy"))
    assert not fake.races


def test_real_cupy_has_the_interop_calls():
    cupy = pytest.importorskip("cupy")
    for name in ("from_dlpack", "moveaxis", "stack", "maximum"):
        assert hasattr(cupy, name), name
    assert hasattr(cupy.cuda, "ExternalStream")
    for name in ("__dlpack__", "__dlpack_device__", "__cuda_array_interface__"):
        assert hasattr(cupy.ndarray, name), name
