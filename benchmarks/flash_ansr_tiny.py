"""Train a tiny Flash-ANSR model offline on srbf's catalog formulas and print what it took.

Needs the method's environment (``srbf methods install flash_ansr``). Writes the training set
(srbf's engine, tokenizer, model, data-set and trainer configs, and the skeletons of the formulas
of srbf's catalogs: ``srbf.methods.flash_training``) into DIRECTORY, runs the package's own
trainer for STEPS steps on one CPU core and leaves the model in DIRECTORY/model, the directory
a config's ``options: {model: ...}`` names.

Run: python benchmarks/flash_ansr_tiny.py DIRECTORY [STEPS]   (default 1000 steps)
"""

from __future__ import annotations

import sys
import time

from srbf.methods import envs
from srbf.methods.flash_training import catalog_skeletons, train, write_training_set


def main(directory: str, steps: int) -> None:
    python = envs.resolve_python("env:flash_ansr")
    skeletons = catalog_skeletons()
    folder = write_training_set(directory, skeletons)
    started = time.perf_counter()
    report = train(folder, python, steps=steps)
    wall = time.perf_counter() - started
    print(f"skeletons from srbf's catalogs: {len(skeletons)} (longest {max(map(len, skeletons))} tokens)")
    print(f"model: {report['parameters']:,} parameters, {report['steps']} steps")
    print(f"training loop: {report['seconds']:.0f} s; whole run with imports and data workers: {wall:.0f} s")
    print(f"model directory: {report['model']} ({', '.join(report['files'])})")


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) == 3 else 1000)
