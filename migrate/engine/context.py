"""What the modules of one migration are migrated under, besides their sources."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from triton_migrate.analysis.borrowed import Borrowed
from triton_migrate.analysis.packages import absolute_module
from triton_migrate.analysis.program import Locate

from ..policy import Layout, Policy


@dataclass(frozen=True)
class MigrationContext:
    """What the modules of one migration are migrated under, besides their sources; every step of the engine
    reads it, none changes it. Keys of the mappings: module names (those of `migrate_sources`).

    `policy`: what the user allows, in every module `policies` (name -> policy) does not name: each module is
    migrated under its own configuration's, and so is each function it defines, whichever module calls it
    (a helper shared by modules of different policies takes its own module's; `policy_of`). `locate(importer,
    level, module)`: the module an import in `importer`
    refers to (by default, keys are dotted names). `frozen` (name -> why): modules that cannot be migrated:
    left as they are, with no block pointer crossing into or out of them migrated. `launch` (name -> `from X
    import`'s X): where a module imports the host code its kernels call at launch (`_triton_launch`,
    rules/_launch_support.py); a module not named there imports it from beside itself (launch_support.MODULE:
    relatively, or else as a top-level module). `removable` (name -> function names): the uncalled helpers
    (FileOutcome.uncalled_helpers) that nothing in the project names, which the module then loses (TTD011).
    `imported` (name -> Borrowed): the names a module imports from modules outside the run (installed, or
    elsewhere in its project) that bind them to triton, as the front end read them or the configuration
    states them (frontend/triton_modules.py); a module of the run that binds them decides first. `layout`: how
    the rewrite lays out the code it writes, in every module `layouts` (name -> layout) does not name (each
    module's configuration's line length): the rewrite reads it, the analysis never does."""

    policy: Policy = field(default_factory=Policy)
    locate: Locate = absolute_module
    frozen: Mapping[str, str] = field(default_factory=dict)
    launch: Mapping[str, str] = field(default_factory=dict)
    removable: Mapping[str, frozenset[str]] = field(default_factory=dict)
    imported: Mapping[str, tuple[Borrowed, ...]] = field(default_factory=dict)
    policies: Mapping[str, Policy] = field(default_factory=dict)
    layout: Layout = field(default_factory=Layout)
    layouts: Mapping[str, Layout] = field(default_factory=dict)

    def policy_of(self, module: str) -> Policy:
        """What the user allows in this module (and in the functions it defines)."""
        return self.policies.get(module, self.policy)

    def layout_of(self, module: str) -> Layout:
        """How the code the rewrite writes in this module is laid out."""
        return self.layouts.get(module, self.layout)

    def kernel_targets(self) -> dict[str, str]:
        """Function name -> its tuned target (`migrate tune`), from every module's policy: a helper takes the
        form its callers agree on (Program.inherited_forms), and they may be in modules of other policies."""
        return {name: target for policy in (self.policy, *self.policies.values())
                for name, target in policy.kernel_targets}

    @classmethod
    def alone(cls, policy: Policy | None = None, launch: str | None = None,
              removable: frozenset[str] = frozenset(), imported: tuple[Borrowed, ...] = (),
              layout: Layout | None = None) -> MigrationContext:
        """The context of a module migrated on its own (`migrate_source`, which names it "")."""
        return cls(policy or Policy(), launch={"": launch} if launch else {}, removable={"": removable},
                   imported={"": imported}, layout=layout or Layout())
