"""TTD202 triton-imported-elsewhere: `tl` comes from another module that this run does not show to be Triton's.

Why: the tool knows `tl.make_block_ptr` for Triton's by the import that binds `tl`. A module that takes `tl`
from another module of its project (`from .common import tl, triton`, where common.py imports
triton.language, as Megatron-LM's kernels do) is migrated together with that module, and its block
pointers like any other. Where that module is not part of the run (only the kernel file was named), or binds
the name to something else than `triton` (a renamed distribution, such as tokenspeed's
`tokenspeed_triton`), nothing says the calls are Triton's block pointers: each is reported here, left as it is,
rather than passed over in silence (it would stop compiling on Triton 3.9 without a word).

Fix: run migrate over the package (both modules), or import `triton.language` in the module itself.

Fixtures: tl_reexported (migrated together); tests/test_groups.py (the kernel file alone).
"""

CODE = "TTD202"
NAME = "triton-imported-elsewhere"
SUMMARY = "`tl` is imported from a module not known to import it from triton"
