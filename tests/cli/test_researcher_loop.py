"""The researcher's loop through the command line: run a method file of one's own, edit it, run
again, read every answer from the newest configuration, forget the old one.

One module-scoped play of the loop (real runs, real scoring, real report and explorer), then
tests that read what each step printed and left behind. ``srbf forget`` is checked against a
store that never held the old configuration: the same config's second version run alone into a
fresh store that shares the first store's secret (the method's seed is derived under it).
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import sqlite3
from pathlib import Path

import pytest
import yaml

from srbf.cli import main as srbf
from srbf.store import ResultsStore

pytestmark = pytest.mark.slow

SET_ASIDE = "set aside 1 older one(s): my_poly@"


def call(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = srbf([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def ok(*argv: str) -> tuple[str, str]:
    code, out, err = call(*argv)
    assert code == 0, f"srbf {' '.join(map(str, argv))} exited {code}: {err}{out}"
    return out, err


def write_config(folder: Path, results: str) -> Path:
    config = {"experiment": "loop", "catalogs": ["nguyen"], "limit": 3, "workers": 2, "results": results,
              "sampling": {"n_support": 64, "n_validation": 64, "draws": 2},
              "methods": [{"name": "my_poly", "adapter": {"type": "file", "path": "my_poly.py"}, "budgets": [1, 4],
                           "config_provenance": "upstream_default"},
                          {"name": "linear", "budgets": [1]}]}  # fmt: skip
    path = folder / f"{results.strip('./')}.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


@pytest.fixture(scope="module")
def loop(tmp_path_factory):
    folder = tmp_path_factory.mktemp("loop")
    ok("methods", "new", "my_poly", "-o", folder)  # a user's own method file (docs/adapters.md)
    config = write_config(folder, "./results")
    said = {}
    with contextlib.chdir(folder):
        said["run1"] = ok("run", "-c", config, "--quiet")
        ok("score", "-c", config, "--quiet")
        with ResultsStore.open_readonly("results") as store:
            old_hashes = {c.config_hash for c in store.configurations()}
            (old,) = [c.config_hash[:8] for c in store.configurations() if c.method == "my_poly"]
        said["old_short"] = old
        with open("my_poly.py", "a") as handle:
            handle.write("# one comment: a new method file, a new configuration\n")
        said["status_changed"] = ok("status", "-c", config)
        said["run2"] = ok("run", "-c", config, "--quiet")
        ok("score", "-c", config, "--quiet")
        said["runs"] = ok("runs", "-c", config)
        said["runs_json"] = ok("runs", "-c", config, "--json")
        said["analyze"] = ok("analyze", "-c", config, "-o", "report", "--at-budget", "max")
        said["compare"] = ok("compare", "my_poly", "linear", "-c", config, "--json")
        said["compare_all"] = call("compare", "my_poly", "my_poly@" + old, "-c", config,
                                   "--configs", "all", "--json")  # fmt: skip
        said["site"] = ok("site", "build", "-c", config, "-o", "site")
        said["export"] = ok("export", "-c", config, "-o", "newest.csv")
        said["export_all"] = ok("export", "-c", config, "-o", "all.csv", "--configs", "all")
        said["status"] = ok("status", "--results", "results")
        said["forget_refused"] = call("forget", "my_poly@" + old, "-c", config)
        said["forget"] = ok("forget", "my_poly@" + old, "-c", config, "--yes")
        said["analyze_after"] = ok("analyze", "-c", config, "-o", "report-after", "--at-budget", "max")
        # the store that never held the old rows: the edited file run alone, under the same secret
        with ResultsStore("results") as store:
            secret = store.secret()
        reference = write_config(folder, "./reference")
        ResultsStore("reference").close()
        with sqlite3.connect(folder / "reference" / "srbf.sqlite") as conn:
            conn.execute("INSERT INTO secret (id, value) VALUES (1, ?)", (secret,))
        ok("run", "-c", reference, "--quiet")
        ok("score", "-c", reference, "--quiet")
    return folder, said, old_hashes


def test_a_run_says_before_it_starts_that_the_method_file_changed(loop):
    _, said, _ = loop
    out, err = said["run2"]
    assert "my_poly: the method file changed since the stored runs (hash " in err
    assert "its 12 fit(s) run again; the old ones stay, `srbf runs` lists them" in err
    assert "linear" not in err  # its configuration did not change: its fits were skipped
    assert "12 of 12 fit(s) recorded" in out and "6 already stored, skipped" in out
    status = said["status_changed"][0]
    assert "my_poly: the method file changed since the stored runs (hash " in status
    assert "its 12 fit(s) to run again" in status and "12 pending" in status


def test_runs_lists_both_configurations_and_what_differs(loop):
    _, said, old = loop
    listing = json.loads(said["runs_json"][0])["configurations"]
    mine = [r for r in listing if r["method"] == "my_poly"]
    assert [r["newest"] for r in mine] == [True, False]
    assert mine[1]["config_hash"] in old and mine[0]["config_hash"] not in old
    assert all(r["fits"] == 12 for r in mine)
    assert len(mine[1]["differs"]) == 1 and mine[1]["differs"][0].startswith("the method file (sha256 ")
    text = said["runs"][0]
    assert "my_poly" in text and "(newest)" in text and "the method file (sha256" in text


def test_every_reading_uses_the_newest_configuration_and_says_what_it_set_aside(loop):
    folder, said, old = loop
    for step in ("analyze", "compare", "site", "export"):
        assert SET_ASIDE in said[step][1], step
    compared = json.loads(said["compare"][0])
    assert compared and {(r["method_a"], r["method_b"]) for r in compared} == {("my_poly", "linear")}
    with open(folder / "report" / "tables" / "leaderboard.csv", newline="") as handle:
        assert {r["method"] for r in csv.DictReader(handle)} == {"my_poly", "linear"}
    with open(folder / "newest.csv", newline="") as handle:
        exported = list(csv.DictReader(handle))
    assert len(exported) == 18 and not any(r["config_hash"].startswith(said["old_short"]) for r in exported)
    with open(folder / "all.csv", newline="") as handle:
        assert len(list(csv.DictReader(handle))) == 30


def test_all_configurations_read_side_by_side_under_method_at_hash(loop):
    _, said, _ = loop
    code, out, err = said["compare_all"]
    assert code == 0, err
    records = json.loads(out)
    assert records and {(r["method_a"], r["method_b"]) for r in records} == {("my_poly", "my_poly@" + said["old_short"])}
    assert "set aside" not in err


def test_status_reads_a_store_without_a_config(loop):
    _, said, _ = loop
    out = said["status"][0]
    assert "no config given" in out and "my_poly@" in out and "linear" in out


def test_forget_asks_first_and_refuses_without_a_terminal(loop):
    _, said, _ = loop
    code, out, err = said["forget_refused"]
    assert code == 2 and "pass --yes" in err and "removes 12 predictions" in out
    assert "removed 12 predictions" in said["forget"][0]
    assert "set aside" not in said["analyze_after"][1]


def _contents(path: Path) -> dict[str, list]:
    """The store's tables without their run-level bookkeeping: row ids and the campaign ids they
    point to (the order rows were inserted), created_at (when), the measured times (wall, CPU,
    the method's own, each trajectory step's seconds, ``fit_seconds`` in internals), the campaign's
    run section (it names the results directory, which differs by construction), machine, git and
    srbf version; everything else, and every row, is compared."""
    conn = sqlite3.connect(path / "srbf.sqlite")
    key = "p.method, p.config_hash, p.catalog, p.catalog_version, p.problem_id, p.draw, p.budget, p.condition, p.seed, p.repeat"

    def internals(text: str) -> str:
        return json.dumps({k: v for k, v in json.loads(text).items() if not k.endswith("seconds")}, sort_keys=True)

    predictions = sorted(
        (*row[:-1], internals(row[-1]))
        for row in conn.execute(f"SELECT {key}, p.provenance, p.status, p.expression, p.error, p.data_hash, "
                                "p.inputs_hash, p.stderr_tail, p.internals FROM predictions p")  # fmt: skip
    )
    trajectories = sorted(conn.execute(f"SELECT {key}, t.step, t.expression FROM trajectories t "
                                       "JOIN predictions p ON p.id = t.prediction_id").fetchall())  # fmt: skip
    metrics = sorted(conn.execute(
        f"SELECT {key}, m.judge_version, m.metrics, j.judge_version, j.python_version, j.numpy_version, j.scipy_version, "
        "j.sympy_version, j.mpmath_version FROM metrics m JOIN predictions p ON p.id = m.prediction_id "
        "LEFT JOIN judge_stacks j ON j.id = m.judge_stack_id").fetchall())  # fmt: skip
    campaigns = sorted(
        (name, config_hash, provenance, json.dumps(json.loads(config)["variant"], sort_keys=True))
        for name, config_hash, provenance, config in conn.execute("SELECT name, config_hash, provenance, config FROM campaigns")
    )
    stacks = sorted(conn.execute("SELECT judge_version, python_version, numpy_version, scipy_version, sympy_version, "
                                 "mpmath_version FROM judge_stacks").fetchall())  # fmt: skip
    secret = conn.execute("SELECT value FROM secret").fetchall()
    tables = sorted(r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'"))
    conn.close()
    return {"predictions": predictions, "trajectories": trajectories, "metrics": metrics, "campaigns": campaigns,
            "judge_stacks": stacks, "secret": secret, "tables": tables}  # fmt: skip


def test_forget_leaves_a_store_equal_to_one_that_never_held_the_old_rows(loop):
    folder, _, _ = loop
    forgotten, never = _contents(folder / "results"), _contents(folder / "reference")
    assert len(forgotten["predictions"]) == 18 and forgotten["trajectories"] and len(forgotten["metrics"]) == 18
    for table in never:
        assert forgotten[table] == never[table], table
