"""The first process of every method worker: it runs ``worker_main.py`` as its child and makes
sure that nothing the method starts outlives the worker.

A method may start subprocesses in a process group or session of their own (``setsid``, a
daemonising library), where killing the worker's process group misses them. This guard is a child
subreaper (``PR_SET_CHILD_SUBREAPER``), so every process started below it stays its descendant
whatever group or session it moves to, and it ends the whole tree on every path:

- the worker exits (a normal shutdown, a crash): the guard SIGKILLs every descendant left, then
  exits as the worker did (same code, same signal), so srbf reports the worker's own ending;
- SIGTERM, SIGINT or SIGHUP (srbf stopping it after a timeout or a cancel): the same, at once;
- srbf dies, even by SIGKILL: the guard's parent-death signal is SIGTERM, so the same again.
  The worker's own parent-death signal is SIGKILL, for the case the guard itself is killed.

Standalone (standard library only, Python 3.8 syntax) for the reason ``worker_main.py`` is: it
runs under the method's interpreter. The process tree is read from ``/proc`` (Linux); elsewhere
the guard only forwards the worker's exit.

Usage (by srbf only): ``python worker_guard.py FD_IN FD_OUT METHOD_FILE``.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
WORKER_MAIN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "worker_main.py")
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
KILL_ROUNDS = 200  # a method forking as fast as it is killed cannot keep the guard busy forever


def prctl(option, value):
    """Linux prctl(2); False where it is not available or refused."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(option, value, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def descendants(root, zombies=False):
    """The pids of ``root``'s live descendants (zombies left out unless ``zombies``), read from /proc."""
    children = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name, "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()  # the command name may hold spaces and ')'
        if len(fields) < 2 or (fields[0] in (b"Z", b"X") and not zombies):
            continue
        children.setdefault(int(fields[1]), []).append(int(name))
    found = []
    stack = [root]
    while stack:
        for pid in children.get(stack.pop(), ()):
            found.append(pid)
            stack.append(pid)
    return found


class Guard:
    def __init__(self):
        self.worker = None
        self.worker_status = None

    def reap(self, block=False):
        """Collect ended children (adopted orphans included); keep the worker's status."""
        while True:
            try:
                pid, status = os.waitpid(-1, 0 if block else os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            if pid == self.worker:
                self.worker_status = status
                if block:
                    return

    def kill_descendants(self):
        me = os.getpid()
        for _ in range(KILL_ROUNDS):
            pids = descendants(me)
            if not pids:
                break
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            self.reap()
        self.reap()

    def stop(self, signum, frame):
        self.kill_descendants()
        os._exit(128 + signum)

    def exit_as_worker(self):
        status = self.worker_status
        if status is None:
            os._exit(1)
        if os.WIFSIGNALED(status):
            signum = os.WTERMSIG(status)
            for stop in STOP_SIGNALS:
                signal.signal(stop, signal.SIG_DFL)
            try:
                os.kill(os.getpid(), signum)
            except OSError:
                pass
            os._exit(128 + signum)
        os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)

    def run(self, args):
        prctl(PR_SET_CHILD_SUBREAPER, 1)
        prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
        for signum in STOP_SIGNALS:
            signal.signal(signum, self.stop)
        me = os.getpid()
        pid = os.fork()
        if pid == 0:  # the worker
            for signum in STOP_SIGNALS:
                signal.signal(signum, signal.SIG_DFL)
            prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
            if os.getppid() != me:  # the guard died before the line above
                os._exit(1)
            try:
                os.execv(sys.executable, [sys.executable, WORKER_MAIN] + list(args))
            finally:
                os._exit(127)
        self.worker = pid
        for fd in args[:2]:  # the channel is the worker's: its end must be seen when the worker ends
            try:
                os.close(int(fd))
            except (OSError, ValueError):
                pass
        while self.worker_status is None:
            self.reap(block=True)
        self.kill_descendants()
        self.exit_as_worker()


def main():
    args = sys.argv[1:]
    if len(args) != 3:
        sys.stderr.write("usage: worker_guard.py FD_IN FD_OUT METHOD_FILE (run by srbf, not by hand)\n")
        return 2
    if not sys.executable:
        sys.stderr.write("worker_guard.py: this interpreter does not know its own path\n")
        return 2
    Guard().run(args)
    return 1


if __name__ == "__main__":
    sys.exit(main())
