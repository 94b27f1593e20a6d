# Two commands on a fresh machine: `make demo` and `make test`. Both install srbf into .venv from
# the committed, hashed lock (requirements.lock), so every machine gets the stack CI tested.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
LOCK := requirements.lock
MATRIX := 3.11 3.12 3.13

# The roster methods the leaderboard runs (src/srbf/configs/leaderboard.yaml), each installed from its lock.
LEADERBOARD_METHODS := bingo deap_gp eggp ffx gplearn hroch itea jaxsr operon rils_rols symregg
LEADERBOARD_RESULTS := ./leaderboard-results

.PHONY: demo test test-fast leaderboard test-latest test-matrix lock lock-methods lock-check bench catalogs clean

$(STAMP): pyproject.toml $(LOCK)
	@start=$$(date +%s); \
	tools/install_from_lock.sh $(VENV) $(PYTHON) && \
	touch $(STAMP) && \
	echo "srbf installed from $(LOCK) in $$(( $$(date +%s) - start )) s"

# The demo's steps time themselves (src/srbf/demo.py); START, read when make starts, covers the install too.
demo: START := $(shell date +%s)
demo: $(STAMP)
	@$(BIN)/python -m srbf.demo && \
	echo "make demo: $$(( $$(date +%s) - $(START) )) s in all, every install included"

test: $(STAMP)
	$(BIN)/python -m pytest

# The edit-test loop: everything but the tests marked slow (`make test` still runs them all).
test-fast: $(STAMP)
	$(BIN)/python -m pytest -m "not slow"

# The published leaderboard (docs/leaderboard.md): the roster on the distilled core, noise-free and
# noisy, run, scored and analysed into leaderboard/ (report per condition, explorer, Parquet export
# with the stack table). Resumable: after a kill, the same command runs only the fits not yet stored.
leaderboard: START := $(shell date +%s)
leaderboard: $(STAMP)
	$(BIN)/srbf methods install $(LEADERBOARD_METHODS)
	$(BIN)/srbf run -c leaderboard --results $(LEADERBOARD_RESULTS)
	$(BIN)/srbf score --results $(LEADERBOARD_RESULTS)
	rm -rf leaderboard/report leaderboard/explorer leaderboard/fits.parquet leaderboard/stack.parquet
	$(BIN)/srbf analyze --results $(LEADERBOARD_RESULTS) --at-budget max --dpi 110 --condition 'n_support=512;noise=0' -o leaderboard/report/noise-free
	$(BIN)/srbf analyze --results $(LEADERBOARD_RESULTS) --at-budget max --dpi 110 --condition 'n_support=512;noise=0.01' -o leaderboard/report/noisy
	$(BIN)/srbf site build --results $(LEADERBOARD_RESULTS) --at-budget max -o leaderboard/explorer
	$(BIN)/srbf export --results $(LEADERBOARD_RESULTS) --metrics -o leaderboard/fits.parquet --stack leaderboard/stack.parquet
	@echo "make leaderboard: $$(( $$(date +%s) - $(START) )) s; leaderboard/ holds $$(du -sh leaderboard | cut -f1)"

# The newest versions pyproject.toml allows instead of the lock: finds drift on purpose.
test-latest:
	rm -rf .venv-latest && $(PYTHON) -m venv .venv-latest
	.venv-latest/bin/python -m pip install --quiet --upgrade uv
	VIRTUAL_ENV=.venv-latest .venv-latest/bin/uv pip install --quiet --upgrade -e ".[dev]"
	.venv-latest/bin/python -m pip list --format=freeze 2>/dev/null | grep -iE '^(numpy|scipy|sympy|pandas|statsmodels|pydantic)=='
	.venv-latest/bin/python -m pytest

# The suite under every supported Python, each installed from the lock (not part of `make test`).
# An interpreter is taken from PATH (python3.X) or from pyenv's versions folder.
test-matrix:
	@failed=""; for v in $(MATRIX); do \
		py=$$(ls -d $${PYENV_ROOT:-$$HOME/.pyenv}/versions/$$v*/bin/python$$v 2>/dev/null | tail -1); \
		[ -n "$$py" ] || py=$$(command -v python$$v); \
		if [ -z "$$py" ]; then echo "== Python $$v: not found" >&2; failed="$$failed $$v"; continue; fi; \
		rm -rf .venv-$$v && tools/install_from_lock.sh .venv-$$v $$py && \
		.venv-$$v/bin/python -m pytest -p no:cacheprovider > .venv-$$v/pytest.log 2>&1; \
		rc=$$?; echo "== Python $$v ($$py): $$(tail -1 .venv-$$v/pytest.log)"; \
		[ $$rc -eq 0 ] || failed="$$failed $$v"; \
	done; \
	if [ -n "$$failed" ]; then echo "test-matrix failed under:$$failed (logs: .venv-X/pytest.log)"; exit 1; fi

# Refresh the lock (newest versions pyproject.toml allows) and check it.
lock: $(STAMP)
	$(BIN)/python tools/lock.py --write --upgrade --uv $(BIN)/uv
	$(BIN)/python tools/lock.py --check

# Refresh every roster method's locks (src/srbf/methods/NAME/lock-pyX.Y.txt) and show the changes.
lock-methods: $(STAMP)
	$(BIN)/srbf methods lock all --python-version $(MATRIX)

lock-check: $(STAMP)
	$(BIN)/python tools/lock.py --check

# Performance figures (printed, not asserted). benchmarks/roster.py needs the method envs.
bench: $(STAMP)
	$(BIN)/python benchmarks/sampling.py
	$(BIN)/python benchmarks/catalog_load.py
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
	rm -rf $(VENV) .venv-latest $(addprefix .venv-,$(MATRIX)) .pytest_cache build src/*.egg-info
