"""The cheap NVIDIA-driver check that spares importing CuPy on machines without a GPU."""

import os
import subprocess
import sys

import pytest

from gpu_eval.cuda import driver


@pytest.fixture
def no_cupy(monkeypatch):
    monkeypatch.delitem(sys.modules, "cupy", raising=False)
    monkeypatch.delenv("GPU_EVAL_PROBE_CUDA", raising=False)


def test_nothing_found_means_no_driver(tmp_path, no_cupy):
    why = driver.missing_reason(str(tmp_path), [str(tmp_path)], "linux")
    assert why is not None and "no NVIDIA driver" in why


@pytest.mark.parametrize("name", ["nvidiactl", "nvidia0", "nvidia3", "dxg"])
def test_a_device_file_means_ask_cupy(tmp_path, no_cupy, name):
    (tmp_path / name).touch()
    assert driver.missing_reason(str(tmp_path), [], "linux") is None


def test_the_driver_library_means_ask_cupy(tmp_path, no_cupy):
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "libcuda.so.1").touch()
    assert driver.missing_reason(str(tmp_path), [str(lib)], "linux") is None


def test_overrides(tmp_path, no_cupy, monkeypatch):
    monkeypatch.setenv("GPU_EVAL_PROBE_CUDA", "1")
    assert driver.missing_reason(str(tmp_path), [], "linux") is None
    monkeypatch.setenv("GPU_EVAL_PROBE_CUDA", "0")
    assert driver.missing_reason(str(tmp_path), [], "linux") is not None
    monkeypatch.setitem(sys.modules, "cupy", object())  # already imported: ask it
    assert driver.missing_reason(str(tmp_path), [], "linux") is None
    monkeypatch.delitem(sys.modules, "cupy")
    assert driver.missing_reason(str(tmp_path), [], "darwin") is not None


@pytest.mark.skipif(driver.driver_files_missing() is None or
                    os.environ.get("GPU_EVAL_PROBE_CUDA", "") not in ("", "0"),
                    reason="a driver may be here")
def test_no_driver_no_cupy_import():
    code = ("import sys, gpu_eval as ge\n"
            "print(ge.equity(['AhKh', 'QsQd'], board='2c7d9h').backend)\n"
            "print(ge.equity(['AhKh', 'QQ+,AKs']).method)\n"
            "from gpu_eval.cuda import availability\n"
            "print(availability.cuda_available()[0], 'cupy' in sys.modules,\n"
            "      'gpu_eval.equity_engine.holdem.shortcuts.board_rank_classes' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120).stdout.split("\n")
    assert out[0] == "numpy"
    assert out[1] == "exact (table): 15 matchups x 1,712,304 boards"
    assert out[2] == "False False False"  # no CuPy, and no rank-class caches for the table
