"""Print, as one line of JSON, the Python version of this interpreter and the installed versions
of the distributions named on the command line (null for one that is not installed).

Run by path under a method's interpreter (``srbf.methods.stack``), like ``worker_main.py``, so it
sees the same ``sys.path`` as the method's worker. Standalone: it imports nothing of srbf and reads
package metadata only, importing none of the packages (a few milliseconds, whatever they weigh).
"""

import json
import platform
import sys
from importlib import metadata


def version(name: str):
    try:
        return metadata.version(name)
    except Exception:  # not installed, or broken metadata: unknown
        return None


if __name__ == "__main__":
    print(json.dumps({"python": platform.python_version(), "versions": {n: version(n) for n in sys.argv[1:]}}))
