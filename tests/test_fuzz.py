"""Issue 9, fuzzing: three properties, a short campaign each here; `tests/fuzz_campaign.py` runs thousands.

1. Generated block-pointer kernels with control flow (if/else on run-time values and on loop counters,
   for and while loops, nested, advances in branches, inline advances, re-creation), stores through an
   advancing block pointer, helper calls (on values, on a block pointer, helpers with block pointers of
   their own) and raw pointers mixed in, reusing the block pointers' names. Migrated, then both kernels run
   in Triton's interpreter on sentinel-padded buffers: the outputs must be bit-identical. What the tool
   cannot prove it must refuse (a diagnostic with fixed=False) and leave as it is; every site gets a
   diagnostic. The only loud failure allowed is Triton's own "16 bytes" error for a constexpr block width
   under 16 bytes (invisible to the codemod: docs/output.md, "What is proven, and what is assumed").
2. Arbitrary Python from hypothesmith, alone and spliced into a kernel, and 3. real kernels (the fixtures)
   mutated line by line: the engine raises SourceError only for source Python cannot parse, and otherwise
   returns output that is a fixed point (it checks that itself) and compiles whenever the input compiled.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib.util
import itertools
import os
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import hypothesmith
import libcst
import pytest
import torch
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from triton_migrate import engine

KERNEL_EXAMPLES = int(os.environ.get("TRITON_MIGRATE_FUZZ_KERNELS", "100"))
PYTHON_EXAMPLES = int(os.environ.get("TRITON_MIGRATE_FUZZ_PYTHON", "60"))
GRID = 2
SENTINEL = -7.25
N_ITER_MAX = 3  # the largest run-time trip count drawn
_modules = itertools.count()

HELPERS = {
    "scale": '''
@triton.jit
def scale(v, factor):
    return v * factor + 1.0
''',
    "load_bp": '''
@triton.jit
def load_bp(ptr):
    return tl.load(ptr, boundary_check=(0, 1), padding_option="zero")
''',
    "load_tile": '''
@triton.jit
def load_tile(base, M, N, sm, row, col, BM: tl.constexpr, BN: tl.constexpr):
    t = tl.make_block_ptr(base, (M, N), (sm, 1), (row, col), (BM, BN), (1, 0))
    return tl.load(t, boundary_check=(0, 1), padding_option="zero")
''',
}


@dataclass
class Kernel:
    """One generated kernel: its source and the run-time values it is launched with."""

    blocks: tuple[int, int]
    shape: tuple[int, int]
    step: int
    n_iter: int
    flag: int
    lines: list[str] = field(default_factory=list)
    helpers: set[str] = field(default_factory=set)
    reach: list[int] = field(default_factory=lambda: [0, 0])  # how far `p` may wander, per dimension
    out_reach: list[int] = field(default_factory=lambda: [0, 0])  # how far `o` (on y) may wander
    loops: int = 0
    r_kind: str = ""  # what `r` holds at the top level: "", "raw" or "bp" (Triton types must agree)
    bp_helper: bool = False  # whether `p` may be handed to a helper

    def source(self) -> str:
        helpers = "".join(HELPERS[name] + "\n" for name in sorted(self.helpers))
        body = "".join(f"    {line}\n" for line in self.lines)
        return f'''import triton
import triton.language as tl

{helpers}
@triton.jit
def kernel(x_ptr, z_ptr, y_ptr, M, N, sxm, szm, sym, step, n_iter, flag, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BM + tl.arange(0, BM)
    cols = tl.arange(0, BN)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
{body}    q = tl.make_block_ptr(y_ptr, (M, BN), (sym, 1), (pid * BM, 0), (BM, BN), (1, 0))
    tl.store(q, acc, boundary_check=(0, 1))
'''


class Draw:
    """Draws the statements of one kernel, keeping it valid Triton and within its sentinel margins."""

    def __init__(self, draw, k: Kernel) -> None:
        self.draw, self.k = draw, k

    def pick(self, options):
        return self.draw(st.sampled_from(options))

    def value(self, text: str) -> int:
        bm, bn = self.k.blocks
        return abs(eval(text, {"BM": bm, "BN": bn, "step": self.k.step}))  # noqa: S307 - our own delta strings

    def delta(self, trips: int, reach: list[int]) -> str:
        dm, dn = self.pick(["0", "BM", "-BM", "2 * BM", "step"]), self.pick(["0", "BN", "-BN", "step", "2 * BN"])
        reach[0] += self.value(dm) * trips
        reach[1] += self.value(dn) * trips
        return f"({dm}, {dn})"

    def start(self) -> str:
        return f"({self.pick(['pid * BM', '0', 'pid * BM + 1', 'BM * 2'])}, {self.pick(['0', 'BN', '1'])})"

    def load(self, pointer: str) -> str:
        checked = self.pick(["(0, 1)", "(0, 1)", "(0,)", "(1,)", "()"])
        padding = self.pick(['""', '"zero"', '"nan"']) if checked != "()" else '""'
        return f"tl.load({pointer}, boundary_check={checked}, padding_option={padding})"

    def block(self, depth: int, trips: int, counter: str | None) -> list[str]:
        """1-3 statements; `trips` bounds how often they run, `counter` is the innermost loop's variable."""
        return [line for _ in range(self.draw(st.integers(1, 3))) for line in self.statement(depth, trips, counter)]

    def statement(self, depth: int, trips: int, counter: str | None) -> list[str]:
        kinds = ["load", "load", "advance", "advance", "inline", "value_helper", "tile_helper", "raw", "second_bp",
                 "recreate", "dtype", "store", "advance_out"]
        if self.k.bp_helper:  # refuses `p` as a whole (TTD201): kept rare, or it would hide the rest
            kinds.append("bp_helper")
        if depth < 2:
            kinds += ["if_flag", "for", "for", "while", "advance", "load"]
            if counter:
                kinds.append("if_counter")
        return getattr(self, f"s_{self.pick(kinds)}")(depth, trips, counter)

    def s_load(self, depth, trips, counter):
        return [f"acc += {self.load('p')}"]

    def s_advance(self, depth, trips, counter):
        return [f"p = tl.advance(p, {self.delta(trips, self.k.reach)})"]

    def s_inline(self, depth, trips, counter):
        return [f"acc += {self.load(f'tl.advance(p, {self.delta(trips, self.k.reach)})')}"]

    def s_recreate(self, depth, trips, counter):
        return [f"p = tl.make_block_ptr(x_ptr, (M, N), (sxm, 1), {self.start()}, (BM, BN), (1, 0))"]

    def s_dtype(self, depth, trips, counter):
        return ["acc += tl.full((BM, BN), 0.25, dtype=p.dtype.element_ty)"]

    def s_store(self, depth, trips, counter):
        # Stores through `o` land anywhere in y's margins (unchecked or negative offsets): the comparison of
        # the whole buffer shows any store that moved.
        checked = self.pick(["(0, 1)", "(0, 1)", "(0,)", "(1,)", "()"])
        return [f"tl.store(o, acc, boundary_check={checked})"]

    def s_advance_out(self, depth, trips, counter):
        return [f"o = tl.advance(o, {self.delta(trips, self.k.out_reach)})"]

    def s_if_flag(self, depth, trips, counter):
        then = self.block(depth + 1, trips, counter)
        other = self.block(depth + 1, trips, counter) if self.draw(st.booleans()) else []
        test = f"if flag == {self.draw(st.integers(0, 2))}:"
        return [test, *indent(then)] + (["else:", *indent(other)] if other else [])

    def s_if_counter(self, depth, trips, counter):
        return [f"if {counter} % 2 == 0:", *indent(self.block(depth + 1, trips, counter))]

    def loop_name(self, prefix: str) -> str:
        self.k.loops += 1
        return f"{prefix}{self.k.loops}"

    def s_for(self, depth, trips, counter):
        name, bound = self.loop_name("i"), self.pick(["2", "n_iter"])
        inner = trips * (2 if bound == "2" else N_ITER_MAX)
        return [f"for {name} in range({bound}):", *indent(self.block(depth + 1, inner, name))]

    def s_while(self, depth, trips, counter):
        name = self.loop_name("j")
        body = self.block(depth + 1, trips * N_ITER_MAX, name)
        return [f"{name} = 0", f"while {name} < n_iter:", *indent([*body, f"{name} += 1"])]

    def s_value_helper(self, depth, trips, counter):
        self.k.helpers.add("scale")
        return [f"acc = scale(acc, {self.pick(['0.5', '2.0', '-1.0'])})"]

    def s_bp_helper(self, depth, trips, counter):
        self.k.helpers.add("load_bp")
        return ["acc += load_bp(p)"]

    def s_tile_helper(self, depth, trips, counter):
        self.k.helpers.add("load_tile")
        return [f"acc += load_tile(x_ptr, M, N, sxm, pid * BM, {self.pick(['0', 'BN'])}, BM, BN)"]

    def s_raw(self, depth, trips, counter):
        # `q` is the output block pointer's name later on; `r` may be a block pointer at the top level.
        name = self.pick(["q"] + (["r"] if self.k.r_kind != "bp" else []))
        if name == "r" and depth == 0:
            self.k.r_kind = "raw"
        return [f"{name} = z_ptr + rows[:, None] * szm + cols[None, :]",
                f"acc += tl.load({name}, mask=mask, other=0.0)"]

    def s_second_bp(self, depth, trips, counter):
        # Re-binding `r` from raw pointer to block pointer is valid Triton only outside loops and branches
        # (a name carried through them must keep its type).
        name = self.pick(["s", "r"]) if depth == 0 else "s"
        if name == "r":
            self.k.r_kind = "bp"
        column = self.pick(["0", "BN", "1"])
        return [f"{name} = tl.make_block_ptr(z_ptr, (M, N), (szm, 1), (pid * BM, {column}), (BM, BN), (1, 0))",
                f"acc += {self.load(name)}"]


def indent(lines: list[str]) -> list[str]:
    return [f"    {line}" for line in lines]


@st.composite
def kernels(draw) -> Kernel:
    bm, bn = draw(st.sampled_from([2, 4, 8, 16])), draw(st.sampled_from([2, 4, 8, 16]))
    if draw(st.integers(0, 3)):  # mostly legal widths (16 bytes of fp32 and more)
        bn = max(bn, 4)
    k = Kernel((bm, bn), (draw(st.integers(1, 3 * bm + 5)), draw(st.integers(1, 3 * bn + 5))),
               draw(st.sampled_from([0, 1, 4, 16])), draw(st.integers(0, N_ITER_MAX)), draw(st.integers(0, 2)))
    k.bp_helper = draw(st.integers(0, 4)) == 0
    drawing = Draw(draw, k)
    k.lines = [f"p = tl.make_block_ptr(x_ptr, (M, N), (sxm, 1), {drawing.start()}, (BM, BN), (1, 0))",
               f"o = tl.make_block_ptr(y_ptr, (M, BN), (sym, 1), {drawing.start()}, (BM, BN), (1, 0))",
               "acc = tl.zeros((BM, BN), dtype=tl.float32)",
               *drawing.block(0, 1, None), f"acc += {drawing.load('p')}"]
    return k


# --- running a kernel ------------------------------------------------------------------------------------------------


def padded(shape, margins):
    """A sentinel buffer with margins around a row-major logical tensor whose base and row stride are
    16-byte aligned (descriptors assume it); reads of unchecked dimensions land on sentinels, stray writes
    show."""
    margins = [margins[0], (margins[1] + 3) // 4 * 4]
    rows, columns = shape[0] + 2 * margins[0], (shape[1] + 2 * margins[1] + 3) // 4 * 4
    buffer = torch.full((rows, columns), SENTINEL, dtype=torch.float32)
    return buffer, buffer[margins[0]:margins[0] + shape[0], margins[1]:margins[1] + shape[1]]


def margin(k: Kernel, reach: list[int], dimension: int) -> int:
    """Room for the farthest access: a start up to 2 blocks (+1) out, the block itself, the advances, and
    some to spare (a start never reaches below 0 before an advance)."""
    return 4 * k.blocks[dimension] + 2 + reach[dimension] + 16


def launch(path: str, k: Kernel) -> torch.Tensor:
    spec = importlib.util.spec_from_file_location(f"fuzz_{next(_modules)}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    torch.manual_seed(0)
    bm, bn = k.blocks
    x_buffer, x = padded(k.shape, [margin(k, k.reach, 0), margin(k, k.reach, 1)])
    z_buffer, z = padded(k.shape, [3 * bm + 16, 3 * bn + 16])
    x.copy_(torch.randn(x.shape))
    z.copy_(torch.randn(z.shape))
    y_buffer, y = padded((k.shape[0], bn), [margin(k, k.out_reach, 0), margin(k, k.out_reach, 1)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module.kernel[(GRID,)](x, z, y, *k.shape, x.stride(0), z.stride(0), y.stride(0), k.step, k.n_iter, k.flag,
                               BM=bm, BN=bn)
    return y_buffer


class Mismatch(AssertionError):
    pass


def check_kernel(k: Kernel, directory: str) -> str:
    """Migrate, run both, compare; returns how it ended (for the statistics), raises on a violation."""
    source = k.source()
    outcome = engine.migrate_source(source)
    sites = {number for number, line in enumerate(source.splitlines(), 1) if "make_block_ptr(" in line}
    assert sites <= {d.line for d in outcome.diagnostics}, f"a site without a diagnostic\n{source}"
    refused = sorted({d.code for d in outcome.refused})
    if outcome.new_source is None:
        assert refused, f"nothing migrated and nothing reported\n{source}"
        return f"nothing migrated, refused {refused}"
    before, after = os.path.join(directory, "before.py"), os.path.join(directory, "after.py")
    for path, text in ((before, source), (after, outcome.new_source)):
        with open(path, "w") as handle:
            handle.write(text)
    expected = launch(before, k)
    try:
        actual = launch(after, k)
    except Exception as error:  # noqa: BLE001 - one loud failure is allowed, checked here
        narrow = k.blocks[1] * 4 < 16
        if not (narrow and "16 bytes" in str(error)):
            raise Mismatch(f"migrated kernel failed: {error!r}\n{source}\n--- migrated ---\n{outcome.new_source}")
        return "migrated kernel failed loudly: block width under 16 bytes"
    if not torch.equal(expected.view(torch.int32), actual.view(torch.int32)):
        raise Mismatch(f"silent mismatch\n{source}\n--- migrated ---\n{outcome.new_source}")
    return f"bit-identical, refused {refused}" if refused else "bit-identical, fully migrated"


@settings(max_examples=KERNEL_EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large])
@given(k=kernels())
def test_generated_kernels_match_or_are_refused(k, tmp_path_factory):
    event(check_kernel(k, str(tmp_path_factory.mktemp("fuzz"))))


# --- arbitrary Python -------------------------------------------------------------------------------------------------

KERNEL_FOR_SPLICING = '''import triton
import triton.language as tl


@triton.jit
def kernel(x_ptr, M, N, sm, BM: tl.constexpr, BN: tl.constexpr):
    p = tl.make_block_ptr(x_ptr, (M, N), (sm, 1), (0, 0), (BM, BN), (1, 0))
{body}    v = tl.load(p, boundary_check=(0, 1))
    p = tl.advance(p, (0, BN))
    tl.store(p, v, boundary_check=(0, 1))
'''


def spliced(code: str, where: str) -> str:
    """The generated code alone, before a kernel (at module level), or inside the kernel's body, where it
    can rebind `p`, `tl` or `triton` and nest the block pointer's uses in whatever it defines."""
    if where == "alone":
        return code
    if where == "module":
        return KERNEL_FOR_SPLICING.replace("{body}", "") + "\n" + code
    body = "".join(f"    {line}\n" for line in code.splitlines() if line.strip()) or "    pass\n"
    return KERNEL_FOR_SPLICING.replace("{body}", body)


def compiles(source: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # generated code is full of `x is 1` and the like
            compile(source, "<fuzz>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def libcst_parses(source: str) -> bool:
    try:
        libcst.parse_module(source)
    except Exception:  # noqa: BLE001 - any parser failure counts
        return False
    return True


def check_python(source: str) -> str:
    """Through the engine: a SourceError, or output that is a fixed point and compiles if the input did."""
    try:
        outcome = engine.migrate_source(source)
    except engine.SourceError:
        # Python's grammar and libcst's differ at the edges (a backslash continuation at the end of the
        # file, say): refusing what libcst cannot parse is right; refusing what both parse is a bug.
        assert not parses(source) or not libcst_parses(source), f"SourceError on source that parses\n{source}"
        return "SourceError on unparsable input"
    if outcome.new_source is None:
        return "unchanged"
    if compiles(source):
        assert compiles(outcome.new_source), f"the output does not compile\n{source}\n---\n{outcome.new_source}"
    return "rewritten"


def parses(source: str) -> bool:
    try:
        ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


@settings(max_examples=PYTHON_EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
@given(code=hypothesmith.from_node() | hypothesmith.from_grammar(), where=st.sampled_from(["alone", "module", "body"]))
def test_arbitrary_python_never_crashes_the_engine(code, where):
    source = spliced(code, where)
    event(f"{where}: {check_python(source)}")


# --- mutated real kernels ---------------------------------------------------------------------------------------------

FIXTURES = sorted(Path(__file__).resolve().parent.parent.glob("fixtures/*/before.py"))
# Statements that use a name in ways the rewrite must either model or refuse.
ODD_STATEMENTS = ["{n} = None", "del {n}", "global {n}", "{n}, acc = acc, {n}", "return {n}", "yield {n}",
                  "{n} = tl.advance({n}, (1, 0))", "{n} += 1", "f = lambda: {n}", "print({n})", "{n}.x = 1",
                  "for {n} in range(3): pass", "{n} = tl.make_block_ptr(x)", "tl.load({n}, boundary_check=(7,))",
                  "{n} = tl.advance(*{n})", "tl.store({n}, 1, boundary_check={n})", "{n} = {n} if {n} else None",
                  "{n}: tl.constexpr = 4", "tl.load({n}, mask=None, boundary_check=(0,))", "import {n}",
                  "{n} = tl.make_block_ptr(base={n}, shape=(1,), strides=(1,), offsets=(0,), block_shape=(16,), "
                  "order=(0,))"]


@st.composite
def mutated_fixtures(draw) -> str:
    lines = draw(st.sampled_from(FIXTURES)).read_text().splitlines()
    names = sorted(set(re.findall(r"\b[A-Za-z_]\w*\b", "\n".join(lines))))
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(lines) - 1))
        # Weighted towards edits that keep the file parsable, so that most reach the dataflow analysis.
        kind = draw(st.sampled_from(["delete", "duplicate", "swap", "rename", "rename", "number", "indent",
                                     "insert", "insert", "insert"]))
        line = lines[at]
        if kind == "delete":
            del lines[at]
        elif kind == "duplicate":
            lines.insert(at, line)
        elif kind == "swap":
            other = draw(st.integers(0, len(lines) - 1))
            lines[at], lines[other] = lines[other], line
        elif kind == "rename" and re.search(r"\b[A-Za-z_]\w*\b", line):
            old = draw(st.sampled_from(re.findall(r"\b[A-Za-z_]\w*\b", line)))
            lines[at] = re.sub(rf"\b{old}\b", draw(st.sampled_from(names)), line)
        elif kind == "number":
            lines[at] = re.sub(r"\b\d+\b", str(draw(st.sampled_from([0, 1, -1, 3, 16, 2**31]))), line, count=1)
        elif kind == "indent":
            lines[at] = "    " + line if draw(st.booleans()) else line.removeprefix("    ")
        else:
            statement = draw(st.sampled_from(ODD_STATEMENTS)).format(n=draw(st.sampled_from(names)))
            lines.insert(at, line[: len(line) - len(line.lstrip())] + statement)
        if not lines:
            lines = ["pass"]
    return "\n".join(lines) + "\n"


@settings(max_examples=PYTHON_EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(source=mutated_fixtures())
def test_mutated_kernels_never_crash_the_engine(source):
    event(check_python(source))


def test_the_harness_catches_a_silent_mismatch(tmp_path, monkeypatch):
    """A fuzzer that cannot fail proves nothing: a migration that flips one `+=` must be caught."""
    k = Kernel((4, 4), (9, 9), 4, 2, 1, lines=[
        "p = tl.make_block_ptr(x_ptr, (M, N), (sxm, 1), (pid * BM, 0), (BM, BN), (1, 0))",
        "acc = tl.zeros((BM, BN), dtype=tl.float32)",
        "for i1 in range(n_iter):",
        "    acc += tl.load(p, boundary_check=(0, 1))",
        "    p = tl.advance(p, (0, BN))"])
    real = engine.migrate_source

    def wrong(source, *args, **kwargs):
        outcome = real(source, *args, **kwargs)
        return dataclasses.replace(outcome, new_source=outcome.new_source.replace("acc +=", "acc -=", 1))

    monkeypatch.setattr(engine, "migrate_source", wrong)
    with pytest.raises(Mismatch, match="silent mismatch"):
        check_kernel(k, str(tmp_path))
