"""SymRegg (e-graph based symbolic regression, de Franca) as an srbf method file.

Runs under the method's own interpreter (``pip install numpy symregg==1.0.4``); imports only the
standard library, NumPy and symregg. What the adapter sets, for every method alike:

- **budget** -> ``gen``, a number of **evaluated expressions**, not of iterations (its docstring
  calls it "the number of generations"): SymRegg's search loop runs while its count of evaluated
  expressions is below ``gen``, the count starts at the size of its initial e-graph (one random
  expression, the variables and a parameter, after one round of equality saturation: a handful,
  up to about 20 on the nguyen and Feynman problems), and a search step counts only when it
  inserts and fits an expression the e-graph did not hold (``egraphSearch`` in its Search.hs).
  So a budget at or below that start runs no search step at all: on nguyen and the first 20
  Feynman formulas budgets 1, 2 and 4 never searched, 8 did not in 38% of fits, 16 always did;
  without a search the fit is the best of the initial e-graph (a constant, a variable, a
  constant plus a variable). The result's ``n_initial`` and ``n_inserted`` count the trace rows
  from the initial e-graph and from the search (0: no search step ran);
- **operators** -> ``nonterminals``: the options ``unary`` and ``binary`` (srbf operator names; by
  default the benchmark's ``sin cos exp log sqrt`` and ``add sub mul div``) in SymRegg's names
  (its own default is ``add,sub,mul,div``); operators it lacks are listed in
  ``operators_unavailable``;
- **seed**: SymRegg has no seed parameter (its Haskell core seeds itself once per process, and
  every fit in that process starts from the same state: a worker repeats its own fits of the
  same data, another process does not), so a fit cannot be repeated exactly; the result says so
  (``reproducible: false``).

Everything else keeps SymRegg's defaults (``alg="BestFirst"``, ``maxSize=15``, MSE, ...;
``maxSize`` is recorded in ``size_limit``); the option ``params`` may override them for side
experiments, never the budget or the operators.

Output. SymRegg's results table gives each expression as display text (``(Sqrt(x0) ^ -0.5)``:
fully bracketed, constants in Haskell's shortest exact form) and as NumPy code over ``x[:, i]``
and parameters ``t[j]``. As in eggp, the NumPy code drops the brackets of a power inside a power
(``((a ^ b) ^ c)`` becomes ``a ** b ** c``, read as ``a ** (b ** c)``), so the adapter writes the
display text in the problem's variable names (``x3`` is ``variables[3]``, ``^`` is ``**``,
``Recip`` is ``inv``); no parse hints are needed. The fit runs with ``trace=True``: every
evaluated expression, the initial e-graph's first (numbered down to 0), then each one the
search inserted, numbered by the count of evaluated expressions when it was inserted (so ids
grow with the search; the first search ids may repeat or skip initial ones). From the trace
come the returned expression (lowest training loss: the last row of SymRegg's own front; its
``predict`` takes the table's last row, which with ``trace=True`` is merely the newest), the
front (Pareto set of size against training loss) and ``trajectory_by_evaluation``: the
best-so-far expression each time it improved, in id order. SymRegg reports nothing while it
runs, so those steps carry no timestamps and ``report`` is called once, with the final
expression. SymRegg writes the data to a temporary CSV file in the current folder; the adapter
runs it inside a private temporary folder. With ``cbrt`` among its operators, SymRegg 1.0.4 did
not finish a budget of 15 on a small problem within minutes (the time limit ends such a fit).
"""

import os
import sys
import tempfile
import time

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "shared"))
import _shared  # noqa: E402  the adapters' shared helpers: srbf/methods/shared/_shared.py

NAME = "symregg"
OPTION_DEFAULTS = {"unary": list(_shared.DEFAULT_UNARY), "binary": list(_shared.DEFAULT_BINARY),
                   "params": {}}
NONTERMINALS = _shared.EGRAPH_NONTERMINALS  # srbf operator name -> SymRegg nonterminal (as eggp's)

_symregg = None


def setup(options):
    """Import SymRegg and start its Haskell runtime once per worker (not part of any fit)."""
    global _symregg
    import symregg

    symregg.version()  # initialises the GHC runtime
    _symregg = symregg


def nonterminals(operators):
    """SymRegg's ``nonterminals`` for srbf operator names, and the names it has no match for."""
    return _shared.egraph_nonterminals(NAME, "SymRegg", operators)


def generations(budget):
    """SymRegg's ``gen`` for a budget: the number of evaluated expressions at which it stops."""
    return _shared.positive_integer(NAME, budget, "evaluated expressions")


def initial_count(ids):
    """How many rows of SymRegg's trace table (its ``id`` column, in table order) come from its
    initial e-graph: it prints those first, numbered down to 0 (a number may print no row, id 0
    was missing in about a quarter of the roster's fits, and one expression may print under
    several numbers), then what the search inserted, numbered upwards from its count of
    evaluated expressions. So the initial rows are the leading run of falling ids; None for no
    rows or an id that is not a whole number."""
    try:
        ids = [int(i) for i in ids]
    except (TypeError, ValueError, OverflowError):
        return None
    if not ids:
        return None
    k = 1
    while k < len(ids) and ids[k] < ids[k - 1]:
        k += 1
    return k


parse_theta = _shared.parse_theta
read_rows = _shared.read_trace  # the trace as plain dicts with a finite training loss, in id order
pareto = _shared.pareto
improvements = _shared.improvements  # without a population: SymRegg has no generations


def to_infix(display, variables):
    """SymRegg's display text of an expression as srbf infix over ``variables``."""
    return _shared.egraph_infix(NAME, display, variables)


def _by_loss_then_size(row):
    return row["loss"], row["size"]


def best_row(rows):
    """The lowest training loss; among ties the smallest size (the end of SymRegg's front)."""
    return _shared.lowest(rows, _by_loss_then_size)


def fit(X, y, *, budget, seed, variables, options, report):
    options = _shared.with_defaults(options, OPTION_DEFAULTS)
    gen = generations(budget)
    nts, missing = nonterminals(options["unary"] + options["binary"])
    if _symregg is None:
        setup(options)
    model = _symregg.SymRegg(gen=gen, nonterminals=nts, trace=True, **options["params"])
    here = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="srbf-symregg-") as folder:
        os.chdir(folder)  # SymRegg writes its data file into the current folder
        try:
            t0 = time.perf_counter()
            model.fit(X, y)
            fit_seconds = time.perf_counter() - t0
        finally:
            os.chdir(here)
    result = _shared.trace_result(NAME, "SymRegg", getattr(model, "results", None), _by_loss_then_size, variables,
                                  fit_seconds)
    report(result["expression"])
    n_initial = initial_count(model.results["id"])
    result.update({
        "knob": {"gen": gen},
        "n_initial": n_initial,  # trace rows of the initial e-graph (no search step made them)
        "n_inserted": None if n_initial is None else result["n_visited"] - n_initial,  # by the search
        "nonterminals": nts,
        "operators_unavailable": missing,
        "size_limit": {"maxSize": model.get_params().get("maxSize")},
        "reproducible": False,
        "seed_note": "SymRegg has no seed parameter; seed %d was not used by the search" % seed,
        "package": {"name": "symregg", "version": getattr(_symregg, "VERSION", None)},
    })
    return result
