"""Run every migrated fixture compiled on a CUDA GPU: before.py (block pointers) vs after.py
(descriptors), bit for bit, with the sentinel buffers of the interpreter tests.

Each fixture runs in its own subprocess: an illegal instruction or misaligned address poisons the CUDA
context. Prints one JSON line per fixture and a summary.   python tests/gpu_fixtures.py [-j N]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

TESTS = Path(__file__).resolve().parent
sys.path[:0] = [str(TESTS), str(TESTS.parent / "fixtures")]


def to_device(value, device):
    """Move a tensor to `device` keeping its layout inside its buffer (strides, offset, sentinels)."""
    import torch

    if not isinstance(value, torch.Tensor):
        return value
    base = value._base if value._base is not None else value
    moved = base.to(device)
    return moved.as_strided(value.size(), value.stride(), value.storage_offset())


def run_one(case: str, after: str) -> dict:
    import differential as D
    import torch
    import triton

    triton.set_allocator(lambda size, align, stream: torch.empty(size, device="cuda", dtype=torch.int8))
    case_dir = D.FIXTURES / case
    harness = D.load_harness(case_dir)
    results = {}
    for which in ("before.py", after):
        module = D.import_path(case_dir / which, f"{case}_{which[:-3]}")
        outputs = {}
        for name, inputs in harness.cases():
            gpu_inputs = {k: to_device(v, "cuda") for k, v in inputs.items()}
            torch.set_default_device("cuda")
            try:
                out = harness.run(module, gpu_inputs)
                torch.cuda.synchronize()
            except Exception as error:  # noqa: BLE001 - reported per file; a trap poisons the context anyway
                return {"fixture": case, "identical": False, "failed": which, "error": str(error)[-300:]}
            finally:
                torch.set_default_device("cpu")
            outputs[name] = {k: D._bit_copy(v.cpu()) for k, v in out.items()}
        results[which] = outputs
    problems = D.compare_runs(results["before.py"], results[after], f"{case} gpu")
    return {"fixture": case, "identical": not problems, **classify(results["before.py"], results[after]),
            "problems": problems[:2]}


def classify(before_runs, after_runs) -> dict:
    """Split differences into sentinel cells the migrated kernel wrote (the TMA store overrun of
    triton#11583 lands there) and computed cells whose values differ (max difference in ULPs)."""
    import differential as D
    from _harness_util import sentinel_bits

    overwritten, differing, max_ulp = 0, 0, 0
    for case, outputs in before_runs.items():
        for name, before in outputs.items():
            after = after_runs[case][name]
            if not before.dtype.is_floating_point:
                differing += int((D.raw_bits(before) != D.raw_bits(after)).sum())
                continue
            bits_b, bits_a = D.raw_bits(before).long(), D.raw_bits(after).long()
            sentinel = bits_b == sentinel_bits(before.dtype)
            changed = (bits_b != bits_a) & ~(before.isnan() & after.isnan() & ~sentinel)
            overwritten += int((changed & sentinel).sum())
            values = changed & ~sentinel
            differing += int(values.sum())
            if values.any():
                max_ulp = max(max_ulp, int((bits_b[values] - bits_a[values]).abs().max()))
    return {"sentinel_cells_overwritten": overwritten, "value_cells_differing": differing, "max_ulp": max_ulp}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--one")
    parser.add_argument("-j", type=int, default=4)
    parser.add_argument("--after", default="after.py", help="the migrated file to compare, in each fixture")
    args = parser.parse_args()
    if args.one:
        print(json.dumps(run_one(args.one, args.after)))
        return
    import differential as D

    cases = [d.name for d in D.fixture_dirs()
             if (d / args.after).is_file() and (d / args.after).read_text() != (d / "before.py").read_text()
             and "loud_error" not in D.fixture_config(d)]

    def launch(case: str) -> dict:
        done = subprocess.run([sys.executable, __file__, "--one", case, "--after", args.after],
                              capture_output=True, text=True)
        if done.returncode == 0:
            return json.loads(done.stdout.strip().splitlines()[-1])
        return {"fixture": case, "identical": False, "crashed": done.stderr.strip().splitlines()[-3:]}

    with ThreadPoolExecutor(args.j) as pool:
        reports = list(pool.map(launch, cases))
    for report in reports:
        print(json.dumps(report))
    same = sum(r["identical"] for r in reports)
    overrun = sum(r.get("sentinel_cells_overwritten", 0) > 0 for r in reports)
    failed = sum("failed" in r or "crashed" in r for r in reports)
    print(f"GPU differential ({args.after}): {same}/{len(reports)} fixtures bit-identical, {overrun} overwrote "
          f"sentinels, {failed} failed to run")


if __name__ == "__main__":
    main()
