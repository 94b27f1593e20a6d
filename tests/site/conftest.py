"""A small real store (``srbf run`` + ``srbf score``) and the site built from it, and headless
Debian Chromium driven by Playwright. The browser tests skip, saying why, only when no Chromium
executable or no Playwright can be had here. Helpers: site_helpers.py."""

from __future__ import annotations

import pytest
import yaml

from site_helpers import HOSTILE, LEAST_SQUARES, Page, chromium_path, run_cli

@pytest.fixture(scope="session")
def store(tmp_path_factory):
    """Three methods with three provenance labels (one named with an HTML payload), two sets, two noise levels."""
    folder = tmp_path_factory.mktemp("site-store")
    (folder / "ls.py").write_text(LEAST_SQUARES)
    config = {
        "experiment": "site", "catalogs": ["nguyen", "feynman"], "limit": 3, "seed": 0, "workers": 2,
        "sampling": {"n_support": 64, "n_validation": 64, "draws": 2, "noise": [0.0, 0.1]}, "budgets": [1, 2, 4],
        "methods": [
            {"name": "ls", "adapter": {"type": "file", "path": "ls.py"}, "config_provenance": "author_blessed",
             "sweeps": [{"option": "tag", "values": [HOSTILE]}]},
            {"name": "prior", "config_provenance": "upstream_default"},
            {"name": "linear", "budgets": [1], "config_provenance": "harness_tuned"},  # bare, it would be upstream_default
        ],
        "results": str(folder / "results"),
    }
    (folder / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    for argv in (("run", "-c", str(folder / "config.yaml"), "--quiet"), ("score", "--results", str(folder / "results"))):
        code, out, err = run_cli(*argv)
        assert code == 0, out + err
    return folder / "results"


@pytest.fixture(scope="session")
def site(store, tmp_path_factory):
    out = tmp_path_factory.mktemp("site") / "site"
    code, printed, err = run_cli("site", "build", "--results", str(store), "-o", str(out))
    assert code == 0, printed + err
    assert f"srbf site serve {out}" in printed
    return out


@pytest.fixture(scope="session")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e '.[dev]')")
    executable = chromium_path()
    if executable is None:
        pytest.skip("no Chromium here: install Debian's package (apt-get install chromium); .ci/run does")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        yield browser
        browser.close()


@pytest.fixture
def page(browser, site):
    opened = Page(browser, site)
    yield opened
    opened.close()
