"""The prefix reader: Polish notation, as a token list or a string (``+ x1 * 2.5 x2``), into a tree.

Each operator token is followed by its arguments; operators wait on an explicit stack, so long
formulas cost memory, not Python frames.
"""

from __future__ import annotations

import re

from srbf.expr.operators import OPERATORS, lookup_function
from srbf.expr.syntax import INFIX_SYMBOLS, NameResolver, ParseError
from srbf.expr.tree import Call, Expr, Num

_PREFIX_NUMBER_RE = re.compile(r"^[-+]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|nan)$", re.IGNORECASE)


def prefix_from_string(text: str, start: int, resolver: NameResolver) -> Expr:
    tokens, positions = [], []
    for word in re.finditer(r"\S+", text[start:]):
        tokens.append(word.group())
        positions.append(start + word.start())
    if not tokens:
        raise ParseError("empty formula", "", start)
    return PrefixParser(tokens, positions, resolver).parse()


class PrefixParser:
    """Prefix (Polish) notation: each operator token is followed by its arguments."""

    _SYMBOLS = {**INFIX_SYMBOLS, "neg": "neg"}

    def __init__(self, tokens: list[str], positions: list[int] | None, resolver: NameResolver):
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
