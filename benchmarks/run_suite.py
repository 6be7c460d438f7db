"""Run every benchmark case once, on one kernel module: what `migrate verify` records.

    python benchmarks/run_suite.py                         # original.py, the GPU shapes on CUDA
    python benchmarks/run_suite.py --device cpu            # Triton's interpreter, the small shapes
    python benchmarks/run_suite.py --module migrated_pointer --filter attn

    migrate verify benchmarks/kernels/original.py -- python benchmarks/run_suite.py

Under `migrate verify` run B sees original.py replaced by its migration, so the default module is the one
to record. Each launch gets fresh sentinel-filled outputs; `--digest` prints a hash of every output's
bits, so that two plain runs can be compared by eye too.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
KERNELS = HERE / "kernels"


def load(name: str):
    """kernels/NAME.py as module `bench_NAME` (registered in sys.modules: Triton's JIT finds globals there)."""
    if str(KERNELS) not in sys.path:  # a migrated module imports its launch support, _triton_launch.py, beside it
        sys.path.insert(0, str(KERNELS))
    spec = importlib.util.spec_from_file_location(f"bench_{name}", KERNELS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", help="cuda (default when a GPU is present) or cpu (Triton's interpreter)")
    parser.add_argument("--size", choices=("large", "small"), help="default: large on a GPU, small on the CPU")
    parser.add_argument("--module", default="original", help="the kernel module in benchmarks/kernels/")
    parser.add_argument("--filter", default="", help="only the cases whose name contains this")
    parser.add_argument("--digest", action="store_true", help="print a BLAKE2 digest of every output buffer")
    args = parser.parse_args()

    import torch  # triton must not be imported before the interpreter is chosen

    device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    if device == "cpu":
        if "triton" in sys.modules and os.environ.get("TRITON_INTERPRET") != "1":
            sys.exit("triton was imported before TRITON_INTERPRET=1 could be set")
        os.environ["TRITON_INTERPRET"] = "1"
    size = args.size or ("small" if device == "cpu" else "large")

    sys.path.insert(0, str(HERE))
    import cases as C

    C.install_allocator(device)
    module = load(args.module)
    mem = C.Memory(device, padded=size == "small")
    selected = [case for case in C.suite(size) if args.filter in case.name]
    if not selected:
        sys.exit(f"no case matches {args.filter!r}")
    for case in selected:
        setup = case.setup(mem)
        outputs = setup.new_outputs(mem)
        start = time.perf_counter()
        setup.run(module, outputs)
        C.synchronize(device)
        line = f"{case.name:<48} ran in {time.perf_counter() - start:8.3f} s"
        if args.digest:
            digests = {name: hashlib.blake2b(C.raw_bits(out.buffer).cpu().numpy().tobytes(), digest_size=8).hexdigest()
                       for name, out in outputs.items()}
            line += "  " + " ".join(f"{name}={value}" for name, value in digests.items())
        print(line, flush=True)
        del setup, outputs
    print(f"{len(selected)} cases on {device} ({size} shapes), module {args.module}")


if __name__ == "__main__":
    main()
