"""Random, valid block-pointer kernels and their launches, drawn from a sequence of choices.

Every decision goes through `Choices.below`, whose value 0 is the simplest option: the same sequence gives the
same kernel, and `shrink` reduces a failure by deleting and lowering choices. A kernel is made of

* a prologue: the block pointer `p` over the input `x`, made at the top or in both branches of an `if` on a
  constexpr or on a run-time value and used after it, and `o` over the output `y`;
* statements, nested in `for`/`while` loops and `if`/`else` on constexprs and run-time values: loads (plain,
  through a tuple, through helpers, of a transposed block pointer, reduced by `tl.sum`/`tl.max`/`tl.cumsum`),
  `tl.advance` and the method form `p.advance(...)`, creations in loops and branches, stores that may write
  into the padding of rows, a region `if D2 > 0:` whose block has a constexpr dimension that may be 0;
* helpers (inline or `noinline=True`, up to two levels) that take, advance, copy, make and return block pointers,
  called inside the access, or hand the block pointer back advanced (`p = step(p, ...)`: assigned then returned,
  one `return tl.advance(...)` per constexpr branch, through a second helper, with a tile) (issue 43), and that
  create and load their own at the offsets their caller passes, negative ones included.

The margins of the sentinel-padded buffers are sized from the offsets every access can reach in the dimensions
it does not check (intervals over the launch's own values), so every read lands on memory the test owns.
The method form `p.advance(d)` cannot run on Triton 3.8's interpreter (a bug of the interpreter, see
shared/reference/triton-semantics.md section 7): the reference run uses the same kernel with `tl.advance(p, d)`.
"""

from __future__ import annotations

import itertools
import math
import random
import re
from dataclasses import dataclass

BUDGET = 250_000  # elements of one padded buffer at most
MAX_DEPTH = 2
# Swarm testing (Groce et al., ISSTA 2012): each kernel draws which of these it may use, so that a kernel
# without the features the codemod refuses today still reaches the rewrite, and feature pairs meet often.
SWARM = ("bc-constexpr", "bc-attribute", "method", "tuple", "helper", "transposed", "guard", "reduce", "loops",
         "branches", "create", "keywords", "both-branches", "store", "inline-advance", "advance")
# The attribute form: constexprs of a module (a kernel may read a module's attributes, not a class's or a
# tuple's; here a module made in the kernel's file, as `import config` would give).
CHECK_FIELDS = ("load", "store")


class Choices:
    """The decisions of one draw: random from a seed, or replayed from `prefix` (0 past its end)."""

    def __init__(self, seed: int | None = None, prefix: list[int] | None = None) -> None:
        self.rng = random.Random(seed)
        self.prefix = prefix
        self.record: list[int] = []

    def below(self, n: int) -> int:
        if n <= 1:
            return 0
        if self.prefix is None:
            value = self.rng.randrange(n)
        else:
            at = len(self.record)
            value = min(self.prefix[at], n - 1) if at < len(self.prefix) else 0
        self.record.append(value)
        return value

    def pick(self, options):
        return options[self.below(len(options))]

    def chance(self, percent: int) -> bool:
        return self.below(100) >= 100 - percent


@dataclass
class Pointer:
    """What a block-pointer value addresses: a tensor's dims, its blocks and the range its offsets take
    (per pointer dim, over every launch value), relative to `base` when it is derived from another one."""

    tensor: str
    dims: tuple[int, ...]
    blocks: tuple[int, ...]
    lo: list[int]
    hi: list[int]
    base: Pointer | None = None

    def interval(self) -> tuple[list[int], list[int]]:
        if self.base is None:
            return self.lo, self.hi
        lo, hi = self.base.interval()
        return [a + b for a, b in zip(lo, self.lo)], [a + b for a, b in zip(hi, self.hi)]

    def widen(self, lo: list[int], hi: list[int]) -> None:
        self.lo = [min(a, b) for a, b in zip(self.lo, lo)]
        self.hi = [max(a, b) for a, b in zip(self.hi, hi)]

    def shifted(self, lo: list[int], hi: list[int]) -> Pointer:
        return Pointer(self.tensor, self.dims, self.blocks, lo, hi, self)


@dataclass(eq=False)  # slots are told apart by identity: fit_budget widens one, not every equal one
class Slot:
    """A boundary_check: a literal, the constexpr parameter `BCL`/`BCS`, or the attribute `CHECKS.load`/`.store`."""

    form: str  # "literal", "constexpr" or "attribute"
    dims: tuple[int, ...]
    name: str = ""  # the parameter or the namedtuple's field

    def text(self) -> str:
        if self.form == "constexpr":
            return f", boundary_check={self.name}"
        if self.form == "attribute":
            return f", boundary_check=checks.{self.name}"
        return f", boundary_check={tup(self.dims)}" if self.dims else ""


@dataclass
class Program:
    source: str  # what the codemod migrates
    reference: str  # the same kernel as Triton 3.8's interpreter can run it (function form of advance)
    launch: dict
    facts: tuple[str, ...]  # the stated facts its launch honours
    features: frozenset[str]
    choices: list[int]


def tup(items) -> str:
    items = [str(i) for i in items]
    return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"


def indent(lines: list[str]) -> list[str]:
    return ["    " + line for line in lines]


class Gen:
    """Draws one program; `program()` is the entry point."""

    def __init__(self, c: Choices) -> None:
        self.c = c
        self.features: set[str] = set()
        self.slots: list[Slot] = []
        self.accesses: list[tuple[Pointer, Slot]] = []
        self.pointers: dict[str, Pointer] = {}
        self.helpers: dict[str, list[str]] = {}
        self.orders: dict[tuple, tuple[int, ...]] = {}
        self.loops = 0
        self.uses_checks = False
        self.draw_launch()
        self.on = {feature for feature in SWARM if c.chance(40)}

    # --- the launch -------------------------------------------------------------------------------------------

    def draw_launch(self) -> None:
        c = self.c
        self.r = r = c.pick([1, 2, 2, 3, 3, 4, 5])
        sizes = {1: [4, 8, 2, 16, 1], 2: [4, 2, 8, 16, 1], 3: [2, 4, 1, 8], 4: [2, 1, 4], 5: [2, 1]}[r]
        self.B = [c.pick(sizes) for _ in range(r)]
        self.S = [1 + c.below(3 * b + 3) for b in self.B]
        self.perm = {name: self.draw_layout(name) for name in ("x", "y")}
        self.grid = c.pick([2, 1, 3])
        self.step, self.n_iter, self.flag = c.pick([1, 0, 4]), c.pick([2, 0, 1, 3]), c.pick([0, 1, 2])
        self.FLAG = c.pick([0, 1])
        self.D1, self.D2 = c.pick([0, 2, 4]), c.pick([2, 0, 4])
        self.bcl = Slot("constexpr", self.draw_subset(), "BCL")
        self.bcs = Slot("constexpr", self.draw_subset(), "BCS")
        self.checks = {name: Slot("attribute", self.draw_subset(), name) for name in CHECK_FIELDS}
        self.slots += [self.bcl, self.bcs, *self.checks.values()]

    def draw_layout(self, name: str) -> tuple[int, ...]:
        """The tensor's dims from outermost to innermost in memory: row-major, or any permutation."""
        if self.r == 1 or not self.c.chance(30):
            return tuple(range(self.r))
        self.features.add("layout:permuted")
        return self.permutation(self.r)

    def permutation(self, n: int) -> tuple[int, ...]:
        left, out = list(range(n)), []
        while left:
            out.append(left.pop(self.c.below(len(left))))
        return tuple(out)

    def draw_subset(self) -> tuple[int, ...]:
        if self.c.chance(50):  # every dimension checked is the common case, and keeps high ranks small
            return tuple(range(self.r))
        return tuple(d for d in range(self.r) if self.c.chance(60))

    # --- expressions ------------------------------------------------------------------------------------------

    def start(self, dim: int, block: int) -> tuple[str, int, int]:
        """An offset along tensor dim `dim`: its text and the range of its values."""
        b, s, top = block, self.S[dim], self.grid - 1
        options = [("0", 0, 0), (f"pid * B{dim}", 0, top * b), (f"pid * B{dim} + 1", 1, top * b + 1),
                   (f"-B{dim}", -b, -b), (f"S{dim}", s, s), ("-1", -1, -1), (f"S{dim} - 1", s - 1, s - 1),
                   (f"S{dim} + 1", s + 1, s + 1)]
        text, lo, hi = self.c.pick(options)
        if lo < 0:
            self.features.add("start:negative")
        if hi + block > s:
            self.features.add("start:past-end")
        return text, lo, hi

    def order(self, dims: tuple[int, ...], tensor: str, fresh: bool = False) -> tuple[int, ...]:
        """Mostly the tensor's layout (pointer dims from fastest to slowest), else any permutation. One order per
        family (tensor and dims): `order` is part of a block pointer's type, which a name keeps through run-time
        branches and loops; `fresh` draws another (a constexpr branch compiles one side only)."""
        family = (tensor, dims)
        if family in self.orders and not fresh:
            return self.orders[family]
        layout = self.perm[tensor]
        natural = tuple(sorted(range(len(dims)), key=lambda i: -layout.index(dims[i])))
        order = natural if not self.c.chance(30) else self.permutation(len(dims))
        self.features.add(f"order:{len(dims)}:{''.join(map(str, order))}")
        self.orders.setdefault(family, order)
        return order

    def make(self, tensor: str, dims: tuple[int, ...], starts=None, blocks=None, fresh=False) -> tuple[str, Pointer]:
        """A `tl.make_block_ptr` call over `tensor` (its pointer dims in `dims`) and the pointer it makes."""
        base = f"{tensor}_ptr"
        blocks_text = blocks or [f"B{d}" for d in dims]
        block_values = [self.B[d] if b == f"B{d}" else self.D2 for d, b in zip(dims, blocks_text)]
        drawn = starts or [self.start(d, self.B[d]) for d in dims]
        args = [tup(f"S{d}" for d in dims), tup(f"s{tensor}{d}" for d in dims), tup(t for t, _, _ in drawn),
                tup(blocks_text), tup(self.order(dims, tensor, fresh))]
        if "keywords" in self.on and self.c.chance(30):
            self.features.add("make:keywords")
            names = ("shape", "strides", "offsets", "block_shape", "order")
            call = f"tl.make_block_ptr(base={base}, " + ", ".join(f"{n}={a}" for n, a in zip(names, args)) + ")"
        else:
            call = f"tl.make_block_ptr({base}, " + ", ".join(args) + ")"
        return call, Pointer(tensor, dims, tuple(block_values), [lo for _, lo, _ in drawn], [hi for _, _, hi in drawn])

    def forms(self) -> list[str]:
        return ["literal"] + [form for form in ("constexpr", "attribute") if f"bc-{form}" in self.on]

    def slot(self) -> Slot:
        form = self.c.pick(self.forms())
        if form == "constexpr":
            self.features.add("bc:constexpr")
            return self.bcl
        if form == "attribute":
            self.features.add("bc:attribute")
            self.uses_checks = True
            return self.checks["load"]
        self.features.add("bc:literal")
        slot = Slot("literal", self.draw_subset())
        self.slots.append(slot)
        return slot

    def padding(self, slot: Slot) -> str:
        # Triton 3.8 rejects a padding_option without any checked dimension.
        option = self.c.pick(["", "zero", "nan"]) if slot.dims else ""
        self.features.add(f"padding:{option or 'none'}")
        return f', padding_option="{option}"' if option else ""

    def access(self, pointer: Pointer, slot: Slot) -> str:
        self.accesses.append((pointer, slot))
        return f"<{self.slots.index(slot)}>"

    def load(self, text: str, pointer: Pointer, slot: Slot | None = None) -> str:
        slot = slot or self.slot()
        return f"tl.load({text}{self.access(pointer, slot)}{self.padding(slot)})"

    def reduced(self, value: str, rank: int) -> str:
        kind = self.c.pick(["", "sum", "max", "cumsum"]) if "reduce" in self.on else ""
        if not kind:
            return value
        self.features.add(f"reduce:{kind}")
        axis = self.c.below(rank)
        if kind == "cumsum":
            return f"tl.cumsum({value}, axis={axis})"
        return f"tl.{kind}({value}, axis={axis}, keep_dims=True)"

    def delta(self, pointer: Pointer, trips: int) -> tuple[str, list[int], list[int]]:
        """An advance's offsets, and the range it moves `pointer` by over `trips` executions."""
        texts, lo, hi = [], [], []
        for d in pointer.dims:
            text, value = self.c.pick([("0", 0), (f"B{d}", self.B[d]), (f"-B{d}", -self.B[d]), ("step", self.step),
                                       (f"2 * B{d}", 2 * self.B[d])])
            texts.append(text)
            lo.append(min(0, value * trips))
            hi.append(max(0, value * trips))
        return tup(texts), lo, hi

    def advanced(self, name: str, pointer: Pointer, trips: int, where: str) -> tuple[str, list[int], list[int]]:
        """`tl.advance(name, d)` or the method form (marked for the reference to spell as the function)."""
        delta, lo, hi = self.delta(pointer, trips)
        method = "method" in self.on and self.c.chance(60)
        self.features |= {f"advance:{'method' if method else 'function'}", f"advance:{where}"}
        return (f"__MADV__({name}, {delta})" if method else f"tl.advance({name}, {delta})"), lo, hi

    # --- statements -------------------------------------------------------------------------------------------

    def block(self, depth: int, trips: int, where: str, loop_var: str | None) -> list[str]:
        lines = [line for _ in range(1 + self.c.below(3)) for line in self.statement(depth, trips, where, loop_var)]
        return lines or ["pass"]

    def statement(self, depth: int, trips: int, where: str, loop_var: str | None) -> list[str]:
        optional = {"advance": ["advance", "advance_out"], "inline-advance": ["inline_advance"], "store": ["store"],
                    "create": ["create"], "helper": ["helper"], "tuple": ["tuple"], "transposed": ["transposed"],
                    "guard": ["guard"], "loops": ["for", "while"], "branches": ["if_runtime", "if_constexpr"]}
        kinds = ["load"] + [kind for feature, names in optional.items() if feature in self.on for kind in names
                            if depth < MAX_DEPTH or kind not in ("for", "while", "if_runtime", "if_constexpr")]
        return getattr(self, f"s_{self.c.pick(kinds)}")(depth, trips, where, loop_var)

    def s_load(self, depth, trips, where, loop_var):
        return [f"acc += {self.reduced(self.load('p', self.pointers['p']), self.r)}"]

    def s_advance(self, depth, trips, where, loop_var):
        pointer = self.pointers["p"]
        text, lo, hi = self.advanced("p", pointer, trips, where)
        pointer.widen([a + b for a, b in zip(pointer.lo, lo)], [a + b for a, b in zip(pointer.hi, hi)])
        return [f"p = {text}"]

    def s_inline_advance(self, depth, trips, where, loop_var):
        text, lo, hi = self.advanced("p", self.pointers["p"], 1, where)
        self.features.add("advance:inline")
        lo = [min(0, v) for v in lo]
        return [f"acc += {self.load(text, self.pointers['p'].shifted(lo, hi))}"]

    def store_slot(self) -> Slot:
        form = self.c.pick(self.forms())
        if form == "constexpr":
            return self.bcs
        if form == "attribute":
            self.uses_checks = True
            return self.checks["store"]
        slot = Slot("literal", self.draw_subset())
        self.slots.append(slot)
        return slot

    def store(self, text: str, pointer: Pointer) -> str:
        slot = self.store_slot()
        return f"tl.store({text}, acc{self.access(pointer, slot)})"

    def s_store(self, depth, trips, where, loop_var):
        return [self.store("o", self.pointers["o"])]

    def s_advance_out(self, depth, trips, where, loop_var):
        pointer = self.pointers["o"]
        text, lo, hi = self.advanced("o", pointer, trips, where)
        pointer.widen([a + b for a, b in zip(pointer.lo, lo)], [a + b for a, b in zip(pointer.hi, hi)])
        return [f"o = {text}"]

    def s_create(self, depth, trips, where, loop_var):
        """A block pointer made here (in a loop: at offsets that follow the loop's variable) and used here."""
        dims = tuple(range(self.r))
        starts = None
        if loop_var:
            self.features.add("create:loop")
            starts = [(f"{loop_var} * B{d}", 0, max(0, trips - 1) * self.B[d]) for d in dims]
            starts = [s if self.c.chance(50) else self.start(d, self.B[d]) for d, s in zip(dims, starts)]
        self.features.add(f"create:{where}")
        call, pointer = self.make("x", dims, starts)
        return [f"q = {call}", f"acc += {self.reduced(self.load('q', pointer), self.r)}"]

    def s_tuple(self, depth, trips, where, loop_var):
        self.features.add("tuple")
        p, o = self.pointers["p"], self.pointers["o"]
        if self.c.chance(50):
            return ["po = (p, o)", f"acc += {self.load('po[0]', p)}", self.store("po[1]", o)]
        text, lo, hi = self.advanced("p", p, 1, where)
        lo = [min(0, v) for v in lo]
        return [f"pq = (p, {text})", "a, b = pq", f"acc += {self.load('pq[1]', p.shifted(lo, hi))}",
                f"acc += {self.load('a', p)}"]

    def s_transposed(self, depth, trips, where, loop_var):
        """A block pointer over x with its dims reversed; the tile is transposed back (reduced first, or not)."""
        if self.r == 1:
            return self.s_load(depth, trips, where, loop_var)
        self.features.add("transpose")
        if "t" not in self.pointers:
            self.t_call, self.pointers["t"] = self.make("x", tuple(reversed(range(self.r))))
        tile = self.reduced(self.load("t", self.pointers["t"]), self.r)
        back = f"tl.trans({tile})" if self.r == 2 else f"tl.permute({tile}, {tup(reversed(range(self.r)))})"
        lines = [f"acc += {back}"]
        if self.c.chance(30):
            text, lo, hi = self.advanced("t", self.pointers["t"], trips, where)
            t = self.pointers["t"]
            t.widen([a + b for a, b in zip(t.lo, lo)], [a + b for a, b in zip(t.hi, hi)])
            lines.append(f"t = {text}")
        return lines

    def s_guard(self, depth, trips, where, loop_var):
        """`if D2 > 0:` around a block whose innermost dimension is D2 (0 at some launches)."""
        self.features.add("guard:zero-dim")
        if self.D2 == 0:
            self.features.add("guard:zero-dim-launched-0")
        dims = tuple(range(self.r))
        starts = [self.start(d, self.B[d]) for d in dims[:-1]] + [("D1", self.D1, self.D1)]
        call, pointer = self.make("x", dims, starts, [f"B{d}" for d in dims[:-1]] + ["D2"])
        slot = Slot("literal", tuple(sorted({*self.draw_subset(), self.r - 1})))
        self.slots.append(slot)
        tile = self.load("g", pointer, slot)
        return ["if D2 > 0:", *indent([f"g = {call}", f"acc += tl.sum({tile}, axis={self.r - 1}, keep_dims=True)"])]

    def loop_name(self) -> str:
        self.loops += 1
        return f"i{self.loops}"

    def s_for(self, depth, trips, where, loop_var):
        name = self.loop_name()
        bound, count = self.c.pick([("2", 2), ("n_iter", self.n_iter)])
        body = self.block(depth + 1, trips * count, "loop", name)
        return [f"for {name} in range({bound}):", *indent(body)]

    def s_while(self, depth, trips, where, loop_var):
        name = self.loop_name()
        body = self.block(depth + 1, trips * self.n_iter, "loop", name)
        return [f"{name} = 0", f"while {name} < n_iter:", *indent([*body, f"{name} += 1"])]

    def s_if_runtime(self, depth, trips, where, loop_var):
        test = self.c.pick([f"flag == {self.c.below(3)}", "pid == 0"] + ([f"{loop_var} % 2 == 0"] if loop_var else []))
        return self.branches(f"if {test}:", depth, trips, loop_var, "branch")

    def s_if_constexpr(self, depth, trips, where, loop_var):
        return self.branches(self.c.pick(["if FLAG:", "if FLAG == 0:"]), depth, trips, loop_var, "branch")

    def branches(self, test, depth, trips, loop_var, where):
        then = self.block(depth + 1, trips, where, loop_var)
        other = self.block(depth + 1, trips, where, loop_var) if self.c.chance(50) else []
        return [test, *indent(then)] + (["else:", *indent(other)] if other else [])

    # --- helpers ----------------------------------------------------------------------------------------------

    def helper(self, name: str, lines_of) -> str:
        """Define helper `name` once (`lines_of()` draws its body), inline or noinline."""
        if name not in self.helpers:
            noinline = self.c.chance(40)
            self.features.add(f"helper:{'noinline' if noinline else 'inline'}")
            decorator = "@triton.jit(noinline=True)" if noinline else "@triton.jit"
            self.helpers[name] = [decorator, *lines_of()]
        return name

    def params(self, prefix: str) -> list[str]:
        return [f"{prefix}{d}" for d in range(self.r)]

    def h_load_tile(self) -> Slot:
        if "load_tile" not in self.helpers:
            slot = Slot("literal", self.draw_subset())
            self.slots.append(slot)
            self.helper_slot = slot
            pad = self.padding(slot)
            self.helper("load_tile",
                        lambda: ["def load_tile(p):", f"    return tl.load(p<{self.slots.index(slot)}>{pad})"])
        return self.helper_slot

    def h_shift(self) -> str:
        def body():
            method = "method" in self.on and self.c.chance(60)
            self.features.add(f"advance:{'method' if method else 'function'}")
            delta = tup(self.params("d"))
            moved = f"__MADV__(p, {delta})" if method else f"tl.advance(p, {delta})"
            return [f"def shift(p, {', '.join(self.params('d'))}):", f"    return {moved}"]
        return self.helper("shift", body)

    def made_at(self, name: str) -> tuple[str, str]:
        """The header of helper `name(base, S.., s.., o.., B..)` and the block pointer it makes from them."""
        dims = tuple(range(self.r))
        order = tup(self.order(dims, "x"))
        params = [*self.params("S"), *self.params("s"), *self.params("o")]
        blocks = [f"B{d}: tl.constexpr" for d in dims]
        return (f"def {name}(base, {', '.join(params + blocks)}):",
                (f"tl.make_block_ptr(base, {tup(self.params('S'))}, {tup(self.params('s'))}, "
                 f"{tup(self.params('o'))}, {tup(self.params('B'))}, {order})"))

    def h_tile_at(self) -> str:
        def body():
            header, made = self.made_at("tile_at")
            return [header, f"    return {made}"]
        return self.helper("tile_at", body)

    def h_load_at(self) -> str:
        """A helper that creates its own block pointer at the offsets its caller passes and loads it: nothing
        crosses the call, yet only the call says whether an offset may be negative."""
        def body():
            header, made = self.made_at("load_at")
            checked = tup([str(d) for d in range(self.r)])
            return [header, f"    q = {made}",
                    f"    return tl.load(q, boundary_check={checked}, padding_option=\"zero\")"]
        return self.helper("load_at", body)

    def shift_args(self, pointer: Pointer) -> tuple[str, Pointer]:
        texts, lo, hi = [], [], []
        for d in pointer.dims:
            text, value = self.c.pick([(f"B{d}", self.B[d]), ("0", 0), (f"-B{d}", -self.B[d])])
            texts.append(text)
            lo.append(min(0, value))
            hi.append(max(0, value))
        return ", ".join(texts), pointer.shifted(lo, hi)

    def s_helper(self, depth, trips, where, loop_var):
        kind = self.c.pick(["take", "advance", "copy", "return", "take_advance", "return_advance", "store",
                            "advance_assign", "assigned_return", "branch_return", "through_return", "take_return",
                            "recreated_return", "load_inside"])
        self.features.add(f"helper:{kind}")
        p = self.pointers["p"]
        if kind.endswith("_return") and kind != "recreated_return":
            return self.handed_back(kind, p, trips)
        if kind == "take":
            slot = self.h_load_tile()
            self.accesses.append((p, slot))
            return [f"acc += {self.reduced('load_tile(p)', self.r)}"]
        if kind == "advance":
            args, moved = self.shift_args(p)
            return [f"acc += {self.load(f'{self.h_shift()}(p, {args})', moved)}"]
        if kind == "advance_assign":
            args, moved = self.shift_args(p)
            lo, hi = moved.lo, moved.hi
            p.widen([a + b * trips for a, b in zip(p.lo, lo)], [a + b * trips for a, b in zip(p.hi, hi)])
            return [f"p = {self.h_shift()}(p, {args})"]
        if kind == "copy":
            self.helper("same", lambda: ["def same(p):", "    q = p", "    return q"])
            return [f"acc += {self.load('same(p)', p)}"]
        if kind == "take_advance":
            self.features.add("helper:two-levels")
            slot = self.h_load_tile()
            self.h_shift()
            self.helper("load_shifted", lambda: [f"def load_shifted(p, {', '.join(self.params('d'))}):",
                                                 f"    return load_tile(shift(p, {', '.join(self.params('d'))}))"])
            args, moved = self.shift_args(p)
            self.accesses.append((moved, slot))
            return [f"acc += load_shifted(p, {args})"]
        tensor = "y" if kind == "store" else "x"
        dims = tuple(range(self.r))
        starts = [self.start(d, self.B[d]) for d in dims]
        pointer = Pointer(tensor, dims, tuple(self.B), [lo for _, lo, _ in starts], [hi for _, _, hi in starts])
        call_args = ", ".join([f"{tensor}_ptr", *[f"S{d}" for d in dims], *[f"s{tensor}{d}" for d in dims],
                               *[t for t, _, _ in starts], *[f"B{d}" for d in dims]])
        if kind == "load_inside":
            return [f"acc += {self.reduced(f'{self.h_load_at()}({call_args})', self.r)}"]
        made = f"{self.h_tile_at()}({call_args})"
        self.features.add("create:helper")
        if kind == "store":
            return [self.store(made, pointer)]
        if kind == "recreated_return":
            return self.recreated_return(call_args, pointer)
        if kind == "return_advance":
            self.features.add("helper:two-levels")
            self.h_shift()
            parts = ", ".join(self.params("S") + self.params("s") + self.params("o"))
            self.helper("tile_shifted", lambda: [
                (f"def tile_shifted(base, {parts}, {', '.join(self.params('d'))}, "
                 f"{', '.join(f'B{d}: tl.constexpr' for d in dims)}):"),
                f"    return shift(tile_at(base, {parts}, {', '.join(self.params('B'))}), "
                f"{', '.join(self.params('d'))})"])
            args, moved = self.shift_args(pointer)
            call = (f"tile_shifted({', '.join(call_args.split(', ')[:1 + 3 * self.r])}, {args}, "
                    f"{', '.join(f'B{d}' for d in dims)})")
            return [f"acc += {self.load(call, moved)}"]
        return [f"acc += {self.reduced(self.load(made, pointer), self.r)}"]

    def h_step(self) -> str:
        """A helper that assigns the advance, then returns it (issue 43)."""
        deltas = ", ".join(self.params("d"))
        moved = f"    p = tl.advance(p, {tup(self.params('d'))})"
        return self.helper("step_on", lambda: [f"def step_on(p, {deltas}):", moved, "    return p"])

    def handed_back(self, kind: str, p: Pointer, trips: int) -> list[str]:
        """`p = helper(p, ...)` where the helper hands `p` back advanced, in one of the spellings of issue 43: assigned
        then returned, one `return tl.advance(...)` per constexpr branch (forward or reverse on FLAG), through a
        second helper, or with a tile (`tk, p = take_step(p, ...)`)."""
        args, moved = self.shift_args(p)
        deltas, d = ", ".join(self.params("d")), tup(self.params("d"))
        lo, hi = moved.lo, moved.hi
        if kind == "branch_return":  # either sign, as FLAG chooses
            lo, hi = [min(a, -b) for a, b in zip(lo, hi)], [max(b, -a) for a, b in zip(lo, hi)]
        p.widen([a + b * trips for a, b in zip(p.lo, lo)], [a + b * trips for a, b in zip(p.hi, hi)])
        if kind == "assigned_return":
            return [f"p = {self.h_step()}(p, {args})"]
        if kind == "branch_return":
            back = tup(f"-d{i}" for i in range(self.r))
            self.helper("walk", lambda: [f"def walk(p, {deltas}, REVERSE: tl.constexpr):", "    if REVERSE:",
                                         f"        return tl.advance(p, {back})", f"    return tl.advance(p, {d})"])
            return [f"p = walk(p, {args}, FLAG)"]
        if kind == "through_return":
            self.features.add("helper:two-levels")
            self.h_step()
            self.helper("step_through", lambda: [f"def step_through(p, {deltas}):", f"    return step_on(p, {deltas})"])
            return [f"p = step_through(p, {args})"]
        slot = Slot("literal", self.draw_subset())
        self.slots.append(slot)
        self.accesses.append((p, slot))
        pad = self.padding(slot)
        index = self.slots.index(slot)
        self.helper(f"take_step{index}", lambda: [f"def take_step{index}(p, {deltas}):",
                                                  f"    return tl.load(p<{index}>{pad}), tl.advance(p, {d})"])
        return [f"tk, p = take_step{index}(p, {args})", f"acc += {self.reduced('tk', self.r)}"]

    def recreated_return(self, call_args: str, pointer: Pointer) -> list[str]:
        """A helper that makes a block pointer, advances it and returns it (issue 43), loaded where it is called."""
        dims = tuple(range(self.r))
        args, moved = self.shift_args(pointer)
        parts = ", ".join(self.params("S") + self.params("s") + self.params("o"))
        blocks = ", ".join(f"B{d}: tl.constexpr" for d in dims)
        self.helper("tile_moved", lambda: [
            f"def tile_moved(base, {parts}, {', '.join(self.params('d'))}, {blocks}):",
            (f"    q = tl.make_block_ptr(base, {tup(self.params('S'))}, {tup(self.params('s'))}, "
             f"{tup(self.params('o'))}, {tup(self.params('B'))}, {tup(self.order(dims, 'x'))})"),
            f"    q = tl.advance(q, {tup(self.params('d'))})", "    return q"])
        call = (f"tile_moved({', '.join(call_args.split(', ')[:1 + 3 * self.r])}, {args}, "
                f"{', '.join(f'B{d}' for d in dims)})")
        return [f"acc += {self.load(call, moved)}"]

    # --- the program ------------------------------------------------------------------------------------------

    def prologue(self) -> list[str]:
        dims = tuple(range(self.r))
        o_call, self.pointers["o"] = self.make("y", dims)
        how = self.c.pick(["top", "constexpr", "runtime"]) if "both-branches" in self.on else "top"
        if how == "top":
            self.features.add("create:top")
            call, self.pointers["p"] = self.make("x", dims)
            return [f"p = {call}", f"o = {o_call}"]
        self.features.add(f"create:both-branches-{how}")
        first, self.pointers["p"] = self.make("x", dims)
        second, other = self.make("x", dims, fresh=how == "constexpr")
        self.pointers["p"].widen(other.lo, other.hi)
        test = "if FLAG:" if how == "constexpr" else f"if flag == {self.c.below(3)}:"
        then, orelse = [f"p = {first}"], [f"p = {second}"]
        if self.c.chance(50):  # a use inside each branch too
            then.append(f"acc += {self.load('p', self.pointers['p'])}")
            orelse.append(f"acc += {self.load('p', self.pointers['p'])}")
        return [test, *indent(then), "else:", *indent(orelse), f"o = {o_call}"]

    def program(self) -> Program:
        self.features.add(f"rank:{self.r}")
        head = ["pid = tl.program_id(0)", f"acc = tl.zeros({tup(f'B{d}' for d in range(self.r))}, dtype=tl.float32)"]
        prologue = self.prologue()
        body = self.block(0, 1, "top", None)
        final_call, final = self.make("y", tuple(range(self.r)),
                                      [("pid * B0", 0, (self.grid - 1) * self.B[0])] + [("0", 0, 0)] * (self.r - 1))
        tail = [f"acc += {self.load('p', self.pointers['p'])}", f"r = {final_call}", self.store("r", final)]
        if "t" in self.pointers:
            prologue.append(f"t = {self.t_call}")
        self.fit_budget()
        self.note_features()
        return self.render(head + prologue + body + tail)

    def need(self) -> dict[str, list[int]]:
        """Per tensor and dim, how far past the logical tensor an unchecked access reaches."""
        need = {"x": [0] * self.r, "y": [0] * self.r}
        for pointer, slot in self.accesses:
            lo, hi = pointer.interval()
            for i, d in enumerate(pointer.dims):
                if i not in slot.dims:
                    need[pointer.tensor][d] = max(need[pointer.tensor][d], -lo[i],
                                                  hi[i] + pointer.blocks[i] - self.S[d])
        return need

    def padded_shape(self, tensor: str, margins: list[int]) -> list[int]:
        """Physical sizes (outermost first): the innermost margin and size rounded to 16 bytes (aligned rows)."""
        sizes = []
        for position, d in enumerate(self.perm[tensor]):
            m = margins[d]
            size = self.S[d] + 2 * m
            if position == self.r - 1:
                size = (size + 3) // 4 * 4
            sizes.append(size)
        return sizes

    def margins(self, tensor: str, need: list[int]) -> list[int]:
        inner = self.perm[tensor][-1]
        return [((m + 1 + 3) // 4 * 4 if d == inner else m + 1) for d, m in enumerate(need)]

    def fit_budget(self) -> None:
        """Check every dimension of the slots that make a buffer too large (never of accesses in bounds)."""
        for slot in self.slots:
            need = self.need()
            if all(math.prod(self.padded_shape(t, self.margins(t, need[t]))) <= BUDGET for t in need):
                return
            if any(s is slot for _, s in self.accesses):
                slot.dims = tuple(range(self.r))

    def note_features(self) -> None:
        used = {id(s) for _, s in self.accesses}
        for slot in self.slots:
            if id(slot) in used:
                if not slot.dims:
                    self.features.add("bc:none")
                elif len(slot.dims) < self.r:
                    self.features.add("bc:subset")
        inner = self.perm["y"][-1]
        for pointer, slot in self.accesses:
            _, hi = pointer.interval()
            if pointer.tensor == "y" and inner in pointer.dims:
                i = pointer.dims.index(inner)
                if i not in slot.dims and hi[i] + pointer.blocks[i] > self.S[inner]:
                    self.features.add("store:row-padding")

    def render(self, body: list[str]) -> Program:
        header = ["import triton", "import triton.language as tl", ""]
        if self.uses_checks:
            header = ["import types", "", *header, 'checks = types.ModuleType("checks")',
                      *(f"checks.{n} = {tup(self.checks[n].dims)}" for n in CHECK_FIELDS), ""]
        helpers = [line for name in self.helpers for line in ["", *self.helpers[name], ""]]
        params = (["x_ptr", "y_ptr", *self.params("S"), *self.params("sx"), *self.params("sy"), "step", "n_iter",
                   "flag"] + [f"B{d}: tl.constexpr" for d in range(self.r)]
                  + [f"{n}: tl.constexpr" for n in ("FLAG", "D1", "D2", "BCL", "BCS")])
        kernel = ["", "@triton.jit", f"def kernel({', '.join(params)}):", *indent(body)]
        # Drawn last: the choices before it, and so every earlier kernel, stay as they were. Not with helpers: the
        # interpreter runs a kernel in its module's globals, where a helper nested beside it is not.
        if not self.helpers and self.c.chance(20):
            header, helpers, kernel = self.in_factory(header, helpers, kernel)
        if self.c.chance(30):  # drawn after the factory's: a kernel that draws neither stays as it was
            kernel = self.unit_strides(kernel)
        text = "\n".join(header + helpers + kernel) + "\n"
        text = re.sub(r"<(\d+)>", lambda m: self.slots[int(m.group(1))].text(), text)
        method = re.compile(r"__MADV__\(([\w\[\]]+), (\([^()]*\))\)")
        source = method.sub(r"\1.advance(\2)", text)
        reference = method.sub(r"tl.advance(\1, \2)", text)
        need = self.need()
        launch = {
            "rank": self.r, "grid": self.grid,
            "tensors": {t: {"shape": list(self.S), "perm": list(self.perm[t]), "margins": self.margins(t, need[t])}
                        for t in ("x", "y")},
            "scalars": {"step": self.step, "n_iter": self.n_iter, "flag": self.flag},
            "constexprs": {**{f"B{d}": self.B[d] for d in range(self.r)}, "FLAG": self.FLAG, "D1": self.D1,
                           "D2": self.D2, "BCL": self.bcl.dims, "BCS": self.bcs.dims},
        }
        return Program(source, reference, launch, self.facts(need), frozenset(self.features), list(self.c.record))

    def unit_strides(self, kernel: list[str]) -> list[str]:
        """The kernel's body with each tensor's innermost stride written `1`, as most kernels do (the launch's is
        1): the only spelling under which a block pointer can become a descriptor without stated facts, checked
        at launch (TTD009) or a compat tile's descriptor, the paths that failed to compile on the GPU (TTD119,
        fixtures/carried_tile_compat) and that no kernel of the grammar reached before."""
        self.features.add("stride:literal-1")
        unit = re.compile(r"\b(?:sx{}|sy{})\b".format(self.perm["x"][-1], self.perm["y"][-1]))
        return [line if line.lstrip().startswith("def kernel(") else unit.sub("1", line) for line in kernel]

    def in_factory(self, header: list[str], helpers: list[str], kernel: list[str]) -> tuple[list[str], ...]:
        """The kernel defined in a function that imports triton itself, as a module that must import without
        Triton builds its kernels (issue 43): the module's `kernel` is what it returns."""
        self.features.add("import:function")
        imports = ["import triton", "import triton.language as tl"]
        body = indent(imports + helpers + kernel + ["", "return kernel"])
        factory = ["def build():", *(line.rstrip() for line in body)]
        return [line for line in header if line not in imports], [], [*factory, "", "", "kernel = build()"]

    def facts(self, need: dict[str, list[int]]) -> tuple[str, ...]:
        """The stated facts (policy.FACTS) this launch honours."""
        facts = ["aligned", "allocator"]
        if all(self.perm[t] == tuple(range(self.r)) for t in ("x", "y")):
            facts.append("contiguous")
            if self.S[-1] % 4 == 0:
                facts.append("aligned-rows")
        inside = all(all(lo >= 0 for lo in p.interval()[0])
                     and all(h < self.S[d] for h, d in zip(p.interval()[1], p.dims)) for p, _ in self.accesses)
        if inside and not any(any(n > 0 for n in need[t]) for t in need):
            facts.append("in-bounds")
        return tuple(facts)


def generate(seed: int | None = None, prefix: list[int] | None = None) -> Program:
    return Gen(Choices(seed, prefix)).program()


def all_orders(rank: int) -> set[str]:
    return {f"order:{rank}:{''.join(map(str, p))}" for p in itertools.permutations(range(rank))}
