"""The process a method runs in: srbf's worker, run by path under the method's own interpreter.

Standalone on purpose: this file imports only the standard library and NumPy, never srbf, because
it runs under the interpreter a method's config names (``python:``), whose environment holds the
method's dependencies and not srbf. It keeps to Python 3.8 syntax for the same reason. The parent
(``srbf.methods.worker``) imports this file too, for the framing helpers, so both ends of the
channel share one implementation of the wire format.

Why one file past srbf's 400-line rule: what the child runs must load without srbf, so a split
would put sibling modules on the method's interpreter path, imported there as top-level names
(which a method's own imports could collide with) and in the parent as ``srbf.methods.*``: two
identities for one module. One self-contained file avoids both. Its two sections, the framing
shared with the parent and the worker process, are marked below.

Channel. Parent and worker talk over two pipes of their own (file descriptors handed over at
start); the worker's stdout and stderr both go to a third pipe that the parent drains into a
bounded buffer, so nothing a method prints, from Python or from C, can corrupt the protocol.

Frame (both directions)::

    b"SRBW" | header length: uint32 LE | payload length: uint64 LE | header | payload

The header is UTF-8 JSON with a ``type`` key. The payload holds raw little-endian float64 arrays,
listed in the header under ``arrays`` as ``{"name", "shape"}`` in payload order.

Messages. parent -> worker: ``start`` (protocol version, setup options, the limits on what a fit
may return), ``fit`` (id, budget, seed, variables, options; arrays X and y), ``shutdown``. worker
-> parent: ``ready`` or ``start_error`` once, then per fit any number of ``report`` (id, seconds
since the fit started, expression, and the budget step it answers when the method says so) followed by one ``result`` (id, status, expression or error,
wall and CPU seconds, internals). The worker's own seconds come from the method's process, so the
parent checks them and times the fit itself (``srbf.methods.process_tree``). The worker applies the limits itself, so that an honest method
learns at once; the parent checks everything again (``srbf.methods.boundary``).

Usage (by the parent only): ``python worker_main.py FD_IN FD_OUT METHOD_FILE``.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import inspect
import json
import os
import random
import signal
import struct
import sys
import threading
import time
import traceback

PROTOCOL_VERSION = 1
MAGIC = b"SRBW"
PREFIX = struct.Struct("<4sIQ")
FIT_KEYWORDS = ("budget", "seed", "variables", "options", "report")
TRACEBACK_CHARS = 4000
ERROR_CHARS = 4000  # of an exception's message
MAX_DEPTH = 64  # nesting of returned internals
LIMITS = {"expression_bytes": 100000, "internals_bytes": 1000000}  # replaced by the parent's, at start


class ProtocolError(Exception):
    """A frame that does not follow the wire format (wrong magic, truncated, bad JSON)."""


# ---------------------------------------------------------------- framing (shared with the parent)


def encode_header(header):
    """The header as compact UTF-8 JSON; raises TypeError/ValueError for non-JSON values."""
    return json.dumps(header, separators=(",", ":")).encode("utf-8")


def frame_prefix(header_bytes, payload_length):
    return PREFIX.pack(MAGIC, len(header_bytes), payload_length)


def write_frame(stream, header_bytes, buffers=()):
    """Write one frame (an encoded header and zero or more contiguous buffers) and flush."""
    views = [memoryview(b).cast("B") for b in buffers]
    stream.write(frame_prefix(header_bytes, sum(v.nbytes for v in views)) + header_bytes)
    for view in views:
        stream.write(view)
    stream.flush()


def _read_exact(stream, view):
    got = 0
    while got < len(view):
        n = stream.readinto(view[got:])
        if not n:
            break
        got += n
    return got


def read_frame(stream):
    """Read one frame from a blocking binary stream: ``(header, payload bytearray)``, or None at EOF."""
    prefix = bytearray(PREFIX.size)
    got = _read_exact(stream, memoryview(prefix))
    if got == 0:
        return None
    if got < PREFIX.size:
        raise ProtocolError("channel closed inside a frame prefix")
    magic, header_length, payload_length = PREFIX.unpack(prefix)
    if magic != MAGIC:
        raise ProtocolError("bad frame magic %r" % (bytes(magic),))
    header_bytes = bytearray(header_length)
    payload = bytearray(payload_length)
    if _read_exact(stream, memoryview(header_bytes)) < header_length:
        raise ProtocolError("channel closed inside a frame header")
    if _read_exact(stream, memoryview(payload)) < payload_length:
        raise ProtocolError("channel closed inside a frame payload")
    return _decode_header(header_bytes), payload


def _decode_header(raw):
    try:
        header = json.loads(bytes(raw).decode("utf-8"))
    except (ValueError, RecursionError) as exc:
        raise ProtocolError("frame header is not JSON: %s" % (str(exc)[:200],))
    if not isinstance(header, dict) or "type" not in header:
        raise ProtocolError("frame header has no 'type'")
    return header


class FrameDecoder:
    """Incremental decoder for a non-blocking reader: feed bytes as they come, get whole frames.

    ``max_header`` and ``max_payload`` bound what a frame may announce; the parent sets them, so
    that garbage on the channel is a ProtocolError at once instead of a wait for bytes that never
    come."""

    def __init__(self, max_header=None, max_payload=None):
        self._buffer = bytearray()
        self.max_header = max_header
        self.max_payload = max_payload

    def feed(self, data):
        self._buffer += data
        frames = []
        start = 0
        buffer = self._buffer
        while len(buffer) - start >= PREFIX.size:
            magic, header_length, payload_length = PREFIX.unpack_from(buffer, start)
            if magic != MAGIC:
                raise ProtocolError("bad frame magic %r" % (bytes(magic),))
            if self.max_header is not None and header_length > self.max_header:
                raise ProtocolError("a frame header of %d bytes, over the limit of %d" % (header_length, self.max_header))
            if self.max_payload is not None and payload_length > self.max_payload:
                raise ProtocolError("a frame payload of %d bytes, over the limit of %d" % (payload_length, self.max_payload))
            header_end = start + PREFIX.size + header_length
            end = header_end + payload_length
            if len(buffer) < end:
                break
            frames.append((_decode_header(buffer[start + PREFIX.size : header_end]), bytes(buffer[header_end:end])))
            start = end
        if start:
            del buffer[:start]
        head = bytes(buffer[: len(MAGIC)])
        if head and not MAGIC.startswith(head):
            raise ProtocolError("bad frame magic %r" % (head,))
        return frames


def arrays_from_payload(np, header, payload):
    """The arrays a header lists, as writable float64 views into ``payload`` (a bytearray)."""
    arrays = {}
    offset = 0
    for spec in header.get("arrays", ()):
        shape = tuple(int(n) for n in spec["shape"])
        count = 1
        for n in shape:
            count *= n
        if count == 0:
            arrays[spec["name"]] = np.empty(shape, dtype="<f8")
        else:
            flat = np.frombuffer(payload, dtype="<f8", count=count, offset=offset)
            arrays[spec["name"]] = flat.reshape(shape)
        offset += 8 * count
    if offset != len(payload):
        raise ProtocolError("payload holds %d bytes, the arrays listed need %d" % (len(payload), offset))
    return arrays


def to_jsonable(value, _depth=0):
    """A JSON-able copy of what a method returned: NumPy values become plain numbers and lists,
    dict keys become strings, anything else its repr (so an odd internal never fails a fit).
    ValueError when nested deeper than MAX_DEPTH."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if _depth >= MAX_DEPTH:
        raise ValueError("the internals are nested deeper than %d levels" % MAX_DEPTH)
    if type(value).__module__ == "numpy" and hasattr(value, "tolist"):
        return to_jsonable(value.tolist(), _depth + 1)
    if isinstance(value, dict):
        return {(k if isinstance(k, str) else str(k)): to_jsonable(v, _depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [to_jsonable(v, _depth + 1) for v in value]
    return repr(value)


# ---------------------------------------------------------------- the worker process


class Channel:
    """The worker's end: blocking reads, writes serialised by a lock (report() may be called from
    a method's own threads)."""

    def __init__(self, fd_in, fd_out):
        self._in = os.fdopen(fd_in, "rb", buffering=1 << 16)
        self._out = os.fdopen(fd_out, "wb", buffering=1 << 16)
        self._lock = threading.Lock()

    def read(self):
        return read_frame(self._in)

    def send(self, header):
        data = encode_header(header)
        with self._lock:
            write_frame(self._out, data)


def _cpu_seconds_function():
    try:
        import resource
    except ImportError:  # not Unix: this process only
        return time.process_time

    def cpu_seconds():
        own = resource.getrusage(resource.RUSAGE_SELF)
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime

    return cpu_seconds


cpu_seconds = _cpu_seconds_function()


def _tail(text, limit=TRACEBACK_CHARS):
    return text if len(text) <= limit else "..." + text[-limit:]


def format_size(n):
    """Bytes in decimal units, as the limits are documented: 100 KB, 1 MB, 4 B."""
    for unit, size in (("MB", 10**6), ("KB", 10**3)):
        if n >= size:
            return "%.3g %s" % (n / size, unit)
    return "%d B" % n


def over_limit(what, size, limit, name):
    """The reason a fit fails when ``what`` is too large, the same from worker and parent."""
    return "%s is %s, over the limit of %s (limits.%s)" % (what, format_size(size), format_size(limit), name)


def text_bytes(text):
    return len(text.encode("utf-8", "surrogatepass"))


def describe_exception(exc):
    """``Type: message``, the message cut to ERROR_CHARS; never raises (a method's exception may
    not even print)."""
    try:
        message = str(exc)
    except BaseException as inner:  # its __str__ raised
        message = "<its message cannot be printed: %s>" % type(inner).__name__
    if len(message) > ERROR_CHARS:
        message = message[:ERROR_CHARS] + "... (%d characters in all)" % len(message)
    return "%s: %s" % (type(exc).__name__, message)


def _module_name(path):
    stem = os.path.splitext(os.path.basename(path))[0]
    stdlib = getattr(sys, "stdlib_module_names", ())
    if stem.isidentifier() and stem not in sys.modules and stem not in stdlib:
        if importlib.util.find_spec(stem) is None:  # an adapter named after its package must not hide it
            return stem  # importable by that name from the method's folder (e.g. by its subprocesses)
    return "_srbf_method"


def load_method(path):
    """Import the method file; return its ``fit`` and its optional ``setup``, or raise with a
    message that says what is wrong."""
    path = os.path.abspath(path)
    name = _module_name(path)
    sys.path.append(os.path.dirname(path))  # the method may import modules beside it; installed packages come first
    loader = importlib.machinery.SourceFileLoader(name, path)
    spec = importlib.util.spec_from_loader(name, loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    loader.exec_module(module)
    fit = getattr(module, "fit", None)
    if fit is None:
        raise AttributeError("%s defines no fit() function" % path)
    if not callable(fit):
        raise TypeError("%s: fit is not callable (it is a %s)" % (path, type(fit).__name__))
    _check_fit_signature(path, fit)
    setup = getattr(module, "setup", None)
    if setup is not None and not callable(setup):
        raise TypeError("%s: setup is not callable (it is a %s)" % (path, type(setup).__name__))
    return fit, setup


def _check_fit_signature(path, fit):
    try:
        signature = inspect.signature(fit)
    except (TypeError, ValueError):
        return  # a builtin or C callable: let the first fit tell
    try:
        signature.bind(None, None, **{k: None for k in FIT_KEYWORDS})
    except TypeError as exc:
        raise TypeError(
            "%s: fit%s cannot be called as fit(X, y, *, %s): %s"
            % (path, signature, ", ".join(FIT_KEYWORDS), exc)
        )


def check_output(output):
    """The result message fields for what fit() returned: status ok, or failed with the reason."""
    if not isinstance(output, dict):
        return {
            "status": "failed",
            "error": "fit() must return a dict with an 'expression' str; it returned %s" % type(output).__name__,
        }
    expression = output.get("expression")
    if expression is None:
        return {
            "status": "failed",
            "error": "fit() returned no 'expression' (its keys: %s)" % ", ".join(sorted(map(str, output))),
        }
    if not isinstance(expression, str):
        return {
            "status": "failed",
            "error": "fit() returned an 'expression' of type %s, not str: %s"
            % (type(expression).__name__, _tail(repr(expression), 200)),
        }
    if not expression.strip():
        return {"status": "failed", "error": "fit() returned an empty 'expression'"}
    size = text_bytes(expression)
    if size > LIMITS["expression_bytes"]:
        return {"status": "failed", "error": over_limit("the expression", size, LIMITS["expression_bytes"], "expression_bytes")}
    internals = {str(k): to_jsonable(v) for k, v in output.items() if k not in ("expression", "fit_seconds")}
    method_seconds = output.get("fit_seconds")
    if method_seconds is not None:
        try:
            method_seconds = float(method_seconds)
        except (TypeError, ValueError):
            method_seconds = float("nan")
        if not (0 <= method_seconds < float("inf")):  # not a time: kept, but not taken as one
            internals["fit_seconds"] = to_jsonable(output.get("fit_seconds"))
            method_seconds = None
    size = text_bytes(json.dumps(internals, ensure_ascii=False, separators=(",", ":")))
    if size > LIMITS["internals_bytes"]:
        return {"status": "failed", "error": over_limit("the internals' JSON", size, LIMITS["internals_bytes"], "internals_bytes")}
    return {"status": "ok", "expression": expression, "method_seconds": method_seconds, "internals": internals}


def run_fit(channel, np, fit, header, payload):
    fit_id = header["id"]
    arrays = arrays_from_payload(np, header, payload)
    seed = int(header["seed"])
    random.seed(seed)  # a method that draws from the global generators is reproducible too
    np.random.seed(seed % (2**32))
    state = {"active": True, "last": None, "t0": 0.0}

    def report(expression, budget=None):
        """Record ``expression`` as the current best formula, timestamped since the fit started.
        With ``budget``, it is also what a fit of that budget returns (an exact trajectory): then
        it is sent even when it did not change, so the budget step's time is known."""
        if not isinstance(expression, str):
            raise TypeError("report() takes the expression as a str, got %s" % type(expression).__name__)
        if budget is not None and (isinstance(budget, bool) or not isinstance(budget, (int, float))):
            raise TypeError("report() takes the budget as a number, got %s" % type(budget).__name__)
        size = text_bytes(expression)
        if size > LIMITS["expression_bytes"]:
            raise ValueError("report(): " + over_limit("the expression", size, LIMITS["expression_bytes"], "expression_bytes"))
        if not state["active"] or (budget is None and expression == state["last"]):
            return
        state["last"] = expression
        elapsed = time.perf_counter() - state["t0"]
        message = {"type": "report", "id": fit_id, "t": elapsed, "expression": expression}
        if budget is not None:
            message["budget"] = float(budget)
        channel.send(message)

    kwargs = {
        "budget": header["budget"],
        "seed": seed,
        "variables": tuple(header["variables"]),
        "options": header.get("options") or {},
        "report": report,
    }
    cpu0 = cpu_seconds()
    state["t0"] = t0 = time.perf_counter()
    try:
        output = fit(arrays["X"], arrays["y"], **kwargs)
        fields = None
    except BaseException as exc:  # SystemExit and KeyboardInterrupt from a method are failures too
        fields = {"status": "failed", "error": describe_exception(exc), "traceback": _traceback()}
    wall = time.perf_counter() - t0
    cpu = cpu_seconds() - cpu0
    state["active"] = False
    if fields is None:
        try:
            fields = check_output(output)
        except BaseException as exc:
            fields = {"status": "failed", "error": "cannot read what fit() returned: " + describe_exception(exc)}
    _flush_stdio()
    message = {"type": "result", "id": fit_id, "wall": wall, "cpu": cpu}
    message.update(fields)
    channel.send(message)


def _traceback():
    try:
        return _tail(traceback.format_exc())
    except BaseException:  # a frame or an exception that cannot be printed
        return ""


def _flush_stdio():
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass


def _watch_parent(parent_pid):
    """Exit when the parent is gone (orphaned workers must not keep a fit running forever)."""
    while True:
        time.sleep(1.0)
        if os.getppid() != parent_pid:
            if os.getpgid(0) == os.getpid():  # we lead our own group: take the method's children too
                os.killpg(os.getpid(), signal.SIGKILL)
            os._exit(1)


def main(argv=None):
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 3:
        sys.stderr.write("usage: worker_main.py FD_IN FD_OUT METHOD_FILE (run by srbf, not by hand)\n")
        return 2
    fd_in, fd_out, method_file = int(args[0]), int(args[1]), args[2]
    for fd in (fd_in, fd_out):
        os.set_inheritable(fd, False)  # the method's subprocesses do not get the channel
    here = os.path.dirname(os.path.abspath(__file__))
    if sys.path and os.path.abspath(sys.path[0] or os.curdir) == here:
        del sys.path[0]  # srbf's own modules beside this file are not the method's to import
    try:
        sys.stdout.reconfigure(line_buffering=True)  # prints reach the parent's tail promptly
    except Exception:
        pass
    channel = Channel(fd_in, fd_out)
    threading.Thread(target=_watch_parent, args=(os.getppid(),), daemon=True).start()

    frame = channel.read()
    if frame is None:
        return 0
    start, _ = frame
    if start.get("type") != "start" or start.get("protocol") != PROTOCOL_VERSION:
        channel.send({"type": "start_error", "error": "protocol mismatch: got %r" % (start,)})
        return 1
    try:
        import numpy as np
    except BaseException as exc:
        channel.send({
            "type": "start_error",
            "error": "NumPy is not importable under %s (the worker needs it): %s: %s"
            % (sys.executable, type(exc).__name__, exc),
        })
        return 1
    LIMITS.update(start.get("limits") or {})
    t0 = time.perf_counter()
    try:
        fit, setup = load_method(method_file)
        if setup is not None:
            setup(start.get("options") or {})
    except BaseException as exc:
        # an adapter marks an error the user fixes in the config (user_error = True): one line, no traceback
        trace = "" if getattr(exc, "user_error", False) is True else _traceback()
        channel.send({"type": "start_error", "error": describe_exception(exc), "traceback": trace})
        return 1
    _flush_stdio()
    channel.send({
        "type": "ready",
        "pid": os.getpid(),
        "python": sys.version.split()[0],
        "executable": sys.executable,
        "numpy": np.__version__,
        "setup_seconds": time.perf_counter() - t0,
    })

    while True:
        frame = channel.read()
        if frame is None:
            return 0
        header, payload = frame
        kind = header["type"]
        if kind == "fit":
            run_fit(channel, np, fit, header, payload)
        elif kind == "shutdown":
            return 0
        else:
            raise ProtocolError("unknown message type %r" % (kind,))


if __name__ == "__main__":
    try:
        code = main()
    except BrokenPipeError:  # the parent went away
        code = 1
    _flush_stdio()
    # Every message is sent and flushed by now: skip the interpreter's teardown (a method's modules,
    # e.g. gplearn with scikit-learn and SciPy, take about 0.5 s to unload). Nothing is lost: what
    # the method started is killed by the guard when this process ends, and its temporary files
    # live in the worker's private directory, which srbf removes.
    os._exit(code)
