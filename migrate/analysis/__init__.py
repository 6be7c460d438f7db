"""The analysis: which files and functions hold block pointers (prefilter, reachable, packages, program),
what each block-pointer value is along every path (dataflow, sites, crossing), what is proven about its
offsets (facts, values), and per site what it becomes and why (planner, guards, results)."""
