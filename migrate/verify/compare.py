"""Compare two recordings launch by launch: the n-th launch of a kernel in run A against the n-th launch of
the same kernel in run B (matching per kernel keeps the comparison exact when threads or processes
interleave launches of different kernels)."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from pathlib import Path

from . import recording

MAX_DETAILS = 20  # differences listed per kernel; the counts cover all of them


@dataclass
class KernelResult:
    name: str
    launches_a: int = 0
    launches_b: int = 0
    compared: int = 0
    identical: int = 0
    differences: list[dict] = field(default_factory=list)
    max_abs: float = 0.0
    max_ulp: int = 0
    time_a_ms: float | None = None
    time_b_ms: float | None = None
    launch_ratios: list[float] = field(default_factory=list)
    raised: list[dict] = field(default_factory=list)  # {"launch", "a", "b"}: the error of each run (None: ran)
    downstream: int = 0  # differing launches whose tensors already differed before they ran
    root: dict | None = None  # {"launch", "order"} of its first differing launch whose tensors did not

    @property
    def ratio(self) -> float | None:
        if not self.time_a_ms or self.time_b_ms is None:
            return None
        return self.time_b_ms / self.time_a_ms

    @property
    def status(self) -> str:
        if any(r["a"] != r["b"] for r in self.raised):
            return "RAISED"
        if self.launches_a != self.launches_b:
            return "launches differ"
        if self.identical == self.compared:
            return "identical"
        return "inputs differ" if self.root is None and self.downstream else "DIFFERS"

    def as_json(self) -> dict:
        spread = sorted(self.launch_ratios)
        return {"kernel": self.name, "status": self.status, "launches_a": self.launches_a,
                "launches_b": self.launches_b, "compared": self.compared, "identical": self.identical,
                "max_abs": self.max_abs, "max_ulp": self.max_ulp, "time_a_ms": self.time_a_ms,
                "time_b_ms": self.time_b_ms, "ratio": self.ratio,
                "ratio_range": [spread[0], spread[-1]] if spread else None, "differences": self.differences,
                "raised": self.raised, "downstream": self.downstream, "root": self.root}


# An argument the migrated kernel has and the original has not: the launch guard's flag (TTD009; `_2`... where
# the name was taken). It chooses the form, it carries no data.
GUARD_FLAG = "USE_DESCRIPTORS"

def compare(dir_a: Path, index_a: dict, dir_b: Path, index_b: dict) -> list[KernelResult]:
    by_key_b = {(launch["kernel"], launch["index"]): launch for launch in index_b["launches"]}
    results: dict[str, KernelResult] = {}
    for order, launch in enumerate(index_a["launches"]):
        result = results.setdefault(launch["kernel"], KernelResult(launch["kernel"]))
        result.launches_a += 1
        other = by_key_b.get((launch["kernel"], launch["index"]))
        if other is not None:
            _compare_launch(dir_a, launch, dir_b, other, result, order)
    for launch in index_b["launches"]:
        results.setdefault(launch["kernel"], KernelResult(launch["kernel"])).launches_b += 1
    for result in results.values():
        _times(result, index_a, index_b)
    return list(results.values())


def root(results: list[KernelResult]) -> KernelResult | None:
    """The kernel whose launch is the first, in the first run's order, to differ on identical inputs: where
    a difference starts, which every later launch that reads its outputs inherits."""
    rooted = [(r.root["order"], r) for r in results if r.root is not None]
    return min(rooted, key=lambda pair: pair[0])[1] if rooted else None


def _compare_launch(dir_a, a: dict, dir_b, b: dict, result: KernelResult, order: int) -> None:
    if a.get("error") or b.get("error"):
        result.raised.append({"launch": a["index"], "a": a.get("error"), "b": b.get("error")})
        result.compared += 1
        result.identical += a.get("error") == b.get("error")  # the same error in both: the same behaviour
        return
    found = []
    if a["grid"] != b["grid"]:
        found.append({"what": "grid", "a": a["grid"], "b": b["grid"]})
    for name in sorted(set(a["args"]) | set(b["args"])):
        arg_a, arg_b = a["args"].get(name), b["args"].get(name)
        if arg_a is None and (name == GUARD_FLAG or name.startswith(GUARD_FLAG + "_")):
            continue  # the migration's own launch-guard flag: a choice of form, no data
        if arg_a is None or arg_b is None or arg_a["kind"] != arg_b["kind"]:
            found.append({"what": "argument", "arg": name, "a": arg_a and arg_a["kind"], "b": arg_b and arg_b["kind"]})
        elif arg_a["kind"] != "tensor":
            if arg_a["value"] != arg_b["value"]:
                found.append({"what": arg_a["kind"], "arg": name, "a": arg_a["value"], "b": arg_b["value"]})
        else:
            found += _compare_tensor(dir_a, arg_a, dir_b, arg_b, name)
    result.compared += 1
    result.identical += not found
    if found and _inputs_differ(a, b):
        result.downstream += 1
        found = [{**item, "inputs_differ": True} for item in found]
    elif found and result.root is None:
        result.root = {"launch": a["index"], "order": order}
    for item in found:
        result.max_abs = max(result.max_abs, item.get("max_abs", 0.0))
        result.max_ulp = max(result.max_ulp, item.get("max_ulp", 0))
        if len(result.differences) < MAX_DETAILS:
            result.differences.append({"launch": a["index"], **item})


def _inputs_differ(a: dict, b: dict) -> bool:
    """Whether a tensor argument already held other bits in the two runs before the launch (recordings
    without `digest_before` cannot tell)."""
    return any(arg.get("digest_before") and b["args"].get(name, {}).get("digest_before") not in
               (None, arg["digest_before"]) for name, arg in a["args"].items())


def _compare_tensor(dir_a, a: dict, dir_b, b: dict, name: str) -> list[dict]:
    from . import tensors  # torch: not imported before a comparison needs it

    role = "output" if a["written"] or b["written"] else "input"
    if (a["dtype"], a["buffer_bytes"]) != (b["dtype"], b["buffer_bytes"]):
        return [{"what": role, "arg": name, "reason": f"{a['dtype']}[{a['buffer_bytes']} B] vs "
                                                       f"{b['dtype']}[{b['buffer_bytes']} B]"}]
    if a["digest"] == b["digest"]:
        return []
    if role == "input":  # kept as a digest only: the launch read it and wrote none of it in either run
        return [{"what": role, "arg": name, "reason": "other bits in the two runs (this launch wrote none of it)",
                 "spots_differing": _spots_differing(a, b)}]
    bits_a, bits_b = recording.buffer_bits(dir_a, a), recording.buffer_bits(dir_b, b)
    if bits_a is None or bits_b is None:
        return [{"what": role, "arg": name, "reason": "digests differ (kept as digest only: over the size limit, "
                                                      "or unchanged by the launch in one run)",
                 "spots_differing": _spots_differing(a, b)}]
    diff = tensors.difference(bits_a, bits_b, recording.dtype_of(a["dtype"]))
    if diff is None:  # same values, different NaN payloads only
        return []
    diff["where"] = tensors.locate(diff["max_abs_at"], a)
    return [{"what": role, "arg": name, **diff}]


def _spots_differing(a: dict, b: dict) -> int | None:
    if not a["spots"] or a["spots"] == [] or len(a["spots"]) != len(b["spots"]):
        return None
    return sum(x != y for x, y in zip(a["spots"], b["spots"]))


def _times(result: KernelResult, index_a: dict, index_b: dict) -> None:
    medians_a = _medians(index_a, result.name)
    medians_b = _medians(index_b, result.name)
    if medians_a and medians_b:
        result.time_a_ms, result.time_b_ms = sum(medians_a), sum(medians_b)
        result.launch_ratios = [b / a for a, b in zip(medians_a, medians_b) if a > 0]


def _medians(index: dict, kernel: str) -> list[float]:
    return [statistics.median(launch["times_ms"]) for launch in index["launches"]
            if launch["kernel"] == kernel and launch["times_ms"]]
