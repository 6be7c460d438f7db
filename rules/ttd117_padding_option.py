"""TTD117 padding-option: a `padding_option` chosen at compile time, or spelt otherwise than a literal or a name
(part of TTD108).

What it does: reports an access whose `padding_option` a descriptor cannot take: one that is a name (a constexpr)
keeps the access off descriptors (TTD006 says why); one that is neither a literal nor a name leaves its block
pointer untouched.

Why: a descriptor (or a compat tile) is created with one padding, and a constexpr padding is one per
specialisation: masked pointers keep `other=` per access instead. A name that holds a literal (a module's
`PADDING = tl.constexpr("zero")`) is that literal.

Example:

    x = tl.load(p, boundary_check=(0, 1), padding_option=PAD)   # PAD: a constexpr parameter
    # masked pointers (TTD006), the padding chosen per launch

Fix safety: masked pointers with the padding kept, or, spelt otherwise, no fix (the site is left untouched). TTD108
selects it too.

Fixtures: constexpr_padding.
"""
from __future__ import annotations

CODE = "TTD117"
NAME = "padding-option"
SUMMARY = "a `padding_option` chosen at compile time, or spelt otherwise than a literal or a name"

PADDING_SPELT = "`padding_option` must be a literal or a name"


def padding_chosen_at_compile_time(name: str) -> str:
    return (f"`padding_option={name}` is chosen at compile time; a descriptor (or compat tile) is created with one "
            "padding")
