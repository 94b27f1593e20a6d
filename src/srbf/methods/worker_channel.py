"""The parent's end of a worker process: its three pipes, and the process started with them.

A worker has a protocol channel each way (frames, ``worker_main``'s wire format) and one pipe that
carries everything it writes to stdout and stderr. ``start_child`` starts the process with them;
a ``Channel`` writes frames to it, decodes the frames it sends back, and drains its output into an
``OutputTail`` as it comes, so that a chatty method can never fill a pipe and block. What a frame
*means* is ``worker``'s business; this module only moves bytes and notices when the child is gone.
"""

from __future__ import annotations

import os
import select
import subprocess
import time
from collections import deque
from pathlib import Path
from typing import Callable

from srbf.methods import isolation
from srbf.methods import worker_main as wire

_READ_CHUNK = 1 << 20
_LIVENESS_SECONDS = 0.25  # how often a silent child is checked for having died


class ChildGone(Exception):
    """The child process died or closed the channel."""


class OutputTail:
    """The last ``capacity`` bytes of the child's stdout+stderr, and how many bytes came in total."""

    def __init__(self, capacity: int):
        self.capacity = capacity
        self.total = 0
        self._buffer = bytearray()

    def add(self, data: bytes) -> None:
        self.total += len(data)
        if len(data) >= self.capacity:
            self._buffer = bytearray(data[-self.capacity :])
            return
        self._buffer += data
        excess = len(self._buffer) - self.capacity
        if excess > 0:
            del self._buffer[:excess]

    def since(self, mark: int) -> str:
        """The buffered output written after byte ``mark`` (as much of it as is still held)."""
        n = min(self.total - mark, len(self._buffer))
        return self._buffer[len(self._buffer) - n :].decode("utf-8", errors="replace") if n > 0 else ""


class Channel:
    """The pipes to one running child: frames to it; frames and output from it (non-blocking).

    ``max_header`` bounds the header of a frame from the child; a frame with a payload, or any
    other garbage, ends the protocol channel with ``protocol_error`` set (the method wrote on it).
    """

    def __init__(self, to_child: int, from_child: int, output_fd: int, output: OutputTail, max_header: int):
        os.set_blocking(from_child, False)
        os.set_blocking(output_fd, False)
        self.to_child = os.fdopen(to_child, "wb", buffering=1 << 16)
        self.proto_fd, self.out_fd = from_child, output_fd
        self.poller = select.poll()
        self.poller.register(from_child, select.POLLIN)
        self.poller.register(output_fd, select.POLLIN)
        self.proto_eof = self.out_eof = False
        self.decoder = wire.FrameDecoder(max_header=max_header, max_payload=0)
        self.protocol_error = ""
        self.frames: deque = deque()
        self.output = output

    def send(self, header: bytes, buffers=()) -> None:
        """Write one frame to the child; raises BrokenPipeError and the like when it is gone."""
        wire.write_frame(self.to_child, header, buffers)

    def next_frame(self, deadline: float | None, child_exited: Callable[[], bool]):
        """The next protocol frame; None once ``deadline`` passes; ChildGone if the child died."""
        last_check = time.monotonic()
        while not self.frames:
            if self.proto_eof:
                raise ChildGone
            now = time.monotonic()
            if deadline is not None and now >= deadline:
                return None
            wait = _LIVENESS_SECONDS if deadline is None else min(_LIVENESS_SECONDS, deadline - now)
            self.poll(wait)
            if not self.frames and time.monotonic() - last_check >= _LIVENESS_SECONDS:
                last_check = time.monotonic()
                if child_exited():  # e.g. a grandchild that survived keeps the channel open
                    self.read_proto()
                    if not self.frames:
                        raise ChildGone
        return self.frames.popleft()

    def poll(self, seconds: float) -> None:
        for fd, _ in self.poller.poll(max(seconds, 0.0) * 1000.0):
            if fd == self.out_fd:
                self.read_output()
            elif fd == self.proto_fd:
                self.read_proto()

    def read_proto(self) -> None:
        if self.proto_eof:
            return
        for data in self._available(self.proto_fd):
            if not data:
                self.proto_eof = True
                return
            try:
                self.frames.extend(self.decoder.feed(data))
            except wire.ProtocolError as exc:  # garbage on the channel: the method wrote on it
                self.protocol_error = str(exc)
                self.output.add(f"\n[srbf] protocol error: {exc}\n".encode())
                self.proto_eof = True
                self.poller.unregister(self.proto_fd)
                return

    def read_output(self) -> None:
        if self.out_eof:
            return
        for data in self._available(self.out_fd):
            if not data:
                self.out_eof = True
                return
            self.output.add(data)

    def _available(self, fd: int):
        """Yield the chunks that can be read from ``fd`` without waiting; at end of file, stop
        polling it and yield ``b""`` last."""
        while True:
            try:
                data = os.read(fd, _READ_CHUNK)
            except BlockingIOError:
                return
            if not data:
                self.poller.unregister(fd)
                yield data
                return
            yield data

    def close(self) -> None:
        """Close the parent's ends of the pipes (the child must be stopped first)."""
        try:
            self.to_child.close()
        except OSError:
            pass
        for fd in (self.proto_fd, self.out_fd):
            try:
                os.close(fd)
            except OSError:
                pass


def start_child(
    python: str,
    method_file: Path,
    *,
    env: dict[str, str],
    private: Path,
    sandbox: isolation.Sandbox | None,
    output: OutputTail,
    max_header: int,
) -> tuple[subprocess.Popen, Channel]:
    """Start a worker process for ``method_file`` under ``python`` with its pipes; raises OSError
    (with every pipe closed) when the interpreter cannot be run."""
    to_child_r, to_child_w = os.pipe()
    from_child_r, from_child_w = os.pipe()
    out_r, out_w = os.pipe()
    try:
        proc = isolation.start_process(
            python, (to_child_r, from_child_w), method_file, output=out_w, env=env, private=private, sandbox=sandbox
        )
    except OSError:
        for fd in (to_child_r, to_child_w, from_child_r, from_child_w, out_r, out_w):
            os.close(fd)
        raise
    for fd in (to_child_r, from_child_w, out_w):
        os.close(fd)
    return proc, Channel(to_child_w, from_child_r, out_r, output, max_header)


def reap(proc: subprocess.Popen, channel: Channel, private: Path) -> None:
    """Stop the child and every process it started, close its pipes, remove its private directory."""
    isolation.stop_process(proc)
    channel.close()
    isolation.remove_private_dir(private)
