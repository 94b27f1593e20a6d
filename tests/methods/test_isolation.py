"""What a worker process can reach: environment, directories, file descriptors, leftover
processes, and (under bubblewrap) files, network and other processes. Real processes throughout."""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import json
import os
import socket
import textwrap
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from srbf.methods import Worker
from srbf.methods.isolation import Sandbox, method_seed, sandbox_problem, signal_stop
from srbf.core import FitTask, TaskKey

KEY = TaskKey("m", "hash", "cat", 1, "p1", 0, 10.0, "n_support=8;noise=0", 7)


def task(options=None, time_limit=20.0, seed=None):
    X = np.linspace(0, 1, 8).reshape(8, 1)
    return FitTask(KEY, X, X[:, 0] + 1, ("x0",), options=dict(options or {}), time_limit=time_limit, method_seed=seed)


def method(folder: Path, source: str, name: str = "probe.py") -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(source))
    return path


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read()
    except FileNotFoundError:
        return False
    return stat[stat.rfind(b")") + 2 :].split()[0] not in (b"Z", b"X")


def gone_within(pids, seconds=5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not any(alive(p) for p in pids):
            return True
        time.sleep(0.05)
    return False


PROBE = """
import os, socket, sys

def fit(X, y, *, budget, seed, variables, options, report):
    fds = {}
    for name in os.listdir("/proc/self/fd"):
        try:
            fds[name] = os.readlink("/proc/self/fd/" + name)
        except OSError:
            pass  # the descriptor listdir used, closed by now
    with open("scratch.txt", "w") as handle:  # its private directory is writable
        handle.write("x")
    out = {"expression": "x0", "env": dict(os.environ), "cwd": os.getcwd(), "fds": fds,
           "channel": sys.argv[1:3], "seed": seed}
    for path in options.get("read", []):
        try:
            with open(path, "rb") as handle:
                out.setdefault("read", {})[path] = len(handle.read(1 << 16))
        except OSError as exc:
            out.setdefault("read", {})[path] = type(exc).__name__
    for path in options.get("write", []):
        try:
            with open(path, "w") as handle:
                handle.write("x")
            out.setdefault("wrote", []).append(path)
        except OSError:
            pass
    if "port" in options:
        try:
            socket.create_connection(("127.0.0.1", options["port"]), timeout=2).close()
            out["connected"] = True
        except OSError:
            out["connected"] = False
    out["pids"] = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
    return out
"""


@pytest.mark.slow
def test_clean_environment_private_directory_and_only_the_channel_open(tmp_path, monkeypatch):
    monkeypatch.setenv("SRBF_PARENT_SECRET", "do not pass")
    monkeypatch.setenv("LC_TIME", "C")
    with Worker(method(tmp_path, PROBE), env={"FROM_CONFIG": "yes", "LC_TIME": None}) as worker:
        result = worker.fit(task())
    assert result.status == "ok", result.error
    env, cwd = result.internals["env"], result.internals["cwd"]
    assert "SRBF_PARENT_SECRET" not in env and "LC_TIME" not in env
    assert env["FROM_CONFIG"] == "yes" and env["PATH"] == os.environ["PATH"]
    assert env["TMPDIR"] == cwd and Path(cwd).name.startswith("srbf-worker-")
    assert cwd != os.getcwd() and not Path(cwd).exists()  # removed with the process
    channel = {int(fd) for fd in result.internals["channel"]}
    assert {int(fd) for fd in result.internals["fds"]} == {0, 1, 2} | channel
    assert result.internals["fds"]["0"] == "/dev/null"


def test_seed_is_derived_one_way_under_the_secret():
    seeds = {method_seed(b"s" * 32, KEY), method_seed(b"t" * 32, KEY)}
    other = method_seed(b"s" * 32, dataclasses.replace(KEY, seed=8))
    assert len(seeds) == 2 and other not in seeds and method_seed(b"s" * 32, KEY) in seeds
    assert all(0 <= s < 2**31 and s != KEY.seed for s in seeds)


def test_every_budget_of_a_ladder_gets_the_same_seed():
    # the rungs of a ladder are one search stopped at several lengths (srbf.core.key_text)
    seeds = {method_seed(b"s" * 32, dataclasses.replace(KEY, budget=b)) for b in (1, 2, 2.0, 4.5, 2**40)}
    assert seeds == {method_seed(b"s" * 32, KEY)}


def _hmac_seed(secret: bytes, fields: list) -> int:
    digest = hmac.new(secret, json.dumps(fields, separators=(",", ":")).encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:4], "little") & 0x7FFFFFFF


def test_each_repeat_gets_its_own_seed_and_repeat_0_keeps_the_seed_of_a_key_without_repeats():
    secret = b"s" * 32
    old_fields = ["m", "hash", "cat", 1, "p1", 0, "n_support=8;noise=0", 7]  # a key before repeats (the budget left out)
    assert method_seed(secret, KEY) == _hmac_seed(secret, old_fields)
    repeats = [method_seed(secret, dataclasses.replace(KEY, repeat=r)) for r in range(4)]
    assert len(set(repeats)) == 4
    assert repeats[2] == _hmac_seed(secret, old_fields + [2])


@pytest.mark.slow
def test_the_method_receives_the_task_s_method_seed(tmp_path):
    with Worker(method(tmp_path, PROBE)) as worker:
        assert worker.fit(task(seed=123456)).internals["seed"] == 123456
        assert worker.fit(task()).internals["seed"] == KEY.seed  # without one, the key's


ESCAPER = """
import os, subprocess, sys, time

def note(folder, name, pid):
    try:
        with open(os.path.join(folder, name), "w") as handle:
            handle.write(str(pid))
    except OSError:  # no folder given (in the sandbox)
        pass


def fit(X, y, *, budget, seed, variables, options, report):
    folder = options["pids"]
    loose = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)", __file__], start_new_session=True)
    if os.fork() == 0:  # a daemon: new session, parent gone
        os.setsid()
        if os.fork() == 0:
            note(folder, "daemon", os.getpid())
            time.sleep(300)
        os._exit(0)
    note(folder, "loose", loose.pid)
    deadline = time.time() + 10
    while folder and not os.path.exists(os.path.join(folder, "daemon")) and time.time() < deadline:
        time.sleep(0.01)
    if options.get("hang"):
        time.sleep(300)
    return {"expression": "x0"}
"""


def escaped_pids(folder: Path) -> list[int]:
    return [int((folder / name).read_text()) for name in ("loose", "daemon")]


@pytest.mark.parametrize("ending", ["close", "timeout", "cancel"])
@pytest.mark.slow
def test_processes_in_their_own_session_end_with_the_worker(tmp_path, ending):
    folder = tmp_path / "pids"
    folder.mkdir()
    worker = Worker(method(tmp_path, ESCAPER)).start()
    try:
        if ending == "close":
            assert worker.fit(task({"pids": str(folder)})).status == "ok"
            pids = escaped_pids(folder)
            assert all(alive(p) for p in pids)  # they ran
            worker.close()
        elif ending == "timeout":
            assert worker.fit(task({"pids": str(folder), "hang": True}, time_limit=2.0)).status == "timeout"
            pids = escaped_pids(folder)
        else:  # SIGTERM to the worker's first process during a fit, as srbf's cancel sends
            stop = threading.Timer(2.0, signal_stop, (worker.pid,))
            stop.start()
            assert worker.fit(task({"pids": str(folder), "hang": True}, time_limit=30.0)).status == "crashed"
            pids = escaped_pids(folder)
    finally:
        worker.close()
    assert gone_within(pids), f"still running after {ending}: {[p for p in pids if alive(p)]}"


needs_bwrap = pytest.mark.skipif(sandbox_problem() is not None, reason=f"no sandbox here: {sandbox_problem()}")


@needs_bwrap
@pytest.mark.slow
def test_sandbox_hides_paths_blocks_network_and_writes_and_has_its_own_pids(tmp_path):
    secret_dir = tmp_path / "results"
    secret_dir.mkdir()
    (secret_dir / "store.sqlite").write_text("rows")
    config = tmp_path / "run.yaml"
    config.write_text("experiment: x\n")
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    options = {
        "read": [str(secret_dir / "store.sqlite"), str(config), str(tmp_path / "probe.py")],
        "write": [str(tmp_path / "planted.txt"), str(Path.home() / ".srbf-planted"), "/usr/srbf-planted",
                  "/tmp/srbf-planted"],
        "port": port,
    }
    probe = method(tmp_path, PROBE)
    try:
        with Worker(probe) as plain:
            open_result = plain.fit(task(options)).internals
        sandbox = Sandbox(hidden=(str(secret_dir), str(config)))
        with Worker(probe, sandbox=sandbox) as boxed:
            boxed_result = boxed.fit(task(options))
        # results: "." hides the method's own folder: the method shows through, nothing else
        around = Sandbox(hidden=(str(tmp_path), str(secret_dir), str(config)))
        with Worker(probe, sandbox=around) as boxed:
            around_result = boxed.fit(task(options)).internals
    finally:
        server.close()
        for path in options["write"]:
            Path(path).unlink(missing_ok=True)
    assert boxed_result.status == "ok", boxed_result.error + boxed_result.stderr_tail
    got = boxed_result.internals
    # without the sandbox all of it is reachable: the probe works
    assert open_result["read"][str(config)] > 0 and open_result["connected"] is True
    assert str(tmp_path / "planted.txt") in open_result["wrote"]
    # with it: the store's folder is empty, nothing of the config can be read, the method itself is there
    assert got["read"][str(secret_dir / "store.sqlite")] == "FileNotFoundError"
    assert got["read"][str(config)] in (0, "PermissionError")  # nothing of it can be read
    assert got["read"][str(tmp_path / "probe.py")] > 0
    assert "wrote" not in got and got["connected"] is False
    assert len(got["pids"]) <= 4 and os.getpid() not in got["pids"]  # bwrap's init, guard, worker
    assert got["env"]["TMPDIR"] == got["cwd"]
    assert around_result["read"] == got["read"]


@needs_bwrap
@pytest.mark.slow
def test_sandboxed_worker_and_its_processes_end_with_it(tmp_path):
    path = method(tmp_path, ESCAPER)  # it cannot write its pids out: the host's /proc tells
    seen: list[int] = []
    look = threading.Timer(1.5, lambda: seen.extend(processes_mentioning(str(path))))
    with Worker(path, sandbox=Sandbox()) as worker:
        look.start()
        result = worker.fit(task({"pids": "", "hang": True}, time_limit=3.0))
        assert result.status == "timeout", result.error
        assert len(seen) >= 4  # bwrap and its init, the guard, the worker, its daemon
        assert gone_within(seen)
        assert worker.fit(task({"pids": ""})).status == "ok"  # and it restarts


def processes_mentioning(text: str) -> list[int]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        if text in cmdline and alive(int(pid)):
            found.append(int(pid))
    return found
