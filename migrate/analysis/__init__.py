"""The analysis: which files and functions hold block pointers (prefilter, reachable, packages, program),
what each block-pointer value is along every path (dataflow: FunctionAnalysis and the parts shared.py lists,
each in its module: creations, advances, sites, access_forms, launch, results, crossing, bookkeeping), what is
proven about its offsets (facts, values), and per site what it becomes and why (planner, guards). It hands
the rewrite a FunctionEdits per function (records.py): accesses as HandleAccess and MaskedAccess records,
the rest still as builders."""
