"""Compile a tree once into a vectorised NumPy function, reusable across point sets.

The compiled function is a postfix program over NumPy kernels run on a value stack (no code
generation, no ``eval``, no recursion: a sum of 20,000 terms runs like a short one). Constant
subtrees are folded at compile time. Evaluation silences floating-point warnings and
returns NaN and inf as they arise, so a divergent formula is visible in its values, not the log.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from srbf.expr.operators import CONSTANTS, OPERATORS
from srbf.expr.tree import Const, Expr, Num, Var, variables_of

_LOAD, _CONSTANT, _UNARY, _BINARY = 0, 1, 2, 3


class CompiledFormula:
    """``f(X)`` for an (n, d) float64 array whose columns follow ``variables``; returns shape (n,)."""

    def __init__(self, expr: Expr, variables: Sequence[str]):
        self.expr = expr
        self.variables = tuple(variables)
        columns = {name: i for i, name in enumerate(self.variables)}
        try:
            self._program = _compile(expr, columns)
        except (KeyError, ValueError):  # an unknown variable is reported first, whatever else is wrong
            missing = sorted(variables_of(expr) - columns.keys())
            if missing:
                raise ValueError(
                    f"formula uses variable(s) {', '.join(missing)} that are not among the input columns "
                    f"({', '.join(self.variables) or 'none'})"
                ) from None
            raise

    def __call__(self, X: np.ndarray) -> np.ndarray:
        X = np.asarray(X, dtype=np.float64)
        if X.ndim == 1 and len(self.variables) == 1:
            X = X[:, None]
        if X.ndim != 2 or X.shape[1] != len(self.variables):
            raise ValueError(
                f"expected an array of shape (n, {len(self.variables)}) for variables "
                f"{', '.join(self.variables)}, got shape {X.shape}"
            )
        program = self._program
        if len(program) == 1 and program[0][0] == _CONSTANT:
            return np.full(X.shape[0], program[0][1])
        rows = np.ascontiguousarray(X.T)  # one contiguous row per variable: fast kernels
        with np.errstate(all="ignore"):
            out = _run(program, rows)
        out = np.asarray(out, dtype=np.float64)
        if out.shape != (X.shape[0],):
            out = np.full(X.shape[0], float(out))
        return out


def compile_expr(expr: Expr, variables: Sequence[str]) -> CompiledFormula:
    """Compile ``expr`` for inputs whose columns are named ``variables`` (in order)."""
    return CompiledFormula(expr, variables)


def _compile(expr: Expr, columns: dict[str, int]) -> list[tuple]:
    """The tree as a postfix program for a value stack (no recursion, so a sum of any length
    compiles and runs), with constant subtrees folded. An n-ary sum or product folds left.

    Compilation simulates the run's stack: each entry records whether the value is a constant
    and where its instructions start, so a node whose arguments are all constants replaces
    their instructions with one constant."""
    program: list[tuple] = []
    shadow: list[tuple[float | None, int]] = []  # (constant value or None, first instruction)
    work: list = [expr]
    while work:
        item = work.pop()
        if type(item) is tuple:  # apply an operator to the top `arity` values
            kernel, arity = item
            args = shadow[len(shadow) - arity:]
            del shadow[len(shadow) - arity:]
            start = args[0][1]
            if args[0][0] is not None and (arity == 1 or args[1][0] is not None):  # every argument a constant
                with np.errstate(all="ignore"):
                    value = float(kernel(*(np.float64(v) for v, _ in args)))
                del program[start:]
                program.append((_CONSTANT, value))
                shadow.append((value, start))
            else:
                program.append((_UNARY if arity == 1 else _BINARY, kernel))
                shadow.append((None, start))
            continue
        kind = type(item)
        if kind is Num or kind is Const:
            value = float(item.value) if kind is Num else CONSTANTS[item.name]
            shadow.append((value, len(program)))
            program.append((_CONSTANT, value))
        elif kind is Var:
            shadow.append((None, len(program)))
            program.append((_LOAD, columns[item.name]))
        else:
            kernel, args = OPERATORS[item.op].kernel, item.args
            if not args or len(args) > 2 and OPERATORS[item.op].arity != 2:
                raise ValueError(f"operator {item.op!r} applied to {len(args)} arguments")
            if len(args) <= 2:
                work.append((kernel, len(args)))
                work.extend(reversed(args))
            else:  # a0 a1 op a2 op ...: ((a0 op a1) op a2) ...
                for arg in reversed(args[2:]):
                    work.append((kernel, 2))
                    work.append(arg)
                work.append((kernel, 2))
                work.append(args[1])
                work.append(args[0])
    return program


def _run(program: list[tuple], rows: np.ndarray):
    stack: list = []
    push, pop = stack.append, stack.pop
    for code, operand in program:
        if code == _LOAD:
            push(rows[operand])
        elif code == _CONSTANT:
            push(operand)
        elif code == _UNARY:
            stack[-1] = operand(stack[-1])
        else:
            right = pop()
            stack[-1] = operand(stack[-1], right)
    return stack[-1]
