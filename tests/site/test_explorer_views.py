"""The explorer's figures in headless Chromium: CD bars of overlapping groups, one colour per
method in every view, both readings offered, tables that wrap, and a screenshot of every view.

``SRBF_SCREENSHOTS=DIR`` also copies the screenshots there (docs/explorer/ holds the ones
docs/site.md shows: ``SRBF_SCREENSHOTS=docs/explorer pytest tests/site/test_explorer_views.py``)."""

from __future__ import annotations

import html
import itertools
import os
import shutil

import numpy as np
import pandas as pd
import pytest
from site_helpers import VIEWS, Page

from srbf.site.build import build_site, read_data

pytestmark = pytest.mark.slow

# Rank patterns (ranks of A, B, C on one problem) and how many problems follow each: mean ranks
# 1.6, 2.0 and 2.4 on 30 problems, so with CD = 0.605 (Nemenyi, k = 3, N = 30) A and C differ and
# B is within one CD of both: groups a / ab / b, two bars that overlap at B.
PATTERNS = {(1, 2, 3): 12, (2, 1, 3): 6, (1, 3, 2): 6, (3, 2, 1): 6}


def overlapping_groups_frame() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    problems = [pattern for pattern, count in PATTERNS.items() for _ in range(count)]
    rows = []
    for p, ranks in enumerate(problems):
        for (m, method), budget, draw in itertools.product(enumerate("ABC"), (1.0, 4.0), range(2)):
            fvu = -6.0 + 2.0 * ranks[m] + rng.uniform(-0.2, 0.2)  # keeps each problem's order
            rows.append({"method": method, "catalog": "sset" if p % 2 else "tset", "catalog_version": 1,
                         "problem_id": f"p{p:02d}", "draw": draw, "budget": budget,
                         "seconds": {"A": 0.5, "B": 0.8, "C": 0.6}[method] * budget, "success": 1.0,
                         "provenance": "harness_tuned", "log10_fvu_validation": fvu,
                         "nrr_validation": float(fvu < -1.5), "budget_knob": {"A": "generations"}.get(method)})
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def cd_site(tmp_path_factory):
    out = tmp_path_factory.mktemp("cd") / "site"
    build_site(overlapping_groups_frame(), out, per_set=False, n_resamples=200)
    return out


def test_overlapping_groups_are_joined_by_one_bar_each(browser, cd_site):
    scope = read_data(cd_site / "data" / "c0-s0.js")
    ranks = pd.DataFrame(scope["ranks"]["data"], columns=scope["ranks"]["columns"])
    headline = next(m for m in scope["marks"] if m["label"] == scope["headline"])
    here = ranks[(ranks["metric"] == "log10_fvu_validation") & (ranks["axis"] == headline["axis"])]
    if headline["axis"] == "time":
        here = here[here["time"] == headline["x"]]
    assert dict(zip(here["method"], here["groups"])) == {"A": "a", "B": "ab", "C": "b"}
    page = Page(browser, cd_site)
    p = page.open("view=ranks&metric=log10_fvu_validation", "ranks")
    bars = p.evaluate("document.querySelector('main .plot').layout.shapes.filter(s => s.type === 'rect')"
                      ".map(s => [s.x0, s.x1])")
    rank = dict(zip(here["method"], here["mean_rank"].astype(float)))
    expected = sorted([[rank["A"] - 0.05, rank["B"] + 0.05], [rank["B"] - 0.05, rank["C"] + 0.05]])
    assert len(bars) == 2  # two bars, both through B: not one tiny box per method
    assert [x for bar in sorted(bars) for x in bar] == pytest.approx([x for bar in expected for x in bar])
    assert "2 groups" in p.locator("main .banner").last.text_content()
    assert page.errors == []
    page.close()


def _colours_by_method(p) -> dict[str, set[str]]:
    """Every plotted trace's colour, by the method it draws (its legend group)."""
    found = p.evaluate("""[...document.querySelectorAll('main .plot')].flatMap(plot => plot.data
        .filter(t => t.legendgroup || (t.name && t.name !== ''))
        .map(t => [t.legendgroup || t.name, (t.line && t.line.color) || (t.marker && t.marker.color) || t.fillcolor]))""")
    colours: dict[str, set[str]] = {}
    for method, colour in found:
        colours.setdefault(method, set()).add(str(colour).lower()[:7])
    return colours


@pytest.mark.parametrize("which", ["site", "cd_site"])
def test_no_two_methods_in_one_view_share_a_colour(browser, which, request):
    folder = request.getfixturevalue(which)
    manifest = read_data(folder / "data" / "manifest.js")
    assert len(set(manifest["colors"].values())) == len(manifest["colors"])
    page = Page(browser, folder)
    for fragment in ("view=curves", "view=curves&x=budget", "view=paired&sub=delta", "view=ranks"):
        p = page.open(fragment, fragment.split("&")[0].split("=")[1])
        if fragment == "view=ranks":
            colours = dict(zip(*p.evaluate("[document.querySelector('main .plot').data.filter(t => t.name)"
                                           ".map(t => t.name), document.querySelector('main .plot').data"
                                           ".filter(t => t.name).map(t => t.marker.color)]")))
            colours = {name: {c.lower()} for name, c in colours.items()}
        else:
            colours = _colours_by_method(p)
        assert len(colours) >= 2, fragment
        assert all(len(c) == 1 for c in colours.values()), (fragment, colours)  # one colour per method ...
        flat = [next(iter(c)) for c in colours.values()]
        assert len(set(flat)) == len(flat), (fragment, colours)  # ... and no two methods alike
    assert page.errors == []
    page.close()


def test_budget_curves_get_one_panel_per_unit(browser, cd_site):
    page = Page(browser, cd_site)
    p = page.open("view=curves&x=budget&metric=log10_fvu_validation", "curves")
    titles = p.evaluate("[...document.querySelectorAll('main .plot')].map(d => d.layout.xaxis.title.text)")
    assert sorted(map(html.unescape, titles)) == ["budget: B's own unit", "budget: C's own unit", "budget: generations"]
    page.close()


def test_both_readings_are_offered_and_the_reports_is_named(browser, site):
    scope = read_data(site / "data" / "c0-s0.js")
    assert {m["reading"] for m in scope["marks"]} == {"report", "other"}
    report_axis = scope["reading"]["axis"]
    assert {m["axis"] for m in scope["marks"] if m["reading"] == "report"} == {report_axis}
    page = Page(browser, site)
    p = page.open("view=paired&sub=matrix&metric=nrr_validation", "paired")
    assert p.locator("main .banner.reading").text_content().startswith(f"The report reads these results at {scope['reading']['label']}")
    options = p.locator('select[aria-label="At"] option').all_text_contents()
    assert "each method's largest budget" in options and "1 s" in options
    other = next(m["label"] for m in scope["marks"] if m["reading"] == "other")
    p = page.open(f"view=ranks&mark={other}", "ranks")
    assert "belongs to the other reading" in p.locator("main .banner.reading").text_content()
    p = page.open("view=paired&sub=matrix&metric=nrr_validation&pin=0.1", "paired")
    record = p.locator("#pinned").text_content()
    assert "decided by" in record and "does not decide the verdict" in record
    assert page.errors == []
    page.close()


def test_the_problem_page_wraps_at_1400_px(browser, site):
    wide = Page(browser, site, width=1400)
    p = wide.open("view=sets&problem=" + '["feynman","I.6.2a"]'.replace('"', "%22"), "sets")
    assert p.locator("#problem").count() == 1
    table, room = p.evaluate("[document.querySelector('#problem').scrollWidth, "
                             "document.querySelector('main').clientWidth]")
    assert table <= room and p.evaluate("document.documentElement.scrollWidth") <= 1400
    wide.close()


def test_a_screenshot_of_every_view(browser, cd_site, tmp_path):
    """Small PNGs of every view (of the overlapping-groups site); SRBF_SCREENSHOTS=DIR keeps them."""
    keep = os.environ.get("SRBF_SCREENSHOTS")
    links = {"curves": "view=curves&metric=log10_fvu_validation", "table": "view=table",
             "paired": "view=paired&sub=matrix&metric=nrr_validation&pin=0.2", "ranks": "view=ranks",
             "pareto": "view=pareto", "distributions": "view=distributions&metric=log10_fvu_validation",
             "sets": "view=sets", "progress": "view=progress", "guide": "view=guide"}
    page = Page(browser, cd_site, width=1000)
    for view in VIEWS:
        p = page.open(links[view], view)
        path = tmp_path / f"explorer_{view}.png"
        p.screenshot(path=str(path))  # the viewport: small files
        assert 10_000 < path.stat().st_size < 400_000, view
        if keep:
            os.makedirs(keep, exist_ok=True)
            shutil.copyfile(path, os.path.join(keep, path.name))
    assert page.errors == []
    page.close()
