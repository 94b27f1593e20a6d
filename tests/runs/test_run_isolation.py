"""A method that cheats, tampers or spies, and one whose processes try to outlive the run, through
real ``srbf run`` processes; and the run lock. docs/fairness.md is the long form."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import yaml
from driver_helpers import REPO, child_env, rows, srbf_command, swiss_config, write_catalog, write_config

from srbf.methods import Worker
from srbf.methods.isolation import sandbox_problem
from srbf.runs.config import load_config
from srbf.runs.driver import RunError, apply_overrides, run_config
from srbf.runs.plan import make_plan
from srbf.runs.problems import ProblemSource, fit_order

SAMPLING = {"n_support": 24, "n_validation": 16, "draws": 2}
needs_bwrap = pytest.mark.skipif(sandbox_problem() is not None, reason=f"no sandbox here: {sandbox_problem()}")


def method_config(folder: Path, name: str, source: str, options=None, top=None, **extra) -> Path:
    path = folder / f"{name}.py"
    path.write_text(textwrap.dedent(source))
    spec = {"name": name, "adapter": {"type": "file", "path": str(path)}, "options": dict(options or {}),
            "config_provenance": "harness_tuned", **extra}  # fmt: skip
    return write_config(folder, name=f"{name}.yaml", catalogs=[str(folder / "faults.yaml")], method=spec,
                        sampling=dict(SAMPLING), budgets=[1], workers=1, **(top or {}))  # fmt: skip


def srbf_run(config: Path, *extra: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(srbf_command("run", "-c", str(config), "--quiet", *extra), cwd=REPO, env=child_env(),
                          capture_output=True, text=True, timeout=timeout)  # fmt: skip


def internals(results: Path, method: str) -> list[dict]:
    import sqlite3
    import json

    conn = sqlite3.connect(f"file:{results / 'srbf.sqlite'}?mode=ro", uri=True)
    try:
        found = conn.execute("SELECT internals FROM predictions WHERE method = ? ORDER BY id", (method,)).fetchall()
    finally:
        conn.close()
    return [json.loads(text) for (text,) in found]


# ------------------------------------------------------------------ cheating with the seed

CHEAT = """
import numpy as np
from srbf.catalogs.loader import load_catalog
from srbf.catalogs.sampling import ProblemSampler

def fit(X, y, *, budget, seed, variables, options, report):
    catalog = load_catalog(options["catalog"])  # the formulas are public; the points must not be
    for entry in catalog.entries:
        sampler = ProblemSampler(entry, catalog=catalog.name, catalog_version=catalog.version)
        for draw in range(options["draws"]):
            problem = sampler.sample(seed=seed, draw=draw, n_support=len(X), n_validation=options["n_validation"])
            if problem.X_support.shape == X.shape and np.array_equal(problem.X_support, X):
                return {"expression": entry.formula, "matched": entry.id}
    return {"expression": "x", "matched": None}
"""


@pytest.mark.slow
def test_a_method_cannot_regenerate_its_points_from_the_seed_it_receives(tmp_path):
    catalog = write_catalog(tmp_path, 5)
    options = {"catalog": str(catalog), "draws": SAMPLING["draws"], "n_validation": SAMPLING["n_validation"]}
    config = load_config(method_config(tmp_path, "cheat", CHEAT, options, top={"seed": 1234}))
    # The cheat works: handed the run seed (what srbf used to send), it finds its problem.
    fit = make_plan(config).fits[3]
    task = ProblemSource(config).prepare(fit_order(fit, config))  # no secret: the run seed
    with Worker(tmp_path / "cheat.py") as worker:
        assert worker.fit(task).internals["matched"] == fit.key.problem_id
    # Through a run, the seed it gets is derived one-way: it recovers nothing.
    summary = run_config(config, progress=False)
    assert summary.ok == 10
    matched = [i["matched"] for i in internals(tmp_path / "results", "cheat")]
    assert len(matched) == 10 and matched == [None] * 10


# ------------------------------------------------------------------ tampering and spying

HONEST = """
def fit(X, y, **kwargs):
    return {"expression": "x + 1"}
"""

TAMPER = """
import sqlite3

def fit(X, y, *, budget, seed, variables, options, report):
    try:
        conn = sqlite3.connect(options["store"], timeout=5)
        changed = conn.execute("UPDATE predictions SET expression = 'tampered' WHERE method = 'honest'").rowcount
        conn.commit()
        conn.close()
        return {"expression": "x", "changed": changed}
    except Exception as exc:
        return {"expression": "x", "changed": 0, "error": repr(exc)}
"""


def tampered_rows(folder: Path, sandbox: bool) -> tuple[int, list]:
    folder.mkdir()
    write_catalog(folder, 2)
    assert run_config(load_config(method_config(folder, "honest", HONEST)), progress=False).ok == 4
    before = rows(folder / "results")
    store = str(folder / "results" / "srbf.sqlite")
    tamper = load_config(method_config(folder, "tamper", TAMPER, {"store": store}))
    assert run_config(apply_overrides(tamper, sandbox=sandbox), progress=False).ok == 4
    after = [r for r in rows(folder / "results") if r[8] == "honest"]
    return sum(a != b for a, b in zip(after, before)), internals(folder / "results", "tamper")


@needs_bwrap
@pytest.mark.slow
def test_under_the_sandbox_a_method_cannot_change_the_store(tmp_path):
    changed, reports = tampered_rows(tmp_path / "plain", sandbox=False)
    assert changed == 4 and reports[0]["changed"] == 4  # without the sandbox it can: the probe works
    changed, reports = tampered_rows(tmp_path / "boxed", sandbox=True)
    assert changed == 0 and all(r["changed"] == 0 for r in reports)


SPY = """
import os

def fit(X, y, *, budget, seed, variables, options, report):
    wanted = [options["config"], options["store"]]
    found = []
    for path in wanted:
        try:
            with open(path, "rb") as handle:
                if handle.read(64):
                    found.append("read " + path)
        except OSError:
            pass
    pids = [str(os.getppid())] + [p for p in os.listdir("/proc") if p.isdigit()]
    for pid in pids:
        for what in ("cmdline", "environ"):
            try:
                with open("/proc/%s/%s" % (pid, what), "rb") as handle:
                    text = handle.read().decode("utf-8", "replace")
            except OSError:
                continue
            found += ["%s in /proc/%s/%s" % (path, pid, what) for path in wanted if path in text]
    return {"expression": "x", "found": sorted(set(found))}
"""


@needs_bwrap
@pytest.mark.slow
def test_under_the_sandbox_a_method_finds_neither_the_config_nor_the_store(tmp_path):
    write_catalog(tmp_path, 1)
    config = tmp_path / "spy.yaml"
    options = {"config": str(config), "store": str(tmp_path / "results" / "srbf.sqlite")}
    method_config(tmp_path, "spy", SPY, options)
    assert run_config(apply_overrides(load_config(config), results=tmp_path / "plain"), progress=False).ok == 2
    seen = [set(i["found"]) for i in internals(tmp_path / "plain", "spy")]
    assert all(f"read {config}" in s for s in seen)  # without the sandbox it can: the probe works
    done = srbf_run(config, "--sandbox")
    assert done.returncode == 0, done.stderr
    found = [i["found"] for i in internals(tmp_path / "results", "spy")]
    assert len(found) == 2 and found == [[], []]


def test_sandbox_that_cannot_run_is_one_line(tmp_path, monkeypatch):
    from srbf.methods import isolation

    config = load_config(swiss_config(tmp_path, n=1))
    monkeypatch.setattr(isolation, "_PROBLEM", [])  # probe again, with no bwrap on PATH
    monkeypatch.setenv("PATH", str(tmp_path / "no-bin"))
    with pytest.raises(RunError, match=r"^--sandbox: bubblewrap \(bwrap\) is not installed") as error:
        run_config(apply_overrides(config, sandbox=True), progress=False)
    assert "\n" not in str(error.value)
    assert not (tmp_path / "results").exists()  # nothing was started or written


# ------------------------------------------------------------------ processes that try to outlive the run

ESCAPER = """
import os, subprocess, sys, time
import numpy as np

def fit(X, y, *, budget, seed, variables, options, report):
    k = int(np.floor(np.min(y)))
    folder = os.environ["PID_DIR"]
    loose = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"], start_new_session=True)
    with open(os.path.join(folder, "%d-%d" % (k, loose.pid)), "w"):
        pass
    if k == 2 or options.get("hang"):
        time.sleep(300)
    return {"expression": "x + %d" % k}
"""


def escaped(folder: Path) -> list[int]:
    return [int(p.name.split("-")[1]) for p in folder.iterdir()]


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except FileNotFoundError:
        return False
    return stat[stat.rfind(b")") + 2 :].split()[0] not in (b"Z", b"X")


def gone_within(pids, seconds=5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and any(alive(p) for p in pids):
        time.sleep(0.05)
    return not any(alive(p) for p in pids)


def escaper_config(folder: Path, n: int, **options) -> Path:
    pids = folder / "pids"
    pids.mkdir()
    write_catalog(folder, n)
    config = method_config(folder, "escaper", ESCAPER, options, env={"PID_DIR": str(pids)}, time_limit=2)
    document = yaml.safe_load(config.read_text())
    document["sampling"]["draws"] = 1
    config.write_text(yaml.safe_dump(document))
    return config


@pytest.mark.slow
def test_processes_in_their_own_session_end_at_a_normal_end_and_at_a_timeout(tmp_path):
    done = srbf_run(escaper_config(tmp_path, 3))  # problem 2 hangs past its 2 s limit
    assert done.returncode == 0, done.stderr
    assert sorted(r[5] for r in rows(tmp_path / "results")) == ["ok", "ok", "timeout"]
    pids = escaped(tmp_path / "pids")
    assert len(pids) == 3 and gone_within(pids)


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL], ids=lambda s: s.name)
@pytest.mark.slow
def test_processes_in_their_own_session_end_when_srbf_is_stopped_or_killed(tmp_path, how):
    config = escaper_config(tmp_path, 1, hang=True)
    document = yaml.safe_load(config.read_text())
    document["method"]["time_limit"] = 120
    config.write_text(yaml.safe_dump(document))
    run = subprocess.Popen(srbf_command("run", "-c", str(config), "--quiet"), cwd=REPO, env=child_env(),
                           preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not list((tmp_path / "pids").iterdir()):
            assert time.monotonic() < deadline and run.poll() is None, run.communicate()
            time.sleep(0.05)
        workers = [p for p in _children(run.pid)]
        assert workers and escaped(tmp_path / "pids")
        run.send_signal(how)
        run.communicate(timeout=30)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    assert gone_within(escaped(tmp_path / "pids") + workers), f"left running after {how.name}"


def _children(pid: int) -> list[int]:
    found = []
    for name in filter(str.isdigit, [p.name for p in Path("/proc").iterdir()]):
        try:
            stat = Path(f"/proc/{name}/stat").read_bytes()
        except OSError:
            continue
        if int(stat[stat.rfind(b")") + 2 :].split()[1]) == pid:
            found.append(int(name))
    return found


# ------------------------------------------------------------------ the run lock


GATED = """
import os, time

def fit(X, y, *, budget, seed, variables, options, report):
    deadline = time.time() + 60
    while not os.path.exists(options["gate"]) and time.time() < deadline:
        time.sleep(0.02)
    return {"expression": "x"}
"""


@pytest.mark.slow
def test_a_second_run_on_the_same_results_refuses_with_the_first_ones_pid(tmp_path):
    write_catalog(tmp_path, 1)
    gate = tmp_path / "gate"
    config = method_config(tmp_path, "gated", GATED, {"gate": str(gate)})
    first = subprocess.Popen(srbf_command("run", "-c", str(config), "--quiet"), cwd=REPO, env=child_env(),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        lock = tmp_path / "results" / "srbf.sqlite.lock"
        deadline = time.monotonic() + 60
        while not (lock.exists() and lock.read_text().strip()):
            assert time.monotonic() < deadline and first.poll() is None, first.communicate()
            time.sleep(0.05)
        second = subprocess.run([sys.executable, "-m", "srbf", "run", "-c", str(config), "--quiet"], cwd=REPO,
                                env=child_env(), capture_output=True, text=True, timeout=120)  # fmt: skip
        assert second.returncode == 2 and second.stdout == ""
        assert second.stderr.strip().count("\n") == 0
        assert f"is in use by another srbf run (pid {first.pid})" in second.stderr
        with pytest.raises(RunError, match=f"pid {first.pid}"):
            run_config(load_config(config), progress=False)
    finally:
        gate.touch()
        out, err = first.communicate(timeout=60)
    assert first.returncode == 0 and "2 of 2 fit(s) recorded" in out, err
    assert len(rows(tmp_path / "results")) == 2
    third = run_config(load_config(config), progress=False)  # the lock went with the first run
    assert third.skipped == 2


def test_the_config_key_sandbox_is_a_flag(tmp_path):
    from srbf.runs.config import ConfigError, config_from_dict

    base = {"experiment": "s", "catalogs": "nguyen", "method": "linear"}
    assert config_from_dict(base).sandbox is False
    assert config_from_dict({**base, "sandbox": True}).sandbox is True
    with pytest.raises(ConfigError) as error:
        config_from_dict({**base, "sandbox": "yes please"}, source="run.yaml")
    message = str(error.value)
    assert "run.yaml" in message and "sandbox" in message and "true or false" in message
    assert message.count("\n") == 0


# ------------------------------------------------------------------ srbf's own sampler, out of reach

PUBLIC_SEED_CHEAT = """
import numpy as np

def fit(X, y, *, budget, seed, variables, options, report):
    try:  # srbf's catalogs and sampler, and the run seed everybody knows
        from srbf.catalogs.loader import load_catalog
        from srbf.catalogs.sampling import ProblemSampler
    except ImportError as exc:
        return {"expression": "x", "matched": None, "why": repr(exc)}
    try:
        catalog = load_catalog(options["catalog"])
    except Exception:  # its shipped file hidden: the checkout's history still has it
        import os, subprocess, srbf
        root = os.path.dirname(os.path.dirname(os.path.dirname(srbf.__file__)))
        shown = subprocess.run(["git", "-C", root, "show", "HEAD:src/srbf/catalogs/data/nguyen.json"],
                               capture_output=True)
        with open("nguyen.json", "wb") as handle:
            handle.write(shown.stdout)
        catalog = load_catalog(os.path.abspath("nguyen.json"))
    for entry in catalog.entries:
        sampler = ProblemSampler(entry, catalog=catalog.name, catalog_version=catalog.version)
        for draw in range(options["draws"]):
            problem = sampler.sample(seed=0, draw=draw, n_support=len(X), n_validation=options["n_validation"])
            if problem.X_support.shape == X.shape and np.array_equal(problem.X_support, X):
                return {"expression": entry.formula, "matched": entry.id}
    return {"expression": "x", "matched": None, "why": "no match"}
"""


@needs_bwrap
@pytest.mark.slow
def test_under_the_sandbox_srbfs_sampler_is_out_of_reach_so_the_public_seed_recovers_nothing(tmp_path):
    options = {"catalog": "nguyen", "draws": SAMPLING["draws"], "n_validation": SAMPLING["n_validation"]}
    config = method_config(tmp_path, "cheat", PUBLIC_SEED_CHEAT, options, top={"limit": 3})
    config.write_text(config.read_text().replace(str(tmp_path / "faults.yaml"), "nguyen"))
    plain = apply_overrides(load_config(config), results=tmp_path / "plain")
    assert run_config(plain, progress=False).ok == 6
    matched = [i["matched"] for i in internals(tmp_path / "plain", "cheat")]
    assert None not in matched  # without the sandbox the cheat works: every problem recovered
    done = srbf_run(config, "--sandbox")
    assert done.returncode == 0, done.stderr
    found = internals(tmp_path / "results", "cheat")
    assert len(found) == 6 and [i["matched"] for i in found] == [None] * 6
    assert all("No module named 'srbf.catalogs'" in i["why"] for i in found)


@pytest.mark.slow
def test_the_sandbox_shows_a_worker_every_part_of_srbf_a_built_in_imports():
    from srbf.methods.isolation import SRBF_SHOWN

    found = subprocess.run(
        [sys.executable, "-c", "import sys\nfrom srbf.methods.builtin import enumeration, linear, oracle, prior\n"
         "print('\\n'.join(m.__file__ for m in list(sys.modules.values()) if m.__name__.startswith('srbf')))"],
        capture_output=True, text=True, check=True).stdout.split()  # fmt: skip
    shown = [p.resolve() for p in SRBF_SHOWN]
    assert found and all(any(s == Path(f) or s in Path(f).parents for s in shown) for f in found), found


def checkout_in_tmp(tmp_path: Path) -> Path:
    """The interpreter of an srbf checkout under /tmp: this one, when the tests run from one (as on a
    fresh clone in the temporary folder); else a copy of its ``src`` with a venv taking srbf from
    the copy and its dependencies from this environment (whose own srbf is not on its path)."""
    import shutil
    import sysconfig

    if str(REPO).startswith("/tmp/"):
        return Path(sys.executable)
    checkout = tmp_path / "checkout"
    shutil.copytree(REPO / "src", checkout / "src", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", checkout)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(checkout / ".venv")], check=True)
    python = checkout / ".venv" / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    Path(site, "srbf_checkout.pth").write_text(f"{checkout / 'src'}\n{sysconfig.get_path('purelib')}\n")
    return python


@needs_bwrap
@pytest.mark.slow
def test_the_sandbox_runs_built_ins_from_a_checkout_inside_the_temporary_folder(tmp_path):
    python = checkout_in_tmp(tmp_path)  # bubblewrap gives the sandbox an empty /tmp of its own
    where = subprocess.run([str(python), "-c", "import srbf; print(srbf.__file__)"], capture_output=True, text=True,
                           check=True).stdout  # fmt: skip
    assert where.startswith("/tmp/")
    config = swiss_config(tmp_path, n=2, workers=1)
    document = yaml.safe_load(config.read_text())
    document["method"] = {"name": "linear", "python": str(python)}
    config.write_text(yaml.safe_dump(document))
    done = subprocess.run([str(python), "-m", "srbf", "run", "-c", str(config), "--quiet", "--sandbox"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    statuses = [r[5] for r in rows(tmp_path / "results")]
    assert statuses and set(statuses) == {"ok"}, rows(tmp_path / "results")


SRBENCH_REGRESSOR = """
import numpy as np

class Shift:
    def get_params(self, deep=True):
        return {}

    def set_params(self, **params):
        return self

    def fit(self, X, y):
        self.c = float(np.mean(np.asarray(y) - np.asarray(X, dtype=float)[:, 0]))
        return self

    def predict(self, X):
        return np.asarray(X, dtype=float)[:, 0] + self.c

est = Shift()

def model(est, X=None):
    return "x + %r" % est.c
"""


@needs_bwrap
@pytest.mark.slow
def test_the_sandbox_shows_an_srbench_method_its_folder_under_the_temporary_folder(tmp_path):
    folder = tmp_path / "shift"  # under /tmp, which the sandbox empties
    folder.mkdir()
    (folder / "regressor.py").write_text(SRBENCH_REGRESSOR)
    write_catalog(tmp_path, 2)
    spec = {"name": "shift", "adapter": {"type": "srbench", "path": str(folder)}, "config_provenance": "harness_tuned"}
    config = write_config(tmp_path, catalogs=[str(tmp_path / "faults.yaml")], method=spec, sampling=dict(SAMPLING),
                          budgets=[1], workers=1)  # fmt: skip
    done = srbf_run(config, "--sandbox")
    assert done.returncode == 0, done.stderr
    assert [r[5] for r in rows(tmp_path / "results")] == ["ok"] * 4
