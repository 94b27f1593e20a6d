"""The ``srbf`` command on the shipped data: listings, show, validate, import, sample, bad input."""

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from srbf.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_list_json_counts(capsys):
    code, out, _ = run(capsys, "catalogs", "list", "--json")
    assert code == 0
    listing = json.loads(out)
    assert listing["sets"] == 29
    assert listing["formulas"] == 6660
    by_name = {c["name"]: c for c in listing["catalogs"]}
    assert by_name["erbench-syneq"]["problems"] == 5301
    assert by_name["feynman"]["problems"] == 100


def test_list_table(capsys):
    code, out, _ = run(capsys, "catalogs", "list")
    assert code == 0
    assert "feynman" in out and "29 sets, 6660 formulas" in out


def test_show_problem(capsys):
    code, out, _ = run(capsys, "catalogs", "show", "feynman", "I.6.2a", "--json")
    assert code == 0
    entry = json.loads(out)
    assert entry["id"] == "I.6.2a"
    assert [v["name"] for v in entry["variables"]] == ["theta"]
    code, out, _ = run(capsys, "catalogs", "show", "nguyen")
    assert code == 0 and "Nguyen-1" in out


def test_unknown_catalog_and_problem_are_one_line_errors(capsys):
    code, _, err = run(capsys, "catalogs", "show", "feynmann")
    assert code == 2 and "unknown catalog 'feynmann'" in err and "feynman" in err
    assert "Traceback" not in err
    code, _, err = run(capsys, "catalogs", "show", "feynman", "I.6.2z")
    assert code == 2 and "I.6.2z" in err


def test_validate_shipped_and_broken(capsys, tmp_path):
    code, out, _ = run(capsys, "catalogs", "validate", "nguyen", "feynman")
    assert code == 0 and "all admitted" in out
    broken = tmp_path / "broken.yaml"
    broken.write_text(textwrap.dedent("""\
        srbf_catalog: 1
        name: broken
        version: 1
        problems:
          - id: p1
            formula: x + foo(y)
            variables:
              - {name: x, range: [0, 1]}
              - {name: y, range: [0, 1]}
        """))
    code, out, err = run(capsys, "catalogs", "validate", str(broken))
    assert code == 1
    assert "p1" in out + err and "foo" in out + err


def test_sample_writes_npz(capsys, tmp_path):
    out_file = tmp_path / "p.npz"
    code, out, _ = run(capsys, "sample", "feynman", "I.6.2", "--seed", "3", "--noise", "0.1", "--ood", "-o", str(out_file))
    assert code == 0, out
    data = np.load(out_file, allow_pickle=False)
    assert data["X_support"].shape == (512, 2) and data["y_support"].shape == (512,)
    assert data["X_validation"].shape == (512, 2) and data["X_ood"].shape[1] == 2
    again = tmp_path / "q.npz"
    run(capsys, "sample", "feynman", "I.6.2", "--seed", "3", "--noise", "0.1", "--ood", "-o", str(again))
    assert np.array_equal(np.load(again)["X_support"], data["X_support"])


def test_sample_bad_arguments(capsys, tmp_path):
    with pytest.raises(SystemExit) as info:
        main(["sample", "feynman", "I.6.2", "--n-support", "0", "-o", str(tmp_path / "x.npz")])
    assert info.value.code == 2
    code, _, err = run(capsys, "sample", "nosuchset", "x", "-o", str(tmp_path / "x.npz"))
    assert code == 2 and "unknown catalog" in err


@pytest.mark.slow
def test_help_everywhere():
    for argv in (["--help"], ["catalogs", "--help"], ["catalogs", "list", "--help"], ["sample", "--help"]):
        result = subprocess.run([sys.executable, "-m", "srbf.cli", *argv], capture_output=True, text=True)
        assert result.returncode == 0 and "usage:" in result.stdout


def test_judge_command(capsys, tmp_path):
    data = tmp_path / "p.npz"
    assert main(["sample", "feynman", "I.6.2a", "-o", str(data)]) == 0
    capsys.readouterr()
    truth = "exp(-theta**2 / 2) / sqrt(2 * pi)"
    code, out, _ = run(capsys, "judge", "--truth", truth, "--prediction", "exp(-0.5*theta*theta)*0.3989422804014327", "--data", str(data), "--json")
    assert code == 0
    metrics = json.loads(out)
    assert metrics["success"] == 1 and metrics["nrr_validation"] == 1 and metrics["srr_raw"] == 0
    # an unparsable prediction is a scored failure, not an input error
    code, out, _ = run(capsys, "judge", "--truth", truth, "--prediction", "sin(", "--data", str(data), "--json")
    assert code == 0 and json.loads(out)["success"] == 0
    # an unparsable truth or a missing file is an input error: exit 2, one line
    code, _, err = run(capsys, "judge", "--truth", "theta +", "--prediction", "theta", "--data", str(data))
    assert code == 2 and err.count("\n") == 1
    code, _, err = run(capsys, "judge", "--truth", truth, "--prediction", "theta", "--data", str(tmp_path / "none.npz"))
    assert code == 2 and "none.npz" in err


def test_python_dash_m_srbf_is_the_srbf_command():
    import subprocess
    import sys

    run = subprocess.run([sys.executable, "-m", "srbf", "--version"], capture_output=True, text=True)
    assert run.returncode == 0 and run.stdout.startswith("srbf ")


def test_catalogs_check_json_and_the_validate_alias(capsys, tmp_path):
    code, out, _ = run(capsys, "catalogs", "check", "nguyen", "--json")
    report = json.loads(out)
    assert code == 0 and report["ok"] and report["catalogs"] == 1 and report["formulas"] == 12
    assert report["reports"][0]["catalog"] == "nguyen"
    broken = tmp_path / "broken.yaml"
    broken.write_text("srbf_catalog: 1\nname: broken\nversion: 1\nproblems:\n  - id: p1\n    formula: x + foo(x)\n"
                      "    variables:\n      - {name: x, range: [0, 1]}\n")
    code, out, _ = run(capsys, "catalogs", "validate", str(broken), "--json")
    report = json.loads(out)
    assert code == 1 and not report["ok"]
    [entry] = report["reports"][0]["entries"]
    assert entry["id"] == "p1" and entry["status"] == "rejected" and "foo" in " ".join(entry["reasons"])
