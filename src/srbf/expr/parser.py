"""Read a formula string, in any spelling SR packages emit, into srbf's tree. Never evaluates it.

Accepted: Python/SymPy infix (``x0**2 + sin(x1)``), caret powers, a leading ``y =`` (or the
target's own name), function-call prefix (``add(mul(X0, X0), X1)``), capitalised and
module-prefixed names (``Sin``, ``np.sin``, ``Recip``), NumPy 2's scalar reprs as the numbers
they are (``np.float64(1.47)`` is 1.47), and prefix token lists (``+ x1 * 2.5 x2``). Variables are
matched by name; generic column names (``x0``, ``X_1``) are mapped to columns by index, 0-based
unless ``one_based=True``. A formula is untrusted input: it is tokenised and parsed by hand, and
every failure is a :class:`ParseError` naming the offending token and its position. The readers
are ``infix`` and ``prefix``; what they share (names, digits, calls) is in ``syntax``.
"""

from __future__ import annotations

import re
from typing import Sequence

from srbf.expr.infix import InfixParser
from srbf.expr.prefix import PrefixParser, prefix_from_string
from srbf.expr.syntax import NameResolver, ParseError, check_digits, numpy_scalars
from srbf.expr.tree import Expr

__all__ = ["DEFAULT_TARGET", "ParseError", "parse"]

_EQUALS_RE = re.compile(r"(?<![<>!=])=(?!=)")  # an equation's '=', not '==', '<=', '>=' or '!='
DEFAULT_TARGET = "y"


def parse(
    text: str | Sequence[str],
    variables: Sequence[str] | None = None,
    *,
    one_based: bool = False,
    by_index: bool = False,
    notation: str = "auto",
    target: str | None = None,
    hashed: bool = False,
) -> Expr:
    """Parse ``text`` into a tree.

    Parameters
    ----------
    text : str or sequence of str
        An infix (``"x*(y + 1)"``) or prefix (``"add x0 1"``) formula, or a list of prefix tokens
        (always read as prefix).
    variables : sequence of str, optional
        The input columns in order; when given, any other identifier is an error.
    one_based : bool, default False
        Generic column names (``x1``) count from 1 and always resolve by index.
    by_index : bool, default False
        Generic column names (``x0``, ``X_0``) always resolve by 0-based index.
    notation : {"auto", "infix", "prefix"}, default "auto"
        How to read a string.
    target : str, optional
        The problem's output name: ``target = formula`` (or ``y = formula``) is read as ``formula``.
    hashed : bool, default False
        Compute each infix operation's hash as it is built, for a tree that will be hashed anyway
        (a cache key): far cheaper than the hash a call computes on first use.

    Returns
    -------
    Expr
        The formula's tree (``Call``, ``Var``, ``Num``, ``Const`` nodes); ``to_infix`` prints it.

    Raises
    ------
    ParseError
        Text that is not a formula, an unknown identifier, or an equation whose left-hand side is
        neither ``target`` nor ``y``; the message names the position.
    ValueError
        An unknown ``notation``.

    Notes
    -----
    Generic column names resolve by name first, then by 0-based index, unless ``by_index`` or
    ``one_based`` says a method numbers its columns. Only the ASCII digits 0-9 are digits: another
    script's digit (``٣``) is a ParseError, never a number, so a prediction cannot smuggle a
    constant past the judge.

    Examples
    --------
    >>> from srbf.expr import to_infix
    >>> to_infix(parse("x*(y + 1) - x", ["x", "y"]))
    'x * (y + 1) - x'
    >>> to_infix(parse(["add", "x0", "1"]))
    'x0 + 1'
    >>> to_infix(parse("x1 + x2", ["a", "b"], one_based=True))
    'a + b'
    >>> to_infix(parse("y = sin(x0)"))
    'sin(x0)'
    >>> parse("x + z", ["x", "y"])
    Traceback (most recent call last):
    srbf.expr.syntax.ParseError: unknown variable 'z' at position 4 (known variables: x, y)
    """
    resolver = NameResolver(variables, one_based=one_based, by_index=by_index or one_based)
    if not isinstance(text, str):
        tokens = [numpy_scalars(str(t), brackets=False).strip() for t in text]
        for index, token in enumerate(tokens):
            check_digits(token, f"token {index}", index)
        return PrefixParser(tokens, None, resolver).parse()
    if notation not in ("auto", "infix", "prefix"):
        raise ValueError(f"notation must be 'auto', 'infix' or 'prefix', got {notation!r}")
    if not text.strip():
        raise ParseError("empty formula", "", 0)
    check_digits(text)
    start = _formula_start(text, target, resolver)
    if notation == "prefix":
        return prefix_from_string(numpy_scalars(text, brackets=False), start, resolver)
    try:
        return InfixParser(numpy_scalars(text, brackets=True), start, resolver, hashed).parse()
    except ParseError as infix_error:
        if notation == "infix":
            raise
        try:
            return prefix_from_string(numpy_scalars(text, brackets=False), start, resolver)
        except ParseError:
            raise infix_error from None


def _formula_start(text: str, target: str | None, resolver: NameResolver) -> int:
    """Where the formula starts: after ``target =`` or ``y =``, else at 0 (no '=' in the text)."""
    match = _EQUALS_RE.search(text)
    if match is None:
        return 0
    lhs, pos = text[: match.start()].strip(), match.start()
    names = [DEFAULT_TARGET] + ([target] if target and target != DEFAULT_TARGET else [])
    if lhs in names:
        return match.end()
    expected = " or ".join(repr(name) for name in reversed(names))
    if not lhs:
        raise ParseError(f"nothing before '=' at position {pos}: expected {expected} = formula", "=", pos)
    if lhs in resolver.known or (resolver.variables is not None and resolver.column(lhs) is not None):
        why = f"the left-hand side {lhs!r} of the '=' at position {pos} is an input variable, not the target ({expected})"
    else:
        why = f"the left-hand side {lhs!r} of the '=' at position {pos} is not the target's name ({expected})"
    raise ParseError(f"{why}: an equation is read only as target = formula", lhs, pos)
