"""MkDocs hooks: the pages that are generated from the code, so that they cannot drift from it.

* `rules/index.md` and one page per rule code, `rules/TTDxxx.md`, from the registry (rules/__init__.py): the
  rule module's docstring (the text `migrate --explain CODE` prints) and the before/after of the first fixture
  its docstring names.
* From the settings table (migrate/frontend/settings.py, SETTINGS): the configuration reference in
  configuration.md (the `<!-- configuration-keys -->` marker: every key, Config's default, its meaning and its
  option), and the options that set a key in commands.md (`<!-- setting-options -->`), as `--help` says them.
* `<!-- run: migrate ARGS -->` markers: the command and what it prints, run in the repository root when the site
  is built (never a command that writes).

tests/test_docs.py builds the site strictly and imports this module to check the pages against the registry.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from pathlib import Path

from triton_migrate.frontend.config import tomllib
from triton_migrate.rules import RULES

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
FIXTURES_PAGE = "fixtures.md"  # every fixture's README, the rule pages link to them
KEYS_MARKER = "<!-- configuration-keys -->"
OPTIONS_MARKER = "<!-- setting-options -->"
RUN_MARKER = re.compile(r"^(?P<indent> *)<!-- run: migrate (?P<args>.*?) -->$", re.M)
WRITES = ("--write", "--fix", "--add-noqa", "vendor-compat")  # never run by a build: they change files
KINDS = {
    "TTD0": ("rewrite", "`--write` migrates the site (`[*]` in the report)."),
    "TTD1": ("refusal, inside one function",
             ("No fix: the site is left untouched, or becomes masked pointers under `--target auto` (TTD006), "
              "with this code as the reason.")),
    "TTD2": ("refusal, across functions", "No fix: the site is left untouched, with this code as the reason."),
}


# --- rules --------------------------------------------------------------------------------------------------


def rule_path(code: str) -> str:
    return f"rules/{code}.md"


def named_fixtures(doc: str) -> list[str]:
    """The fixtures a rule's docstring names in its `Fixtures:` paragraph, in order."""
    found = re.search(r"^Fixtures?:(.*?)(?:\n\n|\Z)", doc, re.S | re.M)
    if found is None:
        return []
    return [name for name in re.findall(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b", found.group(1))
            if (FIXTURES / name / "before.py").is_file()]


def example_fixture(code: str, doc: str) -> str | None:
    """The fixture a rule page shows: the first its docstring names whose report has the code, else the first
    it names that has a migrated `after.py`."""
    candidates = [name for name in named_fixtures(doc) if (FIXTURES / name / "after.py").is_file()]
    reporting = [name for name in candidates if code in (FIXTURES / name / "expected_report.txt").read_text()]
    return (reporting or candidates or [None])[0]


def _fence(language: str, text: str, title: str = "") -> str:
    ticks = "````" if "```" in text else "```"
    header = f'{ticks}{language}' + (f' title="{title}"' if title else "")
    return f"{header}\n{text.rstrip()}\n{ticks}\n"


def _policy(name: str) -> str:
    """The fixture's policy (fixture.toml `[policy]`), as the options that give the same output."""
    with open(FIXTURES / name / "fixture.toml", "rb") as handle:
        policy = tomllib.load(handle).get("policy", {})
    shown = [f"`{key} = {json.dumps(value)}`" for key, value in policy.items()]
    return f"Migrated with {', '.join(shown)} (the fixture's `fixture.toml`).\n\n" if shown else ""


def example_section(name: str) -> str:
    case = FIXTURES / name
    shown = [("Before", "before.py", "python"), ("After `migrate --write`", "after.py", "python"),
             ("Report", "expected_report.txt", "text")]
    parts = "".join(f"### {label}\n\n{_fence(language, (case / file).read_text(), f'fixtures/{name}/{file}')}\n"
                    for label, file, language in shown)
    return (f"## The fixture `{name}`\n\nThe fixture [`{name}`](../{FIXTURES_PAGE}#{name}): the reviewed output of "
            f"`migrate --write` (`after.py`) and the "
            f"report of every site (`expected_report.txt`); the test suite runs both files in Triton's "
            f"interpreter and compares them bit for bit.\n\n{_policy(name)}{parts}")


def rule_page(code: str) -> str:
    """The rule's docstring (the text of `migrate --explain`) under what the registry says of it, then the
    example."""
    rule = RULES[code]
    doc = rule.__doc__.strip()
    kind, fix = KINDS[code[:4]]
    headline, _, body = doc.partition("\n\n")
    headline = headline.split(":", 1)[1].strip() if headline.startswith(f"{code} ") else headline
    fixture = example_fixture(code, doc)
    example = example_section(fixture) if fixture else (
        "## Fixtures\n\nNo fixture shows this rule on its own; its docstring names the tests that do.\n")
    return (f"---\nhide:\n  - toc\n---\n\n# {code} {rule.NAME}\n\n{headline[:1].upper()}{headline[1:]}\n\n"
            f"- **Summary**: {rule.SUMMARY}\n- **Kind**: {kind}. {fix}\n\n"
            f"{_linked(_fenced(body.strip()), code, named_fixtures(doc))}\n\n{example}\n"
            f"---\n\n`migrate --explain {code}` prints this rule's documentation, the docstring of "
            f"`rules/{Path(rule.__file__).name}`.\n")


def _fenced(text: str) -> str:
    """Docstrings show code as indented blocks; the page shows them as highlighted Python."""
    def fence(found: re.Match) -> str:
        lines = found.group(0).strip("\n").splitlines()
        return "\n" + _fence("python", "\n".join(line[4:] for line in lines))

    return re.sub(r"(?<=\n\n)(?:    [^\n]*\n?|\n(?=    ))+", fence, text)


def _linked(text: str, own: str, fixtures: list[str] = ()) -> str:
    """Other rules' codes and the fixtures the docstring names, in the prose (not in code), as links to their
    pages."""
    named = re.compile(rf"\b({'|'.join(map(re.escape, fixtures))})\b") if fixtures else None

    def link(part: str) -> str:
        part = re.sub(r"\bTTD\d{3}\b", lambda c: c[0] if c[0] == own or c[0] not in RULES
                      else f"[{c[0]}]({c[0]}.md)", part)
        return named.sub(lambda f: f"[{f[0]}](../{FIXTURES_PAGE}#{f[0]})", part) if named else part

    parts = re.split(r"(```.*?```|`[^`\n]*`)", text, flags=re.S)
    return "".join(part if part.startswith("`") else link(part) for part in parts)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")  # a `|` would end the table's cell


def rule_index() -> str:
    rows = "".join(f"| [{code}]({code}.md) | {rule.NAME} | {_cell(rule.SUMMARY)} |\n"
                   for code, rule in RULES.items())
    return ("# Rules\n\nEvery site gets a code. `TTD0xx` are rewrites, `TTD1xx` reasons a site is left untouched "
            "inside one function, `TTD2xx` reasons that involve other functions. Each rule is one module in "
            "`rules/`; its docstring is both its page here and what `migrate --explain CODE` prints. "
            "`migrate --list-rules` lists them; `--select` and `--ignore` take codes and prefixes.\n\n"
            f"| code | name | summary |\n|---|---|---|\n{rows}")


def fixtures_page() -> str:
    """Every fixture's README under a heading named after the fixture (its anchor), its own headings a level
    deeper."""
    sections = []
    for case in sorted(p for p in FIXTURES.iterdir() if (p / "README.md").is_file()):
        text = re.sub(r"\A# [^\n]*\n", "", (case / "README.md").read_text())  # its title: the heading below
        text = re.sub(r"^(#+) ", r"\1## ", text, flags=re.M)
        sections.append(f"## {case.name}\n\n{text.strip()}\n\nFiles: `fixtures/{case.name}/` (before.py, after.py, "
                        f"expected_report.txt, harness.py).\n")
    return ("# Fixtures\n\nEach fixture is one case of the test suite: `before.py` (block pointers), the reviewed "
            "output of `migrate --write` (`after.py`) and its report, run bit for bit in Triton's interpreter "
            "(fixtures/README.md). The rule pages link here.\n\n" + "\n".join(sections))


# --- configuration ------------------------------------------------------------------------------------------


def _option(key: str):
    """The default command's option that sets the key (settings.SETTINGS), if any."""
    import click

    from triton_migrate.frontend.cli import check
    from triton_migrate.frontend.settings import BY_KEY

    flag = BY_KEY[key].flag
    return next((p for p in check.params if isinstance(p, click.Option) and flag in p.opts), None)


def _spelt(option) -> str:
    """An option as `--help` names it: `-j/--jobs`, `--strict/--no-strict`."""
    return "/".join(option.opts + option.secondary_opts)


def _toml_value(key: str):
    """Config's default for `key`, as the TOML value that sets it (checked by setting it)."""
    from triton_migrate.frontend import config

    field = config.BY_KEY[key].field
    default = getattr(config.Config(), field)
    if isinstance(default, (bool, str)):
        candidates = [default]
    elif isinstance(default, tuple) and len(default) == 2 and all(isinstance(x, int) for x in default):
        candidates = [".".join(map(str, default))]
    elif isinstance(default, tuple):
        candidates = [list(default), {}]
    elif default:
        candidates = [default]
    else:
        return None  # 0 marks "not set": HELP says what applies then
    for candidate in candidates:
        try:
            if getattr(config.apply(config.Config(), {key: candidate}, "docs"), field) == default:
                return candidate
        except config.ConfigError:
            continue
    raise ValueError(f"no TOML value gives {key}'s default {default!r}")


def _toml(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "{}" if value == {} else json.dumps(value, ensure_ascii=False)


def configuration_keys() -> str:
    from triton_migrate.frontend.settings import SETTINGS

    sections = []
    for setting in SETTINGS:
        key, value = setting.key, _toml_value(setting.key)
        if value is None and setting.unset is None:
            raise ValueError(f"`{key}` is not set by default: its Setting must say what applies then (`unset`)")
        default = f"`{key} = {_toml(value)}`" if value is not None else f"not set: {setting.unset}"
        option = _option(key)
        twin = f"`{_spelt(option)}`: {option.help}" if option is not None else "none"
        sections.append(f"### `{key}`\n\n{setting.meaning}\n\n"
                        f"- Type: {setting.type}\n- Default: {default}\n- Command line: {twin}\n")
    return "\n".join(sections)


def setting_options() -> str:
    """The options of docs/commands.md that set a configuration key: one row each, as `--help` says it."""
    from triton_migrate.frontend.settings import SETTINGS

    rows = []
    for setting in SETTINGS:
        option = _option(setting.key) if setting.option is not None else None
        if option is not None:
            value = setting.option.metavar or "\\|".join(setting.option.choices)
            metavar = f" {value}" if value else ""
            rows.append(f"| `{_spelt(option)}{metavar}` | {_cell(option.help)} "
                        f"([`{setting.key}`](configuration.md#{setting.key})) |\n")
    return "| option | what it does (the configuration key it overrides) |\n|---|---|\n" + "".join(rows)


# --- commands run when the site is built ------------------------------------------------------------------


def run_migrate(args: str) -> str:
    """`migrate ARGS` in the repository root, as a console block with what it printed (stdout, then stderr)."""
    from click.testing import CliRunner

    from triton_migrate.cli import main

    words = shlex.split(args)
    if any(word in WRITES for word in words):
        raise ValueError(f"`migrate {args}` in the documentation would change files when the site is built")
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        result = CliRunner().invoke(main, words, catch_exceptions=False)
    finally:
        os.chdir(cwd)
    stdout = result.stdout if result.stdout.endswith("\n") or not result.stdout else result.stdout + "\n"
    language = "diff" if "--diff" in words else "console"  # a diff's lines coloured as added and removed
    return _fence(language, f"$ migrate {args}\n{stdout}{result.stderr}")


def _run_marker(found: re.Match) -> str:
    indent = found["indent"]
    return "".join(indent + line if line.strip() else line
                   for line in run_migrate(found["args"]).splitlines(keepends=True))


# --- MkDocs events ------------------------------------------------------------------------------------------


def on_config(config):
    """The rule pages in the navigation, under Rules."""
    for entry in config.nav or []:
        if isinstance(entry, dict) and "Rules" in entry:
            entry["Rules"] = ["rules/index.md", *(rule_path(code) for code in RULES), FIXTURES_PAGE]
    return config


def on_files(files, config):
    from mkdocs.structure.files import File

    files.append(File.generated(config, "rules/index.md", content=rule_index()))
    files.append(File.generated(config, FIXTURES_PAGE, content=fixtures_page()))
    for code in RULES:
        files.append(File.generated(config, rule_path(code), content=rule_page(code)))
    return files


def on_page_markdown(markdown, page, config, files):
    markdown = markdown.replace(KEYS_MARKER, configuration_keys()).replace(OPTIONS_MARKER, setting_options())
    return RUN_MARKER.sub(_run_marker, markdown)
