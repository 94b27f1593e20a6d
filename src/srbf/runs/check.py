"""``srbf check``: run a config's methods on two real problems, naming every step, before a long run.

The steps, in order: load config, load catalog, sample, then per method configuration: start
worker, fit, parse, evaluate, score. Each prints one line; the first step that breaks stops the
check with what went wrong (the method's error and output tail, the parse error, ...). Nothing is
written to the results store. ``run_check(path, score=...)`` returns a ``CheckReport``; the last
step's scorer is passed in, since the judge is a layer above runs: ``srbf.cli.check.run_check``
passes the judge's, and is what ``srbf check`` and the test ``srbf new`` writes call.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from srbf.core import SrbfError

__all__ = ["STEPS", "CheckFailed", "CheckReport", "Scorer", "run_check"]

STEPS = ("load config", "load catalog", "sample", "start worker", "fit", "parse", "evaluate", "score")
N_PROBLEMS = 2
MAX_NON_FINITE = 0.01  # of the support points: more, and the check fails


class CheckFailed(SrbfError):
    """A step broke; ``step`` names it and the message says why."""

    def __init__(self, step: str, message: str):
        self.step = step
        super().__init__(message)


@dataclass
class CheckReport:
    """The lines printed, and the step that broke (None when every step passed)."""

    lines: list[str] = field(default_factory=list)
    failed_step: str | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.failed_step is None

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


def _indent(text: str, prefix: str = "      ") -> str:
    return "\n".join(prefix + line for line in text.rstrip().splitlines())


# score(plan_fit, problem, expression) -> the score step's detail line; raises when scoring breaks
Scorer = Callable[[Any, Any, str], str]


def run_check(path: str | Path, *, out: Callable[[str], None] | None = None, allow_large: bool = False,
              score: Scorer | None = None) -> CheckReport:
    """Check the config at ``path`` step by step; ``out`` receives each line as it is printed.
    ``allow_large``: accept more method configurations than the limit (``--allow-large``);
    ``score``: the last step (None: the step says it was skipped)."""
    report = CheckReport()

    def say(line: str) -> None:
        report.lines.append(line)
        if out is not None:
            out(line)

    def passed(step: str, detail: str, indent: str = "  ") -> None:
        say(f"{indent}ok      {step:<13} {detail}")

    try:
        _check(Path(path), passed, say, allow_large, score)
    except CheckFailed as failure:
        report.failed_step, report.error = failure.step, str(failure)
        say(f"  FAILED  {failure.step:<13} {_first(str(failure))}")
        rest = str(failure).strip().splitlines()[1:]
        if rest:
            say(_indent("\n".join(rest)))
        say(f"check failed at step '{failure.step}'")
        return report
    say("check passed: every step works on two problems; run it with srbf run -c " + str(path))
    return report


def _first(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[0] if lines else ""


def _check(path: Path, passed: Callable[..., None], say: Callable[[str], None], allow_large: bool,
           score: Scorer | None) -> None:
    from srbf.catalogs.model import CatalogError
    from srbf.runs.config import ConfigError, load_config
    from srbf.runs.plan import load_catalogs, make_plan
    from srbf.runs.problems import ProblemSource
    from srbf.runs.sealed import planning_seed

    try:
        config = load_config(path, allow_large=allow_large)
    except ConfigError as error:
        raise CheckFailed("load config", str(error)) from None
    variants = config.variants()
    passed("load config", f"{path}: experiment {config.experiment}, {len(variants)} method configuration(s)")

    try:
        catalogs = load_catalogs(config)
    except (CatalogError, OSError) as error:
        raise CheckFailed("load catalog", str(error)) from None
    passed("load catalog", ", ".join(f"{c.name} v{c.version} ({len(c)} problems)" for c in catalogs.values()))

    # Two real problems: the first draws of the run's first problems that sampling can realise.
    plan = make_plan(planning_seed(config, from_store=False), variants=variants[:1], catalogs=catalogs)
    source = ProblemSource(config)
    first = variants[0]
    chosen, skipped = [], []
    seen = set()
    for fit in plan.fits:
        ident = (fit.key.catalog, fit.key.problem_id)
        if fit.key.draw != 0 or fit.condition != first.conditions[0] or ident in seen:
            continue
        seen.add(ident)
        try:
            problem = source.problem(fit)
        except Exception as error:  # noqa: BLE001 - reported as the broken step
            raise CheckFailed("sample", f"{fit.key.catalog}/{fit.key.problem_id}: {type(error).__name__}: {error}")
        if problem.placeholder_reason is not None:
            skipped.append(f"{fit.key.catalog}/{fit.key.problem_id} ({problem.placeholder_reason})")
            continue
        chosen.append((fit, problem))
        if len(chosen) == N_PROBLEMS:
            break
    if not chosen:
        raise CheckFailed("sample", "no problem of this config can be sampled: " + "; ".join(skipped[:3]))
    described = ", ".join(
        f"{f.key.catalog}/{f.key.problem_id} ({len(p.y_support)} support + {len(p.y_validation)} validation points)"
        for f, p in chosen
    )
    passed("sample", described + (f"; skipped placeholder(s): {'; '.join(skipped)}" if skipped else ""))

    for variant in variants:
        _check_variant(variant, chosen, passed, say, score)


def _check_variant(variant, chosen, passed, say, score: Scorer | None) -> None:
    from srbf.expr import ParseError, parse
    from srbf.methods.doctor import precheck_python
    from srbf.methods.isolation import method_seed
    from srbf.methods.worker import WorkerStartError
    from srbf.runs.executor import new_worker
    from srbf.runs.prechecks import variant_param_problems
    from srbf.runs.plan import worker_spec
    from srbf.core import FitTask

    spec = worker_spec(variant)
    say(f"  method {variant.label}: {spec.method_file}")
    problems = precheck_python(variant.method.python) or variant_param_problems(variant)
    if problems:  # the method's own pre-checks (doctor's), its params (the estimator's), before a worker starts
        raise CheckFailed("start worker", "; ".join(problems))
    try:
        worker = new_worker(spec, start_timeout=600.0, tail_bytes=4096)
        worker.start()
    except WorkerStartError as error:
        raise CheckFailed("start worker", str(error)) from None
    try:
        info = worker.info
        passed(
            "start worker",
            f"pid {info.get('pid')}, Python {info.get('python')}, NumPy {info.get('numpy')}, "
            f"import and setup {info.get('setup_seconds', 0.0):.2f} s",
            indent="    ",
        )
        budget = variant.budgets[0]
        secret = os.urandom(32)  # as in a run, the method never gets the run seed (docs/fairness.md)
        for plan_fit, problem in chosen:
            where = f"{plan_fit.key.catalog}/{plan_fit.key.problem_id}"
            options = spec.options
            if spec.sees_truth:
                options["truth"] = plan_fit.entry.formula
            key = dataclasses.replace(plan_fit.key, method=variant.name, config_hash=variant.config_hash, budget=budget)
            task = FitTask(key, problem.X_support, problem.y_support, tuple(problem.variables), options,
                           variant.method.time_limit, problem.data_hash,
                           method_seed=method_seed(secret, key))  # fmt: skip
            result = worker.fit(task)
            if result.status != "ok":
                detail = f"{where}, budget {budget:g}: {result.status}: {result.error or ''}"
                if result.stderr_tail.strip():
                    detail += "\n\nthe method's last output:\n" + result.stderr_tail.rstrip()[-2000:]
                raise CheckFailed("fit", detail)
            shown = result.expression if len(result.expression) <= 70 else result.expression[:67] + "..."
            passed("fit", f"{where}, budget {budget:g}: {result.wall_seconds or 0:.3f} s: {shown}", indent="    ")
            variables = tuple(problem.variables)
            try:
                expr = parse(result.expression, variables)
            except ParseError as error:
                raise CheckFailed("parse", f"{where}: the formula does not parse: {error}\nformula: "
                                  f"{_shown(result.expression)}") from None  # fmt: skip
            passed("parse", f"{where}: a formula over {', '.join(variables)}", indent="    ")
            passed("evaluate", _evaluate(expr, result.expression, variables, problem, where), indent="    ")
            _score(score, plan_fit, problem, result.expression, where, passed)
    finally:
        worker.close()


def _evaluate(expr, expression: str, variables: tuple[str, ...], problem, where: str) -> str:
    """The evaluate step's line; CheckFailed when the formula is not finite on more than
    ``MAX_NON_FINITE`` of the support points (an adapter that writes its formula wrong)."""
    from srbf.expr import compile_expr

    counts = {}
    for name, X in (("support", problem.X_support), ("validation", problem.X_validation)):
        try:
            with np.errstate(all="ignore"):
                values = np.broadcast_to(np.asarray(compile_expr(expr, variables)(X), dtype=float), (len(X),))
        except Exception as error:  # noqa: BLE001 - reported as the broken step
            raise CheckFailed("evaluate", f"{where}: {type(error).__name__}: {error}\nformula: {_shown(expression)}") from None
        counts[name] = (int(np.count_nonzero(~np.isfinite(values))), len(X))
    bad, n = counts["support"]
    if bad > MAX_NON_FINITE * n:
        raise CheckFailed("evaluate", f"{where}: the formula is not finite on {bad} of {n} support points "
                          f"(more than {MAX_NON_FINITE:.0%})\nformula: {_shown(expression)}")  # fmt: skip
    bad_v, n_v = counts["validation"]
    note = "" if not bad_v else f" ({bad_v} of {n_v} validation values not finite: the judge fails such a formula)"
    return f"{where}: finite on {n - bad} of {n} support points{note}"


def _shown(expression: str, limit: int = 2000) -> str:
    return expression if len(expression) <= limit else expression[:limit] + f"... ({len(expression)} characters)"


def _score(score: Scorer | None, plan_fit, problem, expression: str, where: str, passed) -> None:
    if score is None:
        passed("score", "skipped: no scorer given (srbf check scores with the judge)", indent="    ")
        return
    try:
        detail = score(plan_fit, problem, expression)
    except Exception as error:  # noqa: BLE001 - reported as the broken step
        raise CheckFailed("score", f"{where}: {type(error).__name__}: {error}") from None
    passed("score", f"{where}: {detail}", indent="    ")
