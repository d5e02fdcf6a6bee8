"""Table files: memory-mappable ``.npy`` arrays plus a JSON sidecar that says what they are.

``save_table(result, "out/river")`` writes ``out/river.wins.npy``, ``out/river.ties.npy`` (or
``counts`` / ``twice_sum`` / ``twice_sumsq`` for histograms) and last ``out/river.json``: the
format version, the layout (the ``HandIndexer`` rounds the rows are numbered by), the game,
the definition, the counts (rows, opponents, bins, runouts) and per array its file, dtype,
shape and SHA-256. Every file is written under a temporary name and renamed into place, the
sidecar after the arrays, so a table either loads whole or not at all. ``load_table`` reads the
sidecar, opens each array with ``allow_pickle=False`` (memory-mapped by default), checks dtype,
shape and checksum and refuses any mismatch.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np

from gpu_eval.solver_tables.results import ROUNDS, RiverStrength, StrengthHistograms

__all__ = ["save_table", "load_table", "table_paths", "file_sha256", "write_sidecar",
           "FORMAT", "VERSION"]

FORMAT = "gpu_eval solver table"
VERSION = 1


def table_paths(path) -> tuple[Path, Path]:
    """``(sidecar, stem)`` of a table path given with or without ``.json``."""
    p = Path(path)
    stem = p.with_suffix("") if p.suffix == ".json" else p
    return stem.with_name(stem.name + ".json"), stem


def file_sha256(path) -> str:
    """The SHA-256 of a file's bytes (read in 16 MiB pieces)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(1 << 24):
            h.update(block)
    return h.hexdigest()


def _replace_atomically(tmp: Path, final: Path) -> None:
    with open(tmp, "rb+") as f:
        os.fsync(f.fileno())
    os.replace(tmp, final)


def write_sidecar(path, meta: dict, arrays: dict[str, Path]) -> Path:
    """Write the sidecar of finished array files ``arrays`` (name -> file beside it), last."""
    sidecar, stem = table_paths(path)
    entries = {}
    for name, file in arrays.items():
        a = np.load(file, mmap_mode="r", allow_pickle=False)
        entries[name] = {"file": Path(file).name, "dtype": a.dtype.str, "shape": list(a.shape),
                         "sha256": file_sha256(file)}
        del a
    doc = {"format": FORMAT, "version": VERSION,
           "kind": "river_strength" if meta["street"] == "river" else "strength_histograms",
           "layout": {"indexer": "HandIndexer", "rounds": list(ROUNDS[meta["street"]]),
                      "rows": "indices" if "indices" in arrays else "every index in order"},
           **meta, "arrays": entries}
    tmp = sidecar.with_name(sidecar.name + ".tmp")
    tmp.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    _replace_atomically(tmp, sidecar)
    return sidecar


def save_table(result: RiverStrength | StrengthHistograms, path: str | os.PathLike) -> Path:
    """Write a table (``river_strength`` or ``strength_histograms`` result) to ``path``.

    Parameters
    ----------
    result : RiverStrength or StrengthHistograms
        What :func:`gpu_eval.river_strength` or :func:`gpu_eval.strength_histograms`
        returned (a whole table or some rows of it).
    path : str or os.PathLike
        The table's stem (``"out/holdem-river"``) or its sidecar (``"....json"``); the folder
        must exist. Existing files of the same table are replaced.

    Returns
    -------
    pathlib.Path
        The sidecar written.

    Examples
    --------
    >>> import tempfile, gpu_eval as ge
    >>> r = ge.river_strength(indices=[0, 1, 2])
    >>> with tempfile.TemporaryDirectory() as d:
    ...     side = ge.save_table(r, d + "/some")
    ...     back = ge.load_table(side)
    ...     (back.wins == r.wins).all(), side.name
    (np.True_, 'some.json')
    """
    if not isinstance(result, (RiverStrength, StrengthHistograms)):
        raise TypeError(f"save_table() takes a river_strength or strength_histograms result, "
                        f"got {type(result).__name__}")
    sidecar, stem = table_paths(path)
    files = {}
    for name, arr in result.arrays().items():
        final = stem.with_name(f"{stem.name}.{name}.npy")
        tmp = final.with_name(final.name + ".tmp")
        with open(tmp, "wb") as f:
            np.save(f, np.ascontiguousarray(arr), allow_pickle=False)
        _replace_atomically(tmp, final)
        files[name] = final
    return write_sidecar(sidecar, result.meta(), files)


def load_table(path: str | os.PathLike, *, mmap: bool = True, verify: bool = True
               ) -> RiverStrength | StrengthHistograms:
    """Read a table written by :func:`save_table` (or ``gpu-eval tables``).

    Parameters
    ----------
    path : str or os.PathLike
        The stem or the sidecar (``.json``).
    mmap : bool
        Memory-map the arrays read-only (default) instead of reading them into memory.
    verify : bool
        Check every array file's SHA-256 against the sidecar (reads each file once).

    Returns
    -------
    RiverStrength or StrengthHistograms

    Raises
    ------
    ValueError
        The sidecar is missing, unreadable or of another format; an array file is missing,
        damaged (checksum), or its dtype or shape differs from the sidecar's.

    Examples
    --------
    >>> import gpu_eval as ge
    >>> ge.load_table("no/such/table")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: no table at no/such/table.json: ...
    """
    sidecar, _ = table_paths(path)
    try:
        doc = json.loads(sidecar.read_text())
    except (OSError, ValueError) as exc:
        raise ValueError(f"no table at {sidecar}: {exc}") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or doc.get("version") != VERSION:
        raise ValueError(f"{sidecar} is not a gpu_eval solver table (version {VERSION})")
    street = doc.get("street")
    if street not in ROUNDS or list(ROUNDS[street]) != doc.get("layout", {}).get("rounds"):
        raise ValueError(f"{sidecar}: unknown street or layout {street!r}")
    arrays = {}
    for name, e in doc["arrays"].items():
        file = sidecar.with_name(e["file"])
        if Path(e["file"]).name != e["file"]:
            raise ValueError(f"{sidecar}: array file {e['file']!r} is not beside the sidecar")
        if verify:
            try:
                digest = file_sha256(file)
            except OSError as err:
                raise ValueError(f"{sidecar}: array {name!r}: {err}") from None
            if digest != e["sha256"]:
                raise ValueError(f"{file} is damaged: its SHA-256 differs from the sidecar's")
        try:
            a = np.load(file, mmap_mode="r" if mmap else None, allow_pickle=False)
        except (OSError, ValueError) as err:
            raise ValueError(f"{file} is not a readable .npy file: {err}") from None
        if a.dtype.str != e["dtype"] or list(a.shape) != e["shape"]:
            raise ValueError(f"{file}: dtype {a.dtype.str} shape {list(a.shape)}, the sidecar "
                             f"says {e['dtype']} {e['shape']}")
        arrays[name] = a
    rows = doc.get("rows")
    for name, a in arrays.items():
        if len(a) != rows:
            raise ValueError(f"{sidecar}: array {name!r} has {len(a)} rows, the sidecar {rows}")
    try:
        if street == "river":
            return RiverStrength.from_saved(doc, arrays)
        return StrengthHistograms.from_saved(doc, arrays)
    except KeyError as e:
        raise ValueError(f"{sidecar}: missing {e}") from None
