"""A name a module imports from a module outside the run that binds it to triton (frontend/triton_modules.py
finds them; the engine binds them as the module's own). Kept apart from triton_names.py, which needs libcst:
the front end builds these in the main process, where a check served from the cache never imports libcst."""

from __future__ import annotations

from dataclasses import dataclass

from triton_migrate.rules import ttd202_triton_imported_elsewhere


@dataclass(frozen=True)
class Borrowed:
    """A name a module imports from a module outside the run (`from vllm.triton_utils import tl`) that binds
    it to triton: `full` is "triton", "triton.language" or a member of it. `stated`: where the configuration
    states it (`triton-modules`), or with `assumed` the project known to re-export it (the module is not there
    to read); None where that module's own source says so."""

    local: str
    full: str
    source: str  # the module the import names, as it spells it
    stated: str | None = None
    assumed: bool = False

    def requirement(self) -> str:
        """What a rewrite relying on a stated or assumed binding relies on, in words (the report's `requires`)."""
        if self.assumed:
            return ttd202_triton_imported_elsewhere.known(self.local, self.source, self.full, self.stated)
        return ttd202_triton_imported_elsewhere.requirement(self.local, self.source, self.full, self.stated)
