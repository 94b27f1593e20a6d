"""The timing protocol on real worker processes: the frozen subset, the serial run, the readout."""

from __future__ import annotations

import json
import shutil
import sqlite3

import pandas as pd
import pytest

from driver_helpers import write_catalog, write_config, write_method
from srbf.cli import main
from srbf.runs.config import load_config
from srbf.runs.problems import ProblemSource
from srbf.runs.timing_run import TIMING_KEY, run_timing
from srbf.runs.timing_subset import TimingError, allocate, freeze_subset, load_subset
from srbf.stats.timing_readout import read_timing
from srbf.store import ResultsStore

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def timed(tmp_path_factory):
    """A subset of two sets (4 and 3 problems), timed with linear and two variants of a test
    method: one sleeping 50 ms per fit, one failing on each set's first problem."""
    folder = tmp_path_factory.mktemp("timing")
    sets = [str(write_catalog(folder, 4, "seta")), str(write_catalog(folder, 3, "setb"))]
    log = folder / "fits.log"
    swiss = {"name": "swiss", "adapter": {"type": "file", "path": str(write_method(folder))}, "time_limit": 30,
             "config_provenance": "harness_tuned", "budgets": [1, 2], "env": {"SRBF_TEST_LOG": str(log)},
             "options": {"seconds": 0.05}, "sweeps": [{"option": "mode", "values": ["slow", "raise"]}]}
    linear = {"name": "linear", "budgets": [1], "config_provenance": "upstream_default"}
    path = write_config(folder, catalogs=sets, methods=[linear, swiss], sampling={"n_support": 32, "n_validation": 16})
    config = load_config(path)
    subset = freeze_subset(config, folder / "subset", total=5)
    summary = run_timing(config, subset.directory, log=lambda text: None, progress=False)
    return {"folder": folder, "config": config, "path": path, "subset": subset, "summary": summary, "log": log}


def test_allocate_shares_evenly_and_caps_small_sets():
    sizes = {"a": 1, "b": 5, "c": 10}
    assert allocate(sizes, total=9) == {"a": 1, "b": 4, "c": 4}
    assert allocate(sizes, total=10) == {"a": 1, "b": 5, "c": 4}  # the leftover goes to the first larger set
    assert allocate(sizes, total=3) == {"a": 1, "b": 1, "c": 1}
    assert allocate(sizes, total=2) == {"a": 1, "b": 1, "c": 0}
    assert allocate(sizes, total=50) == sizes
    assert allocate(sizes, per_set=3) == {"a": 1, "b": 3, "c": 3}


def test_freeze_writes_the_drawn_points_with_their_hashes(timed):
    subset, config = timed["subset"], timed["config"]
    assert subset.set_sizes() == {"seta": 3, "setb": 2}
    assert subset.manifest["condition"] == "n_support=32;noise=0"
    source = ProblemSource(config)
    from srbf.catalogs.loader import load_catalog

    catalogs = {c.name: c for c in map(load_catalog, config.catalogs)}
    for problem in subset.problems:
        catalog = catalogs[problem.catalog]
        entry = next(e for e in catalog.entries if e.id == problem.problem_id)
        fresh = source.draw(entry, catalog=catalog.name, catalog_version=catalog.version, seed=config.seed, draw=0,
                            n_support=32, noise=0.0, n_validation=16, ood=False)
        stored = subset.points(problem)
        assert problem.data_hash == fresh.data_hash == stored.data_hash
        assert (stored.X_support == fresh.X_support).all()
    again = freeze_subset(config, timed["folder"] / "again", total=5)
    assert [p.problem_id for p in again.problems] == [p.problem_id for p in subset.problems]  # deterministic
    with pytest.raises(TimingError, match="not an empty directory"):
        freeze_subset(config, subset.directory, total=5)


def test_a_changed_subset_is_refused(timed, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(timed["subset"].directory, copy, ignore=shutil.ignore_patterns("results"))
    manifest = json.loads((copy / "subset.json").read_text())
    manifest["problems"][0]["problem_id"] = "p04"
    (copy / "subset.json").write_text(json.dumps(manifest))
    with pytest.raises(TimingError, match=r"subset.json: hash: the manifest was changed after freezing"):
        load_subset(copy)
    shutil.rmtree(copy)
    shutil.copytree(timed["subset"].directory, copy, ignore=shutil.ignore_patterns("results"))
    shutil.copyfile(copy / "points" / "0001.npz", copy / "points" / "0000.npz")  # another problem's points
    subset = load_subset(copy)
    with pytest.raises(TimingError, match=r"0000.npz: data_hash: expected"):
        subset.points(subset.problems[0])
    with pytest.raises(TimingError, match="no such directory"):
        load_subset(tmp_path / "nowhere")


def _fits(subset):
    with ResultsStore.open_readonly(subset.store) as store:
        return store.predictions_frame(), store.campaigns_frame()


def test_the_fits_are_serial_after_an_unrecorded_warm_up(timed):
    predictions, campaigns = _fits(timed["subset"])
    assert len(predictions) == 5 * 1 + 5 * 2 * 2  # linear at one budget, two swiss variants at two
    windows = sorted((i[TIMING_KEY]["started"], i[TIMING_KEY]["ended"]) for i in predictions["internals"])
    assert all(start < end for start, end in windows)
    assert all(end <= next_start for (_, end), (next_start, _) in zip(windows, windows[1:]))  # never two at once
    label = {c.id: c.config["variant"]["label"] for c in campaigns.itertuples()}
    slow = predictions[predictions["campaign_id"].map(label) == 'swiss[mode="slow"]']
    assert len(slow) == 10 and (slow["wall_seconds"] >= 0.05).all()  # timed in the worker around the fit
    lines = [line.split() for line in timed["log"].read_text().splitlines()]
    assert len(lines) == 2 * (10 + 1)  # every recorded swiss fit plus one warm-up per variant
    assert len({pid for _, _, pid in lines[:11]}) == 1 and len({pid for _, _, pid in lines[11:]}) == 1  # one worker each
    for campaign in campaigns.itertuples():
        timing = campaign.config["timing"]
        assert timing["subset_hash"] == timed["subset"].hash
        assert timing["machine"]["cpu_model"] and timing["machine"]["memory_bytes"] > 0
        assert len(timing["load_before"]) == 3
    assert timed["summary"].failed == {'swiss[mode="raise"]': 4}  # each set's first problem, at both budgets


def test_a_rerun_resumes_and_times_nothing_twice(timed):
    summary = run_timing(timed["config"], timed["subset"].directory, log=lambda text: None, progress=False)
    assert summary.recorded == {} and summary.skipped == 25
    assert len(_fits(timed["subset"])[0]) == 25


def test_readout_counts_failures_in_the_success_rate_only(timed):
    readout = read_timing(timed["subset"].directory)
    rows = {(r.method, r.budget): r for r in readout.rows.itertuples()}
    assert set(rows) == {("linear", 1.0), ('swiss[mode="slow"]', 1.0), ('swiss[mode="slow"]', 2.0),
                         ('swiss[mode="raise"]', 1.0), ('swiss[mode="raise"]', 2.0)}
    failing = rows[('swiss[mode="raise"]', 1.0)]
    assert (failing.recorded, failing.ok, failing.complete) == (5, 3, True)
    assert 0 < failing.success_rate < 1
    assert rows[('swiss[mode="slow"]', 2.0)].mean_seconds >= 0.05
    assert readout.time_axis()["method"].nunique() == 3
    assert readout.machine["hostname"]


def test_readout_refuses_two_machines(timed, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(timed["subset"].directory, copy)
    conn = sqlite3.connect(copy / "results" / "srbf.sqlite")
    with conn:  # the second method timed on another host, as a copy of the store from there would say
        conn.execute("UPDATE campaigns SET config = json_set(config, '$.timing.machine.hostname', 'elsewhere') "
                     "WHERE id = 2")
    conn.close()
    with pytest.raises(TimingError, match=r"refused: the fits were measured on 2 machines .*elsewhere"):
        read_timing(copy)


def test_timing_commands_and_their_one_line_errors(timed, tmp_path, capsys):
    def run(*args):
        code = main(list(args))
        out, err = capsys.readouterr()
        return code, out, err

    code, out, err = run("timing", "readout", "--subset", str(timed["subset"].directory))
    assert code == 0 and out.splitlines()[0].split()[:4] == ["method", "budget", "fits", "success"]
    assert "machine: " in out and "load average before" in out
    code, out, err = run("timing", "readout", "--subset", str(timed["subset"].directory), "--json")
    assert code == 0 and len(json.loads(out)["rows"]) == 5
    failures = [
        (("timing", "freeze", "-c", "no-such-config", "-o", str(tmp_path / "s")), "no-such-config"),
        (("timing", "run", "-c", str(timed["path"]), "--subset", str(tmp_path / "missing")), "no such directory"),
        (("timing", "readout", "--subset", str(tmp_path / "missing")), "no such directory"),
    ]
    empty = freeze_subset(timed["config"], tmp_path / "fresh", per_set=1)
    failures.append((("timing", "readout", "--subset", str(empty.directory)), "no timing run recorded yet"))
    tampered = tmp_path / "tampered"
    shutil.copytree(empty.directory, tampered)
    text = (tampered / "subset.json").read_text().replace('"seed": 0', '"seed": 1')
    (tampered / "subset.json").write_text(text)
    failures.append((("timing", "run", "-c", str(timed["path"]), "--subset", str(tampered)), "hash: the manifest was changed"))
    for args, message in failures:
        code, out, err = run(*args)
        assert code == 2 and message in err and len(err.strip().splitlines()) == 1, (args, err)
    assert not (tampered / "results").exists()  # refused before anything was recorded



def test_analyze_and_site_build_find_a_readout_in_results_timing(timed, tmp_path):
    """``srbf analyze`` and ``srbf site build`` take the time axis of --timing DIR, or of a subset
    frozen into <results>/timing once its run recorded fits (tests/report/test_timing_axis.py
    checks what the report and the site do with it)."""
    import argparse

    from srbf.cli.report import _timing

    main_results = tmp_path / "main"
    main_results.mkdir()
    assert _timing(argparse.Namespace(timing=None, results=str(main_results))) is None
    shutil.copytree(timed["subset"].directory, main_results / "timing", ignore=shutil.ignore_patterns("results"))
    assert _timing(argparse.Namespace(timing=None, results=str(main_results))) is None  # frozen, not yet run
    shutil.rmtree(main_results / "timing")
    shutil.copytree(timed["subset"].directory, main_results / "timing")
    found = _timing(argparse.Namespace(timing=None, results=str(main_results / "srbf.sqlite")))
    given = _timing(argparse.Namespace(timing=str(timed["subset"].directory), results=None))
    expected = read_timing(timed["subset"].directory).time_axis()
    for source in (found, given):
        pd.testing.assert_frame_equal(source.frame, expected)
        assert source.note.startswith("the time axis is the timing readout of ")
    assert set(expected["method"]) == {"linear", 'swiss[mode="slow"]', 'swiss[mode="raise"]'}
