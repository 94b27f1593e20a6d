"""Record SymRegg's raw output for tests/methods/test_adapter_symregg.py: the same layout as eggp's
(see record_eggp.py). Run under an interpreter that has symregg::

    /tmp/env-symregg/bin/python tests/methods/recorded/record_symregg.py
"""

from record_eggp import main

if __name__ == "__main__":
    main("symregg")
