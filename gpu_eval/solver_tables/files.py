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

from gpu_eval import card_input
from gpu_eval.solver_tables import plans
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


def save_table(result, path) -> Path:
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


def load_table(path, *, mmap: bool = True, verify: bool = True):
    """Read a table written by :func:`save_table` (or ``gpu-eval tables``).

    Parameters
    ----------
    path : str or os.PathLike
        The stem or the sidecar (``.json``).
    mmap : bool
        Memory-map the arrays read-only (default) instead of reading them into memory.
    verify : bool
        Read every array once: check its SHA-256 against the sidecar and that its values can
        be (wins and ties within the opponents, histogram rows summing to the runouts,
        indices inside the layout). ``False`` checks the sidecar and the array headers only.

    Returns
    -------
    RiverStrength or StrengthHistograms

    Raises
    ------
    ValueError
        The sidecar is missing, unreadable, of another format, damaged (a field missing or
        of the wrong type) or forged (figures no table of its street and game has: another
        opponent count, runout count, bin count or row count, a game without such tables);
        an array file is missing, damaged (checksum), of another dtype or shape, or holds
        values no table can.

    Examples
    --------
    >>> import gpu_eval as ge
    >>> ge.load_table("no/such/table")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: no table at no/such/table.json: ...
    """
    sidecar, _ = table_paths(path)
    doc = _read_sidecar(sidecar)
    p = _expected_plan(doc, sidecar)
    arrays = _read_arrays(doc, p, sidecar, mmap, verify)
    if verify:
        _check_values(p, arrays, doc, sidecar)
    if p.street == "river":
        return RiverStrength.from_saved(doc, arrays)
    return StrengthHistograms.from_saved(doc, arrays)


def _read_sidecar(sidecar: Path) -> dict:
    try:
        doc = json.loads(sidecar.read_text())
    except (OSError, ValueError) as e:
        raise ValueError(f"no table at {sidecar}: {e}") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or doc.get("version") != VERSION:
        raise ValueError(f"{sidecar} is not a gpu_eval solver table (version {VERSION})")
    return doc


def _field(doc: dict, name: str, kind: type, sidecar: Path):
    """``doc[name]``, which must be a ``kind`` (an int is never a bool)."""
    if name not in doc:
        raise ValueError(f"{sidecar}: the sidecar is damaged: missing {name!r}")
    v = doc[name]
    if not isinstance(v, kind) or (kind is int and isinstance(v, bool)):
        raise ValueError(f"{sidecar}: the sidecar is damaged: {name} {v!r} is not a "
                         f"{kind.__name__}")
    return v


def _expected_plan(doc: dict, sidecar: Path) -> plans.Plan:
    """The plan of the table the sidecar says it holds, its figures checked against it."""
    street = doc.get("street")
    layout = doc.get("layout")
    if not isinstance(street, str) or street not in ROUNDS or not isinstance(layout, dict) \
            or list(ROUNDS[street]) != layout.get("rounds"):
        raise ValueError(f"{sidecar}: unknown street or layout {street!r} ({layout!r})")
    kind = "river_strength" if street == "river" else "strength_histograms"
    if doc.get("kind") != kind:
        raise ValueError(f"{sidecar}: kind {doc.get('kind')!r}, but a {street} table is {kind!r}")
    game = doc.get("game")
    if not isinstance(game, str):
        raise ValueError(f"{sidecar}: game {game!r} is not a game name")
    bins = _field(doc, "bins", int, sidecar) if street != "river" else 1
    try:
        p = plans.plan(street, game, bins, "numpy")
    except ValueError as e:
        raise ValueError(f"{sidecar}: no such table: {e}") from None
    figures = {"opponents": p.opponents}
    if street != "river":
        figures["runouts"] = p.runouts
    for name, want in figures.items():
        got = _field(doc, name, int, sidecar)
        if got != want:
            raise ValueError(f"{sidecar}: {name} {got}, but a {game!r} {street} table has "
                             f"{want:,}")
    _field(doc, "rows", int, sidecar)
    return p


def _read_arrays(doc: dict, p: plans.Plan, sidecar: Path, mmap: bool, verify: bool
                 ) -> dict[str, np.ndarray]:
    entries = _field(doc, "arrays", dict, sidecar)
    want = p.arrays()
    names = set(want) | ({"indices"} & set(entries))
    if set(entries) != names:
        raise ValueError(f"{sidecar}: arrays {sorted(entries)}, but a {p.street} table has "
                         f"{sorted(want)} (and 'indices' when it holds some hands only)")
    rows = doc["rows"]
    arrays = {}
    for name in sorted(names):
        e = entries[name]
        if not isinstance(e, dict) or not all(isinstance(e.get(k), t) for k, t in (
                ("file", str), ("dtype", str), ("shape", list), ("sha256", str))):
            missing = [k for k in ("file", "dtype", "shape", "sha256")
                       if not isinstance(e, dict) or k not in e]
            raise ValueError(f"{sidecar}: the sidecar is damaged: array {name!r} needs "
                             f"'file', 'dtype', 'shape' and 'sha256'"
                             + (f" (missing {missing})" if missing else ""))
        dtype = np.dtype(np.int64) if name == "indices" else want[name][0]
        shape = [rows] + ([p.bins] if name == "counts" else [])
        if e["dtype"] != dtype.str or e["shape"] != shape:
            bins = f" and bins ({p.bins})" if name == "counts" else ""
            raise ValueError(f"{sidecar}: array {name!r} is {e['dtype']} of shape {e['shape']}, "
                             f"but the sidecar's rows ({rows}){bins} need {dtype.str} of shape "
                             f"{shape}")
        arrays[name] = _load_array(sidecar, name, e, mmap, verify)
    return arrays


def _load_array(sidecar: Path, name: str, e: dict, mmap: bool, verify: bool) -> np.ndarray:
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
    return a


#: Rows read at a time by the value checks (bounded memory on a memory-mapped table).
CHECK_ROWS = 1 << 20


def _check_values(p: plans.Plan, arrays: dict[str, np.ndarray], doc: dict, sidecar: Path
                  ) -> None:
    """Values no table can hold: counts beyond the opponents or runouts, foreign indices."""
    rows = doc["rows"]
    if "indices" in arrays:
        try:
            card_input.indices(arrays["indices"], p.rows,
                               note=f" (the {ROUNDS[p.street]} layout has {p.rows:,} indices)")
        except ValueError as e:
            raise ValueError(f"{sidecar}: {e}") from None
    elif rows != p.rows:
        raise ValueError(f"{sidecar}: {rows} rows, but the whole {doc['game']!r} {p.street} "
                         f"table has {p.rows:,}")
    opp = p.opponents
    for a in range(0, rows, CHECK_ROWS):
        b = min(a + CHECK_ROWS, rows)
        if p.street == "river":
            total = arrays["wins"][a:b].astype(np.int64) + arrays["ties"][a:b]
            bad = np.flatnonzero(total > opp)
            if bad.size:
                i = int(bad[0])
                raise ValueError(f"{sidecar}: row {a + i}: {int(total[i]):,} wins and ties out "
                                 f"of {opp} opponents")
            continue
        sums = arrays["counts"][a:b].sum(axis=1, dtype=np.int64)
        top = 2 * opp * p.runouts
        bad = np.flatnonzero((sums != p.runouts) | (arrays["twice_sum"][a:b] > top)
                             | (arrays["twice_sumsq"][a:b] > top * 2 * opp))
        if bad.size:
            i = int(bad[0])
            why = (f"its counts add up to {int(sums[i]):,}, not the {p.runouts:,} runouts"
                   if sums[i] != p.runouts else "its sums exceed every runout won")
            raise ValueError(f"{sidecar}: row {a + i}: {why}")
