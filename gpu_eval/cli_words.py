"""The library's messages in command-line words, for ``gpu-eval``'s error and warning lines.

The Python API names its keyword arguments (``pass wild='joker'``, ``backend='cuda' is not
available``, ``pass exact=False for Monte Carlo``); on the command line the same advice is an
option (``--wild joker``, ``--backend cuda``, ``--samples N``). Only keywords that are options
of ``gpu-eval`` are rewritten; everything else is left as the library wrote it.
"""

from __future__ import annotations

import re

__all__ = ["cli_words"]

#: Keyword arguments that are options of the same name on the command line.
_OPTIONS = ("wild", "backend", "game", "board", "dead", "samples", "seed", "invalid")
#: Keyword settings whose command-line spelling is another option.
_SETTINGS = {"exact=True": "--exact", "exact=False": "--samples N",
             "progress=False": "--no-progress"}
_KEYWORD = re.compile(r"\b(" + "|".join(_OPTIONS) + r")=('[^']*'|\"[^\"]*\"|[\w.+-]+)?")
_SETTING = re.compile(r"\b(" + "|".join(map(re.escape, _SETTINGS)) + r")\b")


def cli_words(message: str) -> str:
    """``message`` with every ``keyword=value`` that is a ``gpu-eval`` option written as the
    option (``--keyword value``).

    Parameters
    ----------
    message : str
        An error or warning message of the library.

    Returns
    -------
    str
        The same message in command-line words.

    Examples
    --------
    >>> cli_words("card 'Jk' is a joker, which this game does not allow (pass wild='joker')")
    "card 'Jk' is a joker, which this game does not allow (pass --wild joker)"
    >>> cli_words("backend='cuda' is not available: no CUDA device")
    '--backend cuda is not available: no CUDA device'
    >>> cli_words("exact=True: more than 5,000,000 matchups; pass exact=False for Monte Carlo")
    '--exact: more than 5,000,000 matchups; pass --samples N for Monte Carlo'
    >>> cli_words("samples= applies to Monte Carlo")
    '--samples applies to Monte Carlo'
    """
    message = _SETTING.sub(lambda m: _SETTINGS[m.group(1)], message)

    def option(m: re.Match) -> str:
        value = (m.group(2) or "").strip("'\"")
        return f"--{m.group(1)}" + (f" {value}" if value else "")

    return _KEYWORD.sub(option, message)
