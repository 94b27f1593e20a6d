"""examples/quickstart.ipynb runs end to end in a kernel of this environment (nbclient), so it never goes stale."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

nbclient = pytest.importorskip("nbclient")
nbformat = pytest.importorskip("nbformat")
pytest.importorskip("ipykernel")

NOTEBOOK = Path(__file__).resolve().parents[2] / "examples" / "quickstart.ipynb"


def test_quickstart_notebook_runs_in_under_two_minutes(tmp_path, monkeypatch):
    kernels = tmp_path / "jupyter" / "kernels" / "python3"  # this interpreter, whatever else is installed
    kernels.mkdir(parents=True)
    (kernels / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "srbf tests", "language": "python"}))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    started = time.perf_counter()
    nbclient.NotebookClient(notebook, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    assert time.perf_counter() - started < 120
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert any("image/png" in o.get("data", {}) for o in outputs)  # the curve
    assert any("srbf results" in o.get("data", {}).get("text/html", "") for o in outputs)  # Results' summary
    assert (tmp_path / "quickstart-results" / "srbf.sqlite").is_file()
