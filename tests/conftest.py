"""Test configuration: the fixture differential tests run kernels in Triton's
interpreter, which must be selected before triton is first imported."""

import os
import sys
from pathlib import Path

from hypothesis import HealthCheck, settings

os.environ.setdefault("TRITON_INTERPRET", "1")

# No test outcome may depend on the machine's speed (issue 29): hypothesis's deadline and its too_slow health
# check are both measured in wall time, and a busy machine trips them with nothing wrong. A test's own
# @settings still wins for what it sets.
settings.register_profile("suite", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("suite")

_TESTS = str(Path(__file__).resolve().parent)
# fixtures/ holds `_triton_launch.py`, the launch support that a migrated module outside a package imports by
# name where it is loaded by its path (migrate --write puts it beside the module; a test writes only the module)
_FIXTURES = str(Path(__file__).resolve().parent.parent / "fixtures")
for _path in (_FIXTURES, _TESTS):
    if _path not in sys.path:
        sys.path.insert(0, _path)
