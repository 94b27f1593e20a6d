"""The tree nodes keep their dataclass contract while built by hand: fields, repr, equality and
hashing by structure, pickling, and a call's hash made once. (They are not frozen, for speed:
``srbf.expr.tree``'s docstring says why, ``benchmarks/tree_nodes.py`` measures it.)"""

from __future__ import annotations

import copy
import dataclasses
import math
import pickle

from srbf.expr.tree import Call, Const, Num, Var, hashed_call

TREE = Call("add", (Call("mul", (Num(2.5), Var("x"))), Call("sin", (Const("pi"),))))


def test_nodes_keep_their_dataclass_fields_repr_and_match_args():
    assert [f.name for f in dataclasses.fields(Call)] == ["op", "args", "_hash"]
    assert [f.name for f in dataclasses.fields(Num)] == ["value"]
    assert Call.__match_args__ == ("op", "args") and Var.__match_args__ == ("name",)
    assert repr(TREE) == ("Call(op='add', args=(Call(op='mul', args=(Num(value=2.5), Var(name='x'))), "
                          "Call(op='sin', args=(Const(name='pi'),))))")  # fmt: skip
    assert dataclasses.asdict(Num(1.0)) == {"value": 1.0}
    assert dataclasses.replace(TREE, op="sub") == Call("sub", TREE.args)
    assert Call(op="add", args=TREE.args) == TREE and Var(name="x") == Var("x")


def test_equality_and_hashing_are_by_structure():
    assert Num(1.0) == Num(1) and hash(Num(1.0)) == hash(Num(1)) == hash(("Num", 1.0))
    assert Num(0.0) == Num(-0.0) and Num(math.nan) == Num(math.nan) and Num(math.nan) != Num(1.0)
    assert hash(Num(math.nan)) == hash(("Num", "nan"))
    assert hash(Var("x")) == hash(("x",)) == hash(Const("x")) and Var("x") != Const("x")
    assert Num(1.0).__eq__(Var("x")) is NotImplemented and Var("x").__eq__(Const("x")) is NotImplemented
    assert hash(TREE) == hash(("add", TREE.args)) and TREE != Call("add", TREE.args[::-1])


def test_a_call_hashes_once_and_hashed_call_hashes_as_built():
    plain = Call("neg", (Var("x"),))
    assert plain._hash is None  # not yet: made on first use, then kept
    assert hash(plain) == plain._hash == hash(("neg", (Var("x"),)))
    built = hashed_call("neg", (Var("x"),))
    assert built._hash == hash(plain) and built == plain and type(built) is Call


def test_trees_pickle_and_copy_to_equal_trees():
    hash(TREE)
    for other in (pickle.loads(pickle.dumps(TREE)), copy.copy(TREE), copy.deepcopy(TREE)):
        assert other == TREE and hash(other) == hash(TREE) and repr(other) == repr(TREE)
    assert pickle.loads(pickle.dumps(Num(math.nan))) == Num(math.nan)
