"""Install time of method environments: pip as before locks vs the committed lock with pip and uv.

For each method, four installs into a scratch srbf home, each timed around ``install()`` (venv,
packages, version listing, disk walk):

- pip, unlocked, no cache: the path before locks (``pip install numpy <pins>``), ``--no-cache-dir``;
- pip from the lock, no cache: the fallback when uv is missing;
- uv from the lock, an empty ``UV_CACHE_DIR``;
- uv from the lock again, the same cache now warm.

pip reads no configuration file here (``PIP_CONFIG_FILE=/dev/null``, no index or find-links
variables), so both download from PyPI only. Downloads dominate the cold columns: the figures depend on the
network. Run: python benchmarks/method_install.py [METHOD ...] (default gplearn operon hroch ffx).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from srbf.methods import install, roster

DEFAULT = ("gplearn", "operon", "hroch", "ffx")
COLUMNS = ("pip, unlocked, no cache", "pip, lock, no cache", "uv, lock, empty cache", "uv, lock, warm cache")


def timed_install(name: str, env: dict[str, str], *, latest: bool) -> float:
    """Wall seconds of one forced install of ``name`` under the environment variables ``env``."""
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        t0 = time.perf_counter()
        install.install(roster.get(name), force=True, latest=latest, echo=lambda line: None)
        return time.perf_counter() - t0
    finally:
        os.environ.clear()
        os.environ.update(saved)


def main(names: list[str]) -> None:
    if shutil.which("uv") is None:
        sys.exit("method_install.py: needs uv on PATH")
    scratch = Path(tempfile.mkdtemp(prefix="srbf-install-bench-"))
    sources = {"PIP_FIND_LINKS", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_NO_INDEX", "PIP_CONSTRAINT",
               "PIP_CONFIG_FILE"}
    base = {k: v for k, v in os.environ.items() if k not in sources and not k.startswith("UV_")}
    base["SRBF_HOME"] = str(scratch / "home")
    pip = dict(base, SRBF_INSTALLER="pip", PIP_NO_CACHE_DIR="1", PIP_CONFIG_FILE=os.devnull)
    rows = []
    try:
        for name in names:
            uv = dict(base, UV_CACHE_DIR=str(scratch / f"uv-cache-{name}"))
            seconds = [
                timed_install(name, pip, latest=True),  # pip without uv and with --latest: no lock
                timed_install(name, pip, latest=False),
                timed_install(name, uv, latest=False),
                timed_install(name, uv, latest=False),
            ]
            rows.append((name, seconds))
            print(f"{name}: " + ", ".join(f"{c} {s:.1f} s" for c, s in zip(COLUMNS, seconds)), flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print("\n| method | " + " | ".join(COLUMNS) + " |")
    print("| --- |" + " ---: |" * len(COLUMNS))
    for name, seconds in rows:
        print(f"| {name} | " + " | ".join(f"{s:.1f} s" for s in seconds) + " |")


if __name__ == "__main__":
    main(sys.argv[1:] or list(DEFAULT))
