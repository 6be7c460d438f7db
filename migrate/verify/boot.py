"""The bootstrap the runner puts first on PYTHONPATH of the user's command, written to a temporary
directory as `sitecustomize.py` (a string here rather than a file so that no package data is needed): it
switches the launch recorder on in every Python process of that command, then runs the sitecustomize it
shadows, if there is one."""

SITECUSTOMIZE = '''"""Written by `migrate verify`: records this process's Triton launches."""


import importlib
import os
import sys


def _chain() -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    mine = sys.modules.pop("sitecustomize", None)
    saved = sys.path[:]
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
    try:
        importlib.import_module("sitecustomize")
    except ImportError:
        pass
    finally:
        sys.path[:] = saved
        if mine is not None:
            sys.modules["sitecustomize"] = mine


def _activate() -> None:
    try:
        from triton_migrate.verify.record import activate
    except ImportError as error:  # another interpreter than the one triton-migrate is installed in
        print(f"migrate verify: launches of this process are not recorded ({error})", file=sys.stderr)
        return
    activate()


_activate()
_chain()
'''
