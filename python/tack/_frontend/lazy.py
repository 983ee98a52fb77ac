# Python's lazy forms on traced values: `a if c else b`, `and` and `or`, and
# the truthiness of a traced number. Python evaluates only the side it takes,
# so the guards Python users write (`x[i] if i < n else 0.0`,
# `k > 0 and s[k - 1] > 0`) must never evaluate the other side: where a side
# may read memory (or calls a @tack.func, which may), the form becomes an if_
# that assigns a Var, so the read happens only where the guard lets it. Where
# both sides are plain arithmetic, with nothing to fault and nothing to
# observe, evaluating both is invisible, and the form stays a select (or a
# logical and/or), which costs no branch and gives the C++ twin's IR.
from __future__ import annotations

import ast
import builtins
import math
from typing import Any

from .. import _core
from .analysis import is_boolish
from .builtins import KERNEL_FUNCTIONS, select as select_componentwise
from .calls import _is_numpy_scalar_type, _member
from .composite import LEAF, CompositeVar, NotComposite, describe_structure, flatten, leaf_count
from .expressions import CORE_TYPES, describe, is_number, is_value
from .infer import infer_expr

_PURE_BUILTINS = (builtins.abs, builtins.min, builtins.max, builtins.float, builtins.int, builtins.round,
                  builtins.bool)
# Kernel functions that neither read memory nor have an effect.
_IMPURE_KERNEL_FUNCTIONS = ("atomic_", "print")


class ShortCircuitMixin:
    """The lazy forms of the Tracer (tracer.py)."""

    def truth(self, v: Any, node: ast.AST) -> Any:
        """A traced value as a condition, as Python's truthiness: v != 0 (a
        bool stays itself: a comparison, or `and` / `or` of comparisons)."""
        if _known_bool(node):
            return v
        self.at(node)
        return _core.truthy(v)

    def is_pure(self, node: ast.AST) -> bool:
        """Whether evaluating an expression can do nothing but compute: no
        element read, no atomic, no print, no @tack.func."""
        if isinstance(node, (ast.Constant, ast.Name)):
            return True
        if isinstance(node, ast.Attribute):
            return self.is_pure(node.value)
        if isinstance(node, ast.Subscript):
            # a.shape[d] reads no element; anything else may be an array's.
            return (isinstance(node.value, ast.Attribute) and node.value.attr == "shape"
                    and self.is_pure(node.value.value) and self.is_pure(node.slice))
        if isinstance(node, (ast.BinOp, ast.UnaryOp, ast.Compare, ast.BoolOp, ast.IfExp, ast.Tuple)):
            return all(self.is_pure(c) for c in ast.iter_child_nodes(node)
                       if not isinstance(c, (ast.operator, ast.unaryop, ast.cmpop, ast.boolop)))
        if isinstance(node, ast.Call):
            fn = self.frame.resolve_static(node.func)
            if fn is None:
                return False
            name = getattr(fn, "__name__", "")
            known = (any(fn is b for b in _PURE_BUILTINS)
                     or (_member(fn, KERNEL_FUNCTIONS) and not name.startswith(_IMPURE_KERNEL_FUNCTIONS))
                     or getattr(math, name, None) is fn or _is_numpy_scalar_type(fn))
            return known and all(self.is_pure(a) for a in node.args) and all(
                self.is_pure(k.value) for k in node.keywords)
        return False

    def branch_value(self, node: ast.AST, cond: Any, then_node: ast.expr, else_node: Any, init: Any) -> Any:
        """The value of `then_node` where cond holds, else of `else_node` (an
        AST node, or a Value already computed), each side evaluated only where
        it is taken: an if_ around a Var."""
        self.at(node)
        structure = infer_expr(self.frame, self.frame.src.node, then_node) if isinstance(then_node, ast.AST) else None
        if structure is not None and structure != LEAF:
            return self.composite_branch(node, cond, then_node, else_node, structure)
        result = _core.Var(init)

        def assign_from(side: Any) -> None:
            v = self.eval(side) if isinstance(side, ast.AST) else side
            if not is_number(v):
                raise self.error(node, f"'{ast.unparse(node)}' on a traced condition gives a number, not "
                                       f"{describe(v)}", "type")
            self.at(node)
            result.assign(v)

        _core.if_(cond, lambda: assign_from(then_node), lambda: assign_from(else_node))
        self.at(node)
        return result.value

    def composite_branch(self, node: ast.AST, cond: Any, then_node: ast.expr, else_node: Any,
                         structure: tuple) -> Any:
        """branch_value for a vector, tuple or struct: one Var per leaf."""
        result = CompositeVar(structure, [_core.Var(False) for _ in range(leaf_count(structure))])

        def assign_from(side: Any) -> None:
            v = self.eval(side) if isinstance(side, ast.AST) else side
            try:
                got, leaves = flatten(v)
            except NotComposite:
                got = None
            if got != structure:
                raise self.error(node, f"'{ast.unparse(node)}' gives {describe_structure(structure)} on one side "
                                       f"and {describe(v)} on the other", "type")
            self.at(node)
            result.assign(leaves)

        _core.if_(cond, lambda: assign_from(then_node), lambda: assign_from(else_node))
        self.at(node)
        return result.read()

    def lazy_allowed(self) -> bool:
        # An if_ needs the parallel loop's body; outside it nothing reads memory anyway.
        return self.in_parallel

    def expr_IfExp(self, node: ast.IfExp) -> Any:
        test = self.eval(node.test)
        if not is_value(test):
            if isinstance(test, CORE_TYPES):
                raise self.error(node, f"the condition of 'a if c else b' is {describe(test)}", "type")
            return self.eval(node.body) if test else self.eval(node.orelse)
        cond = self.truth(test, node.test)
        if not self.lazy_allowed() or (self.is_pure(node.body) and self.is_pure(node.orelse)):
            a = self.eval(node.body)
            b = self.eval(node.orelse)
            self.at(node)
            return select_componentwise(cond, a, b)      # per component on vectors
        init = False if is_boolish(node.body) and is_boolish(node.orelse) else 0
        return self.branch_value(node, cond, node.body, node.orelse, init)

    def expr_BoolOp(self, node: ast.BoolOp) -> Any:
        # Python semantics while the operands are Python values; from the first
        # traced operand on, `a and b` is b where a is true, else a (`or` the
        # other way round), with b evaluated only where it is needed.
        is_and = isinstance(node.op, ast.And)
        result = self.eval(node.values[0])
        result_is_bool = is_boolish(node.values[0])
        for operand in node.values[1:]:
            if not is_value(result):
                if isinstance(result, CORE_TYPES):
                    raise self.error(node, f"'{'and' if is_and else 'or'}' on {describe(result)}", "type")
                if bool(result) != is_and:
                    return result
                result = self.eval(operand)
                result_is_bool = is_boolish(operand)
                continue
            boolish = result_is_bool and is_boolish(operand)
            result_is_bool = boolish
            if boolish and (not self.lazy_allowed() or self.is_pure(operand)):
                right = self.eval(operand)
                self.at(node)
                result = _core.logical_and(result, right) if is_and else _core.logical_or(result, right)
                continue
            if not self.lazy_allowed():
                raise self.error(node, f"'{'and' if is_and else 'or'}' on traced numbers outside the parallel "
                                       "loop; compare them first (x != 0)", "type")
            cond = self.truth(result, node)
            if not is_and:
                cond = _core.logical_not(cond)
            result = self.branch_value(node, cond, operand, result, False if boolish else 0)
        return result


def _known_bool(node: ast.AST) -> bool:
    """Whether an expression surely gives a bool: a comparison, `not`, a
    classification, or `and` / `or` of such."""
    if isinstance(node, ast.BoolOp):
        return all(_known_bool(v) for v in node.values)
    return is_boolish(node)
