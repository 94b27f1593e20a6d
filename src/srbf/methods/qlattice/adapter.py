"""The QLattice (Abzu's feyn) as an srbf method file.

Runs under the method's own interpreter (``pip install numpy feyn==3.5.0``); imports only the
standard library, NumPy and feyn (with its pandas). The community QLattice runs locally without a
licence key; its EULA allows academic, personal and non-commercial use.

The search is feyn's own ``QLattice.auto_run`` loop, written out here so that the best model of
each epoch can be reported as it is found (``auto_run`` only draws it in a notebook). Each epoch:
sample models from the QLattice, fit them with the default criterion (BIC) and loss (MSE), prune,
and update the QLattice with them; at the end ``get_diverse_models`` picks the returned models.
What the adapter sets, for every method alike:

- **budget** -> ``n_epochs``;
- **seed** -> ``QLattice(random_seed=seed)``;
- **operators** -> ``function_names``: feyn's functions whose formula uses only operators of the
  options ``unary`` and ``binary`` (srbf names; by default the benchmark's ``sin cos exp log
  sqrt`` and ``add sub mul div``): ``add`` (+), ``multiply`` (*), ``inverse`` (1/x: div),
  ``squared`` (feyn computes x*x: mul), ``linear`` (a*x + b: add and mul), ``exp``, ``log``,
  ``sqrt`` and ``tanh``. ``gaussian`` (exp(-x**2/0.5)) is a composite of several operators, not
  one of them, and is never offered. By default that is every feyn function but ``tanh`` and
  ``gaussian``; feyn has no sin or cos (``operators_unavailable``).
- **types**: every input is numeric (``stypes`` "f"), as the benchmark's data are, instead of
  letting feyn guess categorical columns from few distinct values.

Everything else keeps ``auto_run``'s defaults (``max_complexity=10``, recorded in ``size_limit``;
criterion BIC; MSE; threads "auto"); the option ``params`` may change those four for side
experiments.

Output. The adapter writes a feyn model as infix over the problem's variables by walking its graph
with each element's parameters in full precision: inputs are scaled as feyn does,
``(x - scale_offset) * scale * w + bias``, the output as ``(v * w + bias) * scale``. No parse hints
are needed. feyn's ``predict`` protects some functions (it clips the arguments of ``exp``, ``log``,
``sqrt``, ``inverse`` and ``squared`` into a safe range); the formula is the plain one, so it can
differ from ``predict`` only where such a clip applies.
"""

import os
import sys
import time

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "shared"))
import _shared  # noqa: E402  the adapters' shared helpers: srbf/methods/shared/_shared.py

NAME = "qlattice"

# feyn function -> the srbf operators its formula needs (all of them must be in the vocabulary)
FUNCTIONS = {
    "add": {"add"},
    "multiply": {"mul"},
    "inverse": {"div"},
    "squared": {"mul"},  # feyn computes v * v
    "exp": {"exp"},
    "log": {"log"},
    "sqrt": {"sqrt"},
    "tanh": {"tanh"},
    "linear": {"add", "mul"},
}
# auto_run's defaults; options["params"] may change them for side experiments
DEFAULTS = {"max_complexity": 10, "criterion": "bic", "loss_function": None, "threads": "auto"}
OPTION_DEFAULTS = {"unary": list(_shared.DEFAULT_UNARY), "binary": list(_shared.DEFAULT_BINARY), "params": DEFAULTS}

_feyn = None
_pd = None


def setup(options):
    """Import feyn once per worker (not part of any fit)."""
    global _feyn, _pd
    import feyn
    import pandas

    _feyn, _pd = feyn, pandas


def epochs_of(budget):
    return _shared.positive_integer(NAME, budget, "epochs")


def function_names(operators):
    """feyn's ``function_names`` whose formulas use only ``operators`` (srbf names), in feyn's
    order, and the srbf operators none of them covers."""
    allowed = set(operators)
    chosen = [name for name, needs in FUNCTIONS.items() if needs <= allowed]
    covered = set().union(*(FUNCTIONS[name] for name in chosen)) if chosen else set()
    uncovered = _shared.unavailable(operators, covered)
    if not chosen:
        raise ValueError("%s: none of feyn's functions uses only the operators %r" % (NAME, list(operators)))
    return chosen, uncovered


_number = _shared.number  # full precision, bracketed when negative


def element_infix(fname, params, args, name_of_input):
    """One element of a feyn model as infix, given its children's infix ``args``."""
    p = params
    if fname == "in-linear:0":
        x = name_of_input
        if float(p.get("scale_offset", 0.0)) != 0.0:
            x = "(%s - %s)" % (x, _number(p["scale_offset"]))
        return "(%s * %s * %s + %s)" % (x, _number(p["scale"]), _number(p["w"]), _number(p["bias"]))
    if fname == "out-linear:1":
        return "((%s * %s + %s) * %s)" % (args[0], _number(p["w"]), _number(p["bias"]), _number(p["scale"]))
    if fname == "linear:1":
        return "(%s * %s + %s)" % (args[0], _number(p["w"]), _number(p["bias"]))
    if fname == "add:2":
        return "(%s + %s)" % (args[0], args[1])
    if fname == "multiply:2":
        return "(%s * %s)" % (args[0], args[1])
    if fname == "inverse:1":
        return "(1 / %s)" % args[0]
    if fname == "squared:1":
        return "(%s ** 2)" % args[0]
    if fname in ("exp:1", "log:1", "sqrt:1", "tanh:1"):
        return "%s(%s)" % (fname.split(":")[0], args[0])
    raise ValueError("feyn element %r cannot be written as a formula" % fname)


def model_infix(elements, variable_of):
    """A feyn model, given as a list of ``(fname, input name, params, children)`` in element
    order (element 0 is the output), as infix; ``variable_of`` maps feyn input names to srbf's."""
    done = {}

    def visit(i):
        if i not in done:
            fname, name, params, children = elements[i]
            args = [visit(c) for c in children]
            done[i] = element_infix(fname, params, args, variable_of.get(name, name))
        return done[i]

    return visit(0)


def _elements(model):
    return [(e.fname, e.name, dict(e.params), list(e.children)) for e in model]


def fit(X, y, *, budget, seed, variables, options, report):
    options = _shared.with_defaults(options, OPTION_DEFAULTS)
    epochs = epochs_of(budget)
    names, uncovered = function_names(options["unary"] + options["binary"])
    params = options["params"]
    max_complexity = int(params["max_complexity"])
    if _feyn is None:
        setup(options)
    feyn = _feyn

    inputs = ["in%d" % i for i in range(X.shape[1])]  # feyn-safe column names, mapped back below
    variable_of = dict(zip(inputs, variables))
    output = "out"
    data = _pd.DataFrame({name: X[:, i] for i, name in enumerate(inputs)})
    data[output] = y
    stypes = {name: "f" for name in inputs + [output]}

    def infix(model):
        return model_infix(_elements(model), variable_of)

    t0 = time.perf_counter()
    ql = feyn.QLattice(random_seed=int(seed))
    feyn.validate_data(data, "regression", output, stypes)
    threads = params["threads"]
    if threads == "auto":
        threads = feyn.tools.infer_available_threads()
    ql.update_priors(feyn.tools.estimate_priors(data, output))
    models, tried, per_epoch = [], 0, []
    for epoch in range(1, epochs + 1):
        sample = ql.sample_models(inputs, output, "regression", stypes, max_complexity, None, names)
        models += sample
        tried += len(sample)
        models = feyn.fit_models(models, data=data, loss_function=params["loss_function"],
                                 criterion=params["criterion"], n_samples=None, sample_weights=None,
                                 threads=threads)
        models = feyn.prune_models(models)
        if models:
            incumbent = infix(models[0])
            report(incumbent)
            per_epoch.append({"epoch": epoch, "expression": incumbent, "bic": float(models[0].bic),
                              "loss": float(models[0].loss_value), "models_tried": tried})
        ql.update(models)
    chosen = feyn.get_diverse_models(models)
    fit_seconds = time.perf_counter() - t0
    if not chosen:
        raise RuntimeError("the QLattice returned no model")
    best = chosen[0]
    expression = infix(best)
    report(expression)
    return {
        "expression": expression,
        "front": [{"expression": infix(m), "complexity": int(m.edge_count), "loss": float(m.loss_value),
                   "bic": float(m.bic)} for m in chosen],
        "fit_seconds": fit_seconds,
        "loss_train": float(best.loss_value),
        "bic": float(best.bic),
        "complexity": int(best.edge_count),
        "trajectory_by_epoch": per_epoch,
        "models_tried": tried,
        "knob": {"n_epochs": epochs},
        "function_names": names,
        "operators_unavailable": uncovered,
        "size_limit": {"max_complexity": max_complexity},
        "threads": threads,
        "reproducible": True,
        "package": {"name": "feyn", "version": getattr(feyn, "__version__", None)},
    }
