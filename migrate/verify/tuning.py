"""Autotuners across two runs: every run writes down what each `triton.autotune` chose, and a run compared
against an earlier one takes the earlier run's choices instead of tuning again ("pinned").

Why pin: each process tunes for itself, and two runs of the same program may pick different configurations
(timings are noisy), which changes block sizes, the grid and the order of reductions. The original and the
migrated run would then differ in bits, and in time, for reasons that are not the migration's. Pinned, the
migrated code runs with the configuration the original ran with: the comparison is of the code alone, and
the migrated run is faster too (it compiles one configuration per key, not all of them). A configuration
chosen for the original form is one of those the migrated form's own autotuner would consider, so the
migrated kernel's time measured with it is what a user gets at worst.

Choices are matched by the autotuner (the module and name of the function it tunes), the tuning key (its
repr: the values of the key arguments and the dtypes) and the configuration's text.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

LOG = "tuning.jsonl"  # per process: {"tuner", "key", "config", "pinned"} per choice, as it is made


def tuner_name(tuner) -> str:
    fn = getattr(tuner, "base_fn", None) or tuner.fn
    return f"{getattr(fn, '__module__', '?')}:{getattr(fn, '__qualname__', getattr(fn, '__name__', '?'))}"


class PinnedChoices(dict):
    """An autotuner's cache that answers a key the pinned run tuned with that run's configuration; a key
    it does not know is tuned as usual. Triton asks `key in cache` before it tunes."""

    def __init__(self, configs, choices: dict[str, str], earlier: dict):
        super().__init__(earlier)
        self.configs, self.choices = configs, choices
        self.pinned: set[str] = set()

    def __contains__(self, key) -> bool:
        if not dict.__contains__(self, key) and repr(key) in self.choices:
            found = [c for c in self.configs if str(c) == self.choices[repr(key)]]
            if found:
                self[key] = found[0]
                self.pinned.add(repr(key))
        return dict.__contains__(self, key)


class Tuning:
    """One process's autotuners: pinned to `choices` ({tuner: {key: config}}) if given, and logged."""

    def __init__(self, log: Path, choices: dict | None):
        self.log, self.choices = log, choices
        self.adopted: set[int] = set()
        self.untimed: set[int] = set()  # id() of the autotuners that ran each configuration once, untimed
        self.written: set[tuple[str, str]] = set()
        self.lock = threading.Lock()

    def adopt(self, tuner) -> None:
        """Before the autotuner's first run in this process: give it the pinned choices."""
        if id(tuner) in self.adopted:
            return
        self.adopted.add(id(tuner))
        if self.choices is not None:
            tuner.cache = PinnedChoices(tuner.configs, self.choices.get(tuner_name(tuner), {}), tuner.cache)

    def note(self, tuner) -> None:
        """After each of its runs: log the choices not logged yet."""
        name = tuner_name(tuner)
        pinned: set[str] = getattr(tuner.cache, "pinned", set())
        with self.lock:
            fresh = [(repr(k), str(c)) for k, c in list(tuner.cache.items()) if (name, repr(k)) not in self.written]
            if not fresh:
                return
            with open(self.log, "a") as out:
                for key, config in fresh:
                    self.written.add((name, key))
                    out.write(json.dumps({"tuner": name, "key": key, "config": config, "pinned": key in pinned,
                                          "untimed": id(tuner) in self.untimed and key not in pinned}) + "\n")


def merged(processes: list[Path]) -> list[dict]:
    """Every process's choices, in process order; the same (tuner, key) twice is kept once, the first."""
    seen, choices = set(), []
    for process in processes:
        log = process / LOG
        if not log.is_file():
            continue
        for choice in map(json.loads, filter(str.strip, log.read_text().splitlines())):
            if (choice["tuner"], choice["key"]) not in seen:
                seen.add((choice["tuner"], choice["key"]))
                choices.append(choice)
    return choices


def as_pins(choices: list[dict]) -> dict[str, dict[str, str]]:
    """A recording's choices in the form a pinned run takes them: {tuner: {key: config}}."""
    pins: dict[str, dict[str, str]] = {}
    for choice in choices:
        pins.setdefault(choice["tuner"], {})[choice["key"]] = choice["config"]
    return pins


def summary(first: list[dict], second: list[dict], labels: tuple[str, str]) -> str | None:
    """One line for the verdict: how the second run's autotuners chose, against the first run's."""
    if not first and not second:
        return None
    chose = {(c["tuner"], c["key"]): c["config"] for c in first}
    own = [c for c in second if not c["pinned"]]
    line = f"autotuners: {len(second) - len(own)} of {len(second)} choices in the {labels[1]} run taken from the " \
           f"{labels[0]} run"
    if own:
        same = sum(chose.get((c["tuner"], c["key"])) == c["config"] for c in own)
        line += f"; {len(own)} tuned by the {labels[1]} run itself, {same} of them as the {labels[0]} run chose"
    untimed = [c for c in first + second if c.get("untimed")]
    if untimed:
        kept = "; ".join(dict.fromkeys(f"{c['tuner']} {c['config']}" for c in untimed))
        line += (f"; {len(untimed)} chosen untimed in Triton's interpreter, which cannot time them: each "
                 f"configuration run once and the first kept, the only one compared ({kept})")
    return line
