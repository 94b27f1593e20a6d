"""A method that misbehaves on request: ``options["faults"]`` lists fault names; problem 2i+1
commits fault i (the problems are y = x + k, k = 1, 2, ...), and every even problem gets an
honest answer, which shows that the worker recovered.

Every fault is something a real method can do by bug or by malice: crash, hang, raise, return
the wrong types or sizes, poison its text with a lone surrogate, write on srbf's protocol pipe,
fork, close file descriptors. What srbf must record for each is in ``fault_table.py``.
"""

import os
import signal
import sys
import threading
import time

import numpy as np

POISON = "x1\ud800"  # a lone surrogate: not encodable as UTF-8, so not storable as it is


def _protocol_fd():
    return int(sys.argv[2])  # the worker's argv: FD_IN FD_OUT METHOD_FILE


def _frame(header, payload_length=0):
    """A well-formed frame header written by hand (the worker's own encoder is not used)."""
    import json
    import struct

    data = json.dumps(header).encode()
    return struct.pack("<4sIQ", b"SRBW", len(data), payload_length) + data


def _fit_id():
    """The id of the fit in progress, read from the worker's own frame further up the stack."""
    frame = sys._getframe(1)
    while "fit_id" not in frame.f_locals:
        frame = frame.f_back
    return frame.f_locals["fit_id"]


class PoisonError(Exception):
    pass


class Unprintable(Exception):
    def __str__(self):
        raise RuntimeError("this exception cannot be printed")


class Evil(dict):
    def get(self, *args):
        raise RuntimeError("cannot look inside")


def nested(depth):
    value = []
    for _ in range(depth):
        value = [value]
    return value


def fault(name, report):
    """Commit fault ``name``; return what fit() returns, or None to answer honestly."""
    if name == "raise":
        raise ValueError("boom")
    if name == "raise_poison":
        raise PoisonError("bad " + POISON)
    if name == "raise_huge_message":
        raise ValueError("m" * (20 << 20))
    if name == "raise_unprintable":
        raise Unprintable()
    if name == "raise_keyboard_interrupt":
        raise KeyboardInterrupt
    if name == "raise_memory_error":
        raise MemoryError("pretend")
    if name == "recursion":
        def again(n):
            return again(n + 1)
        again(0)
    if name == "sys_exit":
        sys.exit(3)
    if name == "exit_mid_fit":
        os._exit(9)
    if name == "sigkill":
        os.kill(os.getpid(), signal.SIGKILL)
    if name == "segfault":
        os.kill(os.getpid(), signal.SIGSEGV)
    if name == "hang":
        while True:
            pass
    if name == "sleep_past_limit":
        report("x")
        time.sleep(600)
    if name == "return_none":
        return ("return", None)
    if name == "return_bytes":
        return ("return", b"x + 1")
    if name == "return_str":
        return ("return", "x + 1")
    if name == "return_generator":
        return ("return", (t for t in ("x",)))
    if name == "expression_bytes":
        return ("return", {"expression": b"x + 1"})
    if name == "expression_int":
        return ("return", {"expression": 42})
    if name == "expression_nan":
        return ("return", {"expression": float("nan")})
    if name == "expression_missing":
        return ("return", {"formula": "x + 1"})
    if name == "expression_empty":
        return ("return", {"expression": "  "})
    if name == "expression_huge":
        return ("return", {"expression": "x + " + " + ".join(["1"] * (5 << 20))})
    if name == "internals_huge":
        return ("return", {"expression": "x + 1", "front": ["x" * 1000] * 10000})
    if name == "internals_nan":
        return ("return", {"expression": "x + 1", "loss": float("nan"), "bounds": [float("-inf"), float("inf")]})
    if name == "internals_deep":
        return ("return", {"expression": "x + 1", "tree": nested(100000)})
    if name == "internals_unreadable":
        return ("return", Evil(expression="x + 1"))
    if name == "trajectory_flood":
        for i in range(20000):
            report("x + %d" % (i % 2))  # alternating, so that no report is a repeat
        return None
    if name == "report_huge":
        report("x + " + "1 + " * (1 << 20) + "1")
        return None
    if name == "report_wrong_type":
        report(b"x + 1")
    if name == "fit_seconds_nan":
        return ("return", {"expression": "x + 1", "fit_seconds": float("nan")})
    if name == "poison_expression":
        return ("return", {"expression": POISON})
    if name == "poison_report":
        report(POISON)
        return None
    if name == "poison_internals_value":
        return ("return", {"expression": "x + 1", "note": POISON})
    if name == "poison_internals_key":
        return ("return", {"expression": "x + 1", POISON: 1})
    if name == "poison_stdout":
        sys.stdout.buffer.write(b"\xff\xfe invalid utf-8 \xed\xa0\x80\n")
        sys.stdout.flush()
        print(POISON)  # the stream's encoder refuses it: the fit raises
    if name == "print_megabytes":
        sys.stdout.write("z" * (8 << 20))
        sys.stdout.flush()
        return None
    if name == "close_stdout":
        os.close(1)
        os.close(2)
        return None
    if name == "close_protocol_pipe":
        os.close(_protocol_fd())
        return None
    if name == "pipe_garbage":
        os.write(_protocol_fd(), b"garbage on the protocol pipe\n")
        return None
    if name == "pipe_short_garbage":
        os.write(_protocol_fd(), b"junk")
        time.sleep(600)
    if name == "pipe_endless_frame":
        os.write(_protocol_fd(), b"SRBW" + (2**31).to_bytes(4, "little") + (0).to_bytes(8, "little"))
        return None
    if name == "forge_report_bad_time":
        os.write(_protocol_fd(), _frame({"type": "report", "id": _fit_id(), "t": "soon", "expression": "x"}))
        return None
    if name == "forge_report_not_text":
        os.write(_protocol_fd(), _frame({"type": "report", "id": _fit_id(), "t": 0.1, "expression": [1, 2]}))
        return None
    if name == "forge_result_bad_types":
        forged = {"type": "result", "id": _fit_id(), "status": "ok", "expression": "x + 1",
                  "wall": "fast", "cpu": None, "internals": "not a dict"}
        os.write(_protocol_fd(), _frame(forged))
        time.sleep(0.5)
        return None
    if name == "forge_result_deep":
        forged = '{"type":"result","id":%d,"status":"ok","expression":"x","internals":{"a":%s1%s}}' % (
            _fit_id(), "[" * 100000, "]" * 100000)
        data = forged.encode()
        os.write(_protocol_fd(), b"SRBW" + len(data).to_bytes(4, "little") + (0).to_bytes(8, "little") + data)
        time.sleep(0.5)
        return None
    if name == "fork_and_linger":
        if os.fork() == 0:
            time.sleep(600)
            os._exit(0)
        return None
    if name == "kill_guard":  # a process in a session of its own, then the guard (its parent) killed
        import subprocess

        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True)
        os.kill(os.getppid(), signal.SIGKILL)
        time.sleep(600)
    if name == "fork_and_exit":
        if os.fork() == 0:
            time.sleep(600)
            os._exit(0)
        os._exit(4)
    if name == "thread_reports_after_return":
        def late():
            time.sleep(0.05)
            try:
                report(POISON)
            except Exception:
                pass
        threading.Thread(target=late, daemon=True).start()
        return None
    raise AssertionError("unknown fault %r" % name)


def fit(X, y, *, budget, seed, variables, options, report):
    k = int(np.floor(np.min(y)))  # the problem's index: y = x + k with x in [0, 1)
    faults = options.get("faults", [])
    if k % 2 == 1 and (k - 1) // 2 < len(faults):
        outcome = fault(faults[(k - 1) // 2], report)
        if outcome is not None:
            return outcome[1]
    report("x + %d" % k)
    return {"expression": "x + %d" % k}
