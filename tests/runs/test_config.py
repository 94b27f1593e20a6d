"""Run configs: valid files load with their defaults, and every bad input is reported by file, key
path and value, with the closest valid key or name for a typo."""

import json
import sys
import textwrap
from pathlib import Path

import pytest

from srbf.catalogs.loader import list_catalogs
from srbf.methods.roster import names as roster_names
from srbf.runs.config import (
    PROVENANCE_LABELS,
    ConfigError,
    RunConfig,
    builtin_method_names,
    config_from_dict,
    load_config,
)
from srbf.runs.shipped import config_path, shipped_configs

REPO = Path(__file__).resolve().parents[2]
SHIPPED_DIR = REPO / "src" / "srbf" / "configs"
SHIPPED = sorted(p for p in SHIPPED_DIR.rglob("*.yaml") if p.relative_to(SHIPPED_DIR).parts[0] != "catalogs")

BASE = {"experiment": "q", "catalogs": "nguyen", "method": "linear"}


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def problems_of(data, **kwargs) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        config_from_dict(data, "q.yaml", **kwargs)
    return str(caught.value).splitlines()


def merged(**changes):
    data = dict(BASE)
    for key, value in changes.items():
        if value is ...:
            data.pop(key, None)
        else:
            data[key] = value
    return data


# --- valid configs ------------------------------------------------------------------------------


def test_minimal_config_takes_every_default():
    config = config_from_dict(BASE)
    assert isinstance(config, RunConfig)
    assert config.experiment == "q" and config.seed == 0 and config.source == "<dict>"
    assert config.catalogs == ("nguyen",)
    assert dict(config.problems) == {} and config.limit is None
    s = config.sampling
    assert (s.n_support, s.n_validation, s.draws, s.noise, s.ood) == ((512,), 512, 2, (0.0,), False)
    assert config.workers is None and config.results == "./srbf-results"
    (method,) = config.methods
    assert method.name == "linear"
    assert (method.adapter.type, method.adapter.name, method.adapter.path) == ("builtin", "linear", None)
    assert dict(method.options) == {} and dict(method.env) == {}
    assert method.python == sys.executable
    assert method.time_limit == 600.0
    assert config.budgets == (1, 2, 4, 8) and method.sweeps == ()  # the run's default ladder
    # a built-in named bare runs with its shipped settings (configs/methods/linear.yaml)
    assert method.budgets == (1,) and method.config_provenance == "upstream_default"
    assert method.budget_knob == "unused (least squares has no search)"


def test_full_yaml_file_loads(tmp_path):
    (tmp_path / "methods").mkdir()
    write(tmp_path / "methods" / "mine.py", "def fit(X, y, **kw):\n    return {'expression': '0'}\n")
    path = write(
        tmp_path / "run.yaml",
        """\
        experiment: full-run
        seed: 7
        catalogs: [nguyen, feynman]
        problems: {nguyen: [Nguyen-1, Nguyen-2]}
        limit: 3
        sampling:
          n_support: [64, 512]
          n_validation: 256
          draws: 4
          noise: [0, 1e-2]       # 1e-2 is a number here, not text as in YAML 1.1
          ood: true
        methods:
          - name: mine
            adapter: {type: file, path: methods/mine.py}
            options: {depth: 3, style: no, since: 2024-01-01}    # 'no' and the date stay text
            python: %s
            env: {OMP_NUM_THREADS: 1, NOISY: null}
            time_limit: 30.5
            config_provenance: author_blessed
            budget_knob: iterations
            budgets: {powers_of_two: [0, 2]}
          - prior
        budgets: [10, 20]
        workers: 3
        results: out/here
        """
        % sys.executable,
    )
    config = load_config(path)
    assert config.source == str(path)
    assert config.experiment == "full-run" and config.seed == 7
    assert config.catalogs == ("nguyen", "feynman")
    assert dict(config.problems) == {"nguyen": ("Nguyen-1", "Nguyen-2")} and config.limit == 3
    assert config.sampling.n_support == (64, 512) and config.sampling.noise == (0.0, 0.01)
    assert config.sampling.n_validation == 256 and config.sampling.draws == 4 and config.sampling.ood is True
    mine, prior = config.methods
    assert mine.adapter.type == "file" and mine.adapter.path == str((tmp_path / "methods" / "mine.py").resolve())
    assert dict(mine.options) == {"depth": 3, "style": "no", "since": "2024-01-01"}
    assert dict(mine.env) == {"OMP_NUM_THREADS": "1", "NOISY": None}
    assert mine.time_limit == 30.5 and mine.budget_knob == "iterations"
    assert mine.config_provenance == "author_blessed" and mine.provenance_explicit
    assert mine.budgets == (1, 2, 4)  # its own ladder
    assert prior.adapter.name == "prior" and prior.budgets == (10, 20)  # the config's ladder
    assert config.workers == 3 and config.results == "out/here"
    json.dumps(config.to_dict())  # plain data, ready to be stored with a run


def test_a_validated_config_cannot_be_changed():
    config = config_from_dict(merged(method={"name": "linear", "options": {"a": 1}, "env": {"X": "1"}}))
    (method,) = config.methods
    for section, key, value in [(config, "seed", 1), (config.sampling, "draws", 3), (method, "time_limit", 1.0),
                                (method.adapter, "name", "prior")]:
        with pytest.raises((AttributeError, TypeError, ValueError)):  # whichever the model raises
            setattr(section, key, value)
    for mapping in (method.options, method.env, config.problems):
        with pytest.raises(TypeError):
            mapping["b"] = 2
    assert config.seed == 0 and method.time_limit == 600.0 and dict(method.options) == {"a": 1}


def test_python_null_is_the_interpreter_srbf_runs_under():
    assert config_from_dict(merged(method={"name": "linear", "python": None})).methods[0].python == sys.executable


def test_short_forms_for_methods_and_adapters():
    config = config_from_dict(merged(method=..., methods=["linear", {"name": "prior", "adapter": "builtin"}]))
    assert [m.adapter.name for m in config.methods] == ["linear", "prior"]
    renamed = config_from_dict(merged(method={"name": "ols", "adapter": {"type": "builtin", "name": "linear"}}))
    assert renamed.methods[0].name == "ols" and renamed.methods[0].adapter.name == "linear"


def test_catalogs_all_is_the_whole_shipped_suite():
    assert config_from_dict(merged(catalogs="all")).catalogs == tuple(list_catalogs())


def test_user_catalog_file_relative_to_the_config(tmp_path):
    write(
        tmp_path / "cats" / "mine.yaml",
        """\
        srbf_catalog: 1
        name: mine
        version: 1
        problems:
        - id: p1
          formula: x1 + 1
          variables: [{name: x1, range: [0, 1]}]
        - id: p2
          formula: x1 * 2
          variables: [{name: x1, range: [0, 1]}]
        """,
    )
    path = write(
        tmp_path / "run.yaml",
        "experiment: q\ncatalogs: [nguyen, cats/mine.yaml]\nproblems: {cats/mine.yaml: p2}\nmethod: linear\n",
    )
    config = load_config(path)
    ref = str((tmp_path / "cats" / "mine.yaml").resolve())
    assert config.catalogs == ("nguyen", ref)
    assert dict(config.problems) == {ref: ("p2",)}



def test_user_catalog_in_json_next_to_the_config(tmp_path):
    catalog = {"srbf_catalog": 1, "name": "mine", "version": 1,
               "problems": [{"id": "p1", "formula": "x1 + 1", "variables": [{"name": "x1", "range": [0, 1]}]}]}
    (tmp_path / "mine.json").write_text(json.dumps(catalog), encoding="utf-8")
    path = write(tmp_path / "run.yaml", "experiment: q\ncatalogs: [mine.json]\nmethod: linear\n")
    assert load_config(path).catalogs == (str((tmp_path / "mine.json").resolve()),)

def test_problem_list_applies_to_every_catalog_and_select_applies_limit():
    config = config_from_dict(merged(catalogs=["nguyen", "feynman"], problems=["Nguyen-2", "I.6.2a", "Nguyen-1"], limit=1))
    assert dict(config.problems) == {"nguyen": ("Nguyen-2", "Nguyen-1"), "feynman": ("I.6.2a",)}

    class Entry:
        def __init__(self, id):
            self.id = id

    entries = [Entry(f"Nguyen-{i}") for i in range(1, 5)]
    assert [e.id for e in config.select("nguyen", entries)] == ["Nguyen-1"]  # catalog order, then limit
    everything = config_from_dict(merged(limit=2))
    assert [e.id for e in everything.select("nguyen", entries)] == ["Nguyen-1", "Nguyen-2"]


# --- provenance ---------------------------------------------------------------------------------


def test_missing_provenance_means_harness_tuned_and_is_marked_implicit():
    method = config_from_dict(merged(method={"name": "linear", "adapter": "builtin"})).methods[0]  # not bare
    assert method.config_provenance == "harness_tuned"
    assert method.provenance_explicit is False


@pytest.mark.parametrize("entry", ["linear", {"name": "linear"}, {"name": "linear", "budgets": [1, 2]},
                                   {"name": "linear", "options": {}}])  # fmt: skip
def test_a_builtin_named_bare_runs_as_shipped_and_is_upstream_default(entry):
    method = config_from_dict(merged(method=..., methods=[entry])).methods[0]
    assert method.config_provenance == "upstream_default" and method.provenance_explicit
    assert method.budgets == (tuple(entry["budgets"]) if isinstance(entry, dict) and "budgets" in entry else (1,))


def test_a_builtin_with_options_of_its_own_is_not_upstream_default_and_the_runs_ladder_wins():
    method = config_from_dict({**BASE, "method": {"name": "prior", "options": {"parsimony": 0.05}}}).methods[0]
    assert method.config_provenance == "harness_tuned" and not method.provenance_explicit
    assert method.budgets == tuple(2**k for k in range(11))  # prior's shipped ladder
    method = config_from_dict(merged(method=..., methods=["linear"], budgets=[3])).methods[0]
    assert method.budgets == (3,) and method.config_provenance == "upstream_default"


@pytest.mark.parametrize("label", PROVENANCE_LABELS)
def test_explicit_provenance_is_kept_and_marked_explicit(label):
    method = config_from_dict(merged(method={"name": "linear", "config_provenance": label})).methods[0]
    assert method.config_provenance == label
    assert method.provenance_explicit is True


# --- errors: the spec's examples exactly --------------------------------------------------------


def test_typo_names_file_key_path_and_closest_key(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "configs" / "q.yaml", "experiment: q\ncatalogs: nguyen\nmethod:\n  name: linear\n  time_limt: 60\n")
    with pytest.raises(ConfigError) as caught:
        load_config("configs/q.yaml")
    assert str(caught.value) == "configs/q.yaml: method.time_limt: unknown key; did you mean 'time_limit'?"


def test_bad_value_names_file_key_path_and_value(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "configs" / "q.yaml", "experiment: q\ncatalogs: nguyen\nmethod: linear\nsampling:\n  n_support: -3\n")
    with pytest.raises(ConfigError) as caught:
        load_config("configs/q.yaml")
    assert str(caught.value) == "configs/q.yaml: sampling.n_support: must be a positive integer, got -3"


def test_every_problem_is_reported_one_line_each():
    lines = problems_of(merged(seed=-1, sampling={"draws": 0, "ood": "yes"}, workers=0))
    assert lines == [
        "q.yaml: seed: must be a non-negative integer, got -1",
        "q.yaml: sampling.draws: must be a positive integer, got 0",
        "q.yaml: sampling.ood: must be true or false, got 'yes'",
        "q.yaml: workers: must be a positive integer, got 0",
    ]


def test_config_error_is_a_value_error_with_structured_problems():
    with pytest.raises(ValueError) as caught:
        config_from_dict(merged(seed="x"), "q.yaml")
    (problem,) = caught.value.problems
    assert (problem.source, problem.path) == ("q.yaml", "seed")
    assert "'x'" in problem.message


# --- errors: every key --------------------------------------------------------------------------

ERRORS = [
    # (changes to BASE, key path, words the message must contain)
    (dict(experiment=...), "experiment", ["missing required key"]),
    (dict(experiment="my run"), "experiment", ["'my run'"]),
    (dict(catalogs=...), "catalogs", ["missing required key"]),
    (dict(catalogs="feynmann"), "catalogs", ["unknown catalog 'feynmann'", "did you mean 'feynman'?"]),
    (dict(catalogs=["nguyen", "kejzer"]), "catalogs[1]", ["'kejzer'", "did you mean 'keijzer'?"]),
    (dict(catalogs=["nguyen", "all"]), "catalogs[1]", ["stands alone"]),
    (dict(catalogs=["nguyen", "nguyen"]), "catalogs[1]", ["'nguyen' is listed twice"]),
    (dict(catalogs=["./nope.yaml"]), "catalogs[0]", ["no such catalog file", "nope.yaml"]),
    (dict(catalogs=[]), "catalogs", ["got []"]),
    (dict(problems=["Nguyen-13"]), "problems[0]", ["unknown problem id 'Nguyen-13'", "did you mean"]),
    (dict(problems="nguyen-1"), "problems", ["'nguyen-1'", "did you mean 'Nguyen-1'?"]),
    (dict(problems={"ngyuen": ["Nguyen-1"]}), "problems.ngyuen", ["not one of this config's catalogs", "'nguyen'"]),
    (dict(problems={"nguyen": ["Nguyen-1", "Nguyen-1"]}), "problems.nguyen[1]", ["'Nguyen-1' is listed twice"]),
    (dict(problems={"nguyen": []}), "problems.nguyen", ["got []"]),
    (dict(limit=0), "limit", ["must be a positive integer, got 0"]),
    (dict(limit=2.5), "limit", ["got 2.5"]),
    (dict(sampling={"n_support": [64, 0]}), "sampling.n_support[1]", ["must be a positive integer, got 0"]),
    (dict(sampling={"n_support": "512"}), "sampling.n_support", ["got '512'"]),
    (dict(sampling={"n_validation": True}), "sampling.n_validation", ["got true"]),
    (dict(sampling={"noise": -0.1}), "sampling.noise", ["must be a number >= 0, got -0.1"]),
    (dict(sampling={"noise": [0, 0.1, 0.1]}), "sampling.noise[2]", ["0.1 is listed twice"]),
    (dict(sampling={"noise": float("nan")}), "sampling.noise", ["got nan"]),
    (dict(sampling={"drwas": 3}), "sampling.drwas", ["unknown key; did you mean 'draws'?"]),
    (dict(sampling=[1]), "sampling", ["must be a mapping"]),
    (dict(method={"name": "linear", "adapter": {"type": "srbench"}}), "method.adapter.path", ["missing required key", "regressor.py"]),
    (dict(method={"name": "linear", "adapter": {"type": "biultin"}}), "method.adapter.type", ["did you mean 'builtin'?"]),
    (dict(method={"name": "m", "adapter": "file"}), "method.adapter.path", ["missing required key"]),
    (dict(method={"name": "m", "adapter": {"type": "file", "path": "none.py"}}), "method.adapter.path", ["no such method file", "none.py"]),
    (dict(method={"name": "linear", "adapter": {"type": "builtin", "path": __file__}}), "method.adapter.path", ["only a file adapter"]),
    (dict(method={"name": "x", "adapter": {"type": "builtin", "name": "prio"}}), "method.adapter.name", ["'prio'", "did you mean 'prior'?"]),
    (dict(method="lineer"), "method.name", ["unknown built-in method 'lineer'", "did you mean 'linear'?"]),
    (dict(method="my_method"), "method.adapter", ["'my_method' is not a built-in or roster method", "adapter: {type: file"]),
    (dict(method="gplern"), "method.name", ["unknown roster method 'gplern'", "did you mean 'gplearn'?"]),
    (dict(method={"name": "gplearn", "options": {"generation": 5}}), "method.options.generation",
     ["gplearn has no option 'generation'", "its options: unary, binary, params"]),
    (dict(method={"name": "gplearn", "options": {"params": {"generations": 5}}}), "method.options.params",
     ["The 'params' option of gplearn must be a mapping not setting generations", "Got {'generations': 5} instead."]),
    (dict(method={"adapter": "builtin"}), "method.name", ["missing required key"]),
    (dict(method={"name": "linear", "time_limit": 0}), "method.time_limit", ["must be a positive number, got 0"]),
    (dict(method={"name": "linear", "time_limit": "10m"}), "method.time_limit", ["got '10m'"]),
    (dict(method={"name": "linear", "config_provenance": "upstream"}), "method.config_provenance",
     ["upstream_default, author_blessed, harness_tuned", "got 'upstream'", "did you mean 'upstream_default'?"]),
    (dict(method={"name": "linear", "config_provenance": "author-blessed"}), "method.config_provenance", ["did you mean 'author_blessed'?"]),
    (dict(method={"name": "linear", "budget_knob": ""}), "method.budget_knob", ["got ''"]),
    (dict(method={"name": "linear", "python": "/no/such/python"}), "method.python", ["no such interpreter", "/no/such/python"]),
    (dict(method={"name": "linear", "python": "no-such-python-9"}), "method.python", ["'no-such-python-9' on PATH"]),
    (dict(method={"name": "linear", "options": [1, 2]}), "method.options", ["must be a mapping", "got [1, 2]"]),
    (dict(method={"name": "linear", "options": {"a": {"b": float("inf")}}}), "method.options.a.b", ["got inf"]),
    (dict(method={"name": "linear", "options": {"when": {1, 2}}}), "method.options.when", ["got {1, 2}"]),
    (dict(method={"name": "oracle", "options": {"truth": "x1"}}), "method.options.truth", ["reserved", "oracle"]),
    (dict(method={"name": "linear", "env": {"THREADS": [1]}}), "method.env.THREADS", ["got [1]"]),
    (dict(method={"name": "linear", "budgets": [2, -1]}), "method.budgets[1]", ["must be a positive number, got -1"]),
    (dict(method={"name": "linear", "seed": 1}), "method.seed", ["did you mean seed at the top level?"]),
    (dict(time_limit=5), "time_limit", ["did you mean method.time_limit?"]),
    (dict(n_suport=5), "n_suport", ["did you mean sampling.n_support?"]),
    (dict(colour="red"), "colour", ["unknown key (valid keys: experiment, seed, catalogs"]),
    (dict(methods=["prior"]), "methods", ["either method (one) or methods (a list), not both"]),
    (dict(method=...), "method", ["missing required key (or methods"]),
    (dict(method=..., methods=[]), "methods", ["at least one method"]),
    (dict(method=..., methods=["linear", "prior", "linear"]), "methods[2].name", ["already the name of methods[0]"]),
    (dict(budgets=[1, 0]), "budgets[1]", ["must be a positive number, got 0"]),
    (dict(budgets=[1, 2, 2]), "budgets[2]", ["2 is listed twice"]),
    (dict(budgets="ladder"), "budgets", ["{powers_of_two: [first, last]}", "got 'ladder'"]),
    (dict(budgets={"powers_of_tow": [0, 3]}), "budgets.powers_of_tow", ["did you mean 'powers_of_two'?"]),
    (dict(budgets={"powers_of_two": [3, 0]}), "budgets.powers_of_two", ["first exponent 3 is above last 0"]),
    (dict(budgets={"powers_of_two": [0, 1.5]}), "budgets.powers_of_two", ["got [0, 1.5]"]),
    (dict(budgets={"powers_of_two": [0, 100]}), "budgets.powers_of_two", ["within +-62"]),
    (dict(sweeps=[{"values": [1]}]), "sweeps[0].option", ["missing required key"]),
    (dict(sweeps=[{"option": "a", "values": []}]), "sweeps[0].values", ["non-empty list"]),
    (dict(sweeps=[{"option": "a", "values": 3}]), "sweeps[0].values", ["got 3"]),
    (dict(sweeps=[{"option": "a", "values": [1, 2, 1]}]), "sweeps[0].values[2]", ["1 is already values[0]"]),
    (dict(sweeps=[{"option": "a", "values": [1], "axes": "x"}]), "sweeps[0].axes", ["did you mean 'axis'?"]),
    (dict(sweeps=[{"option": "a", "values": [1], "axis": "two words"}]), "sweeps[0].axis", ["'two words'"]),
    (dict(sweeps={"option": "a", "values": [1]}), "sweeps", ["must be a list"]),
    (dict(workers=-2), "workers", ["must be a positive integer, got -2"]),
    (dict(results=""), "results", ["got ''"]),
]


@pytest.mark.parametrize("changes, path, words", ERRORS, ids=[e[1] + ":" + e[2][0][:24] for e in ERRORS])
def test_error_names_key_path_and_value(changes, path, words):
    lines = problems_of(merged(**changes))
    matching = [line for line in lines if line.startswith(f"q.yaml: {path}: ")]
    assert matching, lines
    assert any(all(word in line for word in words) for line in matching), matching


def test_sweep_errors_name_the_sweep():
    lines = problems_of(merged(method={"name": "prior", "options": {"a": 1}, "sweeps": [{"option": "a", "values": [1, 2]}]}))
    assert lines == ["q.yaml: method.sweeps[0].option: 'a' is swept and also set in method.options; keep one"]
    lines = problems_of(merged(sweeps=[{"option": "a", "values": [1, 2]}], method={"name": "prior", "sweeps": [{"option": "a", "values": [3]}]}))
    assert lines == ["q.yaml: method.sweeps[0].option: 'a' is already swept by sweeps[0]"]
    lines = problems_of(merged(sweeps=[{"option": "truth", "values": ["x"]}]))
    assert lines[0].startswith("q.yaml: sweeps[0].option: reserved")


def test_problem_in_second_method_names_its_index():
    lines = problems_of(merged(method=..., methods=["linear", {"name": "prior", "time_limit": -1}]))
    assert lines == ["q.yaml: methods[1].time_limit: must be a positive number, got -1"]


# --- malformed files ----------------------------------------------------------------------------


def test_malformed_yaml_names_line_and_column(tmp_path):
    path = write(tmp_path / "bad.yaml", "experiment: q\ncatalogs: [nguyen\nmethod: linear\n")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: line 3, column 7: ")
    assert "\n" not in message


def test_bad_indentation_names_line_and_column(tmp_path):
    path = write(tmp_path / "bad.yaml", "experiment: q\nmethod:\n  name: linear\n   time_limit: 5\n")
    with pytest.raises(ConfigError, match=r"bad\.yaml: line 4, column 14: mapping values are not allowed here"):
        load_config(path)


def test_duplicate_key_is_an_error_with_both_lines(tmp_path):
    path = write(tmp_path / "dup.yaml", "experiment: q\ncatalogs: nguyen\nmethod: linear\nseed: 1\nseed: 2\n")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert str(caught.value) == f"{path}: line 5, column 1: duplicate key 'seed' (first at line 4)"


@pytest.mark.parametrize(
    "text, message",
    [("", "the config is empty"), ("# nothing\n", "the config is empty"), ("- a\n- b\n", "must be a mapping of keys")],
)
def test_empty_or_non_mapping_file(tmp_path, text, message):
    path = write(tmp_path / "c.yaml", text)
    with pytest.raises(ConfigError, match=message):
        load_config(path)


def test_missing_file(tmp_path):
    with pytest.raises(ConfigError, match=r"nope\.yaml: no such config file"):
        load_config(tmp_path / "nope.yaml")


# --- the shipped configs ------------------------------------------------------------------------


def test_configs_are_shipped():
    assert {"quickstart", "methods/linear", "methods/oracle", "methods/prior", "methods/enumeration"} <= set(
        shipped_configs())
    assert len(shipped_configs()) == len(SHIPPED)


def test_a_shipped_config_is_named_and_a_file_of_ones_own_wins(tmp_path, monkeypatch):
    assert config_path("quickstart") == config_path("quickstart.yaml") == SHIPPED_DIR / "quickstart.yaml"
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "quickstart.yaml", "experiment: mine\ncatalogs: nguyen\nmethod: linear\n")
    assert config_path("quickstart.yaml") == "quickstart.yaml"
    assert load_config("quickstart.yaml").experiment == "mine"
    assert config_path("no-such-config") == "no-such-config"


ROSTER_CONFIGS = [{"experiment": name, "catalogs": "all", "method": name} for name in roster_names()]


@pytest.mark.parametrize("path", SHIPPED + ROSTER_CONFIGS, ids=[p.name for p in SHIPPED] + list(roster_names()))
def test_every_shipped_config_validates(path):
    config = load_config(path) if isinstance(path, Path) else config_from_dict(path)  # catalogs checked here
    shipped = set(list_catalogs())
    shipped_files = {str(p) for p in (SHIPPED_DIR / "catalogs").glob("*.yaml")}  # catalog files shipped beside them
    assert all(ref in shipped or str(Path(ref).resolve()) in shipped_files for ref in config.catalogs)  # no user files
    for method in config.methods:
        assert method.provenance_explicit, f"{config.source}: {method.name} must state its provenance"
        assert method.config_provenance in PROVENANCE_LABELS
        assert method.budget_knob, f"{config.source}: {method.name} must say what its budget means"
        if method.adapter.type == "builtin":
            assert method.adapter.name in builtin_method_names()
        else:  # a roster adapter: its file ships with srbf and its interpreter is the method's own env
            assert method.adapter.type == "file" and Path(method.adapter.path).is_file()
            assert method.python == f"env:{method.name}"
    assert config.variants()


def test_quickstart_runs_two_builtins_on_nguyen_and_feynman():
    config = load_config("quickstart")
    assert config.catalogs == ("nguyen", "feynman")
    assert len(config.methods) == 2
    assert all(len(m.budgets) <= 8 for m in config.methods)  # a short ladder


@pytest.mark.parametrize("name", ["linear", "oracle", "prior", "enumeration"])
def test_one_config_per_builtin(name):
    config = load_config(f"methods/{name}")
    (method,) = config.methods
    assert method.name == name and method.adapter.name == name
    assert config.catalogs == tuple(list_catalogs())


def test_python_env_spec_is_checked_against_the_roster():
    config = config_from_dict({"experiment": "e", "catalogs": "nguyen", "method": {"name": "g", "adapter": {"type": "file", "path": __file__}, "python": "env:gplearn"}})
    assert config.methods[0].python == "env:gplearn"  # resolved to the env's interpreter when workers start
    with pytest.raises(ConfigError, match="no method environment 'gplaern'.*gplearn"):
        config_from_dict({"experiment": "e", "catalogs": "nguyen", "method": {"name": "g", "adapter": {"type": "file", "path": __file__}, "python": "env:gplaern"}})


def test_srbench_adapter_takes_a_method_folder(tmp_path):
    folder = tmp_path / "lsq"
    folder.mkdir()
    (folder / "regressor.py").write_text("est = None\n\ndef model(est, X):\n    return 'x_0'\n")
    data = {"experiment": "e", "catalogs": "nguyen", "method": {"name": "lsq", "adapter": {"type": "srbench", "path": str(folder)}}}
    first = config_from_dict(data).variants()[0].config_hash
    (folder / "regressor.py").write_text("est = None\n\ndef model(est, X):\n    return 'x_1'\n")
    assert config_from_dict(data).variants()[0].config_hash != first  # the code that runs is hashed
    (folder / "regressor.py").write_text("x = 1\n")
    with pytest.raises(ConfigError, match="defines no est"):
        config_from_dict(data)
