"""``--executor dask --local N`` starts the LocalCluster's fork server before the command imports
its own code, so that the fork server's imports overlap the command's (``srbf.runs.fork_server``).

Each case runs in a fresh interpreter: the fork server is one per process."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from srbf.judge.scoring_dask import score_pickled
from srbf.judge.worker_modules import DASK_MODULES
from srbf.runs.dask_slot import run_batch
from srbf.runs.fork_server import FORKSERVER, SLOT_MODULES

PROBE = """
import json, os, sys, time
from srbf.cli.args import prestart_workers
prestart_workers({cluster!r}, {modules!r})


def children():
    found = []
    for task in os.listdir(f"/proc/{{os.getpid()}}/task"):
        with open(f"/proc/{{os.getpid()}}/task/{{task}}/children") as handle:
            found += handle.read().split()
    commands = []
    for child in found:
        with open(f"/proc/{{child}}/cmdline", "rb") as handle:
            commands.append(handle.read().replace(b"\\0", b" ").decode())
    return commands


commands = children()
for _ in range(100):  # a child is started, not waited for: its command line is there once it has exec'd
    if all(commands) and (not commands or any("forkserver" in c for c in commands)):
        break
    time.sleep(0.05)
    commands = children()
print(json.dumps({{"commands": commands, "numpy": "numpy" in sys.modules,
                   "judge": sorted(m for m in sys.modules if m.startswith("srbf.judge."))}}))
"""


def _probe(cluster, modules) -> dict:
    code = PROBE.format(cluster=cluster, modules=modules)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_the_modules_named_are_where_the_dask_tasks_live():
    assert score_pickled.__module__ in DASK_MODULES
    assert run_batch.__module__ in SLOT_MODULES


@pytest.mark.skipif(not (FORKSERVER and sys.platform.startswith("linux")), reason="reads /proc; needs a fork server")
@pytest.mark.slow
def test_local_starts_the_fork_server_with_the_workers_modules_and_imports_nothing_heavy_here():
    seen = _probe({"local": 2}, DASK_MODULES)
    servers = [c for c in seen["commands"] if "multiprocessing.forkserver" in c]
    assert len(servers) == 1
    assert all(name in servers[0] for name in ("distributed", "srbf.runs.dask_cluster", *DASK_MODULES))
    assert not seen["numpy"] and seen["judge"] == []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("cluster", [None, {"scheduler": "tcp://127.0.0.1:8786"}])
@pytest.mark.slow
def test_no_fork_server_without_a_local_cluster(cluster):
    assert _probe(cluster, SLOT_MODULES)["commands"] == []  # no process started at all
