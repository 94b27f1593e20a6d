"""Record Flash-ANSR's raw output for tests/methods/test_adapter_flash_ansr.py.

Run under the method's interpreter (which has flash-ansr, not srbf), with a trained model
directory (``python benchmarks/flash_ansr_tiny.py DIR`` makes one in DIR/model)::

    $SRBF_HOME/envs/flash_ansr/bin/python tests/methods/recorded/record_flash_ansr.py MODEL_DIR

It fits small problems through the adapter's ``run`` and writes ``flash_ansr.json``: per case the
points, the best candidate's prefix tokens (what the adapter reads), the package's own infix, the
adapter's srbf infix and **the package's own predictions** (``FlashANSR.predict``) on the support
points and on fresh points. A tiny model's formulas are poor; what is recorded is the conversion.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from record import fitted_case, load_adapter, write_recording  # noqa: E402


def main(model: str) -> None:
    adapter = load_adapter("flash_ansr")
    options = {"model": model, "emission": "constants"}  # the tiny model has no masking block

    def predict(estimator, X):
        return np.asarray(estimator.predict(X), dtype=float).ravel()

    raw = lambda r: r["prefix"]  # noqa: E731
    printout = lambda r: r["flash_infix"]  # noqa: E731
    cases = []
    for name, kind, variables, budget, seed in [
        ("poly_sin, 64 draws", "poly_sin", ("u", "v"), 64, 1),
        ("log_sqrt, 128 draws", "log_sqrt", ("m_1", "theta"), 128, 2),
        ("rational, 64 draws", "rational", ("x",), 64, 3),
        ("three, 128 draws", "three", ("a", "b", "c"), 128, 4),
    ]:
        case = fitted_case(adapter, name, kind, variables, budget, seed, options, predict, raw, printout)
        case["options"] = {"emission": "constants"}  # the model directory is this machine's
        cases.append(case)
    write_recording("flash_ansr", "flash-ansr", cases, "tests/methods/recorded/record_flash_ansr.py")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
