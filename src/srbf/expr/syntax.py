"""What every formula reader shares: ``ParseError``, the ASCII-digit rule, NumPy's scalar reprs
read as the numbers they are, turning a name into a variable, constant or special number, and
building a call with its arity checked.

``parser.parse`` picks a reader (``infix`` or ``prefix``); both resolve names and build calls here,
so a formula means the same whichever notation it was written in.
"""

from __future__ import annotations

import re
from typing import Sequence

from srbf.core import SrbfError
from srbf.expr.operators import MODULE_PREFIXES, OPERATORS, lookup_function
from srbf.expr.tree import Call, Const, Expr, Num, Var

_GENERIC_COLUMN_RE = re.compile(r"^[xX]_?([0-9]+)$")
_SPECIAL_NUMBERS = {"inf": float("inf"), "infinity": float("inf"), "nan": float("nan")}
_CONSTANT_SPELLINGS = {"pi": "pi", "e": "e", "E": "e", "PI": "pi", "Pi": "pi"}
INFIX_SYMBOLS = {"+": "add", "-": "sub", "*": "mul", "/": "div", "**": "pow", "^": "pow"}
# NumPy 2 prints a scalar as its constructor call, np.float64(1.47) (np.longdouble('1.5') quoted),
# and methods that format their constants with repr() pass that on
_NUMPY_SCALAR_RE = re.compile(
    r"(?<![\w.])(?:np|numpy)\.(?:float(?:16|32|64|96|128)?|u?int(?:8|16|32|64)?|u?int[cp]|double|single|half"
    r"|longdouble|u?byte|u?short|u?long(?:long)?)\(\s*(['\"]?)"
    r"([-+]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|nan))\1\s*\)"
)


class ParseError(SrbfError, ValueError):
    """A formula that cannot be read. ``token`` and ``position`` (0-based offset) locate it."""

    def __init__(self, message: str, token: str = "", position: int = 0):
        super().__init__(message)
        self.token = token
        self.position = position


def check_digits(text: str, where: str | None = None, position: int | None = None) -> None:
    """Refuse a digit other than 0-9 (Python's float() would read ``٣`` as 3)."""
    if text.isascii():
        return
    for offset, char in enumerate(text):
        if char.isdigit() and not "0" <= char <= "9":
            at = where or f"position {offset}"
            raise ParseError(
                f"digit {char!r} (U+{ord(char):04X}) at {at}: only the ASCII digits 0-9 are read as numbers",
                char,
                offset if position is None else position,
            )


def numpy_scalars(text: str, *, brackets: bool) -> str:
    """``text`` with each NumPy scalar repr (``np.float64(1.47)``, ``np.int64(-3)``) replaced by
    its number, padded with spaces on the left to the same length, so that every position after
    it (in error messages) stays where it was. With ``brackets`` a signed number is bracketed, so
    that ``np.float64(-1.5)**2`` stays (-1.5)**2 (infix); without, it is the bare number (prefix)."""
    if "np." not in text and "numpy." not in text:
        return text

    def number(match: re.Match) -> str:
        value = match.group(2)
        if brackets and value[0] in "+-":
            value = f"({value})"
        return value.rjust(len(match.group(0)))

    return _NUMPY_SCALAR_RE.sub(number, text)


class NameResolver:
    """Turns an identifier into a variable or a constant, or says why it cannot."""

    def __init__(self, variables: Sequence[str] | None, *, one_based: bool, by_index: bool):
        self.variables = list(variables) if variables is not None else None
        self.known = set(self.variables or ())
        self.one_based = one_based
        self.by_index = by_index

    def resolve(self, name: str, pos: int) -> Expr:
        if self.variables is not None:
            if self.by_index:
                column = self.column(name)
                if column is not None:
                    return self._by_column(name, column, pos)
            if name in self.known:
                return Var(name)
        word = _strip_module(name)
        if word in _CONSTANT_SPELLINGS:
            return Const(_CONSTANT_SPELLINGS[word])
        if word.lower() in _SPECIAL_NUMBERS:
            return Num(_SPECIAL_NUMBERS[word.lower()])
        if self.variables is None:
            if lookup_function(name) is not None:
                raise ParseError(f"function {name!r} at position {pos} is used without arguments", name, pos)
            return Var(name)
        column = self.column(name)
        if column is not None:
            return self._by_column(name, column, pos)
        known = ", ".join(self.variables) or "none"
        raise ParseError(f"unknown variable {name!r} at position {pos} (known variables: {known})", name, pos)

    def column(self, name: str) -> int | None:
        match = _GENERIC_COLUMN_RE.match(name)
        if match is None:
            return None
        return int(match.group(1)) - (1 if self.one_based else 0)

    def _by_column(self, name: str, column: int, pos: int) -> Expr:
        if 0 <= column < len(self.variables):
            return Var(self.variables[column])
        base = "1-based" if self.one_based else "0-based"
        raise ParseError(
            f"unknown variable {name!r} at position {pos}: column {column} ({base}) does not exist, "
            f"the problem has {len(self.variables)} input column(s)",
            name,
            pos,
        )


def _strip_module(name: str) -> str:
    for prefix in MODULE_PREFIXES:
        if name.lower().startswith(prefix):
            return name[len(prefix):]
    return name


def fold_call(name: str, op: str, args: list[Expr], pos: int) -> Expr:
    """Build a call, checking arity; n-ary add/mul fold left and log(x, b) is log(x)/log(b)."""
    arity = OPERATORS[op].arity
    if op in ("add", "mul") and len(args) > 2:
        result = Call(op, (args[0], args[1]))
        for arg in args[2:]:
            result = Call(op, (result, arg))
        return result
    if op == "log" and len(args) == 2:
        return Call("div", (Call("log", (args[0],)), Call("log", (args[1],))))
    if len(args) != arity:
        raise ParseError(
            f"function {name!r} at position {pos} takes {arity} argument(s), got {len(args)}", name, pos
        )
    return Call(op, tuple(args))
