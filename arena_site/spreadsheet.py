"""CSV cells that a spreadsheet would read as a formula (CWE-1236, "CSV injection").

Excel, LibreOffice and Google Sheets run a cell that starts with ``=``, ``+``, ``-`` or ``@`` (a
tab or carriage return first hides one) as a formula: a participant's free-text answer
``=HYPERLINK("https://…", "click")`` or a model's reply would run on the researcher's machine.
Every CSV we write passes its text through ``safe_cell``, which puts a ``'`` before such a cell
(spreadsheets then show the text as typed); numbers such as ``-3.5`` stay as they are. What we read
back (the annotations' CSV import) goes through ``read_cell``. docs/decisions.md says so for the
people analysing the files.
"""

from __future__ import annotations

import re

RISKY = frozenset("=+-@\t\r")
FIRST = RISKY | {"'"}  # a cell starting with neither is written as it is (the writers' fast path)
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def _runs(text: str) -> bool:
    # quotes first too, so that a cell which already starts with "'=" reads back as it was
    rest = text.lstrip("'")
    return rest[:1] in RISKY and not _NUMBER.fullmatch(rest)


def safe_cell(text: str) -> str:
    """``text``, with a ``'`` in front when a spreadsheet would run it as a formula."""
    return "'" + text if _runs(text) else text


def read_cell(text: str) -> str:
    """A cell ``safe_cell`` wrote, as it was before."""
    return text[1:] if text[:1] == "'" and _runs(text[1:]) else text
