"""Reduce a failing program to a minimal one, by deleting and lowering its grammar choices (0 is always the
simplest option), keeping the failure's class; and write a failure class out as a finding."""

from __future__ import annotations

import re
import time
from pathlib import Path

from fuzz import grammar


def shrink(program: grammar.Program, fails, seconds: float = 120.0) -> grammar.Program:
    """The smallest program (fewest choices, then the lowest) for which `fails(program)` still holds."""
    best = program
    deadline = time.monotonic() + seconds

    def attempt(choices: list[int]) -> bool:
        nonlocal best
        if time.monotonic() > deadline:
            return False
        candidate = grammar.generate(prefix=choices)
        smaller = (len(candidate.choices), candidate.choices) < (len(best.choices), best.choices)
        if smaller and fails(candidate):
            best = candidate
            return True
        return False

    progress = True
    while progress and time.monotonic() < deadline:
        progress = False
        for keep in (0.25, 0.5, 0.75, 0.875):  # cut the tail: what is left draws the simplest options
            if attempt(best.choices[:int(len(best.choices) * keep)]):
                progress = True
        for size in (8, 4, 2, 1):  # zero runs of choices, then lower single ones, from the end (statements)
            for at in reversed(range(0, len(best.choices), size)):
                chunk = best.choices[at:at + size]
                if any(chunk) and attempt(best.choices[:at] + [0] * len(chunk) + best.choices[at + size:]):
                    progress = True
        for size in (8, 4, 2, 1):  # delete runs of choices (what one statement drew, say)
            at = 0
            while at < len(best.choices):
                if attempt(best.choices[:at] + best.choices[at + size:]):
                    progress = True
                else:
                    at += size
    return best


def slug(klass: str) -> str:
    words = re.sub(r"[^a-z0-9]+", "-", klass.lower()).strip("-")
    return words[:60].rstrip("-")


def write_finding(directory: Path, klass: str, program: grammar.Program, verdict, seed: int,
                  policies: dict[str, int]) -> Path:
    """The finding file for one failure class: the minimal kernel, its launch, the policy and the symptom."""
    path = Path(directory) / f"fuzz-{slug(klass)}.md"
    migrated = f"\n## Migrated ({verdict.policy})\n\n```python\n{verdict.migrated}```\n" if verdict.migrated else ""
    reference = ("" if program.reference == program.source else
                 "\nThe original runs on Triton 3.8 as the same kernel with `tl.advance(p, d)` for `p.advance(d)`"
                 " (3.8's interpreter cannot run the method form).\n")
    path.write_text(
        f"# fuzz: {klass}\n\n"
        f"Found by the block-pointer fuzzer (`tests/fuzz/`): kernels of the campaign in this class, by policy: "
        f"{policies}; first at seed {seed}, shrunk (policy `{verdict.policy}`) to the kernel below.\n"
        f"Reproduce: `python tests/fuzz/campaign.py --replay '{program.choices}' --policy {verdict.policy}`\n\n"
        f"- policy: `{verdict.policy}`\n- symptom: `{verdict.outcome}`\n- launch: `{program.launch}`\n"
        f"- stated facts (policy `facts`): `{', '.join(program.facts)}`\n\n"
        f"## Kernel\n\n```python\n{program.source}```\n{reference}{migrated}\n"
        f"## What happened\n\n```\n{verdict.detail[-3000:]}\n```\n")
    return path
