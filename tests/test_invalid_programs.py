"""Programs Triton rejects get a refusal that says what is wrong, never an internal error (issue 34).

A generator draws a valid block-pointer kernel (rank 1 to 3, any `order`, created at the top, in a loop that
advances it, inside the access, or returned by a helper) and breaks one thing Triton checks: too many
positional arguments, an unknown or repeated keyword, a missing argument, no dimension, tuples of different
lengths, an `order` that is not a permutation, a block size that is not a positive power of two, a
`boundary_check` out of range or repeated, an unknown `padding_option`, an advance of the wrong rank, a load
or store with a missing or unknown argument. Every program, under every target, must come back with a
diagnostic that refuses it (fixed=False), its kernel left as it is, or keeps it failing where Triton fails
(decision `compile-error`), and no exception. A sample of each kind is run in the Triton 3.8 interpreter: the
generator must draw what Triton really rejects."""

from __future__ import annotations

import importlib.util
import itertools
import os
import random
import sys
from dataclasses import dataclass

import pytest
import torch

from triton_migrate import engine
from triton_migrate.policy import Policy

PROGRAMS = int(os.environ.get("TRITON_MIGRATE_INVALID_PROGRAMS", "150"))
TARGETS = ("auto", "pointer", "compat", "descriptor")
_modules = itertools.count()


@dataclass
class Kernel:
    """The parts of a valid kernel, each one a piece of source the breakers may replace."""

    rank: int
    order: tuple[int, ...]
    where: str  # "top", "loop", "inline", "helper"
    creation_args: list[str]
    load_args: list[str]
    store_args: list[str]
    advance: str

    def source(self) -> str:
        make = f"tl.make_block_ptr({', '.join(self.creation_args)})"
        load = f"tl.load({', '.join(['p', *self.load_args])})"
        store = f"tl.store({', '.join(['q', 'v + 1.0', *self.store_args])})"
        dims = ", ".join(f"D{d}: tl.constexpr" for d in range(self.rank))
        head = "import triton\nimport triton.language as tl\n\n\n"
        shape = ", ".join(f"S{d}" for d in range(self.rank))
        params = f"x, y, {', '.join(f'S{d}' for d in range(self.rank))}, {dims}"
        if self.where == "helper":
            returned = make.replace("pid * D0", "row0")
            head += f"@triton.jit\ndef _tile(x, row0, {shape}, {dims}):\n    return {returned}\n\n\n"
            make_x = f"_tile(x, pid * D0, {shape}, {', '.join(f'D{d}' for d in range(self.rank))})"
        else:
            make_x = make
        make_y = make.replace("(x,", "(y,", 1).replace("base=x", "base=y")
        body = "    pid = tl.program_id(0)\n"
        if self.where == "inline":
            body += f"    v = {load.replace('(p', '(' + make_x, 1)}\n"
        else:
            body += f"    p = {make_x}\n"
            if self.where == "loop":
                body += f"    for i in range(2):\n        p = {self.advance}\n"
            body += f"    v = {load}\n"
        body += f"    q = {make_y}\n    {store}\n"
        return head + f"@triton.jit\ndef kernel({params}):\n" + body


def valid(rng: random.Random) -> Kernel:
    rank = rng.randint(1, 3)
    order = tuple(rng.sample(range(rank), rank))
    strides = [" * ".join(f"S{e}" for e in range(d + 1, rank)) or "1" for d in range(rank)]
    creation = ["x", tup(f"S{d}" for d in range(rank)), tup(strides),
                tup(["pid * D0"] + ["0"] * (rank - 1)), tup(f"D{d}" for d in range(rank)), tup(map(str, order))]
    checks = tup(map(str, sorted(rng.sample(range(rank), rng.randint(1, rank)))))
    load = [f"boundary_check={checks}", f'padding_option="{rng.choice(["zero", "nan"])}"']
    advance = f"tl.advance(p, {tup(['D0'] + ['0'] * (rank - 1))})"
    return Kernel(rank, order, rng.choice(["top", "loop", "inline", "helper"]), creation, load,
                  [f"boundary_check={tup(str(d) for d in range(rank))}"], advance)


def tup(items) -> str:
    items = list(items)
    return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"


def too_many_positional(k: Kernel, rng) -> None:
    k.creation_args.append(tup(map(str, k.order)))


def unknown_keyword(k: Kernel, rng) -> None:
    k.creation_args[2] = "stride=" + k.creation_args[2]
    k.creation_args[3:] = [f"{name}={value}" for name, value in
                           zip(("offsets", "block_shape", "order"), k.creation_args[3:])]


def repeated_keyword(k: Kernel, rng) -> None:
    k.creation_args.append(f"order={tup(map(str, k.order))}")


def missing_argument(k: Kernel, rng) -> None:
    del k.creation_args[rng.randint(1, 5)]


def no_dimension(k: Kernel, rng) -> None:
    k.creation_args[1:] = ["()"] * 5
    k.load_args, k.store_args = [], []


def lengths_differ(k: Kernel, rng) -> None:
    k.creation_args[rng.randint(1, 5)] = tup(["0"] * (k.rank + 1))


def order_not_a_permutation(k: Kernel, rng) -> None:
    k.creation_args[5] = tup(["0"] * k.rank) if k.rank > 1 else "(1,)"


def order_of_another_rank(k: Kernel, rng) -> None:  # the issue's `order=(0, 0, 0, 0)`
    k.creation_args[5] = "order=(0, 0, 0, 0)" if k.rank != 4 else "order=(0,)"
    k.creation_args.insert(5, tup(map(str, k.order)))  # seven positional arguments, and the keyword


def block_not_a_power_of_two(k: Kernel, rng) -> None:
    blocks = [f"D{d}" for d in range(k.rank)]
    blocks[rng.randrange(k.rank)] = rng.choice(["3", "0", "-4", "12"])
    k.creation_args[4] = tup(blocks)


def check_out_of_range(k: Kernel, rng) -> None:
    k.load_args[0] = f"boundary_check={tup([str(rng.choice([k.rank, k.rank + 2, -1]))])}"


def check_repeated(k: Kernel, rng) -> None:
    k.store_args[0] = "boundary_check=(0, 0)"


def unknown_padding(k: Kernel, rng) -> None:
    k.load_args[1] = f'padding_option="{rng.choice(["inf", "ones", "Zero"])}"'


def advance_of_another_rank(k: Kernel, rng) -> None:
    k.where = "loop"
    k.advance = f"tl.advance(p, {tup(['D0'] * (k.rank + 1))})"


def load_missing_pointer(k: Kernel, rng) -> None:
    k.where = rng.choice(["top", "loop"])
    k.load_args.insert(0, "mask=None")
    k.load_args = k.load_args[1:] + ["p2=p"]


def store_unknown_keyword(k: Kernel, rng) -> None:
    k.store_args.append("padding_option=\"zero\"")


BREAKERS = [too_many_positional, unknown_keyword, repeated_keyword, missing_argument, no_dimension, lengths_differ,
            order_not_a_permutation, order_of_another_rank, block_not_a_power_of_two, check_out_of_range,
            check_repeated, unknown_padding, advance_of_another_rank, load_missing_pointer, store_unknown_keyword]


# A `boundary_check` Triton rejects may sit in a constexpr branch a helper's callers never take (Intel's
# `store_if`): it becomes `tl.static_assert(False, ...)`, rejected where it was, and the rest migrates.
STATIC_ASSERTED = {check_out_of_range.__name__, check_repeated.__name__}


def invalid(seed: int) -> tuple[str, str]:
    rng = random.Random(seed)
    kernel, breaker = valid(rng), BREAKERS[seed % len(BREAKERS)]
    breaker(kernel, rng)
    return breaker.__name__, kernel.source()


def refused(outcome) -> bool:
    return any(not d.fixed or d.decision == "compile-error" for d in outcome.diagnostics)


@pytest.mark.parametrize("target", TARGETS)
def test_every_invalid_program_is_refused_never_an_internal_error(target):
    failures = []
    for seed in range(PROGRAMS):
        kind, source = invalid(seed)
        try:
            outcome = engine.migrate_source(source, policy=Policy(target=target))
        except engine.SourceError as error:  # it parses, so this is no answer either
            failures.append(f"{kind} (seed {seed}): {error}")
            continue
        except Exception as error:
            failures.append(f"{kind} (seed {seed}): internal error {type(error).__name__}: {error}\n{source}")
            continue
        if not refused(outcome):
            failures.append(f"{kind} (seed {seed}): migrated as if valid {[d.code for d in outcome.diagnostics]}"
                            f"\n{source}")
        elif kind not in STATIC_ASSERTED and outcome.new_source is not None:  # it never compiled: left whole
            failures.append(f"{kind} (seed {seed}): rewritten although Triton rejects it\n{source}")
    assert not failures, f"{len(failures)} of {PROGRAMS}:\n" + "\n".join(failures[:5])


def run_in_interpreter(source: str, tmp_path) -> None:
    """Launch `kernel` once, on zeroed tensors large enough for any tile it reads (sizes 5, 3, 2; blocks 4)."""
    path = tmp_path / f"invalid_{next(_modules)}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    signature = source[source.index("def kernel(") + len("def kernel("):]
    params = [p.split(":")[0].strip() for p in signature[:signature.index("):")].split(",")]
    sizes = {"S0": 5, "S1": 3, "S2": 2}
    x, y = torch.zeros(256), torch.zeros(256)
    module.kernel[(1,)](x, y, *(sizes[p] for p in params if p.startswith("S")),
                        **{p: 4 for p in params if p.startswith("D")})


@pytest.mark.parametrize("breaker", BREAKERS, ids=[b.__name__ for b in BREAKERS])
def test_the_generator_draws_what_triton_rejects(breaker, tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    seed = next(s for s in range(len(BREAKERS) * 4) if BREAKERS[s % len(BREAKERS)] is breaker)
    _, source = invalid(seed)
    with pytest.raises(Exception):  # noqa: B017 - whatever Triton raises for it
        run_in_interpreter(source, tmp_path)
    valid_source = valid(random.Random(seed)).source()
    run_in_interpreter(valid_source, tmp_path)  # the same kernel unbroken runs: what broke it is the breaker
