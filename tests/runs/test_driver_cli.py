"""The run commands from the command line: run, status, check, export, new, and the user's errors."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from driver_helpers import REPO, campaigns, child_env, rows, srbf_command, swiss_config
from srbf.cli import main


def run_cli(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    "text, message",
    [
        ("experiment: quick\ncatalogs: [nguyen\nmethod: linear\n", "line 3, column"),
        ("experiment: quick\ncatalogs: [nguyenn]\nmethod: linear\n", "unknown catalog 'nguyenn'; did you mean 'nguyen'?"),
        ("experiment: quick\ncatalogs: [nguyen]\nmethod: linearr\n", "unknown built-in method 'linearr'; did you mean 'linear'?"),
        ("experiment: quick\ncatalogs: [nguyen]\nmethod: {name: mine, adapter: {type: file, path: nope.py}}\n",
         "no such method file"),
    ],
    ids=["malformed-yaml", "unknown-set", "unknown-method", "missing-method-file"],
)
def test_config_errors_are_one_line_and_exit_2(tmp_path, capsys, text, message):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    code, out, err = run_cli(capsys, "run", "-c", str(path), "--results", str(tmp_path / "r"))
    assert code == 2 and message in err and err.startswith("srbf: error: ") and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "r").exists()  # nothing was created
    code, out, err = run_cli(capsys, "check", "-c", str(path))
    assert code == 1 and "FAILED  load config" in out and message in out


@pytest.mark.slow
def test_run_status_export_and_a_sweep_filter(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = swiss_config(tmp_path, n=3, sweeps=[{"option": "mode", "values": ["ok", "raise"]}])
    code, out, err = run_cli(capsys, "status", "-c", str(path))
    assert code == 0 and "nothing recorded yet" in out and "0 of 6 fits stored" in out
    code, out, err = run_cli(capsys, "run", "-c", str(path), "--sweep-filter", "mode=raise", "--quiet")
    assert code == 0 and "3 of 3 fit(s) recorded" in out and "2 ok, 1 failed" in out, err
    code, out, err = run_cli(capsys, "status", "-c", str(path))
    assert code == 0 and "3 of 6 fits stored (50.0%), 3 pending" in out
    line = next(x for x in out.splitlines() if x.startswith("swiss[mode=\"raise\"]"))
    assert line.split()[1] == "(harness_tuned)"  # the label next to the name: the config does not say
    assert line.split()[4:] == ["3", "2", "1", "0", "0", "0", "0", "0"]  # planned ok failed timeout crashed memory_limit placeholder pending
    code, out, err = run_cli(capsys, "export", "--results", str(tmp_path / "results"), "-o", "all.parquet")
    assert code == 0 and "3 prediction(s)" in out
    frame = pd.read_parquet(tmp_path / "all.parquet")
    assert len(frame) == 3 and set(frame.status) == {"ok", "failed"}
    code, out, err = run_cli(capsys, "export", "--results", str(tmp_path / "results"), "-o", "f.csv", "--status", "failed")
    assert code == 0 and len(pd.read_csv(tmp_path / "f.csv")) == 1
    code, out, err = run_cli(capsys, "export", "--results", str(tmp_path / "results"), "-o", "x.json")
    assert code == 2 and ".parquet or .csv" in err
    code, out, err = run_cli(capsys, "export", "--results", str(tmp_path / "nowhere"), "-o", "x.csv")
    assert code == 2 and "no results store" in err


@pytest.mark.slow
def test_status_reads_while_a_run_writes(tmp_path, capsys):
    path = swiss_config(tmp_path, n=12, options={"mode": "slow", "seconds": 0.1})
    proc = subprocess.Popen(srbf_command("run", "-c", str(path), "--quiet"), cwd=REPO, env=child_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while len(rows(tmp_path / "results")) < 2:
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.02)
        code, out, err = run_cli(capsys, "status", "-c", str(path))
        assert code == 0, err
        done = int(out.strip().splitlines()[-1].split()[0])
        assert 2 <= done <= 12
    finally:
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0 and "12 of 12 fit(s) recorded" in out, err


@pytest.mark.slow
def test_check_names_the_broken_step_and_exits_1(tmp_path, capsys):
    good = swiss_config(tmp_path, n=2, name="good.yaml")
    code, out, err = run_cli(capsys, "check", "-c", str(good))
    assert code == 0, out
    for step in ("load config", "load catalog", "sample", "start worker", "fit", "parse", "evaluate", "score"):
        assert f"ok      {step}" in out
    assert "check passed" in out
    broken = swiss_config(tmp_path, n=2, options={"mode": "raise"}, name="broken.yaml")
    code, out, err = run_cli(capsys, "check", "-c", str(broken))
    assert code == 1 and "FAILED  fit" in out and "ValueError: boom" in out and "about to fail" in out
    assert "check failed at step 'fit'" in out and "ok      parse" not in out
    garbled = swiss_config(tmp_path, n=2, options={"mode": "unparseable"}, name="garbled.yaml")
    code, out, err = run_cli(capsys, "check", "-c", str(garbled))
    assert code == 1 and "FAILED  parse" in out and "x +* )(" in out
    starting = swiss_config(tmp_path, n=2, options={"setup": "raise"}, name="starting.yaml")
    code, out, err = run_cli(capsys, "check", "-c", str(starting))
    assert code == 1 and "FAILED  start worker" in out and "setup exploded" in out


@pytest.mark.slow
def test_new_writes_a_method_whose_test_and_run_pass(tmp_path, capsys):
    code, out, err = run_cli(capsys, "new", "my_method", "--dir", str(tmp_path / "m"), "--python", sys.executable)
    assert code == 0, err
    folder = tmp_path / "m"
    assert sorted(p.name for p in folder.iterdir()) == ["my_method.py", "my_method.yaml", "test_my_method.py"]
    assert f"python: {Path(sys.executable).absolute()}" in (folder / "my_method.yaml").read_text()
    code, out, err = run_cli(capsys, "new", "my_method", "--dir", str(folder))
    assert code == 2 and "already exist" in err
    code, out, err = run_cli(capsys, "new", "my-method!", "--dir", str(folder))
    assert code == 2 and "method name" in err
    # the generated test passes as written
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_my_method.py"],
                            cwd=folder, capture_output=True, text=True, timeout=120)  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 passed" in result.stdout
    # and so does a run of the generated config
    code, out, err = run_cli(capsys, "run", "-c", str(folder / "my_method.yaml"), "--quiet",
                             "--results", str(tmp_path / "r"))  # fmt: skip
    assert code == 0 and "12 of 12 fit(s) recorded" in out and "(12 ok," in out, out + err


def _make_read_only(paths):
    """chmod, or for root (who writes through permissions) the immutable flag; False if impossible."""
    if os.geteuid() != 0:
        for p in paths:
            p.chmod(0o555 if p.is_dir() else 0o444)
        return True
    if shutil.which("chattr") is None:
        return False
    return subprocess.run(["chattr", "+i", *map(str, paths)], capture_output=True).returncode == 0


def _make_writable(paths):
    if os.geteuid() == 0 and shutil.which("chattr"):
        subprocess.run(["chattr", "-i", *map(str, paths)], capture_output=True)
    for p in paths:
        p.chmod(0o755 if p.is_dir() else 0o644)


@pytest.mark.slow
def test_a_read_only_store_is_a_clear_error_and_nothing_is_written(tmp_path, capsys):
    path = swiss_config(tmp_path, n=2)
    results = tmp_path / "results"
    code, out, err = run_cli(capsys, "run", "-c", str(path), "--quiet")
    assert code == 0, err
    before_rows, before_campaigns = rows(results), campaigns(results)
    bigger = swiss_config(tmp_path, n=4, name="bigger.yaml")  # two more problems to run
    locked = [results / "srbf.sqlite", results]
    if not _make_read_only(locked):
        pytest.skip("cannot make a directory read-only here")
    try:
        code, out, err = run_cli(capsys, "run", "-c", str(bigger), "--quiet")
    finally:
        _make_writable(locked)
    assert code == 2, out + err
    assert "read-only" in err and str(results / "srbf.sqlite") in err and len(err.strip().splitlines()) == 1
    assert rows(results) == before_rows and campaigns(results) == before_campaigns


@pytest.mark.slow
def test_status_and_check_as_json(tmp_path, capsys, monkeypatch):
    import json

    monkeypatch.chdir(tmp_path)
    path = swiss_config(tmp_path, n=2, sweeps=[{"option": "mode", "values": ["ok", "raise"]}])
    code, out, err = run_cli(capsys, "run", "-c", str(path), "--sweep-filter", "mode=raise", "--json")
    summary = json.loads(out)
    assert code == 0 and (summary["recorded"], summary["statuses"], summary["planned"]) == (2, {"ok": 1, "failed": 1}, 2)
    code, out, err = run_cli(capsys, "status", "-c", str(path), "--json")
    assert code == 0, err
    status = json.loads(out)
    assert status["exists"] and status["results"].endswith("srbf.sqlite")
    raised = [r for r in status["rows"] if r["method"] == 'swiss[mode="raise"]']
    assert [(r["planned"], r["ok"], r["failed"], r["pending"]) for r in raised] == [(2, 1, 1, 0)]
    assert {r["provenance"] for r in status["rows"]} == {"harness_tuned"}
    assert sum(r["pending"] for r in status["rows"]) == 2  # the other variant: not run
    good = swiss_config(tmp_path, n=2, name="good.yaml")
    code, out, err = run_cli(capsys, "check", "-c", str(good), "--json")
    report = json.loads(out)
    assert code == 0 and report["ok"] and report["failed_step"] is None
    assert any("ok      score" in line for line in report["lines"])
    broken = swiss_config(tmp_path, n=2, options={"mode": "raise"}, name="broken.yaml")
    code, out, err = run_cli(capsys, "check", "-c", str(broken), "--json")
    report = json.loads(out)
    assert code == 1 and report["failed_step"] == "fit" and "boom" in report["error"]


def test_methods_new_writes_into_o_dir_and_new_is_its_alias(tmp_path, capsys):
    code, out, err = run_cli(capsys, "methods", "new", "alpha", "-o", str(tmp_path / "a"))
    assert code == 0, err
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["alpha.py", "alpha.yaml", "test_alpha.py"]
    assert "from srbf.cli.check import run_check" in (tmp_path / "a" / "test_alpha.py").read_text()
    code, out, err = run_cli(capsys, "new", "alpha", "--dir", str(tmp_path / "b"))
    assert code == 0 and (tmp_path / "b" / "alpha.py").read_text() == (tmp_path / "a" / "alpha.py").read_text()
