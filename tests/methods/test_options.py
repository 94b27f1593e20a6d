"""The one option validator (srbf.methods.options), driven by each method.yaml's constraints: what
it refuses and with which message, what it lets through, and that a config with a bad option is
refused when it is loaded, before any fit."""

from __future__ import annotations

import pytest

from srbf.cli import main
from srbf.methods import roster
from srbf.methods.options import constraint_problems, describe, option_problems
from srbf.runs.config import ConfigError, config_from_dict


def problems(name, options):
    return option_problems(name, roster.get(name).options, options)


REFUSED = [
    # (method, options, the option path, words of the message)
    ("gplearn", {"generations": 5}, "generations", "gplearn has no option 'generations' (its options: unary, binary, params)"),
    ("gplearn", {"params": {"generations": 5}}, "params",
     "The 'params' option of gplearn must be a mapping not setting generations, random_state, function_set, "
     "warm_start (the benchmark sets the budget, the seed and the operators). Got {'generations': 5} instead."),
    ("gplearn", {"params": [1]}, "params", "Got [1] instead."),
    ("operon", {"generations": 5}, "generations", "operon has no option 'generations'"),
    ("operon", {"budget_unit": "seconds"}, "budget_unit",
     "The 'budget_unit' option of operon must be one of 'generations', 'evaluations'. Got 'seconds' instead."),
    ("operon", {"budget_unit": "evalutions"}, "budget_unit", "Got 'evalutions' instead."),
    ("operon", {"params": {"random_state": 1}}, "params", "not setting generations, max_evaluations, random_state"),
    ("hroch", {"iter_limit": 5}, "iter_limit", "hroch has no option 'iter_limit'"),
    ("hroch", {"params": {"problem": "math"}}, "params", "not setting iter_limit, time_limit, random_state, problem"),
    ("jaxsr", {"params": {"max_terms": 3}}, "params", "not setting basis_library, max_terms, random_state"),
    ("jaxsr", {"x64": "yes"}, "x64", "The 'x64' option of jaxsr must be true or false. Got 'yes' instead."),
    ("jaxsr", {"strategy": "exhaustive"}, "strategy", "jaxsr has no option 'strategy'"),
    ("pysr", {"maxsize": 40}, "maxsize", "pysr has no option 'maxsize'"),
    ("pysr", {"wramup": False}, "wramup", "pysr has no option 'wramup'; did you mean 'warmup'?"),
    ("qlattice", {"params": {"n_epochs": 3}}, "params.n_epochs",
     "The 'params' option of qlattice has no key 'n_epochs' (its keys: max_complexity, criterion, loss_function, threads)"),
    ("qlattice", {"params": {"max_complexty": 3}}, "params.max_complexty", "did you mean 'max_complexity'?"),
    ("qlattice", {"params": {"max_complexity": 0}}, "params.max_complexity",
     "The 'params.max_complexity' option of qlattice must be an int in [1, inf). Got 0 instead."),
    ("qlattice", {"function_names": ["gaussian"]}, "function_names", "qlattice has no option 'function_names'"),
    ("rils_rols", {"params": {"max_fit_calls": 5}}, "params.max_fit_calls", "has no key 'max_fit_calls'"),
    ("rils_rols", {"params": {"sample_size": 1.5}}, "params.sample_size", "must be a number in [0, 1]. Got 1.5 instead."),
    ("rils_rols", {"verbose": True}, "verbose", "rils_rols has no option 'verbose'"),
    ("symregg", {"alg": "OnlyRandom"}, "alg", "symregg has no option 'alg'"),
    ("symregg", {"params": {"nonterminals": "add"}}, "params", "not setting gen, nonterminals, trace"),
    ("eggp", {"gen": 5}, "gen", "eggp has no option 'gen'"),
    ("eggp", {"params": {"gen": 5}}, "params", "not setting gen, nonterminals, trace"),
    ("eggp", {"unary": "sin"}, "unary", "The 'unary' option of eggp must be a list, each a string. Got 'sin' instead."),
    ("eggp", {"binary": ["add", 2]}, "binary[1]", "The 'binary[1]' option of eggp must be a string. Got 2 instead."),
    ("ffx", {"a": 1}, "a", "ffx takes no options; got 'a'"),
    ("deap_gp", {"generations": 5}, "generations", "deap_gp has no option 'generations'"),
    ("deap_gp", {"unary": ["gamma"]}, "unary[0]", "The 'unary[0]' option of deap_gp must be one of 'neg', 'abs'"),
    ("deap_gp", {"unary": ["add"]}, "unary[0]", "Got 'add' instead."),  # a binary operator among the unary ones
    ("deap_gp", {"binary": []}, "binary", "must be a list of at least 1 item(s)"),
    ("deap_gp", {"population_size": -3}, "population_size",
     "The 'population_size' option of deap_gp must be an int in [1, inf). Got -3 instead."),
    ("deap_gp", {"population_size": 2.5}, "population_size", "must be an int in [1, inf). Got 2.5 instead."),
    ("deap_gp", {"tournament_size": True}, "tournament_size", "Got true instead."),  # a bool is not an int
    ("deap_gp", {"crossover_probability": 1.5}, "crossover_probability", "must be a number in [0, 1]. Got 1.5 instead."),
    ("deap_gp", {"mutation_probability": float("nan")}, "mutation_probability", "Got nan instead."),
    ("deap_gp", {"init_depth": [1]}, "init_depth", "must be a list of length 2, each an int in [0, inf). Got [1] instead."),
    ("deap_gp", {"const_range": ["a", 1]}, "const_range[0]", "must be a number. Got 'a' instead."),
]


@pytest.mark.parametrize(("name", "options", "where", "message"), REFUSED, ids=[f"{r[0]}-{r[2]}" for r in REFUSED])
def test_a_bad_option_is_refused_naming_method_option_what_is_allowed_and_what_was_given(name, options, where, message):
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
