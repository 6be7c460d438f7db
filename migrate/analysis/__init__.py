"""The analysis: which files and functions hold block pointers (prefilter, reachable, packages, program),
what each block-pointer value is along every path (dataflow: FunctionAnalysis and the parts shared.py lists,
each in its module: statements, creations, advances, sites, access_forms, launch, results, crossing,
bookkeeping; seams.py types what they ask of each other), what is proven about its offsets (facts, proofs,
values), and per site what it becomes and why (planner, guards). It hands
the rewrite a FunctionEdits per function (records.py): every edit a record (an access, a creation's
statements, an advance, a helper call's parts, a signature, ...), which rewrite/forms/ builds into syntax;
the words of its refusals and obstacles come from rules/."""
