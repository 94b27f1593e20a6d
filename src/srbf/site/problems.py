"""What the explorer shows of the problems themselves: the sets, each problem's truth and what each
method returned for it, and how far the run has got (counts, not statistics).
"""

from __future__ import annotations

import re

import pandas as pd

from srbf.core import SrbfError
from srbf.site.analysis import table

FORMULA_LIMIT = 600  # characters of a returned formula kept for the problem page (the store keeps all)
_LONG_NUMBER = re.compile(r"(?<![\w.])(\d+\.\d{5,}(?:[eE][-+]?\d+)?|\d+\.?\d*[eE][-+]?\d+)")


def readable(formula) -> str:
    """A formula for reading: long decimals cut to four significant digits, length capped."""
    if not isinstance(formula, str):
        return ""
    text = _LONG_NUMBER.sub(lambda m: f"{float(m.group(0)):.4g}", formula)
    return text if len(text) <= FORMULA_LIMIT else text[:FORMULA_LIMIT] + " …"


def _shipped(name: str, version: int):
    """The shipped catalog ``name`` at ``version``, or None (a catalog file of the user's, or another version)."""
    from srbf.catalogs.loader import load_catalog

    try:
        catalog = load_catalog(str(name))
    except (SrbfError, OSError):  # a catalog srbf does not ship: the page says so
        return None
    return catalog if int(catalog.version) == int(version) else None


def sets_data(frame: pd.DataFrame) -> list[dict]:
    """Each problem set in the results: size, version, description and sources where srbf ships it."""
    out = []
    for (name, version), rows in frame.groupby(["catalog", "catalog_version"], sort=True):
        catalog = _shipped(name, version)
        out.append({
            "name": str(name), "version": int(version), "problems": int(rows["problem_id"].nunique()),
            "shipped": catalog is not None,
            "description": catalog.description if catalog is not None else "",
            "sources": [str(s) for s in catalog.sources] if catalog is not None else [],
            "license": str(catalog.license or "") if catalog is not None else "",
        })
    return out


def truths(frame: pd.DataFrame) -> pd.DataFrame:
    """catalog, problem_id, target, formula of every problem in the results (empty when not shipped)."""
    rows = []
    for (name, version), group in frame.groupby(["catalog", "catalog_version"], sort=True):
        catalog = _shipped(name, version)
        entries = {str(e.id): e for e in catalog.entries} if catalog is not None else {}
        for problem in sorted(group["problem_id"].astype(str).unique()):
            entry = entries.get(problem)
            rows.append({"catalog": str(name), "problem_id": problem,
                         "target": entry.target if entry is not None else "",
                         "formula": readable(entry.formula) if entry is not None else ""})
    return pd.DataFrame(rows, columns=["catalog", "problem_id", "target", "formula"])


def returned(frame: pd.DataFrame, metrics) -> pd.DataFrame:
    """Per method and problem, at the method's largest budget: the first draw's formula (readable),
    status, seconds and metrics (four significant digits, as the page shows them)."""
    rows = frame[~frame["placeholder"].eq(True)] if "placeholder" in frame.columns else frame
    largest = rows.groupby("method")["budget"].transform("max")
    rows = rows[rows["budget"] == largest].sort_values("draw", kind="stable")
    rows = rows.drop_duplicates(["method", "catalog", "problem_id"])
    columns = ["catalog", "problem_id", "method", "budget", "draw", "status", "seconds", *metrics]
    out = rows.reindex(columns=columns).copy()
    for column in ("seconds", *metrics):
        out[column] = [float(f"{v:.4g}") if isinstance(v, float) else v for v in out[column].astype(float)]
    out["formula"] = [readable(e) for e in rows["expression"]] if "expression" in rows.columns else ""
    return out.sort_values(["catalog", "problem_id", "method"]).reset_index(drop=True)


def progress(frame: pd.DataFrame) -> pd.DataFrame:
    """Per method, set and budget: problems with at least one finished draw, of the set's problems
    in the results, and the finished draws."""
    sizes = frame.groupby("catalog")["problem_id"].nunique()
    done = frame[~frame["placeholder"].eq(True)] if "placeholder" in frame.columns else frame
    counts = (done.groupby(["method", "catalog", "budget"])
              .agg(problems_done=("problem_id", "nunique"), draws_done=("draw", "size")).reset_index())
    grid = frame[["method", "catalog", "budget"]].drop_duplicates()
    out = grid.merge(counts, how="left", on=["method", "catalog", "budget"]).fillna(
        {"problems_done": 0, "draws_done": 0})
    out["problems"] = out["catalog"].map(sizes).astype(int)
    out[["problems_done", "draws_done"]] = out[["problems_done", "draws_done"]].astype(int)
    return out.sort_values(["method", "catalog", "budget"]).reset_index(drop=True)


def condition_data(frame: pd.DataFrame, metrics) -> dict:
    """Sets, progress and problems of one data condition."""
    return {"sets": sets_data(frame), "progress": table(progress(frame)), "truths": table(truths(frame)),
            "returned": table(returned(frame, [m for m in metrics if m in frame.columns]))}
