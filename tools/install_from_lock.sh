#!/bin/sh
# Install srbf into the virtual environment VENV (created if missing) from the committed, hashed
# lock: first the lock's own hash-checked uv, then every locked package with uv, then srbf itself
# without dependencies. Falls back to pip, with a notice, where uv cannot be installed.
# Usage: tools/install_from_lock.sh VENV [PYTHON]     (PYTHON defaults to python3)
set -eu
venv=$1
python=${2:-python3}
root=$(cd "$(dirname "$0")/.." && pwd)
lock=$root/requirements.lock
[ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
"$venv/bin/python" -m pip --version >/dev/null 2>&1 || "$venv/bin/python" -m ensurepip --quiet
"$venv/bin/python" "$root/tools/lock.py" --print uv > "$venv/uv-bootstrap.txt"
if "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --require-hashes --no-deps \
        -r "$venv/uv-bootstrap.txt"; then
    VIRTUAL_ENV=$venv "$venv/bin/uv" pip install --quiet --require-hashes -r "$lock"
    VIRTUAL_ENV=$venv "$venv/bin/uv" pip install --quiet --no-deps -e "$root"
else
    echo "notice: uv could not be installed; installing $lock with pip (slower)" >&2
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --require-hashes -r "$lock"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps -e "$root"
fi
# A copy of the lock in the environment: srbf records its hash with every built-in method's results.
cp "$lock" "$venv/srbf-lock.txt"
