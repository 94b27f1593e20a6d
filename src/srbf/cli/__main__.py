"""``python -m srbf.cli``: the same as the ``srbf`` command."""

import sys

from srbf.cli import main

sys.exit(main())
