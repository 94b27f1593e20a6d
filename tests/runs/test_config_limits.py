"""Config limits (runs/config_limits.py): nesting depth, YAML aliases, values, sweep grid, draws,
points and NUL bytes. Each refusal is one line naming the file, the key and the limit, and comes
before the config can cost time or memory."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from srbf.cli import main
from srbf.runs.config import ConfigError, config_from_dict, load_config
from srbf.runs.config_limits import MAX_ALIASES, MAX_DEPTH, MAX_DRAWS, MAX_POINTS, MAX_VALUES, MAX_VARIANTS

HEAD = "experiment: q\ncatalogs: [nguyen]\nlimit: 1\n"
BASE = {"experiment": "q", "catalogs": "nguyen", "method": "linear", "limit": 1}


def refusal(path: Path, **options) -> str:
    """The one line of the ConfigError that loading ``path`` raises."""
    with pytest.raises(ConfigError) as caught:
        load_config(path, **options)
    lines = str(caught.value).splitlines()
    assert len(lines) == 1, lines
    return lines[0]


def write(tmp_path: Path, text: str, name: str = "c.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def nested(depth: int, opening: str = "[", closing: str = "]") -> str:
    return opening * depth + "1" + closing * depth


# --- nesting ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("opening, closing", [("[", "]"), ("{a: ", "}")], ids=["lists", "mappings"])
def test_options_nested_5000_deep_are_refused(tmp_path, opening, closing):
    path = write(tmp_path, HEAD + f"method:\n  name: linear\n  options: {{x: {nested(5000, opening, closing)}}}\n")
    line = refusal(path)
    assert line.startswith(f"{path}: method.options.x")
    assert line.endswith(f"nested deeper than {MAX_DEPTH} levels, the limit (line 6)")


def test_depth_limit_is_counted_from_the_top_of_the_file(tmp_path):
    inner = MAX_DEPTH - 3  # method . options . x . then the lists
    ok = write(tmp_path, HEAD + f"method:\n  name: linear\n  options: {{x: {nested(inner)}}}\n", "ok.yaml")
    assert load_config(ok).methods[0].options["x"] is not None
    deep = write(tmp_path, HEAD + f"method:\n  name: linear\n  options: {{x: {nested(inner + 1)}}}\n", "deep.yaml")
    assert f"deeper than {MAX_DEPTH} levels" in refusal(deep)


def test_deep_data_given_as_a_dict_is_refused_without_recursion():
    value = 1
    for _ in range(5000):
        value = [value]
    with pytest.raises(ConfigError) as caught:
        config_from_dict({**BASE, "method": {"name": "linear", "options": {"x": value}}}, "q.yaml")
    (line,) = str(caught.value).splitlines()
    assert line.startswith("q.yaml: method.options.x[0][0]") and f"deeper than {MAX_DEPTH} levels" in line


# --- aliases and expanded size ----------------------------------------------------------------------


def bomb(levels: int, width: int) -> str:
    """The billion laughs: each level lists the one before ``width`` times."""
    lines = [f"    l0: &l0 [{', '.join(['lol'] * width)}]"]
    lines += [f"    l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * width)}]" for i in range(1, levels + 1)]
    return HEAD + "method:\n  name: linear\n  options:\n" + "\n".join(lines) + "\n"


def test_the_alias_bomb_is_refused_in_under_a_second(tmp_path):
    path = write(tmp_path, bomb(9, 9))  # 9**10 values once expanded; 81 aliases
    started = time.perf_counter()
    line = refusal(path)
    elapsed = time.perf_counter() - started
    assert elapsed < 1.0, elapsed
    assert line.startswith(f"{path}: method.options.l6") and f"more than {MAX_ALIASES} alias uses" in line


def test_a_bomb_within_the_alias_count_is_refused_by_its_expanded_size(tmp_path):
    path = write(tmp_path, bomb(15, 3))  # 45 aliases, 3**16 values once expanded
    started = time.perf_counter()
    line = refusal(path)
    assert time.perf_counter() - started < 1.0
    assert line.startswith(f"{path}: method.options.l") and f"more than {MAX_VALUES:,} values" in line


def test_aliases_up_to_the_limit_share_a_block(tmp_path):
    text = HEAD + "methods:\n  - &first {name: linear, time_limit: 30, config_provenance: upstream_default}\n"
    copy = "  - {{<<: *first, name: copy{}, adapter: {{type: builtin, name: linear}}}}\n"
    config = load_config(write(tmp_path, text + "".join(copy.format(i) for i in range(MAX_ALIASES))))
    assert len(config.methods) == MAX_ALIASES + 1
    assert {(m.time_limit, m.config_provenance) for m in config.methods} == {(30.0, "upstream_default")}
    line = refusal(write(tmp_path, text + "".join(copy.format(i) for i in range(MAX_ALIASES + 1)), "over.yaml"))
    assert line.startswith(f"{tmp_path / 'over.yaml'}: methods[{MAX_ALIASES + 1}]")
    assert line.endswith(f"more than {MAX_ALIASES} alias uses (*name), the limit (line {MAX_ALIASES + 6})")  # 4 lines, then the anchor


# --- NUL bytes --------------------------------------------------------------------------------------


@pytest.mark.parametrize("method, where", [
    ('{name: linear, env: {X: "a\\0b"}}', "method.env.X"),
    ('{name: linear, options: {mode: ["ok", "x\\0"]}}', "method.options.mode[1]"),
    ('{name: linear, budget_knob: "iterations\\0"}', "method.budget_knob"),
])
def test_a_nul_byte_is_refused_where_it_stands(tmp_path, method, where):
    path = write(tmp_path, HEAD + f"method: {method}\n")
    assert refusal(path).startswith(f"{path}: {where}: holds a NUL byte")


def test_a_nul_byte_in_a_key_is_refused():
    with pytest.raises(ConfigError, match=r"q.yaml: method.env: the key 'X\\x00' holds a NUL byte"):
        config_from_dict({**BASE, "method": {"name": "linear", "env": {"X\0": "1"}}}, "q.yaml")


# --- the sweep grid ---------------------------------------------------------------------------------


def sweeps(*lengths: int) -> list[dict]:
    return [{"option": f"o{i}", "values": list(range(n))} for i, n in enumerate(lengths)]


def test_a_grid_of_ten_million_variants_is_refused_fast(tmp_path):
    text = HEAD + "method: prior\nsweeps:\n" + "".join(
        f"  - {{option: o{i}, values: [{', '.join(map(str, range(10)))}]}}\n" for i in range(7))
    path = write(tmp_path, text)
    started = time.perf_counter()
    line = refusal(path)
    assert time.perf_counter() - started < 1.0
    assert line == (f"{path}: sweeps: the sweeps make 10,000,000 method configurations; the limit is "
                    f"{MAX_VARIANTS:,} (--allow-large lifts it)")


def test_the_grid_limit_counts_every_method_and_allow_large_lifts_it():
    at_limit = {**BASE, "method": {"name": "prior", "sweeps": sweeps(100, 100)}}
    assert config_from_dict(at_limit).methods[0].sweeps  # 10,000: allowed (not expanded here)
    methods = [{"name": "prior", "sweeps": sweeps(60, 100)}, {"name": "enumeration", "sweeps": sweeps(50, 100)}]
    two = {"experiment": "q", "catalogs": "nguyen", "methods": methods}
    with pytest.raises(ConfigError) as caught:
        config_from_dict(two, "q.yaml")
    assert str(caught.value) == ("q.yaml: methods[0].sweeps: the sweeps make 11,000 method configurations; the "
                                 f"limit is {MAX_VARIANTS:,} (--allow-large lifts it)")
    assert len(config_from_dict(two, allow_large=True).methods) == 2


@pytest.mark.slow
def test_run_check_and_status_refuse_a_large_grid_and_take_allow_large(tmp_path, capsys):
    path = write(tmp_path, HEAD + "method:\n  name: prior\n  sweeps:\n"
                 "    - {option: a, values: [" + ", ".join(map(str, range(101))) + "]}\n"
                 "    - {option: b, values: [" + ", ".join(map(str, range(100))) + "]}\n"
                 f"budgets: [1]\nsampling: {{draws: 1}}\nresults: {tmp_path / 'results'}\n")
    assert main(["run", "-c", str(path)]) == 2
    err = capsys.readouterr().err
    assert err == f"srbf: error: {path}: method.sweeps: the sweeps make 10,100 method configurations; the limit " \
                  f"is {MAX_VARIANTS:,} (--allow-large lifts it)\n"
    assert main(["check", "-c", str(path)]) == 1
    assert "FAILED  load config" in capsys.readouterr().out
    assert main(["status", "-c", str(path), "--allow-large"]) == 0
    assert "0 of 10100 fits stored" in capsys.readouterr().out  # one fit per variant: 1 problem, budget, draw
    assert not (tmp_path / "results").exists()


# --- draws and points -------------------------------------------------------------------------------


@pytest.mark.parametrize("sampling, where, limit, got", [
    ({"draws": 10**12}, "sampling.draws", MAX_DRAWS, 10**12),
    ({"n_support": 10**10}, "sampling.n_support", MAX_POINTS, 10**10),
    ({"n_support": [512, 10**10]}, "sampling.n_support[1]", MAX_POINTS, 10**10),
    ({"n_validation": MAX_POINTS + 1}, "sampling.n_validation", MAX_POINTS, MAX_POINTS + 1),
])
def test_draws_and_points_are_bounded(sampling, where, limit, got):
    with pytest.raises(ConfigError) as caught:
        config_from_dict({**BASE, "sampling": sampling}, "q.yaml")
    assert str(caught.value) == f"q.yaml: {where}: must be at most {limit:,} (the limit), got {got}"


def test_draws_and_points_at_their_limits_are_accepted():
    config = config_from_dict({**BASE, "sampling": {"draws": MAX_DRAWS, "n_support": MAX_POINTS,
                                                    "n_validation": MAX_POINTS}})
    assert (config.sampling.draws, config.sampling.n_support, config.sampling.n_validation) == (
        MAX_DRAWS, (MAX_POINTS,), MAX_POINTS)
