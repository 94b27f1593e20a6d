"""Configuration hashes and stored config text, pinned to what srbf computed before the config
objects became pydantic models (commit 7819f8d).

The hash stands in every task key of a store, so a change to it makes a rerun start over instead of
resuming; the config text is stored with every campaign. A change here must be deliberate: a new
``HASH_SCHEME`` and a note in docs/config.md ("The configuration hash").
"""

import json
import sys
from pathlib import Path

import pytest

from srbf.runs.config import config_from_dict, load_config

CONFIGS = Path(__file__).resolve().parents[2] / "src" / "srbf" / "configs"  # the shipped run configs

SHIPPED_HASHES = {
    ("quickstart.yaml", "linear"): "8d9a6d9a3f4422b4636bdd425b2d8eb0b81b7ebb90ebd8a0e704bc9c651d0986",
    ("quickstart.yaml", "prior"): "02106679400bf1597bba7e4d729d3ce722a6abdcd9a4693ac77210f53eca8dd9",
    ("methods/enumeration.yaml", "enumeration"): "ddefd046930ff9063e28a502d24c007dd72f1da9a56207f1104292a074f22612",
    ("methods/linear.yaml", "linear"): "29f3bd29c0e80d744322e568e1b2d612fec3c4f24a281672c1d2902dfc11b7e0",
    ("methods/oracle.yaml", "oracle"): "433184e0981b18bd6373e168aad65c47c756df1c86550ca041acb1113d69027e",
    ("methods/prior.yaml", "prior"): "4cd42eb1de6f8f481153f2e63733739c410638406ee64fb1507ff9b1bd567115",
}


# A roster method named in a config (method: NAME) at its method.yaml's settings. A file adapter's
# hash covers the file's contents, so these changed once, deliberately, when the adapters moved
# into their folders (each now finds its shared helpers from its own path, and srbf checks the
# options instead of the adapter): same options and time limit as before, new file contents.
# deap_gp's and gplearn's changed again when their adapters began to report each generation's
# budget (report(expr, budget=g): their exact trajectories, srbf.runs.ladder).
ROSTER_HASHES = {
    "deap_gp": "630bc35190e74748f62b6628002fe21e2fd19c3fe363a623aa8d5a84730ba3b8",
    "eggp": "198135c11fff3037d20866b0adf9b4d1d27e0c0c5f8d350e815c93464d0a69d2",
    "ffx": "71f3e0fd9c3349f70a5e1c2f6ec8508e64de28ba0b3991ac5612794227683b19",
    "gplearn": "3bb78a638e216edaa866fa06de044e9857f7b2e7317aa8574df4e3326fbb67eb",
    "hroch": "8dd61c447f68809af05f716aee7b7ae327df1a3f4c4080f823e7d8fe7cb353b3",
    "jaxsr": "3cb705314da8c086c9f12d895357ec84054de9cf87204ddf52ec11173905c119",
    "operon": "70048a9f05b49bb1b362ecc9de25fe5e5823de4aa70b7a7b0e4fbe8b655d382d",
    "pysr": "70260a30e9cb57eda67a7459d09f2a5df026d8ff8d6b8bb06d382f8cf80e84b1",
    "qlattice": "a8031f055d4649ae96c586f780a5fecbf6e88acc9ec67f1c6077c71164bef7b5",
    "rils_rols": "9737403c58354245f17628507ca0c4ae8474dc25b80c3baa88a5731fb69b8501",
    "symregg": "76a0303b8d83792ac237c7e520f0fde45916f7684dd97c76044184e9f9e68f66",
}


@pytest.mark.parametrize("name", sorted(ROSTER_HASHES))
def test_roster_method_hashes_are_unchanged(name):
    (variant,) = config_from_dict({"experiment": name, "catalogs": "all", "method": name}).variants()
    assert variant.config_hash == ROSTER_HASHES[name]


@pytest.mark.parametrize("file, method", sorted(SHIPPED_HASHES), ids=[f"{f}:{m}" for f, m in sorted(SHIPPED_HASHES)])
def test_shipped_config_hashes_are_unchanged(file, method):
    (variant,) = [v for v in load_config(CONFIGS / file).variants() if v.name == method]
    assert variant.config_hash == SHIPPED_HASHES[file, method]


# Every part of the hash payload and of the stored text: sweeps on a shared axis, nested options,
# environment, changed limits, a budget short form, a renamed built-in.
SWEPT = {
    "experiment": "s", "catalogs": ["nguyen"], "problems": ["Nguyen-1"], "limit": 3, "seed": 5,
    "sampling": {"n_support": [10, 20], "noise": [0, 0.1]}, "budgets": {"powers_of_two": [-1, 1]},
    "sweeps": [{"option": "a", "values": [1, {"q": [2.5]}], "axis": "k"},
               {"option": "b", "values": [None, True], "axis": "k"}],
    "methods": [
        {"name": "prior", "options": {"z": {"y": [1, 2.0]}}, "env": {"A": 1, "B": None}, "python": sys.executable,
         "limits": {"trajectory_rows": 5}, "config_provenance": "author_blessed"},
        {"name": "lin2", "adapter": {"type": "builtin", "name": "linear"}, "time_limit": 3, "budgets": 7,
         "python": sys.executable},
    ],
}
SWEPT_HASHES = [
    '9c631ef392107cece6eb69b56e78f82e215b7ed06a1d6ef26b54f2dddd6c4773',
    '399b26c6dd05a7dbac9c2f5f16981e2ba4435c79fa9373bfc35e2081eddcaad1',
    '4601e9e51ca82cec29c0220ebcea8eaf82f78678ade789e8795ec9a1584ebc99',
    'fdd57598611cb5fee459ee29e9ada13ad2eb1867992753a89ae2afe7769022e0',
]
SWEPT_RUN_TEXT = (
    '{"experiment": "s", "catalogs": ["nguyen"], "methods": [{"name": "prior", "adapter": {"typ'
    'e": "builtin", "name": "prior", "path": null}, "options": {"z": {"y": [1, 2.0]}}, "python"'
    ': "PY", "env": {"A": "1", "B": null}, "time_limit": 600.0, "config_provenance": "author_bl'
    'essed", "provenance_explicit": true, "budget_knob": "number of candidate formulas drawn", "budgets": [0.5, 1, 2], "sweeps"'
    ': [{"option": "a", "values": [1, {"q": [2.5]}], "axis": "k"}, {"option": "b", "values": [n'
    'ull, true], "axis": "k"}], "limits": {"expression_bytes": 100000, "internals_bytes": 10000'
    '00, "trajectory_rows": 5, "trajectory_bytes": 10000000}}, {"name": "lin2", "adapter": {"ty'
    'pe": "builtin", "name": "linear", "path": null}, "options": {}, "python": "PY", "env": {},'
    ' "time_limit": 3.0, "config_provenance": "harness_tuned", "provenance_explicit": false, "b'
    'udget_knob": null, "budgets": [7], "sweeps": [{"option": "a", "values": [1, {"q": [2.5]}],'
    ' "axis": "k"}, {"option": "b", "values": [null, true], "axis": "k"}], "limits": {"expressi'
    'on_bytes": 100000, "internals_bytes": 1000000, "trajectory_rows": 10000, "trajectory_bytes'
    '": 10000000}}], "seed": 5, "problems": {"nguyen": ["Nguyen-1"]}, "limit": 3, "sampling": {'
    '"n_support": [10, 20], "n_validation": 512, "draws": 2, "noise": [0.0, 0.1], "ood": false}'
    ', "workers": null, "results": "./srbf-results", "source": "s.yaml", "sandbox": false, "repeat'
    's": 1, "checkpoints": 180}'  # the keys added since (#17) go last, the hashes stay
)
SWEPT_VARIANT_TEXT = (
    '{"method": "prior", "label": "prior[a={\\"q\\":[2.5]}, b=true]", "config_hash": "399b26c6dd0'
    '5a7dbac9c2f5f16981e2ba4435c79fa9373bfc35e2081eddcaad1", "adapter": {"type": "builtin", "na'
    'me": "prior", "path": null}, "options": {"z": {"y": [1, 2.0]}, "a": {"q": [2.5]}, "b": tru'
    'e}, "swept": [["a", {"q": [2.5]}], ["b", true]], "budgets": [0.5, 1, 2], "conditions": ["n'
    '_support=10;noise=0", "n_support=10;noise=0.1", "n_support=20;noise=0", "n_support=20;nois'
    'e=0.1"], "time_limit": 600.0, "python": "PY", "env": {"A": "1", "B": null}, "config_proven'
    'ance": "author_blessed", "provenance_explicit": true, "budget_knob": "number of candidate formulas drawn", "hash_payload":'
    ' {"scheme": "srbf.config/1", "adapter": {"type": "builtin", "name": "prior"}, "options": {'
    '"z": {"y": [1, 2.0]}, "a": {"q": [2.5]}, "b": true}, "time_limit": 600.0, "limits": {"traj'
    'ectory_rows": 5}}}'
)


def test_swept_config_hashes_are_unchanged():
    assert [v.config_hash for v in config_from_dict(SWEPT, "s.yaml").variants()] == SWEPT_HASHES


def test_stored_config_text_is_unchanged():
    """Key order included: the text is what a campaign stores."""
    config = config_from_dict(SWEPT, "s.yaml")
    assert json.dumps(config.to_dict()).replace(sys.executable, "PY") == SWEPT_RUN_TEXT
    assert json.dumps(config.variants()[1].to_dict()).replace(sys.executable, "PY") == SWEPT_VARIANT_TEXT
