"""The documentation: the site builds with warnings as errors (broken links and anchors included), its generated
pages match the rule registry and the configuration keys, every command, configuration and code snippet in it and
in the README parses (the commands through the real command line), and what the rule docstrings cite exists.

The site needs the `docs` extra (MkDocs), which .ci/setup-test-env installs.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from triton_migrate.cli import main
from triton_migrate.frontend import config
from triton_migrate.frontend.settings import BY_KEY, SETTINGS
from triton_migrate.rules import CODES, RULES, explain

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
README = ROOT / "README.md"
# Markdown that the site shows: its own pages, and the READMEs it includes (pymdownx.snippets).
PAGES = sorted(DOCS.glob("*.md")) + [ROOT / "compat" / "README.md", ROOT / "migrate" / "verify" / "README.md"]
FENCE = re.compile(r"^(?P<indent> *)(?P<ticks>`{3,})(?P<lang>\w*)[^\n]*\n(?P<body>.*?)^(?P=indent)(?P=ticks)\s*$",
                   re.S | re.M)
# Programs a shell snippet may call besides `migrate`, and what this test checks of them (nothing: they are not
# this project's).
OTHER_PROGRAMS = {"pip", "git", "mkdocs", "pytest", "cd"}


def _hooks():
    spec = importlib.util.spec_from_file_location("docs_hooks", DOCS / "hooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


hooks = _hooks()


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The site, built as `mkdocs build --strict` builds it: a warning (a broken link or anchor, a missing
    snippet, a page outside the navigation) fails the build."""
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None:
        pytest.fail("MkDocs is not installed: `bash .ci/setup-test-env` installs the `docs` extra")
    out = tmp_path_factory.mktemp("site")
    started = time.monotonic()
    build = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)], cwd=ROOT,
                           capture_output=True, text=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert build.returncode == 0, build.stderr
    assert "WARNING" not in build.stderr, build.stderr
    return out, time.monotonic() - started


def test_site_builds_strictly_and_fast(site):
    _, seconds = site
    assert seconds < 30, f"the documentation took {seconds:.1f} s to build"


def test_every_rule_has_a_page_and_every_page_a_rule(site):
    out, _ = site
    pages = {path.parent.name for path in (out / "rules").glob("*/index.html")}
    assert pages == set(CODES)
    assert not list((DOCS / "rules").glob("*.md")) if (DOCS / "rules").exists() else True, \
        "rule pages are generated (docs/hooks.py), not written by hand"
    index = (out / "rules" / "index.html").read_text()
    assert all(f'href="{code}/"' in index for code in CODES)


@pytest.mark.parametrize("code", CODES)
def test_rule_page_is_the_explain_text(code):
    """Every paragraph `migrate --explain CODE` prints is on the rule's page, and the page's example is a fixture
    the rule's docstring names."""
    page = hooks.rule_page(code)
    flat_page = _as_read(page)
    for paragraph in explain(code).split("\n\n")[1:]:
        assert _as_read(paragraph) in flat_page
    fixture = hooks.example_fixture(code, explain(code))
    if fixture is not None:
        assert fixture in hooks.named_fixtures(explain(code))
        for name in ("before.py", "after.py"):  # indented in the page's tabs
            assert " ".join((ROOT / "fixtures" / fixture / name).read_text().split()) in flat_page


def _as_read(markdown: str) -> str:
    """Markdown as its reader sees it: without the links (to rule pages, to fixtures), code fences and line
    breaks."""
    text = re.sub(r"\[([^]\n]+)\]\([^)\s]+\)", r"\1", markdown).replace("```python", "").replace("```", "")
    return " ".join(text.split())


def test_rule_page_shows_the_fixture_that_reports_the_code():
    assert hooks.example_fixture("TTD104", explain("TTD104")) == "volatile_refused"
    # TTD006's docstring names shared_offsets first; its report has the code, so it is the example.
    assert hooks.example_fixture("TTD006", explain("TTD006")) == "shared_offsets"


def test_every_configuration_key_has_its_entry(site):
    out, _ = site
    page = (out / "configuration" / "index.html").read_text()
    for setting in SETTINGS:
        assert f'id="{setting.key}"' in page, f"no entry for `{setting.key}` in the configuration reference"


def test_help_says_what_applies_exactly_where_a_key_is_unset_by_default():
    for setting in SETTINGS:
        assert (hooks._toml_value(setting.key) is None) == (setting.unset is not None), setting.key


def test_configuration_reference_states_defaults_and_twins():
    reference = hooks.configuration_keys()
    sections = dict(re.findall(r"^### `([\w-]+)`\n(.*?)(?=^### |\Z)", reference, re.S | re.M))
    assert list(sections) == [setting.key for setting in SETTINGS]
    assert '`target = "auto"`' in sections["target"] and "`--target`" in sections["target"]
    assert '`min-triton-version = "3.5"`' in sections["min-triton-version"]
    assert "`--strict/--no-strict`" in sections["strict"]
    assert "not set: one per CPU" in sections["jobs"] and "`-j/--jobs`" in sections["jobs"]
    assert "`--triton-module`" in sections["triton-modules"]
    assert "Command line: none" in sections["per-file-ignores"]
    assert "`per-file-assume = {}`" in sections["per-file-assume"]
    for key, section in sections.items():  # a default shown as TOML is the default
        for setting in re.findall(r"^- Default: `(.*)`$", section, re.M):
            table = config.tomllib.loads(setting)
            field = BY_KEY[key].field
            assert getattr(config.apply(config.Config(), table, "docs"), field) == getattr(config.Config(), field)


def _options(command: click.Command) -> set[str]:
    return {name for param in command.params if isinstance(param, click.Option)
            for name in param.opts + param.secondary_opts if name.startswith("--")}


def test_the_command_line_page_names_every_option(site):
    """docs/commands.md: its own rows, and a row generated from the settings table for each setting's option."""
    out, _ = site
    page = (out / "commands" / "index.html").read_text()
    for option in sorted(_options(main.get_command(None, "check")) | _options(main.get_command(None, "report"))):
        assert re.search(rf"<code>[^<]*{re.escape(option)}\b", page), f"docs/commands.md does not name {option}"


def test_every_setting_with_an_option_is_an_option_of_each_command_that_migrates():
    """The options are made from the settings table: each one is there, with the help the table gives it."""
    for setting in SETTINGS:
        if setting.option is None:
            continue
        for name in ("check", "report", *(("verify", "tune") if setting.option.migrates else ())):
            command = main.get_command(None, name)
            if isinstance(command, click.Group):
                command = command.get_command(None, "run")
            [option] = [p for p in command.params if isinstance(p, click.Option) and setting.flag in p.opts]
            assert option.help == setting.option.help, (name, setting.key)


def test_an_option_overrides_its_key():
    """What the command line passes for each setting reaches the configuration under the setting's key."""
    from triton_migrate.frontend import runs

    given = {"target": "pointer", "strict": True, "unsafe_fixes": True, "min_triton_version": "3.6",
             "select": ["TTD0"], "ignore": ["TTD2"], "jobs": 3, "respect_gitignore": False, "line_length": 100,
             "assume": ["aligned"], "triton_module": ["vllm.triton_utils.tl=triton.language"],
             "known_triton_modules": False, "isolated": True}
    assert set(given) - {"isolated"} == {s.parameter for s in SETTINGS if s.option is not None}
    _, run = runs.resolve(given)
    assert set(run.origins) == {s.field for s in SETTINGS if s.option is not None}
    assert set(run.origins.values()) == {"command line"}


# --- snippets ----------------------------------------------------------------------------------------------


def _blocks(paths, language):
    for path in paths:
        text = path.read_text()
        if path.parent == DOCS and path.name == "configuration.md":
            text = text.replace(hooks.KEYS_MARKER, hooks.configuration_keys())
        for found in FENCE.finditer(text):
            if found["lang"] == language:
                body = "".join(line[len(found["indent"]):] for line in found["body"].splitlines(keepends=True))
                yield pytest.param(body, id=f"{path.relative_to(ROOT)}:{text[:found.start()].count(chr(10)) + 1}")


def _commands(script: str) -> list[list[str]]:
    """The simple commands of a shell snippet: `&&` chains split, comments dropped."""
    commands = []
    for line in script.splitlines():
        words = shlex.split(line, comments=True)
        while words:
            cut = words.index("&&") if "&&" in words else len(words)
            commands.append(words[:cut])
            words = words[cut + 1:]
    return commands


def parse_migrate(args: list[str]) -> None:
    """Parse `migrate ARGS` as the command line does, without running it: every command, option and choice must
    exist. A synopsis (`migrate verify [PATHS]... [OPTIONS]`) is parsed up to its first placeholder; the example
    paths a command names need not exist here."""
    placeholder = next((i for i, word in enumerate(args) if word.startswith("[") or word.endswith("...")), None)
    args = args[:placeholder]
    try:
        _parse(args)
    except click.BadParameter as error:
        if "does not exist" not in error.format_message():
            raise


def _parse(args: list[str]) -> None:
    context = main.make_context("migrate", list(args), resilient_parsing=False)
    name, command, rest = main.resolve_command(context, [*context._protected_args, *context.args])
    while True:
        try:
            sub = command.make_context(name, rest, parent=context)
        except click.exceptions.Exit as exit:  # --explain, --list-rules, --help: eager, then exit 0
            assert exit.exit_code == 0
            return
        if not isinstance(command, click.Group) or not (sub._protected_args or sub.args):
            return
        context, (name, command, rest) = sub, command.resolve_command(sub, [*sub._protected_args, *sub.args])


def check_command(words: list[str]) -> None:
    program = Path(words[0]).name
    if program == "migrate":
        parse_migrate(words[1:])
    elif program in ("python", "python3") and words[1:3] == ["-m", "triton_migrate"]:
        parse_migrate(words[3:])
    elif program in ("python", "python3") and words[1:3] in (["-m", "venv"], ["-m", "pytest"]):
        pass
    elif program in ("python", "python3"):
        assert (ROOT / words[1]).is_file() or not words[1].startswith(("tests/", "benchmarks/")), words
    elif program == "bash":
        assert (ROOT / words[1]).is_file(), f"{words[1]} does not exist"
    else:
        assert program in OTHER_PROGRAMS, f"`{' '.join(words)}`: a program the documentation's tests do not know"
    for word in words:  # paths into this repository that a reader would run on
        if word.startswith(("fixtures/", ".ci/")):
            assert list(ROOT.glob(word)), f"`{word}` matches nothing"


@pytest.mark.parametrize("script", [*_blocks(PAGES, "sh"), *_blocks([README], "sh")])
def test_shell_snippet_commands_parse(script):
    commands = _commands(script)
    assert commands
    for words in commands:
        check_command(words)


def test_command_check_fails_on_a_wrong_option():
    """The check above can fail: an option that does not exist, a wrong choice, a missing file."""
    with pytest.raises(click.UsageError):
        check_command(["migrate", "--diff", "--no-such-option", "src/"])
    with pytest.raises(click.BadParameter):
        check_command(["migrate", "--target", "descriptors", "src/"])
    with pytest.raises(click.BadParameter):
        check_command(["migrate", "report", "--output-format", "xml", "src/"])
    with pytest.raises(AssertionError):
        check_command(["bash", ".ci/no-such-script"])


@pytest.mark.parametrize("snippet", [*_blocks(PAGES, "toml"), *_blocks([README], "toml")])
def test_toml_snippet_is_a_valid_configuration(snippet):
    document = config.tomllib.loads(snippet)
    table = document.get("tool", {}).get("triton-migrate")
    assert table is not None, "a TOML snippet that is not a [tool.triton-migrate] table"
    config.apply(config.Config(), table, "snippet")  # raises ConfigError on an unknown key or a bad value


@pytest.mark.parametrize("snippet", [*_blocks(PAGES, "python"), *_blocks([README], "python")])
def test_python_snippet_parses(snippet):
    ast.parse(snippet)


@pytest.mark.parametrize("snippet", [*_blocks(PAGES, "yaml")])
def test_yaml_snippet_parses(snippet):
    yaml = pytest.importorskip("yaml")  # MkDocs' own dependency: there wherever the site builds
    document = yaml.safe_load(snippet.replace("<this repository's git URL>", "url").replace("<a tag or commit>", "v"))
    hooks_shipped = {hook["id"] for hook in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    for repository in document.get("repos", []) if isinstance(document, dict) else []:
        for hook in repository["hooks"]:
            assert hook["id"] in hooks_shipped, f"no hook {hook['id']!r} in .pre-commit-hooks.yaml"


# --- the README ---------------------------------------------------------------------------------------------


def test_readme_first_example_is_what_the_tool_writes(tmp_path, monkeypatch):
    """The README's first kernel, migrated by `migrate --write` with the facts its text states, is its second
    block, byte for byte, and nothing else is written (issue 45 item 4: it promised a plain descriptor)."""
    text = README.read_text()
    before, after = [found["body"] for found in FENCE.finditer(text) if found["lang"] == "python"][:2]
    [facts] = re.findall(r"`(assume = \[[^]]*\])`", text[:text.index(after)])
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text(f"[tool.triton-migrate]\n{facts}\n")
    (tmp_path / "kernel.py").write_text(before)
    result = CliRunner().invoke(main, ["--write", "--no-cache", "-j1", "kernel.py"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert (tmp_path / "kernel.py").read_text() == after
    assert sorted(path.name for path in tmp_path.iterdir()) == ["kernel.py", "pyproject.toml"]


def test_no_page_installs_what_is_not_published():
    """triton-migrate is not on PyPI: every `pip install` of it names a path, a wheel or a git URL."""
    for path in [*PAGES, README]:
        for line in path.read_text().splitlines():
            for found in re.finditer(r"pip install ([^`\n]*)", line):
                by_name = re.match(r"""['"]?triton-migrate(\[[^]]*\])?['"]?(?!\s*@)(\s|$)""", found[1])
                assert not by_name, f"{path.name}: {line}"


def test_readme_is_short():
    assert len(README.read_bytes()) <= 12 * 1024


def test_readme_keeps_the_commands_ci_runs():
    text = README.read_text()
    assert "bash .ci/setup-test-env && .venv/bin/python -m pytest\n" in text
    assert "bash .ci/setup-test-env && .venv/bin/python -m pytest" in (ROOT / ".ci" / "run").read_text()
    assert ".venv/bin/migrate --diff fixtures/*/before.py\n" in text


def test_readme_links_resolve():
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README.read_text()):
        if not target.startswith(("http://", "https://")):
            assert (ROOT / target).exists(), f"README links to {target}, which does not exist"


# --- what the rule docstrings cite --------------------------------------------------------------------------

def broken_references(code: str) -> list[str]:
    """What the docstring of rule `code` cites that a reader of the documentation cannot find: a path into this
    repository that does not exist, a fixture it names that does not exist, a note outside the repository."""
    doc = explain(code)
    broken = []
    for path in re.findall(r"\b(?:[\w.-]+/)+[\w.-]+\.(?:py|md|toml|txt)\b|\btests/[\w/]+\b", doc):
        if not any((base / path).exists() for base in (ROOT, ROOT / "migrate")):
            broken.append(path)
    paragraph = re.search(r"^Fixtures?:(.*?)(?:\n\n|\Z)", doc, re.S | re.M)
    # the paths left out (checked above)
    named = re.sub(r"[\w.-]*/[\w./-]*|\b\w+\.(?:py|md|toml|txt)\b", " ", paragraph.group(1) if paragraph else "")
    for name in re.findall(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b", named):
        if not (ROOT / "fixtures" / name).is_dir():
            broken.append(f"fixture {name}")
    broken += re.findall(r"semantics brief|\bD\d{1,2}\b|§\s?\d[\d.]*", doc)
    return broken


@pytest.mark.parametrize("code", CODES)
def test_rule_docstring_cites_only_what_exists(code):
    assert broken_references(code) == []


def test_reference_check_finds_what_is_missing(monkeypatch):
    rule = RULES["TTD104"]
    monkeypatch.setattr(rule, "__doc__", rule.__doc__.replace(
        "Fixtures: volatile_refused.", "See migrate/nowhere.py and the semantics brief D3.\n\nFixtures: nothing_here."))
    assert broken_references("TTD104") == ["migrate/nowhere.py", "fixture nothing_here", "semantics brief", "D3"]
