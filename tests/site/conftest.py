"""A small real store (``srbf run`` + ``srbf score``) and the site built from it, and headless
Debian Chromium driven by Playwright. The browser tests skip, saying why, only when no Chromium
executable or no Playwright can be had here."""

from __future__ import annotations

import contextlib
import io
import shutil

import pytest
import yaml

HOSTILE = "<img src=x onerror=alert(1)>"
VIEWS = ("curves", "table", "paired", "ranks", "sets", "progress", "guide")
# Least squares on the first `budget` inputs: a method whose answers improve with its budget.
LEAST_SQUARES = """
import numpy as np

def fit(X, y, *, budget, seed, variables, options, report):
    k = max(1, min(X.shape[1], int(budget)))
    w = np.linalg.lstsq(np.c_[X[:, :k], np.ones(len(y))], y, rcond=None)[0]
    return {"expression": " + ".join(f"{v}*{float(c)!r}" for v, c in zip(variables[:k], w)) + f" + {float(w[-1])!r}"}
"""


def run_cli(*argv: str) -> tuple[int, str, str]:
    """``srbf ARGV`` in this process: exit status, stdout, stderr."""
    from srbf.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


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
            {"name": "linear", "budgets": [1]},
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


def chromium_path() -> str | None:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return None


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


class Page:
    """A browser page on the built site that records console errors, page errors and dialogs."""

    def __init__(self, browser, site, width: int = 1100):
        self.site = site
        self.page = browser.new_page(viewport={"width": width, "height": 900})
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))

    def open(self, fragment: str = "", view: str | None = None):
        self.page.goto(f"{(self.site / 'index.html').as_uri()}#{fragment}")
        self.ready(view or dict(p.split("=", 1) for p in fragment.split("&") if "=" in p).get("view", "curves"))
        return self.page

    def ready(self, view: str) -> None:
        self.page.wait_for_selector(f'main[data-ready="{view}"]', timeout=15000)
        if self.page.locator("main .plot").count():
            self.page.wait_for_selector("main .plot .main-svg", timeout=15000)

    def data(self, expression: str):
        return self.page.evaluate(expression)

    def close(self) -> None:
        self.page.close()


@pytest.fixture
def page(browser, site):
    opened = Page(browser, site)
    yield opened
    opened.close()
