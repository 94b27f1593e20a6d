"""The explorer's two pictures in headless Chromium: Accuracy & size (median R² against median
formula size, the Pareto front) and Distributions (boxes and points of R² and log10 FVU) render
with the methods and numbers of the build's data, as plotly charts and as the sketch before it."""

from __future__ import annotations

import html

import pytest

from site_helpers import Page

pytestmark = pytest.mark.slow

SCOPE = "SRBF.data['c0-s0']"


def _rows(page, key: str) -> list[dict]:
    return page.data(f"(() => {{ const t = {SCOPE}.{key}; "
                     "return t.data.map(r => Object.fromEntries(t.columns.map((c, i) => [c, r[i]]))); })()")


def test_the_pareto_view_draws_every_placed_method_and_the_front(page):
    p = page.open("view=pareto")
    table = _rows(page, "pareto")
    placed = sorted(r["method"] for r in table if r["placed"])
    assert placed, table  # the store's methods have formulas: at least one is placed
    traces = p.evaluate("document.querySelector('main .plot').data.filter(t => t.mode === 'markers+text')"
                        ".map(t => ({name: t.name, x: t.x[0], y: t.y[0], symbol: t.marker.symbol}))")
    names = sorted(_method(t["name"]) for t in traces)
    assert names == placed
    for trace in traces:
        row = next(r for r in table if r["method"] == _method(trace["name"]))
        assert trace["x"] == pytest.approx(float(row["size"])) and trace["y"] == pytest.approx(float(row["accuracy"]))
        assert trace["symbol"] == ("circle" if row["on_front"] else "circle-open")
    rendered = p.locator("main .plot .scatterlayer .trace").count()
    assert rendered >= len(placed)  # plotly drew them
    rows = p.locator("main table.pareto tbody tr")
    assert rows.count() == len(table)
    assert page.errors == []


def test_the_distributions_view_draws_one_box_and_strip_per_method(page):
    for metric in ("r2_validation", "log10_fvu_validation"):
        p = page.open(f"view=distributions&metric={metric}")
        boxes = [b for b in _rows(page, "distribution_boxes") if b["metric"] == metric]
        points = [q for q in _rows(page, "distribution_points") if q["metric"] == metric]
        drawn = [b["method"] for b in boxes if b["n"]]
        assert drawn
        strips = p.evaluate("document.querySelector('main .plot').data.map(t => ({name: t.name, n: t.x.length}))")
        assert sorted(_method(s["name"]) for s in strips) == sorted(drawn)
        for strip in strips:
            method = _method(strip["name"])
            assert strip["n"] == sum(1 for q in points if q["method"] == method and q["shown"] not in (None, "NaN"))
        ticks = p.evaluate("document.querySelector('main .plot').layout.yaxis.ticktext")
        assert [html.unescape(t) for t in ticks] == page.data(f"{SCOPE}.methods")  # every method named, as text
        assert p.locator('select[aria-label="Metric"]').input_value() == metric
        assert p.locator("main .view-distributions table tbody tr").count() == len(boxes)
    assert page.errors == []


def _method(name: str) -> str:
    """A legend entry "method (provenance)" (plotly text: entities) back to the method's label."""
    return html.unescape(name).rsplit(" (", 1)[0]


def test_both_pictures_are_sketched_before_plotly_arrives(browser, site):
    opened = Page(browser, site)
    opened.page.route("**/plotly.min.js", lambda route: route.abort())  # plotly never loads: the sketch stays
    for view, label in (("pareto", "median R² against median formula size"),
                        ("distributions", "per-problem distribution")):
        opened.page.goto(f"{(site / 'index.html').as_uri()}#view={view}")
        opened.page.wait_for_selector(f'main[data-ready="{view}"]', timeout=15000)
        plot = opened.page.locator("main .plot").first
        assert plot.get_attribute("data-drawn") == "sketch"
        assert label in plot.get_attribute("aria-label")
        assert opened.page.locator("main .plot svg.sketch circle, main .plot svg.sketch path").count() > 0
    opened.close()
