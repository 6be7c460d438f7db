"""TTD104 volatile: `volatile=True` access (memory ordering; descriptors have no volatile).

Why: `volatile` has memory-ordering meaning (spin-waiting on a flag); `desc.load` accepts no
such argument in any Triton version. Cache and eviction hints are dropped instead (TTD003).

Fixtures: volatile_refused.
"""

CODE = "TTD104"
NAME = "volatile"
SUMMARY = "`volatile=True` access (memory ordering; descriptors have no volatile)"
MESSAGE = "`volatile` access has no descriptor equivalent"
