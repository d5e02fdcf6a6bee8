"""The installed wheel (not only an editable install) ships kernels/ and compiles them."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps",
                    "-q", "-w", str(out), str(ROOT)], check=True)
    wheels = list(out.glob("gpu_eval-*.whl"))
    assert len(wheels) == 1
    return wheels[0]


def test_wheel_contains_the_kernel_sources(wheel):
    import zipfile

    names = set(zipfile.ZipFile(wheel).namelist())
    for src in (ROOT / "kernels").glob("*.cu*"):
        assert f"gpu_eval/kernels/{src.name}" in names, src.name
    assert "gpu_eval/kernels/host_shim.h" in names
    assert "gpu_eval/equity_engine/holdem/preflop_headsup.bin" in names  # the exact heads-up preflop table


def test_wheel_ships_no_code_that_runs_a_compiler(wheel):
    # The host C++ builds of the kernels, and the stand-in CuPy, are test code
    # (tests/emulation/): nothing installed may start a compiler or any other process.
    import zipfile

    with zipfile.ZipFile(wheel) as z:
        sources = {n: z.read(n).decode() for n in z.namelist() if n.endswith(".py")}
    assert "gpu_eval/evaluator/api.py" in sources and "gpu_eval/cuda/holdem.py" in sources
    for name, text in sources.items():
        assert "hostbuild" not in name and "fake_cupy" not in name, name
        for needle in ("import subprocess", "from subprocess", "os.system", "g++", "clang"):
            assert needle not in text, f"{name} contains {needle!r}"


def test_wheel_in_a_fresh_venv_finds_and_compiles_its_kernels(wheel, tmp_path):
    cupy = pytest.importorskip("cupy", reason="CuPy (with NVRTC) is needed to compile the kernels")
    # Nothing from the checkout may leak in: no PYTHONPATH (pip would also take a source
    # tree's egg-info on it for an installed copy and skip the wheel).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    venv = tmp_path / "venv"
    # No pip inside (ensurepip is slow): this environment's pip installs into it (--python).
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, env=env)
    py = venv / "bin" / "python"
    subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--no-deps",
                    str(wheel)], check=True, env=env, cwd=tmp_path)
    site = Path(subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    # The cuda13 extra's packages (CuPy and NVRTC, hundreds of MB: unpacking them afresh was
    # most of this test's time) come from this test environment: a .pth line puts its
    # site-packages *after* the venv's own (and a path line runs none of the .pth files there,
    # so no editable finder), so gpu_eval can only be the wheel's copy, as checked below.
    deps = Path(cupy.__file__).resolve().parents[1]
    (site / "zz_cuda13_extra_from_the_test_env.pth").write_text(f"{deps}\n")
    # CuPy finds the NVRTC library under the interpreter's own site-packages, not sys.path.
    (site / "nvidia").symlink_to(deps / "nvidia", target_is_directory=True)
    code = textwrap.dedent("""
        import importlib.metadata as md
        import gpu_eval, gpu_eval.cuda.nvrtc as nv
        from pathlib import Path
        # The wheel's cuda13 extra asks for what is imported below.
        extra = [r for r in md.requires("gpu-eval") if 'extra == "cuda13"' in r]
        assert any(r.startswith("cupy-cuda13x") for r in extra), extra
        assert any(r.startswith("nvidia-cuda-nvrtc") for r in extra), extra
        here = Path(gpu_eval.__file__).parent
        assert nv.kernel_dir() == here / "kernels", (nv.kernel_dir(), here)
        files = nv.kernel_files()
        assert any(f.suffix == ".cu" for f in files)
        for f in files:
            if f.suffix == ".cu":
                ptx = nv.compile_ptx(f, arch="compute_90")
                assert ".target sm_90" in (ptx.decode() if isinstance(ptx, bytes) else ptx)
        print(here)
    """)
    res = subprocess.run([str(py), "-c", code], capture_output=True, text=True, cwd=tmp_path,
                         env=env)
    assert res.returncode == 0, res.stderr
    assert str(site) in res.stdout
