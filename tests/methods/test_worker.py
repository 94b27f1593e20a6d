"""The worker process and its protocol, with real child processes (the whole file runs in ~10 s)."""

from __future__ import annotations

import ast
import dataclasses
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from srbf.methods import Worker, WorkerStartError, start_worker
from srbf.methods import worker_main as wire
from srbf.core import FitTask, TaskKey

VARIABLES = ("x0", "x1", "x2")


def make_task(*, budget=100.0, seed=7, options=None, time_limit=10.0, n=64, rng_seed=0):
    rng = np.random.default_rng(rng_seed)
    X = rng.uniform(-1, 1, size=(n, len(VARIABLES)))
    y = X[:, 0] + 2 * X[:, 1] ** 2
    key = TaskKey("m", "hash", "cat", 1, "p1", 0, budget, "n_support=64;noise=0", seed)
    return FitTask(key, X, y, VARIABLES, options=dict(options or {}), time_limit=time_limit)


def method(tmp_path: Path, source: str, name: str = "method.py") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(source))
    return path


# One method that does whatever the fit's options say, so most tests share a single worker.
SWISS = """
import os, signal, subprocess, sys, time
import numpy as np

SETUP = []

def setup(options):
    SETUP.append((time.time(), dict(options)))

def fit(X, y, *, budget, seed, variables, options, report):
    action = options.get("action", "return")
    if action == "echo":
        return {"expression": "x0", "budget": budget, "seed": seed, "variables": variables,
                "options": options, "X": X, "y": y, "y_is_float64": y.dtype == np.float64,
                "writable": X.flags.writeable}
    if action == "setup":
        return {"expression": "x0", "setup": SETUP}
    if action == "kwargs":
        return {"expression": "x0"}
    if action == "print":
        chunk = "z" * 1023
        for _ in range(3 * 1024):  # 3 MiB through print
            print(chunk)
        os.write(1, b"c" * (2 << 20))  # 2 MiB through the file descriptor, as C code would
        sys.stderr.write("e" * (1 << 20))
        return {"expression": "x0 + x1"}
    if action == "raise":
        print("about to fail")
        raise ValueError("bad things happened")
    if action == "exit":
        sys.stdout.write("leaving now\\n"); sys.stdout.flush()
        os._exit(3)
    if action == "sigkill":
        os.kill(os.getpid(), signal.SIGKILL)
    if action == "sleep":
        report("x0")
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        with open(options["pid_file"], "w") as f:
            f.write(str(child.pid))
        report("x0 + x1")
        time.sleep(30)
    if action == "report":
        for expression in ["x0", "x0", "x0 + x1", "x0 + x1**2"]:
            report(expression)
            time.sleep(0.01)
        return {"expression": "x0 + 2*x1**2"}
    if action == "internals":
        return {"expression": "x0 + c0", "constants": np.array([1.5, 2.0]),
                "front": [{"expression": "x0", "loss": np.float64(0.5), "complexity": np.int64(1)}],
                "log_probability": -3.25, "odd": object(), "fit_seconds": 0.125}
    if action == "bad_return":
        return options["value"]
    if action == "sympy_like":
        return {"expression": 3.0}
    if action == "sysexit":
        sys.exit(2)
    return {"expression": "x0 + 2*x1**2"}
"""


@pytest.fixture(scope="module")
def swiss(tmp_path_factory):
    path = method(tmp_path_factory.mktemp("swiss"), SWISS)
    with Worker(path, options={"size": "small"}) as worker:
        yield worker


def run(worker, action, **options):
    return worker.fit(make_task(options={"action": action, **options}))


@pytest.mark.slow
def test_trivial_method_returns_its_expression(swiss):
    result = run(swiss, "return")
    assert result.status == "ok", result.error
    assert result.expression == "x0 + 2*x1**2"
    assert result.error is None and result.stderr_tail == ""
    assert result.wall_seconds >= 0 and result.cpu_seconds >= 0
    assert swiss.alive and swiss.info["numpy"] == np.__version__


def test_task_arguments_arrive(swiss):
    task = make_task(budget=250.0, seed=11, options={"action": "echo", "depth": [1, 2]})
    result = swiss.fit(task)
    assert result.status == "ok", result.error
    got = result.internals
    assert got["budget"] == 250 and isinstance(got["budget"], int)  # integral budgets arrive as int
    assert got["seed"] == 11
    assert got["variables"] == list(VARIABLES)
    assert got["options"] == {"action": "echo", "depth": [1, 2]}
    np.testing.assert_array_equal(np.array(got["X"]), task.X)  # bit-exact float64 transfer
    np.testing.assert_array_equal(np.array(got["y"]), task.y)
    assert got["y_is_float64"] is True and got["writable"] is True
    fractional = swiss.fit(make_task(budget=0.5, options={"action": "echo"}))
    assert fractional.internals["budget"] == 0.5


@pytest.mark.slow
def test_fit_receives_only_the_support_points_and_its_arguments(tmp_path):
    assert not {f.name for f in dataclasses.fields(FitTask)} & {"y_validation", "X_validation", "truth", "expression"}
    path = method(tmp_path, """
        import sys
        def fit(X, y, **kwargs):
            return {"expression": "x0", "keys": sorted(kwargs), "srbf_imported": "srbf" in sys.modules,
                    "shape": list(X.shape)}
    """)
    with Worker(path) as worker:
        result = worker.fit(make_task())
    assert result.internals["keys"] == ["budget", "options", "report", "seed", "variables"]
    assert result.internals["shape"] == [64, 3]
    assert result.internals["srbf_imported"] is False


@pytest.mark.slow
def test_worker_never_imports_srbf(tmp_path):
    poison = tmp_path / "poison" / "srbf"
    poison.mkdir(parents=True)
    (poison / "__init__.py").write_text("raise ImportError('the worker must not import srbf')\n")
    path = method(tmp_path, SWISS)
    with Worker(path, env={"PYTHONPATH": str(poison.parent)}) as worker:
        assert worker.fit(make_task()).status == "ok"


def test_setup_runs_once_per_process_with_its_options(swiss):
    first = run(swiss, "setup")
    second = run(swiss, "setup")
    assert first.status == second.status == "ok"
    assert len(first.internals["setup"]) == 1
    assert first.internals["setup"] == second.internals["setup"]
    assert first.internals["setup"][0][1] == {"size": "small"}
    assert swiss.info["setup_seconds"] >= 0


@pytest.mark.slow
def test_megabytes_of_output_neither_corrupt_nor_hang(tmp_path):
    path = method(tmp_path, SWISS)
    with Worker(path, tail_bytes=4096) as worker:
        t0 = time.monotonic()
        result = run(worker, "print")
        assert time.monotonic() - t0 < 10
        assert result.status == "ok", result.error
        assert result.expression == "x0 + x1"
        failed = run(worker, "raise")
        assert failed.status == "failed"
        assert "about to fail" in failed.stderr_tail
        assert len(failed.stderr_tail) <= 4096
        assert run(worker, "return").status == "ok"


def test_raising_method_fails_with_type_message_and_traceback(swiss):
    result = run(swiss, "raise")
    assert result.status == "failed" and result.expression is None
    assert result.error.startswith("ValueError: bad things happened")
    assert "Traceback" in result.error and "raise ValueError" in result.error
    assert "about to fail" in result.stderr_tail
    assert run(swiss, "sysexit").error.startswith("SystemExit: 2")
    assert run(swiss, "return").status == "ok"  # the same process goes on


@pytest.mark.parametrize(
    "value, reason",
    [
        (None, "must return a dict"),
        ({"formula": "x0"}, "no 'expression'"),
        ({"expression": ""}, "empty 'expression'"),
        ("x0", "must return a dict"),
    ],
)
def test_unusable_returns_fail_with_a_clear_reason(swiss, value, reason):
    result = run(swiss, "bad_return", value=value)
    assert result.status == "failed"
    assert reason in result.error


def test_non_string_expression_fails(swiss):
    result = run(swiss, "sympy_like")
    assert result.status == "failed"
    assert "of type float, not str" in result.error


def test_internals_are_made_json_able(swiss):
    result = run(swiss, "internals")
    assert result.status == "ok"
    assert result.method_seconds == 0.125
    assert result.internals["constants"] == [1.5, 2.0]
    assert result.internals["front"] == [{"expression": "x0", "loss": 0.5, "complexity": 1}]
    assert result.internals["log_probability"] == -3.25
    assert result.internals["odd"].startswith("<object object")
    assert "fit_seconds" not in result.internals and "expression" not in result.internals


def test_report_records_a_trajectory_with_increasing_times(swiss):
    result = run(swiss, "report")
    assert result.status == "ok"
    assert [e for _, e in result.trajectory] == ["x0", "x0 + x1", "x0 + x1**2"]  # repeats dropped
    times = [t for t, _ in result.trajectory]
    assert times == sorted(times) and times[0] >= 0 and times[-1] <= result.wall_seconds
    assert times[-1] >= 0.02  # when it reached srbf: sent after two sleeps of 10 ms, it cannot have come sooner


@pytest.mark.slow
def test_timeout_kills_the_group_keeps_the_trajectory_and_recovers(tmp_path):
    path = method(tmp_path, SWISS)
    pid_file = tmp_path / "grandchild.pid"
    with Worker(path) as worker:
        first_pid = worker.pid
        task = make_task(options={"action": "sleep", "pid_file": str(pid_file)}, time_limit=1.0)
        t0 = time.monotonic()
        result = worker.fit(task)
        elapsed = time.monotonic() - t0
        assert result.status == "timeout"
        assert 1.0 <= elapsed < 2.0
        assert [e for _, e in result.trajectory] == ["x0", "x0 + x1"]  # the incumbent at the limit
        assert "time limit of 1 s" in result.error
        grandchild = int(pid_file.read_text())
        assert _gone_soon(grandchild), "the method's subprocess outlived the timeout"
        assert not worker.alive
        again = run(worker, "return")
        assert again.status == "ok"
        assert worker.restarts == 1 and worker.pid != first_pid


@pytest.mark.parametrize("action, how", [("exit", "exited with code 3"), ("sigkill", "SIGKILL")])
@pytest.mark.slow
def test_crash_is_reported_and_the_worker_recovers(tmp_path, action, how):
    path = method(tmp_path, SWISS)
    with Worker(path) as worker:
        result = run(worker, action)
        assert result.status == "crashed"
        assert how in result.error
        if action == "exit":
            assert "leaving now" in result.stderr_tail
        assert worker.restarts == 0
        assert run(worker, "return").status == "ok"
        assert worker.restarts == 1


@pytest.mark.slow
def test_interrupted_fit_leaves_no_worker_running(tmp_path):
    class Interrupted(Exception):
        pass

    def interrupt(signum, frame):
        raise Interrupted

    path = method(tmp_path, SWISS)
    pid_file = tmp_path / "grandchild.pid"
    with Worker(path) as worker:
        pid = worker.pid
        previous = signal.signal(signal.SIGALRM, interrupt)
        try:
            signal.setitimer(signal.ITIMER_REAL, 0.3)
            with pytest.raises(Interrupted):
                worker.fit(make_task(options={"action": "sleep", "pid_file": str(pid_file)}))
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        assert not worker.alive and _gone_soon(pid)
        assert run(worker, "return").status == "ok"


@pytest.mark.slow
def test_worker_that_died_between_fits_is_restarted(tmp_path):
    path = method(tmp_path, SWISS)
    with Worker(path) as worker:
        os.kill(worker.pid, signal.SIGKILL)
        time.sleep(0.05)
        assert run(worker, "return").status == "ok"
        assert worker.restarts == 1


@pytest.mark.slow
def test_start_errors_name_the_file_and_the_error(tmp_path):
    with pytest.raises(WorkerStartError, match="does not exist"):
        start_worker(tmp_path / "nowhere.py")
    broken = method(tmp_path, "import no_such_module_srbf\n", "broken.py")
    with pytest.raises(WorkerStartError, match=r"broken\.py.*ModuleNotFoundError.*no_such_module_srbf"):
        start_worker(broken)
    no_fit = method(tmp_path, "def predict(X):\n    return X\n", "no_fit.py")
    with pytest.raises(WorkerStartError, match=r"no_fit\.py defines no fit\(\) function"):
        start_worker(no_fit)
    syntax = method(tmp_path, "def fit(:\n", "syntax.py")
    with pytest.raises(WorkerStartError, match=r"syntax\.py.*SyntaxError"):
        start_worker(syntax)
    signature = method(tmp_path, "def fit(X, y, budget):\n    return {}\n", "signature.py")
    with pytest.raises(WorkerStartError, match=r"signature\.py: fit.*cannot be called"):
        start_worker(signature)
    bad_setup = method(tmp_path, SWISS + "\ndef setup(options):\n    raise RuntimeError('no model')\n", "s.py")
    with pytest.raises(WorkerStartError, match="RuntimeError: no model"):
        start_worker(bad_setup)
    dies = method(tmp_path, "import os\nprint('bye')\nos._exit(5)\n", "dies.py")
    with pytest.raises(WorkerStartError, match=r"(?s)exited during start \(exited with code 5\).*bye"):
        start_worker(dies)
    with pytest.raises(WorkerStartError, match="not found"):
        start_worker(method(tmp_path, SWISS), python="no-such-python-srbf")


@pytest.mark.slow
def test_runs_under_another_interpreter(tmp_path):
    """A fresh venv (another sys.prefix, no srbf) that sees NumPy through a .pth file."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()
    path = method(tmp_path, "import sys\ndef fit(X, y, **kw):\n    return {'expression': 'x0', 'prefix': sys.prefix}\n")
    with pytest.raises(WorkerStartError, match="NumPy is not importable"):
        start_worker(path, python=python)
    numpy_home = Path(np.__file__).resolve().parent.parent
    Path(site, "numpy_from_srbf_tests.pth").write_text(f"{numpy_home}\n")
    with Worker(path, python=python) as worker:
        assert worker.info["executable"] == str(python)
        result = worker.fit(make_task())
    assert result.status == "ok"
    assert Path(result.internals["prefix"]) == venv


@pytest.mark.slow
def test_close_ends_the_process(tmp_path):
    worker = start_worker(method(tmp_path, SWISS))
    pid = worker.pid
    worker.close()
    assert not worker.alive and _gone_soon(pid)
    worker.close()  # twice is fine
    assert worker.fit(make_task()).status == "ok"  # and it starts again on demand
    worker.close()


def test_malformed_task_is_the_callers_error(swiss):
    task = make_task()
    with pytest.raises(ValueError, match="variables"):
        swiss.fit(dataclasses.replace(task, variables=("x0",)))
    with pytest.raises(ValueError, match="JSON"):
        swiss.fit(dataclasses.replace(task, options={"f": object()}))


def test_frame_decoder_takes_bytes_in_any_pieces():
    header = wire.encode_header({"type": "fit", "arrays": [{"name": "a", "shape": [2, 2]}]})
    a = np.arange(4.0).reshape(2, 2)
    frame = wire.frame_prefix(header, a.nbytes) + header + a.tobytes()
    decoder = wire.FrameDecoder()
    got = []
    for i in range(0, 2 * len(frame), 7):
        got += decoder.feed((frame + frame)[i : i + 7])
    assert len(got) == 2
    arrays = wire.arrays_from_payload(np, got[1][0], bytearray(got[1][1]))
    np.testing.assert_array_equal(arrays["a"], a)
    with pytest.raises(wire.ProtocolError):
        wire.FrameDecoder().feed(b"garbage-garbage-garbage")


def test_worker_main_keeps_to_old_python_syntax():
    source = Path(wire.__file__).read_text()
    ast.parse(source, feature_version=(3, 8))
    assert "import srbf" not in source and "from srbf" not in source


def _gone_soon(pid: int, seconds: float = 3.0) -> bool:
    """Whether process ``pid`` ends within ``seconds`` (a SIGKILL takes effect asynchronously)."""
    deadline = time.monotonic() + seconds
    while _running(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie still answers signal 0: look at its state
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return True
