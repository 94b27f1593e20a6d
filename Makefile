# Two commands on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test bench catalogs clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/srbf catalogs list
	$(BIN)/python -m srbf.demo
	$(BIN)/srbf score --results srbf-results
	$(BIN)/srbf analyze --results srbf-results -o report
	@echo "Report: report/index.md"

test: $(STAMP)
	$(BIN)/python -m pytest

# Performance figures (printed, not asserted). benchmarks/roster.py needs the method envs.
bench: $(STAMP)
	$(BIN)/python benchmarks/sampling.py
	$(BIN)/python benchmarks/canonical.py
	$(BIN)/python benchmarks/judge.py
	$(BIN)/python benchmarks/worker_overhead.py
	$(BIN)/python benchmarks/overhead.py
	$(BIN)/python benchmarks/score.py
	$(BIN)/python benchmarks/analysis.py

# Rebuild the shipped catalogs from the reference data layer (needs ../shared).
catalogs: $(STAMP)
	$(BIN)/python tools/build_catalogs.py

clean:
	rm -rf $(VENV) .pytest_cache build src/*.egg-info
