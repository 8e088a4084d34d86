"""Template notes: Django's ``{# ... #}`` ends on its own line; a note over two lines is printed
on the page (a kitchen board showed a player "{# a first-time player alone ...")."""

from __future__ import annotations

from pathlib import Path

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"


def test_every_one_line_note_of_a_template_ends_on_its_line():
    open_notes = []
    for path in sorted(TEMPLATES.rglob("*.html")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            start = line.find("{#")
            while start != -1:
                end = line.find("#}", start + 2)
                if end == -1:
                    open_notes.append(f"{path.relative_to(TEMPLATES)}:{number}")
                    break
                start = line.find("{#", end + 2)
    assert not open_notes, f"use {{% comment %}} for a note over several lines: {open_notes}"
