"""Record what gplearn, Operon, FFX, HROCH and DEAP output, for tests/methods/test_adapter_{gplearn,operon,
ffx,hroch,deap_gp}.py.

Run it under the interpreter of a method's own environment (which has the package, not srbf)::

    /tmp/env-gplearn/bin/python tests/methods/recorded/record.py gplearn
    $SRBF_HOME/envs/operon/bin/python tests/methods/recorded/record.py operon

It fits a few small problems through the adapter's ``run`` (and, for node kinds a short fit rarely
produces, builds models by hand with the package's own classes), then writes
``tests/methods/recorded/NAME.json``: per case the points, the package's raw output as the adapter
reads it (``raw``), the package's own printout, the adapter's srbf infix, and the **package's own
predictions** on the support points and on fresh evaluation points. The tests check, without the
package, that srbf's parse of the converted expression reproduces those predictions.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import platform
import sys
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
METHODS = HERE.parents[2] / "src" / "srbf" / "methods"  # one folder per method
PACKAGES = {"gplearn": "gplearn", "operon": "pyoperon", "ffx": "ffx", "hroch": "HROCH", "deap_gp": "deap"}


def load_adapter(name: str):
    """The folder's adapter.py, loaded as the worker loads it (its folder on sys.path, for the
    modules beside it; the adapter finds the shared helpers itself)."""
    folder = METHODS / name
    if str(folder) not in sys.path:
        sys.path.append(str(folder))
    spec = importlib.util.spec_from_file_location(f"srbf_adapter_{name}", folder / "adapter.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def problem(kind: str, seed: int, n: int = 64, n_eval: int = 32):
    """Support and evaluation points for a small problem of one of a few shapes."""
    rng = np.random.default_rng(seed)
    if kind == "poly_sin":  # y = x0**2 + sin(x1), both in [-2, 2]
        X = rng.uniform(-2, 2, (n + n_eval, 2))
        y = X[:, 0] ** 2 + np.sin(X[:, 1])
    elif kind == "log_sqrt":  # y = log(x0)*x1 + sqrt(x1), both in [0.5, 3]
        X = rng.uniform(0.5, 3, (n + n_eval, 2))
        y = np.log(X[:, 0]) * X[:, 1] + np.sqrt(X[:, 1])
    elif kind == "rational":  # y = x0**3 - x0 + 1/(1 + x0**2), x0 in [-1.5, 1.5]
        X = rng.uniform(-1.5, 1.5, (n + n_eval, 1))
        y = X[:, 0] ** 3 - X[:, 0] + 1 / (1 + X[:, 0] ** 2)
    elif kind == "three":  # y = x0*x1 - exp(0.3*x2), all in [0.2, 2]
        X = rng.uniform(0.2, 2, (n + n_eval, 3))
        y = X[:, 0] * X[:, 1] - np.exp(0.3 * X[:, 2])
    else:
        raise ValueError(kind)
    return X[:n], y[:n], X[n:]


def small_problem(kind, seed, n=64, n_eval=32):
    rng = np.random.default_rng(seed)
    if kind == "poly_sin":  # x0**2 + sin(x1) on [-2, 2]^2
        X = rng.uniform(-2, 2, (n + n_eval, 2))
        y = X[:, 0] ** 2 + np.sin(X[:, 1])
    elif kind == "log_sqrt":  # log(x0)*x1 + sqrt(x1) on [0.5, 3]^2
        X = rng.uniform(0.5, 3, (n + n_eval, 2))
        y = np.log(X[:, 0]) * X[:, 1] + np.sqrt(X[:, 1])
    else:  # three: x0*x1 - exp(0.3*x2) on [0.2, 2]^3
        X = rng.uniform(0.2, 2, (n + n_eval, 3))
        y = X[:, 0] * X[:, 1] - np.exp(0.3 * X[:, 2])
    return X[:n], y[:n], X[n:]


def floats(a) -> list:
    return [float(v) for v in np.asarray(a, dtype=float).ravel()]


def fitted_case(adapter, name, kind, variables, budget, seed, options=None, predict=None, raw=None, printout=None):
    """Fit through the adapter; record its raw output and the package's own predictions."""
    X, y, X_eval = problem(kind, seed)
    trajectory = []
    model, result = adapter.run(X, y, budget=budget, seed=seed, variables=variables, options=options or {},
                                report=trajectory.append)  # fmt: skip
    return {
        "name": name,
        "variables": list(variables),
        "budget": budget,
        "seed": seed,
        "options": options or {},
        "X": [floats(r) for r in X],
        "y": floats(y),
        "X_eval": [floats(r) for r in X_eval],
        "raw": raw(result),
        "printout": printout(result),
        "expression": result["expression"],
        "predictions": floats(predict(model, X)),
        "predictions_eval": floats(predict(model, X_eval)),
        "trajectory": trajectory,
        "front": [f["expression"] for f in result.get("front", [])],
        "internals": {k: v for k, v in result.items() if k in (
            "protected_guard_points", "operators", "operators_unavailable", "size_limit", "generations_run",
            "evaluations", "stopped_early", "length", "complexity", "score", "loss", "num_bases",
        )},  # fmt: skip
    }


def built_case(name, variables, X, X_eval, raw, printout, expression, predictions, predictions_eval, note):
    return {
        "name": name,
        "variables": list(variables),
        "X": [floats(r) for r in X],
        "X_eval": [floats(r) for r in X_eval],
        "raw": raw,
        "printout": printout,
        "expression": expression,
        "predictions": floats(predictions),
        "predictions_eval": floats(predictions_eval),
        "note": note,
    }


# --- gplearn -------------------------------------------------------------------------------------


def record_gplearn(adapter):
    from gplearn._program import _Program
    from gplearn.functions import _function_map

    def predict(model, X):
        return model.predict(X)

    raw = lambda r: r["program_tokens"]  # noqa: E731
    printout = lambda r: r["program"]  # noqa: E731
    cases = [
        fitted_case(adapter, "poly_sin default operators", "poly_sin", ("u", "v"), 4, 1, None, predict, raw, printout),
        fitted_case(adapter, "log_sqrt all gplearn functions", "log_sqrt", ("m_1", "theta"), 4, 2,
                    {"unary": ["sqrt", "log", "abs", "neg", "inv", "sin", "cos", "tan"],
                     "binary": ["add", "sub", "mul", "div", "max", "min"]},
                    predict, raw, printout),  # fmt: skip
        fitted_case(adapter, "rational one variable", "rational", ("x",), 3, 3, None, predict, raw, printout),
    ]
    # A program built by hand with every function, on points that hit the protections' guards.
    f = _function_map
    program = [f["add"], f["div"], 0, f["sub"], 1, 0.5, f["add"], f["log"], 1, f["add"], f["inv"],
               f["sub"], 0, 1, f["add"], f["sqrt"], f["neg"], 0, f["max"], f["abs"], 1,
               f["min"], f["tan"], 0, f["cos"], f["sin"], -0.25]  # fmt: skip
    prog = _Program(function_set=[f[k] for k in sorted(f)], arities={1: [], 2: []}, init_depth=(2, 6),
                    init_method="half and half", n_features=2, const_range=(-1, 1), metric=None,
                    p_point_replace=0.05, parsimony_coefficient=0.001, random_state=np.random.RandomState(0),
                    program=program)  # fmt: skip
    rng = np.random.default_rng(7)
    X = rng.uniform(-2, 2, (40, 2))
    X[:4, 1] = [0.5, 0.5004, 0.0, -0.0005]  # div guard (x1 - 0.5) and log guard (x1)
    X[4:6, 0] = X[4:6, 1] + np.array([0.0002, -0.0009])  # inv guard (x0 - x1)
    X_eval = rng.uniform(-2, 2, (20, 2))
    tokens = adapter.program_tokens(prog)
    variables = ("a", "b")
    cases.append(built_case(
        "built: every function, guards hit on the first 6 support rows", variables, X, X_eval, tokens, str(prog),
        adapter.to_infix(tokens, variables), prog.execute(X), prog.execute(X_eval),
        "gplearn's protected div/log/inv differ from the srbf formula where a guard is active",
    ))  # fmt: skip
    cases[-1]["guard_rows"] = [int(i) for i in np.flatnonzero(adapter.guard_mask(tokens, X))]
    return cases


# --- operon --------------------------------------------------------------------------------------


def record_operon(adapter):
    import pyoperon as op

    def predict(model, X):
        return model.predict(X)

    raw = lambda r: r["tree_nodes"]  # noqa: E731
    printout = lambda r: r["model"]  # noqa: E731
    cases = [
        fitted_case(adapter, "poly_sin default operators", "poly_sin", ("u", "v"), 20, 1, None, predict, raw, printout),
        fitted_case(adapter, "log_sqrt wide operator set", "log_sqrt", ("m_1", "theta"), 20, 2,
                    {"unary": ["sin", "cos", "exp", "log", "sqrt", "square", "abs", "tanh", "cbrt", "atan"],
                     "binary": ["add", "sub", "mul", "div", "pow", "max", "min"]},
                    predict, raw, printout),  # fmt: skip
        fitted_case(adapter, "three variables, two objectives (front)", "three", ("p", "q", "r"), 20, 3,
                    {"params": {"objectives": ["r2", "length"]}}, predict, raw, printout),  # fmt: skip
    ]
    # the front of the two-objective case, with Operon's own predictions per model
    X, y, X_eval = problem("three", 3)
    model, result = adapter.run(X, y, budget=20, seed=3, variables=("p", "q", "r"),
                                options={"params": {"objectives": ["r2", "length"]}}, report=lambda s: None)  # fmt: skip
    columns = {h: i for i, h in enumerate(model.variables_)}
    for i, entry in enumerate(model.pareto_front_):
        nodes = adapter.tree_nodes(entry["tree"], columns)
        cases.append(built_case(
            f"three variables, front model {i}", ("p", "q", "r"), X, X_eval, nodes, entry["model"],
            adapter.to_infix(nodes, ("p", "q", "r")), model.evaluate_model(entry["tree"], X),
            model.evaluate_model(entry["tree"], X_eval), "a model of pareto_front_ (objectives r2, length)",
        ))  # fmt: skip
    # every node kind the adapter spells, in one tree built by hand (postfix; first argument last)
    N = op.Node
    rng = np.random.default_rng(11)
    X = rng.uniform(0.2, 1.5, (40, 2))
    X_eval = rng.uniform(0.2, 1.5, (20, 2))
    h = {v.Name: v.Hash for v in op.Dataset(np.asfortranarray(X)).Variables}

    def var(name, w):
        node = N.Variable(w)
        node.HashValue = h[name]
        return node

    def k(v):
        return N.Constant(v)

    def fn(kind, arity=None):
        node = N(getattr(op.NodeType, kind))
        if arity is not None:
            node.Arity = arity  # Operon's n-ary and unary forms of + - * /
        return node

    pieces = [
        [var("X1", 0.75), var("X2", -1.25), fn("Aq")],  # aq(-1.25*X2, 0.75*X1): the first argument is last
        [var("X1", 1.5), fn("Logabs")],
        [k(0.3), var("X2", 2.0), fn("Powabs")],
        [var("X2", 0.5), fn("Log1p")],
        [var("X1", -1.0), fn("Sqrtabs")],
        [var("X1", 1.0), var("X2", 1.0), fn("Fmin")],
        [var("X1", 0.25), k(0.6), fn("Fmax")],
        [var("X2", 1.1), fn("Square")],
        [var("X1", 3.0), fn("Cbrt")],
        [var("X2", 0.7), fn("Tanh")],
        [k(1.7), var("X1", 1.0), fn("Pow")],
        [var("X2", 0.6), fn("Asin")],
        [var("X1", 0.4), fn("Acos")],
        [var("X2", 1.0), fn("Atan")],
        [var("X1", 0.5), fn("Sinh")],
        [var("X2", 0.5), fn("Cosh")],
        [var("X1", 1.0), fn("Tan")],
        [var("X2", 1.3), fn("Exp")],
        [var("X1", 2.0), fn("Log")],
        [var("X2", 1.0), fn("Sqrt")],
        [var("X1", 1.0), fn("Abs")],
        [var("X2", 1.0), fn("Cos"), var("X1", 1.0), fn("Sin"), fn("Div")],
        [var("X1", 1.0), var("X2", 1.0), fn("Sub")],
        [var("X2", 0.5), var("X1", 2.0), k(7.5), fn("Sub", 3)],  # 7.5 - 2*X1 - 0.5*X2
        [var("X2", 0.5), var("X1", 2.0), k(7.5), fn("Div", 3)],  # 7.5 / (2*X1) / (0.5*X2)
        [var("X2", 1.5), fn("Sub", 1)],  # -(1.5*X2)
        [var("X1", 1.5), fn("Div", 1)],  # 1/(1.5*X1)
        [var("X1", 1.0), var("X2", 2.0), k(0.5), fn("Mul", 3)],
    ]
    nodes = list(pieces[0])
    for piece in pieces[1:]:
        nodes = nodes + piece + [fn("Add")]
    tree = op.Tree(nodes).UpdateNodes()
    dtable = op.DispatchTable()
    columns = {h["X1"]: 0, h["X2"]: 1}
    raw_nodes = adapter.tree_nodes(tree, columns)
    evaluate = lambda Z: op.Evaluate(dtable, tree, op.Dataset(np.asfortranarray(Z)), op.Range(0, Z.shape[0]))  # noqa: E731
    cases.append(built_case(
        "built: every node kind", ("a", "b"), X, X_eval, raw_nodes, op.InfixFormatter.Format(tree, {h["X1"]: "X1", h["X2"]: "X2"}, 6),
        adapter.to_infix(raw_nodes, ("a", "b")), evaluate(X), evaluate(X_eval), "a tree built with pyoperon.Node",
    ))  # fmt: skip
    return cases


# --- ffx -----------------------------------------------------------------------------------------


def record_ffx(adapter):
    from ffx.core.bases import OperatorBase, ProductBase, SimpleBase
    from ffx.core.constants import OP_ABS, OP_GTH, OP_LOG10, OP_LTH, OP_MAX0, OP_MIN0
    from ffx.core.models import ConstantModel, FFXModel

    cases = []
    for kind, variables, seed in (("log_sqrt", ("m_1", "theta"), 2), ("rational", ("x",), 3)):
        X, y, X_eval = problem(kind, seed)
        models, result = adapter.run(X, y, budget=1, seed=seed, variables=variables, options={}, report=lambda s: None)
        for i, (model, entry) in enumerate(zip(models, result["front"])):
            data = adapter.model_data(model)
            cases.append(built_case(
                f"{kind}: Pareto model {i}{' (returned)' if i == len(models) - 1 else ''}", variables, X, X_eval,
                data, str(model), entry["expression"], model.predict(X), model.predict(X_eval),
                "fitted by ffx.run; the last model is the one the adapter returns",
            ))  # fmt: skip
    # every basis kind by hand, with a denominator, on positive points (log10)
    rng = np.random.default_rng(5)
    X = rng.uniform(0.2, 3, (40, 2))
    X_eval = rng.uniform(0.2, 3, (20, 2))
    bases_n = [
        SimpleBase(0, 1.0), SimpleBase(1, -0.5), OperatorBase(SimpleBase(0, 0.5), OP_ABS),
        OperatorBase(SimpleBase(1, 1.0), OP_MAX0), OperatorBase(SimpleBase(0, -1.0), OP_MIN0),
        OperatorBase(SimpleBase(1, 1.0), OP_LOG10), OperatorBase(SimpleBase(0, 1.0), OP_GTH, 1.2345678),
        OperatorBase(SimpleBase(1, 1.0), OP_LTH, 0.87654321),
        ProductBase(SimpleBase(0, 1.0), OperatorBase(SimpleBase(1, 1.0), OP_LOG10)),
    ]  # fmt: skip
    bases_d = [SimpleBase(0, 1.0), ProductBase(SimpleBase(0, 1.0), SimpleBase(1, 1.0))]
    model = FFXModel([0.123456, 1.5, -2.25, 0.75, 3.1, -0.5, 1.25, 2.5, -1.75, 0.333], bases_n,
                     [0.25, -0.0125], bases_d, varnames=["x0", "x1"])  # fmt: skip
    data = adapter.model_data(model)
    cases.append(built_case("built: every basis kind, with a denominator", ("a", "b"), X, X_eval, data, str(model),
                            adapter.to_infix(data, ("a", "b")), model.predict(X), model.predict(X_eval),
                            "an FFXModel built by hand"))  # fmt: skip
    constant = ConstantModel(2.5, 2)
    data = adapter.model_data(constant)
    cases.append(built_case("built: a constant model", ("a", "b"), X, X_eval, data, str(constant),
                            adapter.to_infix(data, ("a", "b")), constant.predict(X), constant.predict(X_eval),
                            "FFX's ConstantModel"))  # fmt: skip
    return cases


# --- hroch ---------------------------------------------------------------------------------------


def record_hroch(adapter):
    from HROCH import SymbolicRegressor

    def predict(model, X):
        return model.predict(X)

    raw = lambda r: {"representation": r["representation"], "coefficients": r["coefficients"]}  # noqa: E731
    printout = lambda r: r["equation"]  # noqa: E731
    cases = [
        fitted_case(adapter, "poly_sin default operators", "poly_sin", ("u", "v"), 2000, 1, None, predict, raw, printout),
        fitted_case(adapter, "log_sqrt wide operator set", "log_sqrt", ("m_1", "theta"), 2000, 2,
                    {"unary": ["sin", "cos", "exp", "log", "sqrt", "neg", "inv", "square", "abs", "tanh", "cbrt"],
                     "binary": ["add", "sub", "mul", "div", "pow", "max", "min"]},
                    predict, raw, printout),  # fmt: skip
        fitted_case(adapter, "three variables", "three", ("p", "q", "r"), 2000, 3, None, predict, raw, printout),
    ]
    # HROCH's protected division and analytic quotient (outside the adapter's instruction sets)
    for instruction in ("pdiv", "aq"):
        X, y, X_eval = problem("log_sqrt", 4)
        model = SymbolicRegressor(problem={"nop": 0.01, "add": 1.0, "mul": 1.0, instruction: 2.0}, iter_limit=500,
                                  time_limit=0, random_state=9)  # fmt: skip
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.fit(X, y)
        chosen = next((m for m in model.models_ if instruction + "(" in m.m.str_representation), None)
        if chosen is None:
            raise RuntimeError(f"no model with {instruction} in the population; change the seed")
        rep, coeffs = chosen.m.str_representation, [float(c) for c in chosen.m.coeffs]
        cases.append(built_case(
            f"{instruction} from a HROCH population", ("m_1", "theta"), X, X_eval,
            {"representation": rep, "coefficients": coeffs}, chosen.equation,
            adapter.to_infix(rep, coeffs, ("m_1", "theta")), chosen.predict(X), chosen.predict(X_eval),
            f"a model of the final population that uses {instruction}",
        ))  # fmt: skip
    return cases


# --- deap_gp -------------------------------------------------------------------------------------


def record_deap_gp(adapter):
    from deap import gp

    def predict_with(options, n_variables):
        def predict(hall, X):
            opts = adapter.resolved_options(options)
            pset, _ = adapter._primitive_set(n_variables, opts["unary"], opts["binary"], opts["const_range"])
            func = gp.compile(hall[0], pset)  # DEAP's own evaluation: its compiled tree
            with np.errstate(all="ignore"):
                return np.broadcast_to(func(*X.T), (X.shape[0],))

        return predict

    raw = lambda r: r["program_tokens"]  # noqa: E731
    printout = lambda r: r["program"]  # noqa: E731
    wide = {"unary": ["sin", "cos", "exp", "log", "sqrt", "neg", "abs", "inv", "square", "cube", "tanh", "atan"],
            "binary": ["add", "sub", "mul", "div", "pow", "max", "min"]}  # fmt: skip
    return [
        fitted_case(adapter, "poly_sin default operators", "poly_sin", ("u", "v"), 10, 1, None,
                    predict_with({}, 2), raw, printout),  # fmt: skip
        fitted_case(adapter, "log_sqrt wide operator set", "log_sqrt", ("m_1", "theta"), 10, 2, wide,
                    predict_with(wide, 2), raw, printout),  # fmt: skip
        fitted_case(adapter, "three variables, larger trees", "three", ("p", "q", "r"), 10, 3,
                    {"init_depth": [2, 5]}, predict_with({"init_depth": [2, 5]}, 3), raw, printout),  # fmt: skip
    ]


def write_recording(name: str, package: str, cases: list, recorded_with: str) -> None:
    """tests/methods/recorded/NAME.json: the cases with the versions they were recorded under."""
    out = {
        "method": name,
        "package": package,
        "version": importlib.metadata.version(package),
        "numpy": np.__version__,
        "python": platform.python_version(),
        "recorded_with": recorded_with,
        "cases": cases,
    }
    path = HERE / f"{name}.json"
    path.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {path} ({len(cases)} cases)")


def main(argv):
    if len(argv) != 1 or argv[0] not in PACKAGES:
        sys.exit(f"usage: python record.py {{{','.join(PACKAGES)}}} (under the method's own interpreter)")
    name = argv[0]
    cases = globals()[f"record_{name}"](load_adapter(name))
    write_recording(name, PACKAGES[name], cases, "tests/methods/recorded/record.py")


if __name__ == "__main__":
    main(sys.argv[1:])
