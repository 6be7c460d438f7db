"""Block pointers a helper hands back: a part of FunctionAnalysis (shared.py).

A helper that returns a block pointer it was passed as parts (crossing.py) returns its offsets instead, and
the caller unpacks them into its own offset variables: `return p`, `return acc, p`, `return tl.advance(p,
(-BLOCK, 0))`, a `return` on each branch (they join), or `return step(p, BLOCK)`, the offsets another helper
hands back. The caller's block pointer then moves where the helper moved it: pointers it holds (masked
pointers computed before a loop) leave those offsets out, and each access adds them, as after an advance of
its own. A block pointer the helper makes itself has no parts in its callers to go back to: a helper that
only makes one and returns it is read at each call as the creation it amounts to (inlining.py).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import libcst as cst

from triton_migrate.rules import ttd201_crosses_function
from triton_migrate.syntax.nodes import canonical_code, code_of, int_value, tuple_elements

from .calls import UnboundCall, advance_arguments, advanced_base, member_called
from .records import Refusal, ReturnedOffsets, UnpackedOffsets
from .shared import Part
from .values import OTHER, BlockPtr, Dim, State

if TYPE_CHECKING:
    from .seams import Moved


@dataclass(frozen=True)
class HandedBack:
    """A block pointer a helper's `return` hands back, as its offsets: the parameter it came in as, what is proven
    about each offset, and the dimensions the helper moved it in (its callers' held pointers leave those out)."""

    parameter: str
    aligned: tuple[bool, ...]
    nonnegative: tuple[bool, ...]
    moved: frozenset[int]


def joined_returns(shapes: list[tuple]) -> tuple | None:
    """What every `return` of a helper hands back (`shapes`: one tuple of HandedBack or None per `return`), or
    None if they disagree on where a block pointer goes. Returns that differ only in what they prove or where
    they move (`if REVERSE: return tl.advance(p, (-BLOCK, 0))`) join: the proofs all give, the moves any makes."""
    first = shapes[0]
    if any(len(shape) != len(first) or
           any((a is None) != (b is None) or a is not None and a.parameter != b.parameter for a, b in zip(shape, first))
           for shape in shapes):
        return None
    return tuple(None if handed[0] is None else
                 HandedBack(handed[0].parameter, tuple(map(all, zip(*(h.aligned for h in handed)))),
                            tuple(map(all, zip(*(h.nonnegative for h in handed)))),
                            frozenset().union(*(h.moved for h in handed)))
                 for handed in zip(*shapes))


class Returns(Part):
    def return_pointers(self, node: cst.Return, state: State) -> bool:
        """`return acc, p` → `return acc, p_off0, p_off1` for a parameter's block pointer, advanced or not
        (`return tl.advance(p, (-BLOCK, 0))` → `return p_start0 - BLOCK, p_start1`)."""
        if node.value is None:
            return False
        elements = tuple_elements(node.value) if isinstance(node.value, cst.Tuple) else [node.value]
        if elements is not None and len(elements) == 1 and self.return_through(node.value, state):
            return True
        found = [self.moves.pointer(e, state) if self.crossing.passes_pointer(e, state) else None
                 for e in elements or ()]
        if not any(found):
            return False
        shape: list[HandedBack | None] = []
        flat: list[cst.BaseExpression] = []
        creations: frozenset[int] = frozenset()
        for element, pointer in zip(elements or (), found):
            if pointer is None:
                self.flow.visit(element, state)
                shape.append(None)
                flat.append(element)
                continue
            value, deltas = pointer
            offsets = self.moves.offsets(value, deltas)
            shape.append(self.handed_back(value, deltas, offsets))
            flat.extend(offsets or [element])
            creations |= value.creations
        self.refuse_unreturnable(zip(elements, found, shape), creations, node)
        self.run.returned.append(tuple(shape))
        self.run.stmt_edits[id(node)] = (creations, ReturnedOffsets(node, tuple(flat)))
        return True

    def refuse_unreturnable(self, returned, creations: frozenset, node: cst.CSTNode) -> None:
        """A block pointer returned that is not a parameter's (`(element, (value, deltas), HandedBack)` without
        the last) has no parts in its callers to go back to; nor, since the `return` is rewritten whole or not
        at all, has any other block pointer it returns."""
        for element, pointer, handed in returned:
            if pointer is not None and pointer[0] is not None and handed is None:
                held = advanced_base(element, self.fn.names) if isinstance(element, cst.Call) and \
                    member_called(element, self.fn.names) == "advance" else element
                self.books.refuse(creations, Refusal(ttd201_crosses_function.CODE,
                                                     ttd201_crosses_function.returned(code_of(held)), node))
                return

    def handed_back(self, value: BlockPtr, deltas, offsets: list | None) -> HandedBack | None:
        """What returning `value` advanced by `deltas` (None: as it is), at `offsets`, hands back; None for a block
        pointer that is not a parameter's. What is proven is of the offsets after the advance (`-BLOCK` may make
        them negative)."""
        owner = self.crossing.parameter_of(value)
        if owner is None:
            return None
        # Paths that disagree on an offset (None) are materialized by the rerun: until then, moved anywhere.
        moved = range(len(value.dims)) if offsets is None else \
            [d for d, offset in enumerate(offsets) if canonical_code(offset) != self.fn.namer.part(owner, "start", d)]
        proven = self.moves.proven_offsets(value, deltas)
        return HandedBack(owner, tuple(p["aligned"] for p in proven), tuple(p["nonnegative"] for p in proven),
                          frozenset(moved))

    def return_through(self, call: cst.BaseExpression, state: State) -> bool:
        """`return step(p, BLOCK)`, a helper's call that hands block pointers back: this function hands back what
        it does (the call, given their parts, returns their offsets), each as the block pointer of the parameter
        that was passed in its place."""
        if not isinstance(call, cst.Call):
            return False
        handed = self.handed_by_call(call, state)
        if handed is None:
            return False
        self.crossing.visit_unpacked(call, state)
        shape = []
        for inner, _, (value, deltas) in handed:
            outer = self.handed_back(value, deltas, self.moves.offsets(value, deltas)) if value else None
            shape.append(outer and replace(outer, aligned=inner.aligned, nonnegative=inner.nonnegative,
                                           moved=outer.moved | inner.moved))
        creations = frozenset().union(*(value.creations for _, _, (value, _) in handed if value is not None))
        self.refuse_unreturnable(((argument, pointer, outer) for (_, argument, pointer), outer in zip(handed, shape)),
                                 creations, call)
        self.run.returned.append(tuple(shape))
        return True

    def handed_by_call(self, call: cst.Call, state: State) -> list | None:
        """For a call of a helper that hands block pointers back, per element it returns: (HandedBack or None,
        the argument passed in its parameter, (the block pointer it passes, the deltas it advances it by):
        `passed_pointer`, or (None, None)); None for any other expression."""
        key = self.fn.context.resolve(call.func) if self.fn.context is not None else None
        shape = self.fn.place.returns(key) if key is not None else None
        if key is None or not shape or not any(shape):
            return None
        bound = self.fn.place.bind(key, call)
        if bound is None:
            return None
        handed = []
        for inner in shape:
            argument = bound[inner.parameter].value if inner is not None and inner.parameter in bound else None
            pointer = self.passed_pointer(argument, state) if argument is not None else None
            handed.append((inner, argument, pointer or (None, None)))
        return handed

    def passed_pointer(self, argument: cst.BaseExpression, state: State) -> Moved | None:
        """(block pointer, deltas) that `p` (deltas None) or `tl.advance(p, deltas)` passes, read without a
        report (the call's own visit reports what it must); None for anything else."""
        deltas: list | None = None
        pointer: cst.BaseExpression | None = argument
        if isinstance(argument, cst.Call) and member_called(argument, self.fn.names) == "advance":
            try:
                offsets = advance_arguments(argument, self.fn.names).get("offsets")
            except UnboundCall:
                return None
            deltas = self.fn.facts.movable_elements(offsets.value) if offsets is not None else None
            if deltas is None:
                return None
            pointer = advanced_base(argument, self.fn.names)
        value = state.get(pointer.value) if isinstance(pointer, cst.Name) else None
        return (value, deltas) if isinstance(value, BlockPtr) and (deltas is None or
                                                                  len(deltas) == len(value.dims)) else None

    def helper_assign(self, node: cst.Assign, state: State) -> bool:
        """`acc, p = helper(acc, p)` where the helper hands `p` back: unpack its offsets."""
        call = node.value
        if not isinstance(call, cst.Call):
            return False
        handed = self.handed_by_call(call, state)
        if handed is None or len(node.targets) != 1:
            return False
        target = node.targets[0].target
        names = tuple_elements(target) if isinstance(target, (cst.Tuple, cst.List)) else [target]
        if names is None or len(names) != len(handed) or not all(isinstance(n, cst.Name) for n in names):
            return False  # helper_call refuses the block pointers the call hands back
        self.unpack(node, call, names, handed, state)
        return True

    def is_inline_return(self, pointer: cst.BaseExpression, state: State) -> bool:
        """`tl.load(shift(p, BLOCK))`: the pointer of an access is a call of a helper that hands one block pointer
        back, of one the caller follows, on a line of one statement, where statements can go before."""
        if type(pointer) is not cst.Call or self.run.line is None:
            return False
        handed = self.handed_by_call(pointer, state)
        return handed is not None and len(handed) == 1 and handed[0][2][0] is not None

    def inline_return(self, call: cst.Call, state: State) -> BlockPtr:
        """The access's helper call read as if assigned to a fresh name on the line before (`p_shift_off0,
        p_shift_off1 = shift(<parts of p>, BLOCK)`, as `p = shift(p, BLOCK)` is unpacked): the access reads the
        block pointer at those offsets, which no name holds."""
        handed = self.handed_by_call(call, state)
        assert handed is not None  # is_inline_return: the call hands a block pointer back
        passed = handed[0][1]
        stem = f"{code_of(passed)}_{canonical_code(call.func).split('.')[-1].strip('_')}"
        name = self.fn.namer.inline(id(call), stem if isinstance(passed, cst.Name) else "p_moved")
        assign = self.fn.unpacked_calls.setdefault(id(call), cst.Assign([cst.AssignTarget(cst.Name(name))], call))
        self.unpack(assign, call, [assign.targets[0].target], handed, state, held=False)
        owners, record = self.run.stmt_edits.pop(id(assign))
        self.run.line_edits.setdefault(id(self.run.line), {})[(name, "unpacked")] = (id(call), owners, record)
        return replace(state.pop(name), pointers=False)

    def unpack(self, node: cst.Assign, call: cst.Call, names: list, handed: list, state: State,
               held: bool = True) -> None:
        """Bind `names` to what the call that `node` assigns (`call`) hands back: a block pointer at the offsets it
        returns, which the statement unpacks into the name's offset variables. `held`: the names hold pointers (not a
        fresh name that an access reads once, computing its pointers from the offsets)."""
        self.crossing.visit_unpacked(call, state)
        flat: list[cst.BaseExpression | None] = []
        owners: frozenset[int] = frozenset()
        for name, (returned, _, (value, deltas)) in zip(names, handed):
            if value is None:
                self.flow.bind(name.value, OTHER, state)
                flat.append(name)
                continue
            # What the helper proved about the offsets it hands back (from what its callers proved).
            dims = tuple(Dim(cst.Name(var), var, frozenset({var}), frozenset({id(node)}), aligned=returned.aligned[d],
                             nonnegative=returned.nonnegative[d])
                         for d, var in enumerate(self.fn.namer.offset(name.value, d) for d in range(len(value.dims))))
            for dim in dims:
                self.flow.invalidate(dim.code, state)
            # The pointers the name holds leave out the offsets the helper (or an advance in the call) moved.
            inline = {d for d, delta in enumerate(deltas or ()) if int_value(delta) != 0}
            if held:
                self.moves.note_moving_dims(value.creations, returned.moved | inline)
            self.flow.bind(name.value, replace(value, dims=dims), state)
            flat.extend(dim.expr for dim in dims)
            owners |= value.creations
        # A call that passes no block pointer the caller follows leaves the helper's parameter blocked (TTD201):
        # the helper keeps its `return p`, and the statement must keep taking a block pointer from it.
        if owners:
            self.run.stmt_edits[id(node)] = (owners, UnpackedOffsets(node, tuple(flat)))
