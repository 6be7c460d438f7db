"""On a CUDA GPU (NVIDIA sm_90+, where descriptors are TMA copies): descriptors on stated facts (TTD010).

fixtures/stated_facts_gemm, launched from a fresh thread with no allocator set (the `with_allocator` hook
must install one there), bit-identical to the block-pointer original, no sentinel past C's rows overwritten
by the descriptor stores. (`migrate verify` checks the facts themselves on real arguments.)

Prints one JSON line; exit status 1 if a check failed.   python tests/gpu_stated_facts.py
"""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path

TESTS = Path(__file__).resolve().parent
sys.path[:0] = [str(TESTS), str(TESTS.parent / "fixtures")]


def main() -> int:
    import differential as D
    import torch
    from gpu_fixtures import classify, to_device

    case = D.FIXTURES / "stated_facts_gemm"
    harness = D.load_harness(case)
    runs, errors = {}, []

    def run(which: str) -> None:
        module = D.import_path(case / which, f"gpu_{which[:-3]}")
        outputs = {}
        torch.set_default_device("cuda")
        try:
            for name, inputs in harness.cases():
                out = harness.run(module, {k: to_device(v, "cuda") for k, v in inputs.items()})
                torch.cuda.synchronize()
                outputs[name] = {k: D._bit_copy(v.cpu()) for k, v in out.items()}
        except Exception as error:  # noqa: BLE001 - reported in the JSON line
            errors.append(f"{which}: {error}"[-300:])
        finally:
            torch.set_default_device("cpu")
        runs[which] = outputs

    for which in ("before.py", "after.py"):  # each in a thread of its own, as autograd's backward would be
        thread = threading.Thread(target=run, args=(which,))
        thread.start()
        thread.join()
    report = {"errors": errors}
    if not errors:
        report["identical"] = not D.compare_runs(runs["before.py"], runs["after.py"], "gpu")
        report.update(classify(runs["before.py"], runs["after.py"]))
    print(json.dumps(report))
    ok = report.get("identical") and not report.get("sentinel_cells_overwritten")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
