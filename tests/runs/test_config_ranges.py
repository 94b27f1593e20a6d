"""Every numeric config field has a Range (runs/config_limits.py), and every value outside it is
refused in one line that names the file and the field, before anything starts.

The fields and their bad values are found from the schema itself (each numeric field type carries
its Range), not listed by hand: a numeric field added without a Range fails
``test_every_numeric_field_has_a_range``, and one with a Range is checked by the rest at once."""

from __future__ import annotations

import dataclasses
import math
import os
import typing
from pathlib import Path

import pytest

from srbf.cli import main
from srbf.methods.boundary import Limits
from srbf.runs.config import ConfigError, MethodConfig, RunConfig, SamplingConfig, config_from_dict
from srbf.runs.config_fields import LIMITS_RANGES
from srbf.runs.config_limits import MAX_SEED, WORKER_MEMORY, WORKERS_PER_CORE, Range, max_workers

MODELS = ((RunConfig, ()), (SamplingConfig, ("sampling",)), (MethodConfig, ("method",)))


def ranges_in(annotation) -> list[Range]:
    """The Range objects in ``annotation``'s Annotated metadata, through unions and Optional."""
    found = [m for m in getattr(annotation, "__metadata__", ()) if isinstance(m, Range)]
    for arg in typing.get_args(annotation):
        found += ranges_in(arg)
    return found


def numeric_types(annotation) -> bool:
    if annotation in (int, float):
        return True
    return any(numeric_types(arg) for arg in typing.get_args(annotation))


def is_numeric(info) -> bool:
    """Does a pydantic field hold numbers (by its type, or by its default)?"""
    default = info.get_default(call_default_factory=True)
    values = default if isinstance(default, tuple) else (default,)
    by_default = bool(values) and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
    return by_default or numeric_types(info.annotation)


def numeric_fields() -> list[tuple[tuple[str, ...], Range]]:
    """(key path, Range) of every numeric field of a config, the method's limits included."""
    fields = []
    for model, prefix in MODELS:
        for name, info in model.model_fields.items():
            found = [m for m in info.metadata if isinstance(m, Range)] + ranges_in(info.annotation)
            if found:
                fields.append((prefix + (name,), found[0]))
    fields += [(("method", "limits", f.name), LIMITS_RANGES[f.name]) for f in dataclasses.fields(Limits)]
    return fields


FIELDS = numeric_fields()
IDS = [".".join(path) for path, _ in FIELDS]


def with_value(path: tuple[str, ...], value) -> dict:
    data = {"experiment": "q", "catalogs": "nguyen", "method": {"name": "linear"}, "limit": 1}
    place = data
    for part in path[:-1]:
        place = place.setdefault(part, {})
    place[path[-1]] = value
    return data


def bad_values(bounds: Range) -> list:
    """Below the low end, above the high end, NaN, infinity, negative, text and a boolean."""
    upper = bounds.upper
    above = int(upper) + 1 if bounds.integer else upper * 2
    below = (bounds.low - 1 if bounds.integer else bounds.low - 0.5) if not bounds.open_low else bounds.low
    return sorted({below, -1, above}, key=repr) + [math.nan, math.inf, -math.inf, "many", True]


def test_every_numeric_field_has_a_range():
    missing = [f"{'.'.join(prefix + (name,))}" for model, prefix in MODELS for name, info in model.model_fields.items()
               if is_numeric(info) and not ([m for m in info.metadata if isinstance(m, Range)]
                                            or ranges_in(info.annotation))]
    assert not missing, f"numeric config fields without a Range (config_limits): {missing}"
    assert {f.name for f in dataclasses.fields(Limits)} == set(LIMITS_RANGES)
    assert {"seed", "workers", "limit", "repeats", "checkpoints", "budgets", "sampling.draws", "sampling.noise",
            "sampling.n_support", "sampling.n_validation", "method.time_limit"} <= set(IDS)


@pytest.mark.parametrize("path, bounds", FIELDS, ids=IDS)
def test_values_out_of_range_are_refused_in_one_line(path, bounds):
    for value in bad_values(bounds):
        with pytest.raises(ConfigError) as caught:
            config_from_dict(with_value(path, value), "q.yaml")
        lines = str(caught.value).splitlines()
        assert len(lines) == 1, (value, lines)
        assert lines[0].startswith(f"q.yaml: {'.'.join(path)}: must be "), (value, lines[0])


@pytest.mark.parametrize("path, bounds", FIELDS, ids=IDS)
def test_both_ends_of_a_range_are_accepted(path, bounds):
    low = bounds.low if not bounds.open_low else bounds.low + 0.25
    for value in (low, bounds.upper):
        value = int(value) if bounds.integer else value
        config = config_from_dict(with_value(path, value), "q.yaml")
        assert config is not None


def test_a_seed_of_2_to_the_70_is_refused_and_the_largest_accepted():
    with pytest.raises(ConfigError) as caught:
        config_from_dict(with_value(("seed",), 2**70), "q.yaml")
    assert str(caught.value) == f"q.yaml: seed: must be at most {MAX_SEED:,} (the limit), got {2**70!r}"
    assert config_from_dict(with_value(("seed",), 2**63 - 1), "q.yaml").seed == 2**63 - 1


def test_the_workers_limit_is_the_machine_s():
    memory = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    assert max_workers() == max(1, min(WORKERS_PER_CORE * os.cpu_count(), memory // WORKER_MEMORY))


def config_file(tmp_path: Path, extra: str) -> Path:
    path = tmp_path / "c.yaml"
    path.write_text(f"experiment: q\ncatalogs: [nguyen]\nlimit: 1\nmethod: linear\nbudgets: [1]\n"
                    f"results: {tmp_path / 'results'}\n{extra}", encoding="utf-8")
    return path


@pytest.mark.parametrize("extra, args, where", [
    ("workers: 1000000\n", [], "workers: must be at most"),
    ("", ["--workers", "1000000"], "--workers: must be at most"),
    ("seed: 1180591620717411303424\n", [], "seed: must be at most"),
    ("sampling: {noise: .nan}\n", [], "sampling.noise: must be a number >= 0, got nan"),
    ("method: {name: linear, time_limit: -1}\n", [], "method.time_limit: must be a positive number, got -1"),
], ids=["workers", "--workers", "seed", "noise-nan", "time_limit-negative"])
def test_the_command_refuses_before_any_process_starts(tmp_path, capsys, extra, args, where):
    path = config_file(tmp_path, extra)
    if extra.startswith("method:"):
        path.write_text(path.read_text().replace("method: linear\n", ""), encoding="utf-8")
    children = Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children")
    before = set(os.listdir("/proc/self/task")), children.read_text()
    assert main(["run", "-c", str(path), *args]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and where in err, err
    assert not (tmp_path / "results").exists()  # refused before the store, a worker or a slot existed
    assert (set(os.listdir("/proc/self/task")), children.read_text()) == before  # no thread, no process


@pytest.mark.parametrize("command", [["sample", "nguyen", "Nguyen-1", "-o", "x.npz"], ["arena", "score"],
                                     ["distill", "validate", "--core", "c.yaml", "--records", "r"]], ids=["sample", "arena", "distill"])
@pytest.mark.parametrize("seed", ["-5", str(2**70), "x"])
def test_every_seed_flag_takes_the_run_seed_s_range(capsys, command, seed):
    with pytest.raises(SystemExit) as caught:
        main([*command, "--seed", seed])
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert "argument --seed: must be" in err and "Traceback" not in err, err
