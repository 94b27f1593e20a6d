"""The one option validator (srbf.methods.options), driven by each method.yaml's constraints: every
declared option's invalid values, generated from its constraint (after scikit-learn's
``generate_invalid_param_val``) and each refused in one line naming the method, the option, what is
allowed and what was given; what it lets through; and that a config with a bad option is refused
when it is loaded, before any fit."""

from __future__ import annotations

import math
from typing import Any, Iterator, Mapping

import pytest

from srbf.cli import main
from srbf.methods import roster
from srbf.methods.options import constraint_problems, describe, option_problems
from srbf.runs.config import ConfigError, config_from_dict


def problems(name, options):
    return option_problems(name, roster.get(name).options, options)


def shown(value: Any) -> str:
    """A value as the validator's messages show it (YAML's true/false for a bool)."""
    return str(value).lower() if isinstance(value, bool) else repr(value)


def valid_value(constraint: Mapping[str, Any]) -> Any:
    """One value ``constraint`` allows: the generator's base for lists and mappings."""
    if "choices" in constraint:
        return constraint["choices"][0]
    kind = constraint.get("type", "any")
    low, high = constraint.get("range", (None, None))
    if kind in ("int", "number"):
        return low if low is not None else (high if high is not None else 1)
    if kind == "list":
        low_length = constraint.get("length", [1, None])
        count = low_length if isinstance(low_length, int) else max(low_length[0] or 0, 1)
        return [valid_value(constraint.get("items", {}))] * count
    return {"bool": True, "str": "s", "mapping": {}}.get(kind, 0)


_WRONG_TYPE = {"int": ["1", 2.5, True, [1]], "number": ["0.5", True, [0.5]], "bool": ["yes", 1, 0.0],
               "str": [3, ["s"], True], "list": ["abc", {"a": 1}, 1], "mapping": [[1], "a=1", 1]}  # fmt: skip


def invalid_values(constraint: Mapping[str, Any], where: str) -> Iterator[tuple[Any, str, Mapping[str, Any], Any]]:
    """(value, the option path it is refused at, the constraint that refuses it, the offending part)
    for values that break ``constraint`` one way at a time: the wrong type, null when not nullable,
    outside the range, not among the choices, the wrong length, a bad element, an unknown or
    forbidden key."""
    kind = constraint.get("type", "any")
    wrong = list(_WRONG_TYPE.get(kind, []))
    if kind != "any" and not constraint.get("nullable"):
        wrong.append(None)
    low, high = constraint.get("range", (None, None))
    step = 1 if kind == "int" else 0.5
    wrong += ([low - step] if low is not None else []) + ([high + step] if high is not None else [])
    if kind == "number" and "range" in constraint:
        wrong.append(math.nan)
    if "choices" in constraint:
        wrong.append(f"not-{constraint['choices'][0]}")
    if "length" in constraint:
        length = constraint["length"]
        low_length, high_length = (length, length) if isinstance(length, int) else length
        item = valid_value(constraint.get("items", {}))
        wrong += [[item] * count for count in ([low_length - 1] if low_length else [])
                  + ([high_length + 1] if high_length is not None else [])]
    wrong += [{key: 1} for key in constraint.get("forbidden", ())]
    for value in wrong:
        yield value, where, constraint, value
    if "items" in constraint:
        rest = valid_value(constraint)[1:]
        for bad, at, broken, part in invalid_values(constraint["items"], f"{where}[0]"):
            yield [bad, *rest], at, broken, part
    if "keys" in constraint:
        yield {"no_such_key": 1}, f"{where}.no_such_key", constraint, None
        for key, inner in constraint["keys"].items():
            for bad, at, broken, part in invalid_values(inner, f"{where}.{key}"):
                yield {key: bad}, at, broken, part


DECLARED = [(name, option) for name in roster.names() for option in roster.get(name).options]
GENERATED = [(name, option, *generated) for name, option in DECLARED
             for generated in invalid_values(roster.get(name).options[option], option)]


def test_every_declared_option_gets_generated_invalid_values():
    assert len(DECLARED) >= 52  # every option of every method.yaml (52 when this was written)
    assert {(name, option) for name, option, *_ in GENERATED} == set(DECLARED)


@pytest.mark.parametrize(("name", "option", "value", "at", "broken", "part"), GENERATED,
                         ids=[f"{g[0]}-{g[3]}-{shown(g[2])}" for g in GENERATED])
def test_a_generated_invalid_value_is_refused_in_one_line(name, option, value, at, broken, part):
    found = problems(name, {option: value})
    assert [where for where, _ in found] == [at], found
    message = found[0][1]
    assert "\n" not in message
    if at.endswith(".no_such_key"):
        assert message.startswith(f"The {option!r} option of {name} has no key 'no_such_key' (its keys: ")
    else:
        assert message == f"The {at!r} option of {name} must be {describe(broken)}. Got {shown(part)} instead."


@pytest.mark.parametrize(("name", "option"), DECLARED, ids=[f"{n}-{o}" for n, o in DECLARED])
def test_the_generators_valid_value_passes(name, option):
    assert problems(name, {option: valid_value(roster.get(name).options[option])}) == []


UNDECLARED = [
    # (method, options, the option path, the message): names a method.yaml does not declare
    ("gplearn", {"generations": 5}, "generations", "gplearn has no option 'generations' (its options: unary, binary, params)"),
    ("pysr", {"wramup": False}, "wramup", "pysr has no option 'wramup'; did you mean 'warmup'? (its options: "),
    ("qlattice", {"params": {"max_complexty": 3}}, "params.max_complexty", "did you mean 'max_complexity'?"),
    ("ffx", {"a": 1}, "a", "ffx takes no options; got 'a'"),
]


@pytest.mark.parametrize(("name", "options", "where", "message"), UNDECLARED, ids=[f"{r[0]}-{r[2]}" for r in UNDECLARED])
def test_an_undeclared_option_is_refused_with_a_suggestion(name, options, where, message):
    found = problems(name, options)
    assert [at for at, _ in found] == [where], found
    assert message in found[0][1], found[0][1]


ALLOWED = [
    ("gplearn", {"params": {"population_size": 100}, "unary": ["neg", "inv"], "binary": ["add"]}),
    ("operon", {"budget_unit": "evaluations", "params": {"population_size": 100}}),
    ("jaxsr", {"x64": False, "warmup": True, "params": {"strategy": "exhaustive"}}),
    ("qlattice", {"params": {"max_complexity": 15, "criterion": None, "threads": 2}}),
    ("rils_rols", {"params": {"sample_size": 0, "max_time": 10}}),
    ("symregg", {"params": {"alg": "OnlyRandom"}}),
    ("eggp", {"params": {"maxSize": 25}}),
    ("deap_gp", {"population_size": 50, "crossover_probability": 1, "init_depth": [0, 3], "const_range": [-2, 2.5]}),
    ("ffx", {}),
]


@pytest.mark.parametrize(("name", "options"), ALLOWED, ids=[a[0] for a in ALLOWED])
def test_allowed_options_pass(name, options):
    assert problems(name, options) == []


@pytest.mark.parametrize("name", roster.names())
def test_every_shipped_option_value_is_allowed(name):
    spec = roster.get(name)
    assert constraint_problems(name, spec.options) == []
    assert option_problems(name, spec.options, spec.run.get("options", {})) == []


def test_constraints_read_as_words():
    assert describe({"type": "int", "range": [1, None]}) == "an int in [1, inf)"
    assert describe({"type": "number", "range": [None, 0]}) == "a number in (-inf, 0]"
    assert describe({"type": "str", "choices": ["a", "b"], "nullable": True}) == "one of 'a', 'b' or null"
    assert describe({"type": "list", "length": [2, 3], "items": {"type": "bool"}}) == "a list of 2 to 3 items, each true or false"
    assert describe({"type": "mapping", "keys": {"a": {}, "b": {}}}) == "a mapping with keys among a, b"


def test_a_config_with_a_bad_option_is_refused_on_load_before_any_fit(tmp_path, capsys):
    data = {"experiment": "e", "catalogs": "nguyen", "methods": ["linear", {"name": "gplearn", "options": {"params": {"generations": 3}}}]}
    with pytest.raises(ConfigError) as caught:
        config_from_dict(data, "bad.yaml")
    assert str(caught.value).startswith("bad.yaml: methods[1].options.params: The 'params' option of gplearn must be")
    config = tmp_path / "bad.yaml"
    config.write_text("experiment: e\ncatalogs: nguyen\nmethod: {name: mine, adapter: operon, options: {budget_unit: s}}\n")
    results = tmp_path / "results"
    assert main(["run", "-c", str(config), "--results", str(results), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "method.options.budget_unit: The 'budget_unit' option of operon must be one of 'generations', 'evaluations'" in err
    assert not results.exists()  # refused before a store was made
