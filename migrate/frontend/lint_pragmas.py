"""What the project's own linter asks of migrated code besides its layout: a `# noqa: ARG001` on the line of
each parameter that the rewrite left unread (unread_parameters.py), where the project's ruff checks
that rule in the file (ruff_rules.py), with a note that says why. Elsewhere nothing: a `# noqa` that no rule
asks for is a finding of its own (RUF100)."""

from __future__ import annotations

from triton_migrate.frontend import suppressions
from triton_migrate.frontend.unread_parameters import CODE, Unread, unread_parameters

CODES = (CODE,)  # the rules whose findings in migrated code a noqa comment may answer


def marked(text: str, new_text: str, codes: tuple[str, ...], config: str | None) -> tuple[str, list]:
    """`new_text` (migrated from `text`) with the `# noqa` comments that `codes` (the rules the project's ruff
    checks in the file, as `config` selects them) ask for, and a note (line, column, message) for each, at
    the parameter in `text`."""
    if CODE not in codes:
        return new_text, []
    unread = unread_parameters(text, new_text)
    if not unread:
        return new_text, []
    wanted = {parameter.new_line: {CODE} for parameter in unread}
    new_text, _, refused = suppressions.add_noqa(new_text, wanted, blanket_covers=True)
    return new_text, [(p.line, p.column, _note(p, p.new_line in refused, config)) for p in unread]


def _note(parameter: Unread, refused: bool, config: str | None) -> str:
    why = f"ruff's configuration ({config}) checks {CODE} in this file"
    stays = f"`{parameter.name}` is no longer read by the migrated `{parameter.function}`; it stays, as callers pass it"
    if refused:
        return f"{stays}, and its line cannot take a `# noqa: {CODE}` (it ends inside a string or continues), " \
               f"which {why}"
    return f"{stays}: `# noqa: {CODE}` added on its line, as {why}"
