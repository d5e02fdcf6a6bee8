"""``gpu-eval compile``: modules into the kernel cache for a named architecture (no GPU needed),
in parallel worker processes; mistakes are one line and status 2."""

from __future__ import annotations

import pytest

from gpu_eval.cli import main
from gpu_eval.cuda import kernel_cache, nvrtc
from gpu_eval.cuda.resources import module_sources

try:
    nvrtc.nvrtc_version()
    NO_NVRTC = ""
except nvrtc.NvrtcUnavailableError as exc:
    NO_NVRTC = str(exc)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv(kernel_cache.CACHE_DIR_ENV, str(tmp_path))
    return tmp_path / "kernels"


@pytest.mark.skipif(bool(NO_NVRTC), reason=NO_NVRTC)
def test_compile_named_arch_in_parallel_then_cached(cache, capsys):
    argv = ["compile", "--arch", "sm_90", "--module", "lows", "--module", "fsm", "--jobs", "2",
            "--no-progress"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "2 of 2 compiled" in out and str(cache) in out
    for name in ("lows", "fsm"):
        path = kernel_cache.lookup(module_sources()[name], "sm_90")
        assert path is not None and path.read_bytes().startswith(b"\x7fELF")
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "0 of 2 compiled" in out and out.count("cached") == 2


def test_list_names_every_module(capsys):
    assert main(["compile", "--list"]) == 0
    assert capsys.readouterr().out.split() == list(module_sources())


@pytest.mark.parametrize("argv, message", [
    (["--arch", "sm_90", "--module", "nope"], "no module nope"),
    (["--arch", "hopper"], "not an architecture: 'hopper'"),
    (["--arch", "sm_90", "--jobs", "0"], "must be at least 1"),
])
def test_mistakes_are_one_line(argv, message, capsys, cache):
    assert main(["compile", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("gpu-eval compile: error:") and message in err
    assert err.count("\n") == 1 and not cache.exists()


def test_without_a_gpu_it_asks_for_an_architecture(capsys, monkeypatch, cache):
    from gpu_eval import cli_compile

    monkeypatch.setattr(cli_compile, "device_archs", lambda: ([], "no NVIDIA driver found"))
    assert main(["compile"]) == 2
    err = capsys.readouterr().err
    assert "no GPU to compile for here (no NVIDIA driver found)" in err and "--arch sm_90" in err
