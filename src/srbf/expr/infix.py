"""The infix reader: Python/SymPy spellings (``x0**2 + sin(x1)``, caret powers, calls) into a tree.

Explicit operator and operand stacks instead of recursion, so a formula's nesting depth costs
memory, not Python frames.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from srbf.expr.operators import lookup_function
from srbf.expr.syntax import INFIX_SYMBOLS, NameResolver, ParseError, fold_call
from srbf.expr.tree import Call, Expr, Num, hashed_call


class _Token(NamedTuple):
    kind: str  # "num", "name", "op", "(", ")", ","
    text: str
    pos: int


# Each match is one token with the whitespace before it (the end matches with no group), so that
# whitespace costs no match of its own.
_TOKEN_RE = re.compile(
    r"""
    \s*
    (?:
      (?P<num>(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)
    | (?P<name>[^\W\d]\w*(?:\.[^\W\d]\w*)*)
    | (?P<op>\*\*|[-+*/^])
    | (?P<lpar>[(\[])
    | (?P<rpar>[)\]])
    | (?P<comma>,)
    | (?P<bad>.)
    | \Z
    )
    """,
    re.VERBOSE | re.DOTALL,
)
_KINDS = (None, "num", "name", "op", "(", ")", ",", "bad")  # by group number


def _tokenize(text: str, offset: int) -> list[_Token]:
    tokens = []
    append, make, kinds = tokens.append, tuple.__new__, _KINDS  # a token built without the named tuple's __new__
    text = text.replace("\u2212", "-")  # the Unicode minus sign some tools print
    for match in _TOKEN_RE.finditer(text, offset):
        group = match.lastindex
        if group is None:  # the end
            break
        kind = kinds[group]
        if kind == "bad":
            char, pos = match[group], match.start(group)
            raise ParseError(f"unexpected character {char!r} at position {pos}", char, pos)
        append(make(_Token, (kind, match[group], match.start(group))))
    return tokens


# Binding strength of each infix operator; a unary sign sits between * and ** (as in Python).
_BINARY_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2, "**": 4, "^": 4}
_SIGN_PRECEDENCE = 3
_SIGN = object()  # marks a unary sign on the operator stack
_GROUP = object()  # marks an open bracket or call; entries (_GROUP, opening, name, op, args)


class InfixParser:
    """Operator precedence with explicit stacks, so nesting depth costs memory, not Python frames.

    The language: sum := product (+|- product)*; product := unary (*|/ unary)*; unary := (-|+)
    unary | power; power := primary ((**|^) unary)?; primary := number | name | name(args) |
    (sum). So ``**`` is right-associative and ``-x**2`` is ``-(x**2)``, as in Python; ``-2.5`` is
    a number while ``-(2.5)`` is a negation. Operands are (tree, is_literal) pairs; operators are
    (precedence, symbol) pairs or group markers; tokens are read once, left to right, so every
    error is raised at the same token as a recursive-descent reader would raise it.
    """

    def __init__(self, text: str, offset: int, resolver: NameResolver, hashed: bool = False):
        self.text = text
        self.make = hashed_call if hashed else Call  # see ``parse``'s ``hashed``
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
                        operands.append((fold_call(token.text, op, [], token.pos), False))
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
                    _reduce(operands, operators, precedence + 1 if precedence == 4 else precedence, self.make)
                    operators.append((precedence, token.text))
                    break
                _reduce(operands, operators, 0, self.make)
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
                    inner = fold_call(name.text, op, args, name.pos)
                operands.append((inner, False))


def _reduce(operands: list[tuple[Expr, bool]], operators: list[tuple], precedence: int, make=Call) -> None:
    """Apply the pending operators that bind at least as tightly as ``precedence``, down to the
    innermost open bracket; ``make`` builds each call."""
    while operators and operators[-1][0] is not _GROUP and operators[-1][0] >= precedence:
        strength, symbol = operators.pop()
        if strength == _SIGN_PRECEDENCE:
            operand, literal = operands[-1]
            if symbol == "-":
                # "-2.5" is a number, "-(2.5)" a negation
                operands[-1] = (Num(-operand.value), False) if literal and type(operand) is Num else (make("neg", (operand,)), False)
            continue
        right = operands.pop()[0]
        operands[-1] = (make(INFIX_SYMBOLS[symbol], (operands[-1][0], right)), False)
