"""RILS-ROLS (iterated local search with ordinary least squares; Kartelj & Djukanovic) as an srbf
method file.

Runs under the method's own interpreter. Only an sdist exists for Python 3.11, built against
pybind11: ``pip install numpy pybind11 setuptools wheel`` then
``pip install --no-build-isolation rils-rols==1.6.7``. Imports only the standard library, NumPy
and rils-rols. What the adapter sets:

- **budget** -> ``max_fit_calls``, the number of candidate fits;
- **seed** -> ``random_state`` (it orders the data) and the C library's ``rand()``, which the C++
  core uses for its random restarts but never seeds: without ``srand(seed)`` a fit would depend
  on how many fits the worker process had run before;
- **operators**: RILS-ROLS has a fixed set (+ - * / sin cos ln exp sqrt and squaring) and no
  option to change it. It lies inside the benchmark's vocabulary (the options ``unary`` and
  ``binary``, by default srbf's ``sin cos exp log sqrt`` and ``add sub mul div``; squaring is a
  product); any of its operators outside those is listed in ``operators_outside_vocabulary``.

Everything else keeps the package's defaults: ``max_time=100`` seconds (the search also stops
there, whatever the budget; the result records the fit calls actually made and ``stopped_by``),
``complexity_penalty=0.001``, ``max_complexity=50`` (recorded in ``size_limit``),
``sample_size=1``. The option ``params`` may override those four for side experiments.

Trajectory. With ``verbose=True`` the C++ core prints a line each time its best solution improves
(and every 10,000 fit calls): ``it=.. fit_calls=.. final_R2=.. final_size=.. sol=<formula>``. The
core holds Python's GIL for the whole search, so nothing in the worker's own process can run
meanwhile; the adapter therefore runs each fit in a forked child whose file descriptor 1 is a pipe,
reads the lines as they come (the bytes still reach srbf's output capture) and reports each new
``sol`` with its real time. The child is in the worker's process group (a timeout kills it too)
and is waited for, so its CPU time counts.

Output. The package prints constants with C++'s ``std::to_string``: six digits after the decimal
point (``0.000000`` for 1e-7), so the printed formula is not the model it predicts with. The
adapter keeps the printed structure and recovers the constants' full values by least squares
against the package's own predictions on the support points (never against y), starting from the
printed values; the recovered formula reproduces ``predict`` to rounding. If that fails (error
above 1e-9 of the predictions' scale) the printed constants are kept and the result says so.
Reported incumbents carry the printed constants (there are no predictions to recover them from).
The final sympy simplification the package applies for display is skipped: it is not used here and
runs on in a background thread when it times out.
"""

import ctypes
import os
import re
import sys
import threading
import time

import numpy as np

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "shared"))
import _shared  # noqa: E402  the adapters' shared helpers: srbf/methods/shared/_shared.py
# the printed formula's reader, beside this file (the worker puts the method's folder on sys.path)
from printed_formula import RECOVERY_TOLERANCE, Formula, FormulaError, recover_constants  # noqa: E402, F401

NAME = "rils_rols"
OPERATORS = ("add", "sub", "mul", "div", "sin", "cos", "log", "exp", "sqrt")  # fixed; squaring is x*x
DEFAULTS = {"max_time": 100, "complexity_penalty": 0.001, "max_complexity": 50, "sample_size": 1}
OPTION_DEFAULTS = {"unary": list(_shared.DEFAULT_UNARY), "binary": list(_shared.DEFAULT_BINARY), "params": DEFAULTS}

_Regressor = None


def setup(options):
    """Import rils-rols (and sympy, which it pulls in) once per worker."""
    global _Regressor
    from rils_rols.rils_rols import RILSROLSRegressor

    class Regressor(RILSROLSRegressor):
        def call_model_symplify(self):  # display-only simplification, skipped (see module doc)
            self.model_simp = self.model

    _Regressor = Regressor


def fit_calls_of(budget):
    return _shared.positive_integer(NAME, budget, "fit calls")


# ---------------------------------------------------------------- the verbose lines

_LINE = re.compile(r"^it=(?P<it>\d+)\tfit_calls=(?P<calls>\d+).*?\tsol=(?P<sol>.+)$")
_FIELD = re.compile(r"(\w+)=([^\t]*)")


def read_progress(line):
    """A verbose progress line as a dict (``it``, ``fit_calls``, ``final_R2``, ..., ``sol``), or
    None for any other line."""
    line = line.rstrip("\r\n")
    match = _LINE.match(line)
    if match is None:
        return None
    head, sol = line.split("\tsol=", 1)
    fields = {}
    for key, value in _FIELD.findall(head):
        try:
            fields[key] = int(value) if re.fullmatch(r"-?\d+", value) else float(value)
        except ValueError:
            fields[key] = value
    fields["sol"] = sol.strip()
    return fields


def _pump(fd, on_line, forward_fd):
    """Read ``fd`` to its end, copy every byte to ``forward_fd`` and pass each line to ``on_line``."""
    pending = b""

    def deliver(line):
        try:
            on_line(line.decode("utf-8", errors="replace"))
        except Exception:  # noqa: BLE001 -- a bad line never breaks the fit
            pass

    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            break
        try:
            os.write(forward_fd, chunk)
        except OSError:
            pass
        pending += chunk
        *lines, pending = pending.split(b"\n")
        for line in lines:
            deliver(line)
    if pending:
        deliver(pending)
    os.close(fd)


def _libc():
    try:
        return ctypes.CDLL(None)
    except OSError:
        return None


def _flush_c_stdout():
    libc = _libc()
    if libc is not None:
        try:
            libc.fflush(None)
        except Exception:  # noqa: BLE001
            pass


def _seed_c_rand(seed):
    libc = _libc()
    if libc is None:
        return False
    libc.srand(ctypes.c_uint(seed % (2**32)))
    return True


# ---------------------------------------------------------------- the fit, in a child process

def _child(sender, out_fd, X, y, calls, seed, params):
    """Runs in the forked child: the fit, with its standard output going to ``out_fd``."""
    try:
        os.dup2(out_fd, 1)
        os.close(out_fd)
        seeded = _seed_c_rand(seed)
        model = _Regressor(max_fit_calls=calls, verbose=True, random_state=seed, **params)
        model.fit(X, y)
        message = {
            "ok": True,
            "model": str(model.model),
            "predictions": np.asarray(model.predict(X), dtype=float),
            "fit_calls": int(model.fit_calls),
            "best_time": float(model.best_time),
            "total_time": float(model.total_time),
            "c_rand_seeded": seeded,
        }
    except BaseException as exc:  # noqa: BLE001 -- reported to the parent, which raises
        import traceback

        message = {"ok": False, "error": "%s: %s" % (type(exc).__name__, exc), "traceback": traceback.format_exc()}
    sys.stdout.flush()
    _flush_c_stdout()
    sender.send(message)
    sender.close()


def _fit_in_child(X, y, calls, seed, params, on_line):
    """Fit in a forked child process and return what it sends back.

    The C++ core holds the GIL for the whole search, so no thread of this process could read its
    progress lines while it runs; a child process can be watched from here instead. The child
    belongs to the worker's process group, so a timeout kill takes it too, and the worker's CPU
    time includes it (it is waited for).
    """
    import multiprocessing

    try:
        context = multiprocessing.get_context("fork")
    except ValueError:  # no fork on this platform: fit here, and report only the result
        return _fit_here(X, y, calls, seed, params)
    read_end, write_end = os.pipe()
    receiver, sender = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(sender, write_end, X, y, calls, seed, params), daemon=True)
    sys.stdout.flush()
    child.start()
    os.close(write_end)
    sender.close()
    reader = threading.Thread(target=_pump, args=(read_end, on_line, 1), daemon=True)
    reader.start()
    try:
        message = receiver.recv()
    except EOFError:
        message = None
    child.join()
    reader.join()
    receiver.close()
    if message is None:
        raise RuntimeError("the RILS-ROLS process died without a result (exit code %s)" % child.exitcode)
    if not message["ok"]:
        raise RuntimeError("RILS-ROLS failed: %s\n%s" % (message["error"], message.get("traceback", "")))
    return message


def _fit_here(X, y, calls, seed, params):
    seeded = _seed_c_rand(seed)
    model = _Regressor(max_fit_calls=calls, verbose=False, random_state=seed, **params)
    model.fit(X, y)
    return {"ok": True, "model": str(model.model), "predictions": np.asarray(model.predict(X), dtype=float),
            "fit_calls": int(model.fit_calls), "best_time": float(model.best_time),
            "total_time": float(model.total_time), "c_rand_seeded": seeded}


# ---------------------------------------------------------------- fit

def _version():
    try:
        from importlib.metadata import version

        return version("rils-rols")
    except Exception:  # noqa: BLE001
        return None


def fit(X, y, *, budget, seed, variables, options, report):
    options = _shared.with_defaults(options, OPTION_DEFAULTS)
    calls = fit_calls_of(budget)
    params = options["params"]
    vocabulary = options["unary"] + options["binary"]
    outside = [op for op in OPERATORS if op not in vocabulary]
    if _Regressor is None:
        setup(options)
    progress = []

    def on_line(line):
        fields = read_progress(line)
        if fields is None:
            return
        try:
            fields["expression"] = Formula(fields["sol"]).infix(variables)
        except FormulaError:
            return
        if not progress or progress[-1]["expression"] != fields["expression"]:
            report(fields["expression"])
        progress.append(fields)

    t0 = time.perf_counter()
    outcome = _fit_in_child(X, y, calls, int(seed), params, on_line)
    fit_seconds = time.perf_counter() - t0
    printed = outcome["model"]
    formula = Formula(printed)
    predictions = np.asarray(outcome["predictions"], dtype=float)
    values, error, how = recover_constants(formula, np.asarray(X, dtype=float), predictions)
    expression = formula.infix(variables, values)
    report(expression)
    steps = [{k: v for k, v in p.items() if k in ("it", "fit_calls", "final_R2", "final_RMSE", "final_size", "expression")}
             for p in progress]
    return {
        "expression": expression,
        "fit_seconds": fit_seconds,
        "raw_expression": printed,
        "constants": values,
        "printed_constants": list(formula.values),
        "constants_source": how,
        "constants_error": error,
        "fit_calls": outcome["fit_calls"],
        "best_time": outcome["best_time"],
        "total_time": outcome["total_time"],
        "stopped_by": "time" if outcome["fit_calls"] < calls else "budget",
        "progress": steps,
        "knob": {"max_fit_calls": calls},
        "settings": params,
        "size_limit": {"max_complexity": params["max_complexity"]},
        "operator_set": "fixed by the package: " + ", ".join(OPERATORS),
        "operators_outside_vocabulary": outside,
        "c_rand_seeded": outcome["c_rand_seeded"],
        "reproducible": True,
        "package": {"name": "rils-rols", "version": _version()},
    }
