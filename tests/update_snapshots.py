"""Regenerate every fixture's after.py and expected report from the current engine, and the launch support
that the migrated fixtures import, fixtures/_triton_launch.py (rules/_launch_support.py).

Run after an intentional change of the rewrite, then *review the diff*: the snapshots are the reviewed
expectation, and tests/test_snapshots.py fails until they match.   python tests/update_snapshots.py
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from triton_migrate.engine import MigrationContext, migrate_source, migrate_sources
from triton_migrate.frontend.references import mentions
from triton_migrate.frontend.triton_modules import imported
from triton_migrate.policy import Policy
from triton_migrate.rules import _launch_support as launch_support

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def report(outcome) -> str:
    return "".join(f"{d.line}:{d.column}: {d.code} {d.message}\n" for d in outcome.diagnostics)


def policy_of(case_dir: Path) -> Policy:
    """A fixture's `[policy]` table in fixture.toml (the defaults otherwise)."""
    config_path = case_dir / "fixture.toml"
    table = tomllib.loads(config_path.read_text()).get("policy", {}) if config_path.is_file() else {}
    if "min_triton" in table:
        table["min_triton"] = tuple(table["min_triton"])
    return Policy(**table)


def migrate_fixture(case_dir: Path, source: str, policy: Policy | None = None):
    """The outcome for `source` (the fixture's before.py or after.py) migrated with `policy` (the fixture's
    own by default), together with its other `modules` (fixture.toml), which it imports by name and which
    stay as they are; names it imports from packages in its directory (not migrated) are read as a run of
    `migrate` on its path reads them (frontend/triton_modules.py)."""
    policy = policy or policy_of(case_dir)
    config_path = case_dir / "fixture.toml"
    modules = tomllib.loads(config_path.read_text()).get("modules", []) if config_path.is_file() else []
    if not modules:  # the fixture is its own project: a helper it mentions only where it defines it goes (TTD011)
        outside = imported(str(case_dir / "before.py"), source.encode(), search=())
        outcome = migrate_source(source, migration=MigrationContext.alone(policy, imported=outside))
        counts = mentions(source.encode(), outcome.uncalled_helpers)
        removable = frozenset(name for name in outcome.uncalled_helpers if counts[name] == 1)
        if not removable:
            return outcome
        return migrate_source(source, migration=MigrationContext.alone(policy, removable=removable, imported=outside))
    others = {Path(m).stem: (case_dir / m).read_text() for m in modules}
    outcomes = migrate_sources({"__main__": source, **others}, MigrationContext(policy))
    changed = [m for m in others if outcomes[m].new_source is not None or outcomes[m].diagnostics]
    assert not changed, f"{case_dir.name}: a fixture's other modules hold no block pointers: {changed}"
    return outcomes["__main__"]


def main() -> None:
    (FIXTURES / f"{launch_support.MODULE}.py").write_text(launch_support.module_source())
    for before in sorted(FIXTURES.glob("*/before.py")):
        source = before.read_text()
        outcome = migrate_fixture(before.parent, source)
        before.with_name("after.py").write_text(outcome.new_source if outcome.new_source is not None else source)
        before.with_name("expected_report.txt").write_text(report(outcome))


if __name__ == "__main__":
    main()
