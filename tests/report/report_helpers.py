"""The report tests' shared data and helpers: a synthetic long frame of per-prediction metrics, as
the scoring pass produces it (seeded), and the CLI run in this process. (A module of its own, not
conftest.py: tests/site has a conftest too, and both cannot be imported as ``conftest``.)"""

import math

import numpy as np
import pandas as pd

SETS = {"alpha": 12, "beta": 10, "gamma": 8}  # 30 problems
METHODS = {  # skill, seconds at budget 1, provenance
    "A": (1.0, 0.3, "author_blessed"),
    "B": (0.2, 1.0, "upstream_default"),
    "C": (-0.6, 4.0, "harness_tuned"),
}
BUDGETS = (1.0, 4.0, 16.0)
TIMES = (1.0, 10.0)


def long_frame(seed: int = 0, draws: int = 2) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    difficulty = {(c, i): rng.normal(0, 1) for c, n in SETS.items() for i in range(n)}
    rows = []
    for method, (skill, base, provenance) in METHODS.items():
        for (catalog, i), hard in difficulty.items():
            for budget in BUDGETS:
                for draw in range(draws):
                    latent = skill + 0.4 * math.log2(budget) - hard + rng.normal(0, 0.5)
                    success = float(rng.random() < 0.9)
                    ok = success == 1
                    rows.append({
                        "method": method, "catalog": catalog, "catalog_version": 1, "problem_id": f"p{i:02d}",
                        "draw": draw, "budget": budget,
                        "seconds": base * budget * math.exp(rng.normal(0, 0.1)) if ok else np.nan,
                        "provenance": provenance,
                        "success": success,
                        "nrr_validation": float(latent > 0.8) if ok else 0.0,
                        "srr_structure": float(latent > 1.2) if ok else 0.0,
                        "log10_fvu_validation": (-3 - 2 * latent + rng.normal(0, 0.3)) if ok else np.nan,
                        "token_count_mismatch": abs(rng.normal(0.4 - 0.1 * skill, 0.3)) if ok else np.nan,
                    })
    return pd.DataFrame(rows)


def serve_frame(monkeypatch, frame: pd.DataFrame) -> None:
    """Make the CLI read ``frame`` as if it were the scoring pass's output for any store."""
    import srbf.report.data

    monkeypatch.setattr(srbf.report.data, "load_long_frame", lambda results=None, **options: frame)


def run_cli(capsys, *argv):
    """``srbf ARGV`` in this process: exit code, stdout, stderr."""
    from srbf.cli import main

    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err
