"""One rule for the store a command reads, on every command that reads one; ``--configs`` on every reading."""

from __future__ import annotations

import pytest

from srbf.cli import UserError, build_parser
from srbf.cli.store_args import results_root
from srbf.core import DEFAULT_RESULTS

READERS = [  # every command that reads (or writes) a store, with its other required arguments
    ["status"], ["runs"], ["forget", "m"], ["export", "-o", "x.csv"], ["score"], ["analyze"], ["compare", "a", "b"],
    ["ranks"], ["site", "build"], ["arena", "score"], ["distill", "--size", "3"], ["distill", "probes"],
    ["distill", "validate", "--core", "c.yaml"],
]  # fmt: skip
READINGS = [argv for argv in READERS if argv[0] not in ("status", "runs", "forget", "score")]


@pytest.mark.parametrize("argv", READERS, ids=" ".join)
def test_every_command_that_reads_a_store_finds_it_by_one_rule(argv, tmp_path):
    config = tmp_path / "my.yaml"
    config.write_text("experiment: e\nresults: ./mine\n")
    parse = build_parser().parse_args
    assert results_root(parse(argv)) == DEFAULT_RESULTS
    assert results_root(parse([*argv, "-c", str(config)])) == "./mine"
    flag = "--records" if argv[0] == "distill" else "--results"
    assert results_root(parse([*argv, "-c", str(config), flag, "other"])) == "other"  # --results wins


@pytest.mark.parametrize("argv", READINGS, ids=" ".join)
def test_every_reading_takes_configs(argv):
    args = build_parser().parse_args([*argv, "--configs", "a1b2c3d4", "ffee0011"])
    assert args.configs == ["a1b2c3d4", "ffee0011"]
    assert build_parser().parse_args(argv).configs == ["latest"]


def test_a_config_without_results_names_the_default_and_a_bad_one_is_one_line(tmp_path):
    parse = build_parser().parse_args
    plain = tmp_path / "plain.yaml"
    plain.write_text("experiment: e\n")
    assert results_root(parse(["runs", "-c", str(plain)])) == DEFAULT_RESULTS
    bad = tmp_path / "bad.yaml"
    bad.write_text("results: [1, 2]\n")
    with pytest.raises(UserError, match=r"bad.yaml: results: must be a directory name, got \[1, 2\]"):
        results_root(parse(["runs", "-c", str(bad)]))
    assert results_root(parse(["analyze", "-c", "quickstart"])) == "./srbf-results"  # a shipped config, by name
