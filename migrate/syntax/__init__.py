"""libcst below the pipeline: a fast read-only walk (walk.py; ast_walk.py, without libcst, for the stdlib's
trees), reading expressions (nodes.py), building syntax (build.py) and the output forms' syntax (forms/:
descriptor, advance, masked pointers, compat tile, helper parts, launch guard) from expressions the caller
chose. Imports libcst and nothing else of triton_migrate; the analysis, the rewrite and the engine import it."""
