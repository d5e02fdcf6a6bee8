"""Building a table into files chunk by chunk, so that a killed run resumes where it stopped.

``build_files(street, out_dir)`` writes ``<out_dir>/<game>-<street>.*`` (see ``files``). The
array files are opened as memory maps and each chunk's rows are written and flushed before its
marker (``<stem>.partial/done-<i>``) is created; a new run with the same parameters reopens the
files and skips the marked chunks (a chunk cut off half-way is simply done again: it writes the
same values). Preflop chunks add up instead, so each chunk's partial sums are saved as their
own file. The sidecar is written last, atomically, and only then is the work folder removed:
until that moment there is no sidecar and ``load_table`` refuses the files.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np

from gpu_eval.games.registry import HOLDEM
from gpu_eval.solver_tables import chunks, files

__all__ = ["build_files", "BuildStopped", "STOP_ENV", "table_stem"]

#: Stop after this many chunks (a deterministic stand-in for a killed run, for tests).
STOP_ENV = "GPU_EVAL_TABLES_STOP_AFTER"


class BuildStopped(RuntimeError):
    """The run stopped on purpose after ``GPU_EVAL_TABLES_STOP_AFTER`` chunks."""


def table_stem(out_dir, street: str, game: str) -> Path:
    """The stem of a street's table files in ``out_dir``: ``<game>-<street>``."""
    return Path(out_dir) / f"{game}-{street}"


def _params(p: chunks.TableChunks) -> dict:
    return {"street": p.street, "game": p.game, "bins": p.bins, "chunks": p.chunks,
            "rows": p.rows, "version": files.VERSION}


def build_files(street: str, out_dir, game: str = HOLDEM, bins: int = 50, *,
                progress: bool | None = None, stop_after: int | None = None,
                backend: str = "auto") -> Path:
    """Build one table into ``out_dir`` (resuming an interrupted run); return its sidecar.

    Parameters
    ----------
    street : {"river", "turn", "flop", "preflop"}
    out_dir : str or os.PathLike
        Created if missing.
    game : str
    bins : int
        Histogram bins (ignored by the river table).
    progress : bool, optional
        A progress bar on stderr.
    backend : {"auto", "numpy", "cuda"}
        Where the river boards are counted (the bytes do not depend on it).
    stop_after : int, optional
        Raise :class:`BuildStopped` after this many chunks of this run (default: the
        ``GPU_EVAL_TABLES_STOP_AFTER`` environment variable, else never).

    Examples
    --------
    >>> import tempfile, gpu_eval as ge
    >>> with tempfile.TemporaryDirectory() as d:
    ...     side = build_files("preflop", d, game="shortdeck", bins=10, progress=False)
    ...     t = ge.load_table(side)
    ...     side.name, t.counts.shape
    ('shortdeck-preflop.json', (81, 10))
    """
    from gpu_eval.progress import Progress, wanted

    p = chunks.chunks_of(street, game, bins, backend)
    if stop_after is None and os.environ.get(STOP_ENV):
        stop_after = int(os.environ[STOP_ENV])
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    stem = table_stem(out, street, game)
    sidecar, _ = files.table_paths(stem)
    work = stem.with_name(stem.name + ".partial")
    params = _params(p)
    plan_file = work / "plan.json"
    names = {n: stem.with_name(f"{stem.name}.{n}.npy") for n in p.arrays()}
    if work.exists() and (not plan_file.exists() or json.loads(plan_file.read_text()) != params
                          or (p.mode == "set" and not all(f.exists() for f in names.values()))):
        shutil.rmtree(work)                    # another table's leftovers: start over
    fresh = not work.exists()
    work.mkdir(exist_ok=True)
    sidecar.unlink(missing_ok=True)            # an older table stops loading from here on
    if fresh:
        plan_file.write_text(json.dumps(params))
    maps = {}
    if p.mode == "set":
        for n, (dt, shape) in p.arrays().items():
            if fresh:
                maps[n] = np.lib.format.open_memmap(names[n], mode="w+", dtype=dt, shape=shape)
            else:
                maps[n] = np.lib.format.open_memmap(names[n], mode="r+")
    todo = [i for i in range(p.chunks) if not (work / f"done-{i}").exists()]
    ran = 0
    with Progress(p.chunks, f"{game} {street} table", unit=" chunks",
                  enabled=wanted(progress, 10.0)) as bar:
        bar.update(p.chunks - len(todo))
        for i, (idx, vals) in chunks.run_chunks(p, todo):
            if idx is None:
                part = work / f"sums-{i}.npz"
                with open(part.with_name(part.name + ".tmp"), "wb") as f:
                    np.savez(f, **vals)
                os.replace(part.with_name(part.name + ".tmp"), part)
            else:
                for n, v in vals.items():
                    maps[n][idx] = v
                    maps[n].flush()
            (work / f"done-{i}").touch()
            bar.update(1)
            ran += 1
            if stop_after is not None and ran >= stop_after and ran < len(todo):
                raise BuildStopped(f"stopped after {ran} chunks ({STOP_ENV})")
    if p.mode == "set":
        maps.clear()
    else:
        sums: dict[str, np.ndarray] | None = None
        for i in range(p.chunks):
            with np.load(work / f"sums-{i}.npz", allow_pickle=False) as z:
                chunk = {n: z[n] for n in z.files}
            sums = chunk if sums is None else {n: sums[n] + v for n, v in chunk.items()}
        assert sums is not None  # a plan has one chunk at least
        for n, a in p.finish_sums(sums).items():
            tmp = names[n].with_name(names[n].name + ".tmp")
            with open(tmp, "wb") as f:
                np.save(f, a, allow_pickle=False)
            os.replace(tmp, names[n])
    meta = p.result({n: np.zeros(0) for n in p.arrays()}).meta()
    meta["rows"] = p.rows
    side = files.write_sidecar(stem, meta, names)
    shutil.rmtree(work)
    return side
