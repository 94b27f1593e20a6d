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

CONFIGS = Path(__file__).resolve().parents[2] / "configs"

SHIPPED_HASHES = {
    ("quickstart.yaml", "linear"): "8d9a6d9a3f4422b4636bdd425b2d8eb0b81b7ebb90ebd8a0e704bc9c651d0986",
    ("quickstart.yaml", "prior"): "02106679400bf1597bba7e4d729d3ce722a6abdcd9a4693ac77210f53eca8dd9",
    ("methods/deap_gp.yaml", "deap_gp"): "83c01a009a8206714a852a7ae2852d2f95a8432e5368200b6ef17f759c552ded",
    ("methods/eggp.yaml", "eggp"): "8ab420188625ed30abc2d2240d48650de5e8522b138214652ca9fd4811f9e6bf",
    ("methods/enumeration.yaml", "enumeration"): "ddefd046930ff9063e28a502d24c007dd72f1da9a56207f1104292a074f22612",
    ("methods/ffx.yaml", "ffx"): "c4459396eb1772fba924bf7166db4154907f150079f1d0ab83b5235adface6cb",
    ("methods/gplearn.yaml", "gplearn"): "92489a9f9f1fdaca15a9b3164e56e327e20b5e4e8660d7d1e6d4da4dd594de12",
    ("methods/hroch.yaml", "hroch"): "d3736c07661a1ac24c47e8b7e1edfd6cbe7dd21008b23326cdfb9f48aa7e023f",
    ("methods/jaxsr.yaml", "jaxsr"): "36d6f956c56c0ab2d7548d9ca5ad256750111dee86c990ee4a51ec492e66055e",
    ("methods/linear.yaml", "linear"): "29f3bd29c0e80d744322e568e1b2d612fec3c4f24a281672c1d2902dfc11b7e0",
    ("methods/operon.yaml", "operon"): "886d1b8ab469df8ccf7958e05157312a247c5edda2e3074820a5176a2206ffa8",
    ("methods/oracle.yaml", "oracle"): "433184e0981b18bd6373e168aad65c47c756df1c86550ca041acb1113d69027e",
    ("methods/prior.yaml", "prior"): "4cd42eb1de6f8f481153f2e63733739c410638406ee64fb1507ff9b1bd567115",
    ("methods/pysr.yaml", "pysr"): "9d2faeb239ee3b483712b716b51a180138eb3e368c8402e2da3656edc6b3807e",
    ("methods/qlattice.yaml", "qlattice"): "92b56a08a7180fd631ef61ac9725c9ebb5cf5100e24d6cd944bb663987d59ed7",
    ("methods/rils_rols.yaml", "rils_rols"): "38326302d8d0bf79a880eec33663e276381231fff0a3094098fdfc70eb41267b",
    ("methods/symregg.yaml", "symregg"): "d754ee429e6ce059a66133ce2434355fbeb7c4dea0d0998531598533bd54f7da",
}


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
    'essed", "provenance_explicit": true, "budget_knob": null, "budgets": [0.5, 1, 2], "sweeps"'
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
    ', "workers": null, "results": "./srbf-results", "source": "s.yaml", "sandbox": false}'
)
SWEPT_VARIANT_TEXT = (
    '{"method": "prior", "label": "prior[a={\\"q\\":[2.5]}, b=true]", "config_hash": "399b26c6dd0'
    '5a7dbac9c2f5f16981e2ba4435c79fa9373bfc35e2081eddcaad1", "adapter": {"type": "builtin", "na'
    'me": "prior", "path": null}, "options": {"z": {"y": [1, 2.0]}, "a": {"q": [2.5]}, "b": tru'
    'e}, "swept": [["a", {"q": [2.5]}], ["b", true]], "budgets": [0.5, 1, 2], "conditions": ["n'
    '_support=10;noise=0", "n_support=10;noise=0.1", "n_support=20;noise=0", "n_support=20;nois'
    'e=0.1"], "time_limit": 600.0, "python": "PY", "env": {"A": "1", "B": null}, "config_proven'
    'ance": "author_blessed", "provenance_explicit": true, "budget_knob": null, "hash_payload":'
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
