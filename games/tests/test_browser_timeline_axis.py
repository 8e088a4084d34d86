"""The timeline's axis in Debian's chromium: its times never run into each other, on a phone too.

An itinerary of two and a half days on a 390 px phone read "d1 00d1020:00" (the axis showed every
other time, each "d1 20:00" wide) and "d3 12:00" wrapped onto two lines. The template and the
site's style sheets are drawn as they are, for spans of every size, at a phone's and a desktop's
width.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from django.template.loader import render_to_string

from games.tests.browser_helpers import DESKTOP, chromium, new_page
from games.tests.server import ROOT
from games.timeline import Row, Timeline

pytestmark = [pytest.mark.browser]

PHONE = {"width": 390, "height": 844}
DAY = 24 * 60


def day_clock(minutes: float) -> str:
    """The itinerary's axis on a trip of several days ("d2 09:10")."""
    day, rest = divmod(int(minutes), DAY)
    return f"d{day + 1} {rest // 60:02d}:{rest % 60:02d}"


def page_of(timeline: Timeline) -> str:
    styles = "".join((ROOT / "static" / "css" / name).read_text() for name in ("arena.css", "games.css"))
    script = (ROOT / "static" / "js" / "timeline.js").read_text()
    drawn = render_to_string("games/live/_timeline.html", {"timeline": timeline})
    return (
        f"<!doctype html><html><head><style>{styles}</style><script>{script}</script></head>"
        f"<body><main><section class='card'>{drawn}</section></main></body></html>"
    )


SHOWN_TICKS = """ts => ts.filter(t => t.offsetParent)
  .map(t => { const r = t.getBoundingClientRect(); return [r.left, r.right, r.height, t.textContent]; })"""


def shown_times(page: Any, span: float, width: int) -> list[str]:
    """The times the axis shows, after checking that none runs into the next or wraps."""
    page.wait_for_timeout(50)  # a resize is measured again on the next frame
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    boxes = page.eval_on_selector_all("#game-timeline .tl-tick", SHOWN_TICKS)
    assert len(boxes) >= 2, (span, width, boxes)  # where it starts and where it ends at least
    lines = [height for _, _, height, _ in boxes]
    assert max(lines) < 1.6 * min(lines), (span, width, boxes)  # one line each
    for (_, right, _, text), (left, _, _, after) in itertools.pairwise(boxes):
        assert right + 2 <= left, (span, width, text, after)
    return [text for *_, text in boxes]


@pytest.mark.parametrize("days", [False, True], ids=["numbers", "days"])
def test_the_axis_times_never_overlap_or_wrap(days):
    spans = [1.5 * DAY, 2 * DAY, 2.5 * DAY, 3 * DAY, 4.2 * DAY, 6 * DAY] if days else [7, 12, 57, 120, 480, 1000]
    with chromium() as browser:
        page, errors = new_page(browser, DESKTOP)
        for span in spans:
            page.set_viewport_size(DESKTOP)
            timeline = Timeline(rows=[Row(0, "You")], span=span, now=span, tick_text=day_clock if days else None)
            page.set_content(page_of(timeline))
            wide = shown_times(page, span, DESKTOP["width"])
            assert wide == [text for _, text in timeline.tick_labels]  # a desktop's track has room for all
            page.set_viewport_size(PHONE)  # the same page turned narrow: measured again
            narrow = shown_times(page, span, PHONE["width"])
            assert narrow[0] == wide[0] and narrow[-1] == wide[-1], (narrow, wide)
        assert not errors, errors
