"""Test configuration: the fixture differential tests run kernels in Triton's
interpreter, which must be selected before triton is first imported."""

import os
import sys
from pathlib import Path

os.environ.setdefault("TRITON_INTERPRET", "1")

_TESTS = str(Path(__file__).resolve().parent)
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)
