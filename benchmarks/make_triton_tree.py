"""Build the Triton-heavy tree the codemod-speed benchmark runs on: every fixture's before.py and the
benchmark kernels, COPIES times each, every copy with its own first line (so that no two files have the
same bytes and the check cache cannot share results between them).

    python benchmarks/make_triton_tree.py DEST [--copies 16]
"""

from __future__ import annotations

import argparse
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("dest", type=Path)
    parser.add_argument("--copies", type=int, default=16)
    args = parser.parse_args()
    sources = {p.parent.name: p.read_text() for p in sorted(REPO.glob("fixtures/*/before.py"))}
    sources["bench_kernels"] = (REPO / "benchmarks" / "kernels" / "original.py").read_text()
    args.dest.mkdir(parents=True, exist_ok=True)
    for name, text in sources.items():
        for copy in range(args.copies):
            (args.dest / f"{name}_{copy}.py").write_text(f"# copy {copy} of {name}\n{text}")
    print(f"{len(sources) * args.copies} files in {args.dest}")


if __name__ == "__main__":
    main()
