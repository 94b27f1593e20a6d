"""srbf site build / serve without a browser: one-line refusals, the server, the data files."""

from __future__ import annotations

import threading
import urllib.request

import pytest
from site_helpers import run_cli

from srbf.site.build import read_data
from srbf.site.problems import readable
from srbf.site.serve import SiteError, make_server

pytestmark = pytest.mark.slow


def test_build_refuses_a_missing_store_in_one_line(tmp_path):
    code, out, err = run_cli("site", "build", "--results", str(tmp_path / "nothing"), "-o", str(tmp_path / "site"))
    assert code == 2 and out == ""
    assert err.startswith("srbf: error: no results store at") and err.count("\n") == 1
    assert not (tmp_path / "site").exists()


@pytest.mark.parametrize("argv, message", [
    (("--metric", "no_such_metric"), "no metric 'no_such_metric'"),
    (("--condition", "n_support=7;noise=0"), "no scored predictions"),
    (("--confirmatory-vs", "nobody"), "unknown method 'nobody'"),
])
def test_build_refuses_bad_options_in_one_line(store, tmp_path, argv, message):
    code, out, err = run_cli("site", "build", "--results", str(store), "-o", str(tmp_path / "site"), *argv)
    assert code == 2, out + err
    assert message in err and err.count("\n") == 1


def test_serve_refuses_a_folder_that_is_not_a_site(tmp_path):
    code, _, err = run_cli("site", "serve", str(tmp_path))
    assert code == 2 and "is not a built site" in err and err.count("\n") == 1
    with pytest.raises(SystemExit):
        run_cli("site", "serve", str(tmp_path), "--port", "70000")


def test_serve_answers_on_localhost(site):
    server = make_server(site, 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}/"
        with urllib.request.urlopen(base, timeout=10) as response:
            assert response.status == 200 and b"srbf results explorer" in response.read()
        with urllib.request.urlopen(base + "data/manifest.js", timeout=10) as response:
            assert response.read().startswith(b'SRBF.receive("manifest",')
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)
    with pytest.raises(SiteError, match="cannot serve on"):
        busy = make_server(site, 0)
        try:
            make_server(site, busy.server_address[1])
        finally:
            busy.server_close()


def test_the_folder_is_self_contained(site):
    html = (site / "index.html").read_text()
    assert "http://" not in html and "https://" not in html  # no CDN: works offline and from file://
    assert (site / "plotly.min.js").stat().st_size > 1_000_000
    manifest = read_data(site / "data" / "manifest.js")
    assert [c["condition"] for c in manifest["conditions"]] == ["n_support=64;noise=0", "n_support=64;noise=0.1"]
    for condition in manifest["conditions"]:
        assert condition["scopes"] == ["all sets", "feynman", "nguyen"]
        for j, _ in enumerate(condition["scopes"]):
            scope = read_data(site / "data" / f"{condition['key']}-s{j}.js")
            assert read_data(site / "data" / f"{condition['key']}-s{j}-paired.js")["cells"]["data"]
            assert scope["methods"] and scope["leaderboard"]["data"]
        problems = read_data(site / "data" / f"{condition['key']}.js")
        assert {r[0] for r in problems["truths"]["data"]} == {"feynman", "nguyen"}


def test_readable_formulas_shorten_long_decimals_only():
    assert readable("x1*1.5458387308318497 + 0.34712198836764413") == "x1*1.546 + 0.3471"
    assert readable("x1e5 + 2.5*x2 + 1.0e-05") == "x1e5 + 2.5*x2 + 1e-05"
    assert readable(None) == ""
    assert readable("x" * 700).endswith(" …") and len(readable("x" * 700)) == 602


def test_declared_comparisons_are_confirmatory_on_the_page(store, tmp_path):
    import pandas as pd

    out = tmp_path / "site"
    code, printed, err = run_cli("site", "build", "--results", str(store), "--condition", "n_support=64;noise=0",
                                 "--confirmatory-vs", "linear", "--no-per-set", "-o", str(out))
    assert code == 0, printed + err
    manifest = read_data(out / "data" / "manifest.js")
    assert [c["scopes"] for c in manifest["conditions"]] == [["all sets"]]
    cells = read_data(out / "data" / "c0-s0-paired.js")["cells"]
    cells = pd.DataFrame(cells["data"], columns=cells["columns"])
    with_linear = (cells["method_a"] == "linear") | (cells["method_b"] == "linear")
    assert with_linear.any() and (~with_linear).any()
    assert cells.loc[with_linear, "confirmatory"].all() and (cells.loc[with_linear, "correction"] == "holm").all()
    assert not cells.loc[~with_linear, "confirmatory"].any()
    assert (cells.loc[~with_linear, "correction"] == "benjamini-hochberg").all()
