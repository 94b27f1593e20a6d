"""``python -m srbf``: the same as the ``srbf`` command (e.g. where the venv's bin is not on PATH)."""

import sys

from srbf.cli import main

sys.exit(main())
