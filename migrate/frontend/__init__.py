"""The front end: the command line, its configuration, which files a run covers, how they are read and
written, the cache and worker processes, and how results are shown. It hands sources to the engine
(`triton_migrate.engine`) and never looks inside a kernel itself."""
