"""Read a formula string, in any spelling SR packages emit, into srbf's tree. Never evaluates it.

Accepted: Python/SymPy infix (``x0**2 + sin(x1)``), caret powers, a leading ``y =`` (or the
target's own name), function-call prefix (``add(mul(X0, X0), X1)``), capitalised and
module-prefixed names (``Sin``, ``np.sin``, ``Recip``), and prefix token lists
(``+ x1 * 2.5 x2``). Variables are
matched by name; generic column names (``x0``, ``X_1``) are mapped to columns by index, 0-based
unless ``one_based=True``. A formula is untrusted input: it is tokenised and parsed by hand, and
every failure is a :class:`ParseError` naming the offending token and its position.
"""

from __future__ import annotations

import re
from typing import NamedTuple, Sequence

from srbf.core import SrbfError
from srbf.expr.operators import MODULE_PREFIXES, OPERATORS, lookup_function
from srbf.expr.tree import Call, Const, Expr, Num, Var


class ParseError(SrbfError, ValueError):
    """A formula that cannot be read. ``token`` and ``position`` (0-based offset) locate it."""

    def __init__(self, message: str, token: str = "", position: int = 0):
        super().__init__(message)
        self.token = token
        self.position = position


class _Token(NamedTuple):
    kind: str  # "num", "name", "op", "(", ")", ","
    text: str
    pos: int


_TOKEN_RE = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<num>(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)
  | (?P<name>[^\W\d]\w*(?:\.[^\W\d]\w*)*)
  | (?P<op>\*\*|[-+*/^])
  | (?P<lpar>[(\[])
  | (?P<rpar>[)\]])
  | (?P<comma>,)
  | (?P<bad>.)
    """,
    re.VERBOSE | re.DOTALL,
)
_KINDS = {"lpar": "(", "rpar": ")", "comma": ","}
_EQUALS_RE = re.compile(r"(?<![<>!=])=(?!=)")  # an equation's '=', not '==', '<=', '>=' or '!='
_GENERIC_COLUMN_RE = re.compile(r"^[xX]_?([0-9]+)$")
_PREFIX_NUMBER_RE = re.compile(r"^[-+]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|nan)$", re.IGNORECASE)
DEFAULT_TARGET = "y"
_SPECIAL_NUMBERS = {"inf": float("inf"), "infinity": float("inf"), "nan": float("nan")}
_CONSTANT_SPELLINGS = {"pi": "pi", "e": "e", "E": "e", "PI": "pi", "Pi": "pi"}
_INFIX_SYMBOLS = {"+": "add", "-": "sub", "*": "mul", "/": "div", "**": "pow", "^": "pow"}


def parse(
    text: str | Sequence[str],
    variables: Sequence[str] | None = None,
    *,
    one_based: bool = False,
    by_index: bool = False,
    notation: str = "auto",
    target: str | None = None,
) -> Expr:
    """Parse ``text`` into a tree.

    ``variables`` names the input columns in order; when given, any other identifier is an error.
    Generic column names (``x3``, ``X_3``) resolve by name first, then by 0-based index; with
    ``by_index=True`` (0-based) or ``one_based=True`` they always resolve by index, which is what
    a method that numbers its columns means. ``notation`` is "auto", "infix" or "prefix"; a list
    of tokens is always prefix.

    An equation ``lhs = formula`` is read when ``lhs`` is ``target`` (the problem's output name)
    or ``y``; any other left-hand side (an input variable, ``f(x)``) is a ParseError. Only the
    ASCII digits 0-9 are digits: another script's digit (``٣``) is a ParseError, never a number.
    """
    resolver = _NameResolver(variables, one_based=one_based, by_index=by_index or one_based)
    if not isinstance(text, str):
        tokens = [str(t) for t in text]
        for index, token in enumerate(tokens):
            _check_digits(token, f"token {index}", index)
        return _PrefixParser(tokens, None, resolver).parse()
    if notation not in ("auto", "infix", "prefix"):
        raise ValueError(f"notation must be 'auto', 'infix' or 'prefix', got {notation!r}")
    if not text.strip():
        raise ParseError("empty formula", "", 0)
    _check_digits(text)
    start = _formula_start(text, target, resolver)
    if notation == "prefix":
        return _prefix_from_string(text, start, resolver)
    try:
        return _InfixParser(text, start, resolver).parse()
    except ParseError as infix_error:
        if notation == "infix":
            raise
        try:
            return _prefix_from_string(text, start, resolver)
        except ParseError:
            raise infix_error from None


def _check_digits(text: str, where: str | None = None, position: int | None = None) -> None:
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


def _formula_start(text: str, target: str | None, resolver: "_NameResolver") -> int:
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
    if lhs in resolver.known or (resolver.variables is not None and resolver._column(lhs) is not None):
        why = f"the left-hand side {lhs!r} of the '=' at position {pos} is an input variable, not the target ({expected})"
    else:
        why = f"the left-hand side {lhs!r} of the '=' at position {pos} is not the target's name ({expected})"
    raise ParseError(f"{why}: an equation is read only as target = formula", lhs, pos)


class _NameResolver:
    """Turns an identifier into a variable or a constant, or says why it cannot."""

    def __init__(self, variables: Sequence[str] | None, *, one_based: bool, by_index: bool):
        self.variables = list(variables) if variables is not None else None
        self.known = set(self.variables or ())
        self.one_based = one_based
        self.by_index = by_index

    def resolve(self, name: str, pos: int) -> Expr:
        if self.variables is not None:
            column = self._column(name)
            if self.by_index and column is not None:
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
        column = self._column(name)
        if column is not None:
            return self._by_column(name, column, pos)
        known = ", ".join(self.variables) or "none"
        raise ParseError(f"unknown variable {name!r} at position {pos} (known variables: {known})", name, pos)

    def _column(self, name: str) -> int | None:
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


def _tokenize(text: str, offset: int) -> list[_Token]:
    tokens = []
    text = text.replace("\u2212", "-")  # the Unicode minus sign some tools print
    for match in _TOKEN_RE.finditer(text, offset):
        kind = match.lastgroup
        if kind == "ws":
            continue
        if kind == "bad":
            char, pos = match.group(), match.start()
            raise ParseError(f"unexpected character {char!r} at position {pos}", char, pos)
        tokens.append(_Token(_KINDS.get(kind, kind), match.group(), match.start()))
    return tokens


def _fold_call(name: str, op: str, args: list[Expr], pos: int) -> Expr:
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


# Binding strength of each infix operator; a unary sign sits between * and ** (as in Python).
_BINARY_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2, "**": 4, "^": 4}
_SIGN_PRECEDENCE = 3
_SIGN = object()  # marks a unary sign on the operator stack
_GROUP = object()  # marks an open bracket or call; entries (_GROUP, opening, name, op, args)


class _InfixParser:
    """Operator precedence with explicit stacks, so nesting depth costs memory, not Python frames.

    The language: sum := product (+|- product)*; product := unary (*|/ unary)*; unary := (-|+)
    unary | power; power := primary ((**|^) unary)?; primary := number | name | name(args) |
    (sum). So ``**`` is right-associative and ``-x**2`` is ``-(x**2)``, as in Python; ``-2.5`` is
    a number while ``-(2.5)`` is a negation. Operands are (tree, is_literal) pairs; operators are
    (precedence, symbol) pairs or group markers; tokens are read once, left to right, so every
    error is raised at the same token as a recursive-descent reader would raise it.
    """

    def __init__(self, text: str, offset: int, resolver: _NameResolver):
        self.text = text
        self.tokens = _tokenize(text, offset)
        self.resolver = resolver
        if not self.tokens:
            raise ParseError("empty formula", "", offset)

    def parse(self) -> Expr:
        tokens, count = self.tokens, len(self.tokens)
        operands: list[tuple[Expr, bool]] = []
        operators: list[tuple] = []
        i = 0
        while True:
            # expecting an operand: signs, then a number, a name, a call or an open bracket
            token = tokens[i] if i < count else None
            if token is None:
                end = len(self.text)
                raise ParseError(f"formula ends too early at position {end}: an operand is missing", "", end)
            i += 1
            if token.text in ("-", "+"):
                operators.append((_SIGN_PRECEDENCE, token.text))
                continue
            if token.kind == "num":
                operands.append((Num(float(token.text)), True))
            elif token.kind == "(":
                operators.append((_GROUP, token, None, None, None))
                continue
            elif token.kind == "name":
                if i < count and tokens[i].kind == "(":
                    op = lookup_function(token.text)
                    if op is None:
                        raise ParseError(f"unknown function {token.text!r} at position {token.pos}", token.text, token.pos)
                    opening = tokens[i]
                    i += 1
                    if i < count and tokens[i].kind == ")":
                        i += 1
                        operands.append((_fold_call(token.text, op, [], token.pos), False))
                    else:
                        operators.append((_GROUP, opening, token, op, []))
                        continue
                else:
                    resolved = self.resolver.resolve(token.text, token.pos)
                    operands.append((resolved, isinstance(resolved, Num)))  # inf and nan read like literals
            else:
                raise ParseError(
                    f"unexpected {token.text!r} at position {token.pos}: an operand is missing", token.text, token.pos
                )
            # after an operand: an infix operator, a comma or a closing bracket, or the end
            while True:
                token = tokens[i] if i < count else None
                precedence = _BINARY_PRECEDENCE.get(token.text) if token is not None else None
                if precedence is not None:
                    i += 1
                    # ** is right-associative: it reduces only what binds strictly tighter
                    _reduce(operands, operators, precedence + 1 if precedence == 4 else precedence)
                    operators.append((precedence, token.text))
                    break
                _reduce(operands, operators, 0)
                group = operators[-1] if operators else None
                if token is None:
                    if group is None:
                        return operands.pop()[0]
                    opening = group[1]
                    raise ParseError(
                        f"unbalanced bracket: {opening.text!r} at position {opening.pos} is never closed",
                        opening.text,
                        opening.pos,
                    )
                if group is None:
                    if token.kind == ")":
                        raise ParseError(
                            f"unbalanced bracket: {token.text!r} at position {token.pos} closes nothing", token.text, token.pos
                        )
                    raise ParseError(f"unexpected {token.text!r} at position {token.pos}", token.text, token.pos)
                _, opening, name, op, args = group
                if token.kind == "," and name is not None:
                    i += 1
                    args.append(operands.pop()[0])
                    break
                if token.kind != ")":
                    raise ParseError(f"unexpected {token.text!r} at position {token.pos}: expected ')'", token.text, token.pos)
                i += 1
                operators.pop()
                inner = operands.pop()[0]
                if name is not None:
                    args.append(inner)
                    inner = _fold_call(name.text, op, args, name.pos)
                operands.append((inner, False))


def _reduce(operands: list[tuple[Expr, bool]], operators: list[tuple], precedence: int) -> None:
    """Apply the pending operators that bind at least as tightly as ``precedence``, down to the
    innermost open bracket."""
    while operators and operators[-1][0] is not _GROUP and operators[-1][0] >= precedence:
        strength, symbol = operators.pop()
        if strength == _SIGN_PRECEDENCE:
            operand, literal = operands[-1]
            if symbol == "-":
                # "-2.5" is a number, "-(2.5)" a negation
                operands[-1] = (Num(-operand.value), False) if literal and type(operand) is Num else (Call("neg", (operand,)), False)
            continue
        right = operands.pop()[0]
        operands[-1] = (Call(_INFIX_SYMBOLS[symbol], (operands[-1][0], right)), False)


def _prefix_from_string(text: str, start: int, resolver: _NameResolver) -> Expr:
    tokens, positions = [], []
    for word in re.finditer(r"\S+", text[start:]):
        tokens.append(word.group())
        positions.append(start + word.start())
    if not tokens:
        raise ParseError("empty formula", "", start)
    return _PrefixParser(tokens, positions, resolver).parse()


class _PrefixParser:
    """Prefix (Polish) notation: each operator token is followed by its arguments."""

    _SYMBOLS = {**_INFIX_SYMBOLS, "neg": "neg"}

    def __init__(self, tokens: list[str], positions: list[int] | None, resolver: _NameResolver):
        self.tokens = tokens
        self.positions = positions
        self.resolver = resolver
        self.i = 0

    def _where(self, index: int) -> str:
        if self.positions is None:
            return f"token {index}"
        return f"position {self.positions[index]}"

    def _pos(self, index: int) -> int:
        return index if self.positions is None else self.positions[index]

    def parse(self) -> Expr:
        if not self.tokens:
            raise ParseError("empty formula", "", 0)
        expr = self._tree()
        if self.i < len(self.tokens):
            extra = self.tokens[self.i]
            raise ParseError(
                f"unexpected {extra!r} at {self._where(self.i)}: the formula was already complete", extra, self._pos(self.i)
            )
        return expr

    def _tree(self) -> Expr:
        """Read one tree; operators wait on a stack (op, arguments still missing, arguments read)."""
        pending: list[tuple[str, int, list[Expr]]] = []
        while True:
            node = self._leaf_or_operator(pending)
            if node is None:
                continue
            while pending:
                op, arity, args = pending[-1]
                args.append(node)
                if len(args) < arity:
                    break
                pending.pop()
                node = Call(op, tuple(args))
            else:
                return node

    def _leaf_or_operator(self, pending: list[tuple[str, int, list[Expr]]]) -> Expr | None:
        """The next token as a leaf, or None after putting an operator on ``pending``."""
        if self.i >= len(self.tokens):
            last = len(self.tokens) - 1
            raise ParseError(
                f"formula ends too early after {self.tokens[last]!r} at {self._where(last)}: an argument is missing",
                self.tokens[last],
                self._pos(last),
            )
        index = self.i
        token = self.tokens[index]
        self.i += 1
        if _PREFIX_NUMBER_RE.match(token):
            return Num(float(token))
        op = self._SYMBOLS.get(token) or lookup_function(token)
        if op is not None:
            pending.append((op, OPERATORS[op].arity, []))
            return None
        if not re.fullmatch(r"[^\W\d]\w*(?:\.[^\W\d]\w*)*", token):
            raise ParseError(f"unexpected {token!r} at {self._where(index)}", token, self._pos(index))
        return self.resolver.resolve(token, self._pos(index))
