"""The site tests' helpers: the CLI run in this process, the hostile method name, the views, and
a browser page that records console errors. (A module of its own, not conftest.py: tests/report
has a conftest too, and both cannot be imported as ``conftest``.)"""

from __future__ import annotations

import contextlib
import io
import shutil

HOSTILE = "<img src=x onerror=alert(1)>"


VIEWS = ("curves", "table", "paired", "ranks", "pareto", "distributions", "sets", "progress", "guide")


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


def chromium_path() -> str | None:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return None


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
        if self.page.locator("main .plot").count():  # plotly's chart: the sketch until plotly.js has run,
            self.page.wait_for_selector("main .plot .main-svg", timeout=30000)  # seconds of CPU on a busy machine

    def data(self, expression: str):
        return self.page.evaluate(expression)

    def close(self) -> None:
        self.page.close()
