"""`migrate verify`: run kernels before and after migration and prove the outputs identical (see README.md).

Importing this package imports neither torch nor triton; `command` (the click command) and `tune_command`
(`migrate tune`) are loaded on first use.
"""


def __getattr__(name):
    if name == "command":
        from .cli import command

        return command
    if name == "tune_command":  # `migrate tune`
        from .tune import tune_command

        return tune_command
    raise AttributeError(name)
