"""The contract every method folder (src/srbf/methods/NAME/) meets, checked once per folder.

A folder holds adapter.py, method.yaml and a lock per Python; its adapter imports only the
standard library, NumPy, the shared helpers and its package; a config that names the method runs
that adapter in the method's own environment at the upstream defaults, with options its
method.yaml allows; and where outputs of the real package are recorded
(tests/methods/recorded/NAME.json, written by the recorders beside it under the package's own
interpreter), they come from the pinned release and srbf's reading of every converted formula
gives the package's own predictions. What is specific to one method is in test_adapter_NAME.py.
No package is needed here: the adapters are loaded without theirs.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from recorded.adapter_checks import TOLERANCE, HERE, adapter, check_case, check_imports, comparable, recording
from srbf.methods import roster
from srbf.methods.interpreters import admits
from srbf.methods.options import option_problems
from srbf.runs.config import config_from_dict

NAMES = roster.names()
RECORDED = [name for name in NAMES if (HERE / f"{name}.json").is_file()]
# modules an adapter imports besides its package's own
# JAX's float64 switch; feyn takes a DataFrame; flash_ansr's train_tiny.py sets torch's threads
ALSO_IMPORTS = {"jaxsr": ("jax",), "qlattice": ("pandas",), "flash_ansr": ("torch",)}


def recorded_cases() -> list:
    """(name, case) for every recorded case whose predictions are its formula's (``comparable``)."""
    found = []
    for name in RECORDED:
        for case in recording(name)["cases"]:
            if comparable(name, case) is not None:
                found.append(pytest.param(name, comparable(name, case), id=f"{name}-{case['name']}"))
    return found


def test_every_folder_with_a_method_file_is_on_the_roster():
    methods = Path(roster.__file__).parent
    assert sorted(p.parent.name for p in methods.glob("*/method.yaml")) == sorted(NAMES)
    assert {"gplearn", "operon", "pysr"} <= set(NAMES) and set(RECORDED) == set(NAMES) - {"pysr"}  # no Julia here


@pytest.mark.parametrize("name", NAMES)
def test_the_folder_holds_its_adapter_method_file_and_locks(name):
    spec = roster.get(name)
    assert spec.folder == Path(roster.__file__).parent / name and spec.adapter_path.is_file()
    assert callable(adapter(name).fit) and adapter(name).NAME == name
    for python in [v for v in ("3.11", "3.12", "3.13") if not spec.python or admits(spec.python, v)]:
        assert spec.lock_path(python).is_file(), f"run `srbf methods lock {name} --python-version {python}`"


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.slow
def test_the_adapter_imports_only_the_standard_library_numpy_and_its_package(name):
    check_imports(name, roster.get(name).import_name.split(".")[0], *ALSO_IMPORTS.get(name, ()))


@pytest.mark.parametrize("name", NAMES)
def test_a_config_naming_the_method_runs_its_adapter_in_its_env_at_upstream_defaults(name):
    spec = roster.get(name)
    (method,) = config_from_dict({"experiment": "e", "catalogs": "nguyen", "method": name}).methods
    assert method.adapter.type == "file" and Path(method.adapter.path) == spec.adapter_path
    assert method.python == f"env:{name}" and method.time_limit == spec.run["time_limit"]
    assert method.config_provenance == "upstream_default" and method.provenance_explicit
    assert method.budget_knob == spec.budget_knob and method.budgets
    assert dict(method.options) == dict(spec.run.get("options", {}))
    assert option_problems(name, spec.options, method.options) == []  # its shipped options are allowed



def test_a_ladder_for_the_whole_run_replaces_the_roster_ladders_and_a_methods_own_wins():
    base = {"experiment": "e", "catalogs": "nguyen"}
    shipped = config_from_dict({**base, "methods": ["gplearn"]}).methods[0].budgets
    run_wide = config_from_dict({**base, "methods": ["gplearn", "deap_gp"], "budgets": [1, 2]})
    assert [m.budgets for m in run_wide.methods] == [(1.0, 2.0), (1.0, 2.0)] != [shipped, shipped]
    own = config_from_dict({**base, "budgets": [1, 2], "methods": [{"name": "gplearn", "budgets": [3]}, "deap_gp"]})
    assert [m.budgets for m in own.methods] == [(3.0,), (1.0, 2.0)]

# what each method runs by default: its ladder and its options (a change here changes the benchmark)
SHIPPED = {
    "bingo": ([10, 20, 40, 80, 160, 320], {}), "itea": ({"powers_of_two": [2, 7]}, {}),
    "deap_gp": ({"powers_of_two": [0, 6]}, {}), "flash_ansr": ({"powers_of_two": [4, 10]}, {}), "eggp": ({"powers_of_two": [0, 8]}, {}), "ffx": ([1], {}),
    "gplearn": ({"powers_of_two": [0, 5]}, {}), "hroch": ({"powers_of_two": [8, 18]}, {}),
    "jaxsr": ([1, 2, 3, 4, 5, 6, 7, 8], {"x64": True}), "operon": ({"powers_of_two": [0, 10]}, {}),
    "pysr": ({"powers_of_two": [0, 7]}, {}), "qlattice": ({"powers_of_two": [0, 5]}, {}),
    "rils_rols": ({"powers_of_two": [10, 17]}, {}), "symregg": ({"powers_of_two": [5, 12]}, {}),
}  # fmt: skip


@pytest.mark.parametrize("name", NAMES)
def test_the_shipped_ladder_and_options(name):
    defaults = roster.get(name).config_defaults()
    assert (defaults["budgets"], defaults["options"]) == SHIPPED[name]


@pytest.mark.parametrize("name", RECORDED)
def test_the_recording_comes_from_the_pinned_release(name):
    data = recording(name)
    assert data["version"] == roster.get(name).version
    assert data["package"] == roster.get(name).package
    assert data["cases"]


@pytest.mark.parametrize(("name", "case"), recorded_cases())
def test_the_converted_formula_gives_the_packages_predictions(name, case):
    check_case(name, case, **TOLERANCE.get(name, {}))
