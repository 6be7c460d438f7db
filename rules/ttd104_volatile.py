"""TTD104 volatile: `volatile=True` access (memory ordering; descriptors have no volatile).

What it does: reports a block-pointer access with `volatile=True`; no descriptor (nor compat tile) is used for it.

Why: `volatile` has memory-ordering meaning (spin-waiting on a flag); `desc.load` accepts no
such argument in any Triton version. Cache and eviction hints are dropped instead (TTD003).

Example:

    flag = tl.load(p, volatile=True)
    # masked pointers (TTD006), `volatile=True` kept

Fix safety: no fix of its own: the site keeps masked pointers (TTD006) under `--target auto`, or is left untouched
under `--target descriptor`, with this code as the reason.

Fixtures: volatile_refused.
"""
CODE = "TTD104"
NAME = "volatile"
SUMMARY = "`volatile=True` access (memory ordering; descriptors have no volatile)"
MESSAGE = "`volatile` access has no descriptor equivalent"
