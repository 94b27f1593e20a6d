"""``srbf decontamination``: copies are caught, unreadable entries fail closed, bad input is one line."""

from __future__ import annotations

import json

import pytest
import yaml

from srbf.cli import main

# Five Feynman formulas with other variable names, other constants and other orders of terms.
REWRITTEN = {
    "I.6.2": "exp(-(b / a)**2 / 3.7) / (sqrt(5.1 * pi) * a)",
    "I.9.18": "k * p * q / ((b3 - a3)**2 + (b1 - a1)**2 + (a2 - b2)**2)",
    "I.15.3x": "(s - 2.5 * w * tau) / sqrt(3 - w**2 / v**2)",
    "II.11.3": "alpha * beta / (gamma * (nu**2 - mu**2))",
    "III.10.19": "1.7 * M * sqrt(p**2 + r**2 + q**2)",
}


def catalog_file(tmp_path, formulas, name="training.yaml"):
    path = tmp_path / name
    problems = [{"id": f"t{i}", "formula": formula} for i, formula in enumerate(formulas)]
    path.write_text(yaml.safe_dump({"srbf_catalog": 1, "name": "training", "version": 1, "problems": problems}))
    return path


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.slow
def test_five_rewritten_feynman_formulas_are_exactly_the_missed(tmp_path, capsys):
    training = catalog_file(tmp_path, list(REWRITTEN.values()) + ["sin(x) * cos(y) * tan(z) * tanh(w)"])
    report = tmp_path / "report.json"
    code, out, _ = run(capsys, "decontamination", "-t", str(training), "-b", "feynman", "-o", str(report))
    assert code == 1
    feynman = json.loads(report.read_text())["sets"]["feynman"]
    assert sorted(feynman["missed"]) == sorted(REWRITTEN)
    assert feynman["total"] == 100 and feynman["held_out"] == 95 and feynman["unverifiable"] == []
    assert "feynman: 100 problems, 95 held out, 5 missed, 0 unverifiable" in out
    assert "FAIL" in out


def test_a_clean_training_catalog_passes(tmp_path, capsys):
    training = catalog_file(tmp_path, ["sin(x) * cos(y) * tan(z) * tanh(w)", "exp(exp(exp(a)))"])
    code, out, _ = run(capsys, "decontamination", "-t", str(training), "-b", "nguyen", "koza")
    assert code == 0, out
    assert "nguyen: 12 problems, 12 held out, 0 missed, 0 unverifiable" in out and "PASS" in out


def test_an_unparsable_entry_makes_the_problems_unverifiable(tmp_path, capsys):
    training = catalog_file(tmp_path, ["tanh(x) * tanh(y) * tanh(z)", "sin(x +* y)"])
    report = tmp_path / "report.json"
    code, out, _ = run(capsys, "decontamination", "-t", str(training), "-b", "nguyen", "-o", str(report))
    assert code == 1
    nguyen = json.loads(report.read_text())["sets"]["nguyen"]
    assert nguyen["held_out"] == 0 and len(nguyen["unverifiable"]) == 12
    assert "problem 't1'" in nguyen["unverifiable"][0]["reason"] and "does not parse" in nguyen["unverifiable"][0]["reason"]


def test_an_entry_without_a_formula_is_unreadable(tmp_path, capsys):
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"problems": [{"id": "a", "formula": "x"}, {"id": "b"}, "text"]}))
    code, out, _ = run(capsys, "decontamination", "-t", str(path), "-b", "koza")
    assert code == 1 and "2 unreadable" in out and "koza: 2 problems, 0 held out" in out


def test_a_shipped_set_as_training_misses_itself(capsys):
    code, out, _ = run(capsys, "decontamination", "-t", "nguyen", "-b", "nguyen")
    assert code == 1 and "nguyen: 12 problems, 0 held out, 12 missed" in out
    code, out, _ = run(capsys, "decontamination", "-t", "nguyen", "-b", "nguyen", "--json")
    report = json.loads(out)
    assert code == 1 and not report["passed"] and len(report["sets"]["nguyen"]["missed"]) == 12


def test_a_generator_holds_out_what_its_list_names(tmp_path, capsys):
    path = tmp_path / "generator.yaml"
    path.write_text(yaml.safe_dump({"generator": "a test prior", "holdout_catalogs": ["koza"],
                                    "holdout": ["sin(a) + sin(a**2 + a)"]}))  # Nguyen-6, renamed
    code, out, _ = run(capsys, "decontamination", "-t", str(path), "-b", "koza")
    assert code == 0 and "koza: 2 problems, 2 held out" in out
    report = tmp_path / "r.json"
    code, out, _ = run(capsys, "decontamination", "-t", str(path), "-b", "nguyen", "-o", str(report))
    nguyen = json.loads(report.read_text())["sets"]["nguyen"]
    assert code == 1 and nguyen["held_out"] >= 1 and "Nguyen-6" not in nguyen["missed"]
    assert len(nguyen["missed"]) == 12 - nguyen["held_out"]


@pytest.mark.parametrize("argv, message", [
    (["-t", "nguyen", "-b", "feynmann"], "unknown catalog 'feynmann'; did you mean 'feynman'?"),
    (["-t", "missing.yaml", "-b", "koza"], "missing.yaml: no such training file"),
    (["-t", "nguyenn", "-b", "koza"], "unknown catalog 'nguyenn'"),
])
def test_bad_input_is_one_line(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "decontamination", *argv)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("text, message", [
    ("problems: [a\n", "not valid YAML (line 2"),
    ("- x\n- y\n", "expected a catalog (problems:) or a generator description (generator:), got list"),
    ("name: t\n", "problems: expected a list of formulas"),
    ("generator: g\nholdout: []\n", "a generator description needs a holdout list"),
    ("generator: g\nholdout: [x]\nseed: 3\n", "seed: unknown field of a generator description"),
])
def test_an_unusable_training_file_is_one_line(text, message, tmp_path, capsys):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    code, _, err = run(capsys, "decontamination", "-t", str(path), "-b", "koza")
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1
