"""Print, as one line of JSON, the Python version of this interpreter and the installed versions
of the distributions named on the command line (null for one that is not installed).

Run by path under a method's interpreter (``srbf.methods.stack``), like ``worker_main.py``, so it
sees the same ``sys.path`` as the method's worker. Standalone: it imports nothing of srbf and none
of the packages. It reads the installers' records (``NAME-VERSION.dist-info`` and ``.egg-info``
folders) along ``sys.path`` in order, the first one found winning as it does for
``importlib.metadata``, whose own import costs ten times the rest of this script.
"""

import json
import os
import re
import sys


def normalized(name):
    return re.sub(r"[-_.]+", "_", name).lower()


def versions(names):
    wanted = {normalized(name): name for name in names}
    found = {}
    for entry in sys.path:
        try:
            listing = sorted(os.listdir(entry or "."))
        except OSError:
            continue
        for item in listing:
            stem, _, suffix = item.rpartition(".")
            if suffix not in ("dist-info", "egg-info"):
                continue
            name, _, rest = stem.partition("-")
            version = rest.split("-")[0]  # an egg-info may go on with -pyX.Y
            name = wanted.get(normalized(name))
            if name is not None and version and name not in found:
                found[name] = version
    return {name: found.get(name) for name in names}


if __name__ == "__main__":
    print(json.dumps({"python": sys.version.split()[0], "versions": versions(sys.argv[1:])}))
