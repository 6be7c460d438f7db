"""Run a real library's ops once each, forward and forward+backward through autograd: the program that
`migrate verify` and `migrate tune` record. Run it from the library's folder (they put that folder first
on the path):

    cd LIB_DIR && migrate tune fla/ops/delta_rule fla/ops/common fla/ops/utils --candidates auto,pointer \\
        -- python PATH/TO/run_ops.py --ops chunk_delta_rule --dims 100,128

The ops, shapes and inputs are time_ops.py's (flash-linear-attention; B=4 T=4096 H=16 bf16 by default).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from time_ops import OPS, Case  # noqa: E402


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ops", default="chunk_delta_rule", help=f"comma-separated, of {', '.join(OPS)}")
    parser.add_argument("--dims", default="128", help="head dims, comma-separated")
    parser.add_argument("--shape", default="4,4096,16", help="B,T,H")
    parser.add_argument("--modes", default="fwd,fwdbwd", help="fwd, fwdbwd or both")
    args = parser.parse_args(argv)
    import torch

    shape = [int(n) for n in args.shape.split(",")]
    for op in args.ops.split(","):
        for dim in map(int, args.dims.split(",")):
            for mode in args.modes.split(","):
                Case({"op": op, "dim": dim, "shape": shape, "mode": mode}).run()
                torch.cuda.synchronize()
                print(f"ran {op} D={dim} {mode}", flush=True)


if __name__ == "__main__":
    main()
