"""On a CUDA GPU (NVIDIA sm_90+, where descriptors are TMA copies): descriptors on stated facts (TTD010).

1. fixtures/stated_facts_gemm, launched from a fresh thread with no allocator set (the `stated_facts` hook must
   install one there), bit-identical to the block-pointer original, no sentinel past C's rows overwritten
   by the descriptor stores;
2. with TRITON_MIGRATE_CHECK_FACTS=1, a view that starts mid-storage raises the hook's ValueError before
   anything is launched, and the CUDA context stays usable (a misaligned TMA copy would have poisoned it).

Prints one JSON line; exit status 1 if a check failed.   python tests/gpu_stated_facts.py
"""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path

TESTS = Path(__file__).resolve().parent
sys.path[:0] = [str(TESTS), str(TESTS.parent / "fixtures")]


def main() -> int:
    import torch

    import differential as D
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
    os.environ["TRITON_MIGRATE_CHECK_FACTS"] = "1"
    after = D.import_path(case / "after.py", "gpu_checked")
    a = torch.ones(40 * 36 + 1, device="cuda")[1:].view(40, 36)  # one fp32 into its storage: 4-byte aligned
    b, c = torch.ones(36, 52, device="cuda"), torch.zeros(40, 52, device="cuda")
    try:
        after.matmul_kernel[(3, 2)](a, b, c, 40, 52, 36, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                    c.stride(0), c.stride(1), BLOCK_M=16, BLOCK_N=32, BLOCK_K=16)
        report["debug_switch"] = "did not raise"
    except ValueError as error:
        report["debug_switch"] = str(error)
    torch.zeros(1, device="cuda").add_(1)
    torch.cuda.synchronize()  # the context is still healthy
    report["context_healthy"] = True
    print(json.dumps(report))
    ok = report.get("identical") and not report.get("sentinel_cells_overwritten") and \
        "is stated `aligned`" in report["debug_switch"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
