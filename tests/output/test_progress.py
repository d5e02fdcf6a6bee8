"""The progress bar: tqdm underneath, the ``Progress`` interface and its meaning kept."""

from __future__ import annotations

import io
import subprocess
import sys
import threading

import tqdm

from gpu_eval.progress import Progress, wanted


def test_bar_is_tqdm_and_ends_done():
    out = io.StringIO()
    with Progress(2_000_000, "equity (exact)", unit="boards", stream=out) as bar:
        assert isinstance(bar._bar, tqdm.tqdm)
        bar.update(2_000_000)
    text = out.getvalue()
    assert "equity (exact)" in text and "100.0%" in text and "2.00M/2.00M boards" in text
    assert text.endswith("done\n") and bar.done == 2_000_000


def test_interrupted_and_disabled():
    out = io.StringIO()
    try:
        with Progress(100, "job", unit="boards", stream=out) as bar:
            bar.update(50)
            raise KeyboardInterrupt
    except KeyboardInterrupt:
        pass
    assert "50/100 boards" in out.getvalue() and out.getvalue().endswith("interrupted\n")
    quiet = io.StringIO()
    with Progress(10, "job", enabled=False, stream=quiet) as bar:
        bar.update(10)
    assert quiet.getvalue() == "" and bar._bar is None and bar.done == 0


def test_updates_from_many_threads_are_all_counted():
    out = io.StringIO()
    bar = Progress(8 * 5000, "threads", stream=out)

    def work():
        for _ in range(5000):
            bar.update(1)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    bar.close()
    assert bar.done == 40_000 and bar._bar.n == 40_000
    assert out.getvalue().endswith("done\n")


def test_a_broken_stream_never_stops_the_work():
    out = io.StringIO()
    bar = Progress(10, "job", stream=out)
    out.close()
    bar.update(5)   # writing fails: no error reaches the computation (tqdm stops writing)
    bar.update(5)
    bar.close()
    assert bar.done == 10


def test_wanted_keeps_its_meaning():
    assert wanted(None, 100.0) and not wanted(None, 0.1)
    assert wanted(True, 0.0) and not wanted(False, 100.0)


def test_import_gpu_eval_does_not_import_tqdm():
    code = "import sys, gpu_eval; print('tqdm' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "False"
