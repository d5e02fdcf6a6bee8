"""Every notebook in ``notebooks/`` runs top to bottom, with small parameters, on the CPU.

The notebooks run with nbclient in one kernel of this very interpreter (``sys.executable``: a
throwaway kernelspec is written to a temporary ``JUPYTER_PATH``, so no ``python3`` kernel
registered elsewhere on the machine is picked up by mistake), started once for the module with
``GPU_EVAL_NOTEBOOK_SMALL=1`` (each notebook's first cell shrinks its parameters) and
``CUDA_VISIBLE_DEVICES=""`` (CPU only, as in CI), and a time limit per cell. Each notebook
starts from an empty namespace (every name the last one made is deleted, every figure closed):
a name a notebook uses without defining it is still an error, while the kernel's start and the
package's imports are paid once instead of once a notebook (about 2 s of CPU each).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from types import ModuleType

import pytest

NOTEBOOKS_DIR = Path(__file__).resolve().parents[2] / "notebooks"
NOTEBOOKS = sorted(NOTEBOOKS_DIR.glob("*.ipynb"))
CELL_TIMEOUT = 120  # seconds, per cell
KERNEL = "gpu-eval-tests"


def test_there_are_notebooks():
    names = {p.stem for p in NOTEBOOKS}
    assert {"quickstart", "preflop_heatmap", "range_vs_range", "monte_carlo_convergence",
            "throughput"} <= names


@pytest.fixture(scope="module")
def jupyter() -> tuple[ModuleType, ModuleType]:
    """``(nbformat, nbclient)``, or a skip saying which is missing. Imported here, not at the
    module's import: every process that collects the suite (each xdist worker, the device
    script's collection) would otherwise pay for Jupyter's imports (~0.15 s) to run nothing."""
    nbformat = pytest.importorskip("nbformat", reason="nbformat is not installed (pip install "
                                   "-e '.[test]' installs it)")
    nbclient = pytest.importorskip("nbclient", reason="nbclient is not installed (pip install "
                                   "-e '.[test]' installs it)")
    pytest.importorskip("ipykernel", reason="ipykernel is not installed (pip install -e "
                        "'.[test]' installs it)")
    return nbformat, nbclient


@pytest.fixture(scope="module")
def kernel(jupyter, tmp_path_factory):
    """One kernel of this interpreter for every notebook (a kernelspec found first through
    ``JUPYTER_PATH``), started in the environment the notebooks run in."""
    from jupyter_client.manager import KernelManager

    root = tmp_path_factory.mktemp("jupyter")
    spec = root / "kernels" / KERNEL
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": f"Python ({sys.executable})", "language": "python"}))
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("JUPYTER_PATH", str(root))
        mp.setenv("GPU_EVAL_NOTEBOOK_SMALL", "1")
        mp.setenv("CUDA_VISIBLE_DEVICES", "")  # CPU only, whatever the machine has
        mp.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
        # The kernel must import this checkout's gpu_eval, installed or not.
        paths = [str(NOTEBOOKS_DIR.parent)] + [p for p in [os.environ.get("PYTHONPATH")] if p]
        mp.setenv("PYTHONPATH", os.pathsep.join(paths))
        km = KernelManager(kernel_name=KERNEL)
        km.start_kernel(cwd=str(NOTEBOOKS_DIR))
    try:
        yield km
    finally:
        km.shutdown_kernel(now=True)


# A fresh namespace for the next notebook: every name the last one made is deleted (IPython's
# own, hidden ones and the dunders stay; ``%reset -f`` would also break multiprocessing's spawn,
# which the Dask notebook's workers use), and every figure is closed. Figures are rendered to
# PNG uncropped: the inline backend's default ``bbox_inches="tight"`` draws each figure twice
# (once to find the crop), about 3 s of the kernel's CPU over all notebooks for a margin trim.
_FRESH = """\
_ns = get_ipython().user_ns
for _name in [n for n in _ns if n not in get_ipython().user_ns_hidden
              and not (n.startswith("__") and n.endswith("__"))]:
    del _ns[_name]
import matplotlib.pyplot
matplotlib.pyplot.close("all")
del matplotlib
get_ipython().run_line_magic("config", "InlineBackend.print_figure_kwargs = {'bbox_inches': None}")
"""


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(path, jupyter, kernel):
    nbformat, nbclient = jupyter
    nb = nbformat.read(path, as_version=4)
    first = next(c for c in nb.cells if c.cell_type == "code")
    assert "GPU_EVAL_NOTEBOOK_SMALL" in first.source, \
        f"{path.name}: the first code cell must read GPU_EVAL_NOTEBOOK_SMALL"
    assert "parameters" in first.metadata.get("tags", []), \
        f"{path.name}: the first code cell must be tagged 'parameters'"
    # Committed with outputs from a real run, which the notebook says where and when.
    assert any(c.cell_type == "code" and c.get("outputs") for c in nb.cells), \
        f"{path.name} is committed without outputs"
    assert any(c.cell_type == "markdown" and "Ran here:" in c.source for c in nb.cells)

    nb.cells.insert(0, nbformat.v4.new_code_cell(_FRESH))
    client = nbclient.NotebookClient(nb, km=kernel, timeout=CELL_TIMEOUT,
                                     resources={"metadata": {"path": str(NOTEBOOKS_DIR)}})
    t0 = time.perf_counter()
    try:
        client.execute()  # raises CellExecutionError, naming the cell, on any error
    except BaseException:
        kernel.restart_kernel(now=True)  # the next notebook gets a kernel that is not stuck
        raise
    elapsed = time.perf_counter() - t0
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs
              if o.output_type == "error"]
    assert not errors
    images = sum("image/png" in o.get("data", {}) for c in nb.cells if c.cell_type == "code"
                 for o in c.outputs)
    if path.stem != "quickstart":
        assert images > 0, f"{path.name} drew no figure"
    print(f"{path.name}: {elapsed:.1f} s, {images} figures")

