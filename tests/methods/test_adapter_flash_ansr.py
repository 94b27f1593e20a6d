"""The Flash-ANSR adapter: its conversion checked on candidates recorded from flash-ansr 0.19.1 with
srbf's tiny model (no flash-ansr needed; that srbf's reading gives the package's own predictions is
checked for every recorded case in test_method_folders.py), its model-directory option and budget,
and, when the method's environment exists (``srbf methods install flash_ansr``), a tiny model
trained here with the package's own trainer and run through the Worker."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest

from recorded.adapter_checks import adapter, cases, method_python, recording, worker_fits

NAME = "flash_ansr"
flash = adapter(NAME)
CASES = cases(NAME)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_conversion_is_what_the_adapter_recorded(case):
    assert flash.to_infix(case["raw"], case["variables"]) == case["expression"]
    assert recording(NAME)["version"] == "0.19.1"


def test_conversion_spells_every_operator_and_leaf():
    v = ["u", "v_2"]
    tokens = ["+", "*", "-1.5", "sin", "x1", "/", "pow", "x2", "2.0", "-", "exp", "neg", "x1", "inv", "log", "np.pi"]
    assert flash.to_infix(tokens, v) == \
        "(((-1.5)*sin(u)) + ((v_2**2.0)/(exp((-u)) - (1/log(" + repr(math.pi) + ")))))"
    assert flash.to_infix(["*", "np.e", "(-1)"], v) == f"({math.e!r}*(-1.0))"
    assert flash.to_infix(["x2"], v) == "v_2"


def test_a_column_past_the_problems_is_the_zero_the_package_pads_with():
    tokens = ["+", "x1", "*", "x3", "x2"]
    assert flash.to_infix(tokens, ["u", "v"]) == "(u + (0.0*v))"
    assert flash.padded_columns(tokens, ["u", "v"]) == 1 and flash.padded_columns(tokens, ["u", "v", "w"]) == 0


def test_a_malformed_candidate_is_a_clear_error():
    with pytest.raises(ValueError, match="no srbf spelling for token 'erf'"):
        flash.to_infix(["erf", "x1"], ["u"])
    with pytest.raises(ValueError, match="no srbf spelling for token 'rootn'"):  # signed odd roots: none in srbf
        flash.to_infix(["rootn", "x1", "3"], ["u"])
    with pytest.raises(ValueError, match="malformed program"):
        flash.to_infix(["+", "x1"], ["u"])


def test_the_model_option_must_name_a_model_directory(tmp_path):
    with pytest.raises(flash.ModelDirectoryError, match="options.model is required"):
        flash.model_directory({})
    with pytest.raises(flash.ModelDirectoryError, match="must be a directory path, got 3"):
        flash.model_directory({"model": 3})
    with pytest.raises(flash.ModelDirectoryError, match=f"{tmp_path / 'absent'} is not a directory"):
        flash.model_directory({"model": str(tmp_path / "absent")})
    (tmp_path / "model.yaml").write_text("encoder_dim: 8\n")
    with pytest.raises(flash.ModelDirectoryError, match="not a Flash-ANSR model directory .no tokenizer.yaml, model.safetensors"):
        flash.model_directory({"model": str(tmp_path)})
    for name in ("tokenizer.yaml", "model.safetensors"):
        (tmp_path / name).write_text("")
    assert flash.model_directory({"model": str(tmp_path)}) == str(tmp_path)


def test_budget_is_draws():
    assert flash.draws(None) == 1024 and flash.draws(16) == 16
    with pytest.raises(ValueError, match="positive integer"):
        flash.draws(2.5)


# --- the real package: train a tiny model here, then fit through the Worker -----------------------

PYTHON = method_python(NAME)
needs_env = pytest.mark.skipif(PYTHON is None, reason="no Flash-ANSR environment (srbf methods install "
                               "flash_ansr: Python >= 3.12 and about 5.6 GB)")  # fmt: skip


TRAINED = os.environ.get("SRBF_FLASH_MODEL")  # a model benchmarks/flash_ansr_tiny.py trained (1500 steps)
OPTIONS = {"emission": "constants"}  # srbf's tiny models have no masking block (docs/methods.md)


def toy_fits(model: str):
    rng = np.random.default_rng(0)
    X = rng.uniform(-2, 2, (48, 2))
    y = X[:, 0] ** 2 + X[:, 1]
    return worker_fits(NAME, PYTHON, [(X, y, ("u", "v"), 16, 0), (X, y, ("u", "v"), 16, 0)],
                       options={**OPTIONS, "model": model})  # fmt: skip


@needs_env
def test_the_packages_trainer_makes_a_model_the_adapter_loads_and_samples_from(tmp_path):
    """A few steps of the package's own training on srbf's formulas, saved, loaded by the worker,
    sampled from, refined and ranked: a model this young rarely writes a valid formula, so a fit
    may end without a candidate, which the adapter reports as a failed fit, never as a crash."""
    from srbf.methods.flash_training import catalog_skeletons, train, write_training_set

    folder = write_training_set(tmp_path, catalog_skeletons(["nguyen", "keijzer"]))
    report = train(folder, PYTHON, steps=5)
    assert report["steps"] == 5 and report["parameters"] > 10_000
    assert {"model.yaml", "tokenizer.yaml", "model.safetensors", "engine.yaml"} <= set(report["files"])
    for result in toy_fits(report["model"]):
        assert result.status == "ok" or (result.status == "failed" and "none of 16 draws could be fitted"
                                         in result.error), result.error  # fmt: skip


@needs_env
@pytest.mark.skipif(not TRAINED, reason="set SRBF_FLASH_MODEL to a model trained by benchmarks/flash_ansr_tiny.py")
def test_a_trained_tiny_model_fits_through_the_worker():
    from srbf.expr import parse

    first, again = toy_fits(TRAINED)
    for result in (first, again):
        assert result.status == "ok", result.error
    parse(first.expression, ["u", "v"])  # srbf reads what it returns
    assert first.expression == again.expression  # the seed fixes draw and refinement
    assert first.internals["draws"] == 16 and first.internals["front"]
