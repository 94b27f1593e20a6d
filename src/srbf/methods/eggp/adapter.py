"""eggp (e-graph genetic programming, de Franca & Kronberger) as an srbf method file.

Runs under the method's own interpreter (``pip install numpy eggp==2.2.2``); imports only the
standard library, NumPy and eggp. What the adapter sets, for every method alike:

- **budget** -> ``gen``, the number of generations;
- **operators** -> ``nonterminals``: the options ``unary`` and ``binary`` (srbf operator names; by
  default the benchmark's ``sin cos exp log sqrt`` and ``add sub mul div``) in eggp's names
  (eggp's own default is ``add,sub,mul,div``); operators eggp lacks are listed in
  ``operators_unavailable``;
- **seed**: eggp has no seed parameter (its Haskell core draws its own), so a fit cannot be
  repeated exactly; the result says so (``reproducible: false``).

Everything else keeps eggp's defaults (``nPop=100``, ``maxSize=15``, MSE, ...; ``maxSize`` is
recorded in ``size_limit``); the option ``params`` may override them for side experiments, never
the budget or the operators. eggp starts its Haskell runtime with 4 capabilities (``-N4``) unless
``GHCRTS`` says otherwise; a config can set that in ``env``.

Output. eggp's results table gives each expression twice: as display text
(``(Sqrt(x0) ^ -0.5)``: fully bracketed, constants in Haskell's shortest exact form) and as NumPy
code over ``x[:, i]`` and parameters ``t[j]``, which ``EGGP.predict`` evaluates. The NumPy code
drops the brackets of a power inside a power: the display's ``((a ^ b) ^ c)`` becomes
``a ** b ** c``, which Python reads as ``a ** (b ** c)``, so for such models ``predict``
disagrees with the model eggp fitted (its reported training loss is that of the display form).
The adapter therefore writes the display text in the problem's variable names (``x3`` is
``variables[3]``, ``^`` is ``**``, ``Recip`` is ``inv``); no parse hints are needed. The fit runs
with ``trace=True`` (all visited expressions, numbered in the order they were created); from that
trace come the returned expression (lowest training loss, as ``EGGP.predict`` picks), the front
(the Pareto set of size against training loss) and ``trajectory_by_evaluation``: the best-so-far
expression each time it improved, with its creation number and generation (``id // nPop``). eggp
reports nothing while it runs, so those steps carry no timestamps and ``report`` is called once,
with the final expression.
"""

import os
import sys
import time

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "shared"))
import _shared  # noqa: E402  the adapters' shared helpers: srbf/methods/shared/_shared.py

NAME = "eggp"
OPTION_DEFAULTS = {"unary": list(_shared.DEFAULT_UNARY), "binary": list(_shared.DEFAULT_BINARY),
                   "params": {}}
NONTERMINALS = _shared.EGRAPH_NONTERMINALS  # srbf operator name -> eggp nonterminal

_eggp = None


def setup(options):
    """Import eggp and start its Haskell runtime once per worker (not part of any fit)."""
    global _eggp
    import eggp

    eggp.version()  # initialises the GHC runtime
    _eggp = eggp


def nonterminals(operators):
    """eggp's ``nonterminals`` for srbf operator names, and the names eggp has no match for."""
    return _shared.egraph_nonterminals(NAME, "eggp", operators)


def generations(budget):
    return _shared.positive_integer(NAME, budget, "generations")


parse_theta = _shared.parse_theta
read_rows = _shared.read_trace  # the trace as plain dicts with a finite training loss, in creation order
pareto = _shared.pareto
improvements = _shared.improvements  # with the population size: each step's generation


def to_infix(display, variables):
    """eggp's display text of an expression as srbf infix over ``variables``."""
    return _shared.egraph_infix(NAME, display, variables)


def _by_loss(row):
    return row["loss"]


def best_row(rows):
    """The lowest training loss (first found among ties), as ``EGGP.predict`` chooses."""
    return _shared.lowest(rows, _by_loss)


def fit(X, y, *, budget, seed, variables, options, report):
    options = _shared.with_defaults(options, OPTION_DEFAULTS)
    gen = generations(budget)
    nts, missing = nonterminals(options["unary"] + options["binary"])
    if _eggp is None:
        setup(options)
    model = _eggp.EGGP(gen=gen, nonterminals=nts, trace=True, **options["params"])
    t0 = time.perf_counter()
    model.fit(X, y)
    fit_seconds = time.perf_counter() - t0
    result = _shared.trace_result(NAME, "eggp", getattr(model, "results", None), _by_loss, variables, fit_seconds,
                                  population=model.get_params().get("nPop"))
    report(result["expression"])
    result.update({
        "knob": {"gen": gen},
        "nonterminals": nts,
        "operators_unavailable": missing,
        "size_limit": {"maxSize": model.get_params().get("maxSize")},
        "reproducible": False,
        "seed_note": "eggp has no seed parameter; seed %d was not used by the search" % seed,
        "package": {"name": "eggp", "version": getattr(_eggp, "VERSION", None)},
    })
    return result
