"""The long fuzz and kill campaign of issue 9, run by hand (pytest does not collect it); prints the figures.

    .venv/bin/python tests/fuzz_campaign.py                   # the default campaign (thousands of examples)
    .venv/bin/python tests/fuzz_campaign.py --kernels 500 --python 0 --mutations 0 --kill 0 --seed 3

Every example is run to the end (no shrinking) and every failure is kept, so one bug cannot hide another;
the first few failing inputs are printed in full. Exit status 1 if anything failed.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections import Counter

os.environ.setdefault("TRITON_INTERPRET", "1")  # before triton is imported, by the generated kernels
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import hypothesmith  # noqa: E402
import test_fuzz  # noqa: E402
import test_kill  # noqa: E402
from hypothesis import HealthCheck, Phase, given, seed, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from test_reliability import CLI, kernel  # noqa: E402

SHOWN_FAILURES = 3


def sweep(name: str, strategy, check, examples: int, seed_value: int) -> list[str]:
    """Run `check` on `examples` drawn examples; print the outcome counts; return the failures."""
    outcomes: Counter[str] = Counter()
    failures: list[str] = []

    @seed(seed_value)
    @settings(max_examples=examples, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(value=strategy)
    def run(value):
        try:
            outcomes[check(value)] += 1
        except Exception as error:  # noqa: BLE001 - every failure is counted and kept
            outcomes[f"FAILED: {type(error).__name__}"] += 1
            failures.append(f"{type(error).__name__}: {error}\n--- input ---\n{shown(value)}")

    started = time.monotonic()
    run()
    print(f"\n== {name}: {sum(outcomes.values())} examples in {time.monotonic() - started:.0f} s")
    for outcome, count in outcomes.most_common():
        print(f"   {count:6d}  {outcome}")
    return failures


def shown(value) -> str:
    if isinstance(value, test_fuzz.Kernel):
        return value.source()
    return test_fuzz.spliced(*value) if isinstance(value, tuple) else value


def kernels(examples: int, seed: int) -> list[str]:
    directory = tempfile.mkdtemp(prefix="fuzz-kernels-")
    return sweep("generated block-pointer kernels, run in the interpreter", test_fuzz.kernels(),
                 lambda k: test_fuzz.check_kernel(k, directory), examples, seed)


def python(examples: int, seed: int) -> list[str]:
    strategy = st.tuples(hypothesmith.from_node() | hypothesmith.from_grammar(),
                         st.sampled_from(["alone", "module", "body"]))
    return sweep("arbitrary Python (hypothesmith), alone and spliced into a kernel", strategy,
                 lambda pair: f"{pair[1]}: {test_fuzz.check_python(test_fuzz.spliced(*pair))}", examples, seed)


def mutations(examples: int, seed: int) -> list[str]:
    return sweep("mutated fixture kernels", test_fuzz.mutated_fixtures(), test_fuzz.check_python, examples, seed)


def kill(iterations: int, seed: int, files: int = 12) -> list[str]:
    started = time.monotonic()
    stats = test_kill.campaign(tempfile.mkdtemp(prefix="fuzz-kill-"), iterations, files, seed)
    print(f"\n== SIGKILL during `migrate --write` on {files} kernel files: {stats.iterations} iterations "
          f"in {time.monotonic() - started:.0f} s")
    print(f"   {stats.killed} killed, {stats.finished_first} finished before the kill, {stats.half_done} left a "
          f"half-migrated tree, {stats.temporaries_left} left a temporary file; {len(stats.problems)} problems")
    return stats.problems


def big_file(lines: int) -> list[str]:
    """The time a `--write` takes on one kernel followed by `lines` statements (a real 50k-line file)."""
    import subprocess

    directory = tempfile.mkdtemp(prefix="fuzz-big-")
    with open(os.path.join(directory, "big.py"), "w") as handle:
        handle.write(kernel() + "".join(f"x{i} = {i}\n" for i in range(lines)))
    started = time.monotonic()
    result = subprocess.run([*CLI, "--write", "-j1", "."], cwd=directory, capture_output=True, text=True)
    print(f"\n== one kernel + {lines} statements: `--write` exit {result.returncode} in "
          f"{time.monotonic() - started:.1f} s")
    return [] if result.returncode == 0 else [result.stderr]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernels", type=int, default=2000)
    parser.add_argument("--python", type=int, default=3000)
    parser.add_argument("--mutations", type=int, default=3000)
    parser.add_argument("--kill", type=int, default=500)
    parser.add_argument("--big", type=int, default=50_000, help="lines of the big file (0: skip)")
    parser.add_argument("--seed", type=int, default=int(time.time()))
    args = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)  # figures appear as each part ends, also into a file
    print(f"seed {args.seed}")
    failures = []
    for run, count in ((kernels, args.kernels), (python, args.python), (mutations, args.mutations), (kill, args.kill)):
        if count:
            failures += run(count, args.seed)
    if args.big:
        failures += big_file(args.big)
    print(f"\n{len(failures)} failures")
    for failure in failures[:SHOWN_FAILURES]:
        print(f"\n{failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
