"""The explorer in headless Chromium: deep links, view switching, the snapping slider, provenance
labels, pinned matrix cells, 390 px screens and a method named with an HTML payload."""

from __future__ import annotations

import json
import shutil
import urllib.parse

import pytest

from site_helpers import HOSTILE, VIEWS, Page, run_cli

pytestmark = pytest.mark.slow

DEEP_LINKS = {
    "curves": "view=curves&metric=log10_fvu_validation&x=budget",
    "table": "view=table&t=10%20s",
    "paired": "view=paired&sub=matrix&mark=1%20s&metric=nrr_validation",
    "ranks": "view=ranks&metric=log10_fvu_validation",
    "pareto": "view=pareto&set=1",
    "distributions": "view=distributions&metric=log10_fvu_validation",
    "sets": "view=sets&set=1",
    "progress": "view=progress&c=1",
    "guide": "view=guide&theme=dark",
}


def test_every_view_opens_from_a_deep_link_without_console_errors(browser, site, tmp_path):
    for view in VIEWS:
        opened = Page(browser, site)
        page = opened.open(DEEP_LINKS[view], view)
        assert page.locator(f'nav button[data-view="{view}"]').get_attribute("aria-current") == "page"
        assert page.locator("main .banner", has_text="could not be drawn").count() == 0
        path = tmp_path / f"{view}.png"
        page.screenshot(path=str(path), full_page=True)
        assert path.stat().st_size > 10_000
        assert opened.errors == [], (view, opened.errors)
        opened.close()
    assert sorted(p.stem for p in tmp_path.glob("*.png")) == sorted(VIEWS)


def test_deep_link_state_is_applied(page):
    p = page.open(DEEP_LINKS["curves"])
    assert p.locator('select[aria-label="Metric"]').input_value() == "log10_fvu_validation"
    assert p.locator('select[aria-label="Against"]').input_value() == "budget"
    p = page.open("view=curves&x=noise&metric=nrr_validation")  # across the two noise levels
    assert p.locator('select[aria-label="Against"]').input_value() == "noise"
    assert p.evaluate("document.querySelector('main .plot').data.filter(t => t.name).every(t => t.x.length == 2)")
    p = page.open("view=guide&theme=dark")
    assert p.evaluate("document.documentElement.dataset.theme") == "dark"
    p.click("#theme")
    assert p.evaluate("document.documentElement.dataset.theme") == "light"
    assert "theme=light" in p.url


def test_switching_views_by_click_and_by_keyboard(page):
    p = page.open()
    for view in ("table", "paired", "ranks", "sets", "progress", "guide", "curves"):
        p.click(f'nav button[data-view="{view}"]')
        page.ready(view)
        assert urllib.parse.parse_qs(p.url.split("#", 1)[1]).get("view", ["curves"]) == [view]
    p.focus('nav button[data-view="ranks"]')
    p.keyboard.press("Enter")
    page.ready("ranks")
    assert page.errors == []


def test_the_slider_snaps_to_the_declared_marks(page):
    p = page.open("view=table&t=1%20s")
    slider = page.data("SRBF.data['c0-s0'].slider")
    labels = [s["label"] for s in slider]
    mark = labels.index("1 s")
    assert slider[mark]["declared"] and not slider[mark - 1]["declared"] and not slider[mark - 2]["declared"]
    status = p.locator("#mark-status")
    handle = p.locator('input[type="range"]')

    def move_to(index: int) -> None:
        handle.evaluate("(el, i) => { el.value = i; el.dispatchEvent(new Event('input')); "
                        "el.dispatchEvent(new Event('change')); }", index)

    move_to(mark - 2)  # two steps from the mark: an in-between read, labelled as such
    p.wait_for_function("document.querySelector('#mark-status').textContent.startsWith('In-between')")
    assert labels[mark - 2] in status.text_content() and "descriptive" in status.text_content()
    assert "t=" + urllib.parse.quote(labels[mark - 2]) in p.url.replace("+", "%20")
    move_to(mark - 1)  # next to the mark: snaps onto it
    p.wait_for_function("!document.querySelector('#mark-status').textContent.startsWith('In-between')")
    # this store's fits end far below 1 s: the report reads at each method's largest budget, and says so
    assert page.data("SRBF.data['c0-s0'].reading.axis") == "max_budget"
    assert status.text_content().startswith("Mark 1 s of the other reading")
    assert "the report reads at each method's largest budget" in status.text_content()
    assert handle.input_value() == str(mark)
    p.locator('input[type="range"]').focus()  # the keyboard moves it too, and leaving the mark is allowed
    p.keyboard.press("ArrowLeft")
    p.wait_for_function("document.querySelector('#mark-status').textContent.startsWith('In-between')")
    assert labels[mark - 1] in status.text_content()
    assert page.errors == []


def test_each_provenance_label_is_visible(page):
    p = page.open("view=curves")
    legend = " ".join(p.locator(".legendtext").all_text_contents())
    for label in ("author_blessed", "upstream_default", "harness_tuned"):
        assert f"({label})" in legend
    p = page.open("view=table", "table")
    notes = p.locator(".footnotes").text_content()
    for label in ("author_blessed", "upstream_default", "harness_tuned"):
        assert f"provenance: {label}" in notes
    p = page.open("view=paired", "paired")  # three labels compared: the Paired view carries the footnote
    note = p.locator(".note.labels").text_content()
    assert note.startswith("Note: differently labelled configurations are compared here.")
    assert all(label in note for label in ("author_blessed", "upstream_default", "harness_tuned"))


def test_pinning_a_matrix_cell(page):
    p = page.open("view=paired&sub=matrix&metric=log10_fvu_validation")
    cell = p.locator('#matrix button[data-cell="0.2"]')
    cell.click()
    p.wait_for_selector("#pinned")
    methods = page.data("SRBF.data['c0-s0'].methods")
    record = p.locator("#pinned").text_content()
    assert f"{methods[0]} − {methods[2]} on log10_fvu_validation" in record
    assert "p (corrected)" in record and "noise margin m" in record and "MDE₈₀" in record
    assert p.locator('#matrix button[data-cell="0.2"]').get_attribute("aria-pressed") == "true"
    assert "pin=0.2" in p.url
    again = page.open(p.url.split("#", 1)[1], "paired")  # the pin is part of the link
    assert again.locator("#pinned").count() == 1
    again.locator('input[type="checkbox"]').check()  # raw p-values, with a notice
    again.wait_for_function("document.querySelector('#pinned').textContent.includes('raw, uncorrected')")
    assert again.locator(".banner", has_text="Raw p-values").count() == 1
    assert page.errors == []


def test_no_horizontal_overflow_at_390_px(browser, site):
    narrow = Page(browser, site, width=390)
    for view in VIEWS:
        extra = "&sub=matrix" if view == "paired" else ""
        p = narrow.open(f"view={view}{extra}", view)
        width = p.evaluate("Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)")
        assert width <= 390, (view, width)
    assert narrow.errors == []
    narrow.close()


def test_a_method_named_with_html_shows_as_text(page):
    for fragment, view in (("view=curves", "curves"), ("view=table", "table"),
                           ("view=paired&sub=matrix&pin=1.0", "paired"), ("view=ranks", "ranks"),
                           ("view=progress", "progress"),
                           ("view=sets&problem=" + urllib.parse.quote('["nguyen","Nguyen-1"]'), "sets")):
        p = page.open(fragment, view)
        assert p.locator("main img").count() == 0 and p.locator("img").count() == 0
        assert HOSTILE in p.locator("main").text_content(), view
    assert page.dialogs == [] and page.errors == []


def test_the_leaderboard_the_page_loads_equals_the_report(page, store, tmp_path):
    import pandas as pd

    from srbf.report import read_table

    p = page.open("view=table")
    conditions = page.data("SRBF.data.manifest.conditions")
    assert len(conditions) == 2
    for i, condition in enumerate(conditions[1:], start=1):  # one is enough: the report takes a minute
        code, out, err = run_cli("analyze", "--results", str(store), "--condition", condition["condition"],
                                 "-o", str(tmp_path / f"report{i}"))
        assert code == 0, out + err
        expected = read_table(tmp_path / f"report{i}" / "tables" / "leaderboard.csv")
        page.open(f"view=table&c={i}", "table")
        loaded = p.evaluate(f"SRBF.data['c{i}-s0'].leaderboard")
        ours = [m["label"] for m in p.evaluate(f"SRBF.data['c{i}-s0'].marks") if m["reading"] == "report"]
        site = pd.DataFrame(loaded["data"], columns=loaded["columns"])
        site = site[site["mark"].isin(ours)].reset_index(drop=True)  # the other reading is offered beside it
        assert list(site.columns) == list(expected.columns)
        assert len(site) == len(expected) > 0
        for column in expected.columns:
            if pd.api.types.is_numeric_dtype(expected[column]) and not pd.api.types.is_bool_dtype(expected[column]):
                got = pd.to_numeric(site[column].replace({"NaN": float("nan"), "Infinity": float("inf"),
                                                          "-Infinity": float("-inf")}))
                pd.testing.assert_series_equal(got.astype(float), expected[column].astype(float), check_names=False)
            else:
                assert site[column].astype(str).tolist() == expected[column].astype(str).tolist(), column
        # the verdict matrix's cells, read the report's way round (A before B), are the report's comparisons
        report = read_table(tmp_path / f"report{i}" / "tables" / "comparisons.csv")
        page.open(f"view=paired&sub=matrix&c={i}", "paired")
        cells = p.evaluate(f"SRBF.data['c{i}-s0-paired'].cells")
        cells = pd.DataFrame(cells["data"], columns=cells["columns"])
        reading = p.evaluate(f"SRBF.data['c{i}-s0'].reading")
        cells = cells[cells["axis"] == reading["axis"]]  # the report's reading
        same_way = cells.merge(report[["method_a", "method_b"]].drop_duplicates(), on=["method_a", "method_b"])
        key = ["metric", "time", "method_a", "method_b"]
        same_way, report = same_way.sort_values(key).reset_index(drop=True), report.sort_values(key).reset_index(drop=True)
        assert len(same_way) == len(report) > 0
        assert same_way["verdict"].tolist() == report["verdict"].tolist()
        for column in ("delta", "ci_low", "ci_high", "margin", "mde80", "p_adjusted"):
            got = pd.to_numeric(same_way[column].replace({"NaN": float("nan")}))
            pd.testing.assert_series_equal(got.astype(float), report[column].astype(float), check_names=False)
    assert json.dumps(loaded)  # what the page holds is plain JSON


# Records, for every plot, what it held each time its data-drawn attribute changed: the page's sketch
# first (drawn before plotly.js is even requested), then plotly's chart.
RECORD_DRAWS = """
window.DRAWS = [];
new MutationObserver((changes) => {
  for (const change of changes) {
    const plot = change.target;
    window.DRAWS.push({drawn: plot.dataset.drawn, plotly: Boolean(window.Plotly),
      legend: [...plot.querySelectorAll(".sketch-legend li")].map((li) => li.textContent),
      lines: plot.querySelectorAll("svg.sketch path[data-trace]").length, images: document.querySelectorAll("img").length,
      width: Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)});
  }
}).observe(document, {subtree: true, attributes: true, attributeFilter: ["data-drawn"]});
"""


def test_the_first_view_is_sketched_before_plotly_loads_then_becomes_plotlys_chart(browser, site):
    narrow = Page(browser, site, width=390)
    narrow.page.add_init_script(RECORD_DRAWS)
    p = narrow.open("view=curves")
    draws = p.evaluate("window.DRAWS")
    assert [d["drawn"] for d in draws] == ["sketch", "plotly"]
    sketch = draws[0]
    assert not sketch["plotly"]  # drawn without plotly.js
    scope = narrow.data("SRBF.data['c0-s0']")
    assert sorted(sketch["legend"]) == sorted(f"{m} ({scope['provenance'][m]})" for m in scope["methods"])
    assert any(HOSTILE in name for name in sketch["legend"]) and sketch["images"] == 0  # data shown as text
    assert sketch["lines"] >= len(scope["methods"]) and sketch["width"] <= 390
    assert p.locator(".sketch").count() == 0 and p.locator("main .plot .legendtext").count() >= len(scope["methods"])
    assert narrow.errors == [] and narrow.dialogs == []
    narrow.close()


def test_without_plotly_every_plotted_view_stays_a_sketch_and_says_so(browser, site, tmp_path):
    copy = tmp_path / "site"
    shutil.copytree(site, copy)
    (copy / "plotly.min.js").unlink()
    opened = Page(browser, copy)
    for fragment in ("view=curves", "view=paired", "view=ranks&metric=log10_fvu_validation"):
        opened.page.goto(f"{(copy / 'index.html').as_uri()}#{fragment}")
        opened.page.wait_for_selector("footer .banner", timeout=15000)
        assert opened.page.locator("main .plot[data-drawn='sketch'] svg.sketch").count() == 1, fragment
        assert "could not be loaded" in opened.page.locator("footer .banner").text_content()
    assert opened.errors and all("ERR_FILE_NOT_FOUND" in e for e in opened.errors)  # the missing file, nothing else
    opened.close()
