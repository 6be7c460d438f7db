"""Which rules a project's ruff checks in a file (frontend/ruff_rules.py), held to what ruff itself reports,
configuration by configuration: migrated code gets the `# noqa` comments those rules ask for, and no other
(tests/test_lint_pragmas.py)."""

import json
import subprocess

import pytest
from test_cli import put, tree  # noqa: F401 (tree is a fixture)
from test_line_length import tool

from triton_migrate.frontend.config import Resolver


def ruff(cwd, *paths):
    """ruff as the project runs it (its own configuration): exit status and the codes it reports."""
    done = subprocess.run([tool("ruff"), "check", "--no-cache", "--output-format", "json", *paths], cwd=cwd,
                          capture_output=True, text=True)
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, sorted(finding["code"] for finding in json.loads(done.stdout))


# --- which rules the project's ruff checks: ours against ruff's own answer ---------------------------------------

UNUSED_ARGUMENT = "def f(a):\n    return 1\n"

SELECTIONS = [  # (configuration files, the file checked, whether ruff reports ARG001 in it)
    ({"pyproject.toml": "[tool.ruff.lint]\nselect = ['ALL']\n"}, "pkg/k.py", True),
    ({"pyproject.toml": "[tool.ruff.lint]\nselect = ['ARG']\n"}, "pkg/k.py", True),
    ({"pyproject.toml": "[tool.ruff.lint]\nselect = ['ARG0']\n"}, "pkg/k.py", True),
    ({"pyproject.toml": "[tool.ruff.lint]\nselect = ['ARG00']\n"}, "pkg/k.py", True),
    ({"pyproject.toml": "[tool.ruff.lint]\nextend-select = ['ARG001']\n"}, "pkg/k.py", True),
    ({"pyproject.toml": "[tool.ruff]\nselect = ['ARG']\n"}, "pkg/k.py", True),  # the deprecated top level
    ({"pyproject.toml": "[tool.ruff]\nline-length = 100\n"}, "pkg/k.py", False),  # ruff's default selection
    ({"pyproject.toml": "[tool.ruff.lint]\nselect = ['A', 'E', 'F']\n"}, "pkg/k.py", False),  # A is not ARG
    ({"pyproject.toml": "[tool.ruff.lint]\nselect = ['ALL']\nignore = ['ARG']\n"}, "pkg/k.py", False),
    ({"pyproject.toml": "[tool.ruff.lint]\nselect = ['ALL']\nextend-ignore = ['ARG001']\n"}, "pkg/k.py", False),
    # the most specific selector decides, and an ignore over a select as specific
    ({"pyproject.toml": "[tool.ruff.lint]\nselect = ['ARG001']\nignore = ['ARG']\n"}, "pkg/k.py", True),
    ({"pyproject.toml": "[tool.ruff.lint]\nselect = ['ARG']\nignore = ['ARG']\n"}, "pkg/k.py", False),
    ({"ruff.toml": "[lint]\nselect = ['ARG']\n"}, "pkg/k.py", True),
    ({".ruff.toml": "select = ['ARG']\n", "pyproject.toml": "[tool.ruff.lint]\nselect = ['F']\n"}, "pkg/k.py",
     True),  # .ruff.toml before pyproject.toml
    ({"pyproject.toml": "[tool.ruff.lint]\nselect = ['ARG']\n", "pkg/pyproject.toml": "[project]\nname = 'x'\n"},
     "pkg/k.py", True),  # a pyproject.toml without [tool.ruff] is passed over
    ({"pyproject.toml": "[tool.ruff.lint]\nselect = ['ARG']\n", "pkg/ruff.toml": "line-length = 100\n"},
     "pkg/k.py", False),  # the nearest configuration wins whole
    ({"base.toml": "[lint]\nselect = ['ARG']\n", "pkg/ruff.toml": "extend = '../base.toml'\n"}, "pkg/k.py", True),
    ({"base.toml": "[lint]\nselect = ['ALL']\n", "pkg/ruff.toml": "extend = '../base.toml'\n[lint]\n"
      "extend-ignore = ['ARG']\n"}, "pkg/k.py", False),
    ({"base.toml": "[lint]\nselect = ['ARG']\n", "pkg/ruff.toml": "extend = '../base.toml'\n[lint]\n"
      "select = ['F']\n"}, "pkg/k.py", False),  # a select replaces the base's
    # per-file-ignores, relative to the configuration's folder
    ({"pyproject.toml": "[tool.ruff.lint]\nselect = ['ARG']\n[tool.ruff.lint.per-file-ignores]\n"
      "'pkg/*' = ['ARG']\n"}, "pkg/k.py", False),
    ({"pyproject.toml": "[tool.ruff.lint]\nselect = ['ARG']\n[tool.ruff.lint.per-file-ignores]\n"
      "'pkg/*' = ['ARG']\n"}, "pkg/sub/k.py", False),  # ruff's `*` crosses folders
    ({"pyproject.toml": "[tool.ruff.lint]\nselect = ['ARG']\n[tool.ruff.lint.per-file-ignores]\n"
      "'tests/*' = ['ARG']\n"}, "pkg/k.py", True),
    ({"pyproject.toml": "[tool.ruff.lint]\nselect = ['ARG']\n[tool.ruff.lint.per-file-ignores]\n"
      "'**/k.py' = ['ARG001']\n"}, "pkg/sub/k.py", False),
    ({"pyproject.toml": "[tool.ruff.lint]\nselect = ['ARG']\n[tool.ruff.lint.per-file-ignores]\n"
      "'pkg/k.py' = ['ALL']\n"}, "pkg/k.py", False),
    ({"pyproject.toml": "[tool.ruff.lint]\nselect = ['ARG']\n[tool.ruff.lint.per-file-ignores]\n"
      "'k.py' = ['ARG0']\n"}, "pkg/k.py", False),  # a bare name matches at any depth
    ({"pyproject.toml": "[tool.ruff.lint]\nselect = ['ARG']\n[tool.ruff.lint.per-file-ignores]\n"
      "'k.py' = ['E501']\n"}, "pkg/k.py", True),
    ({"pyproject.toml": "[tool.ruff.lint]\nselect = ['ARG']\n[tool.ruff.lint.per-file-ignores]\n"
      "'!pkg/*' = ['ARG']\n"}, "pkg/k.py", True),
    ({"pyproject.toml": "[tool.ruff.lint]\nselect = ['ARG']\n[tool.ruff.lint.extend-per-file-ignores]\n"
      "'*_triton.py' = ['ARG']\n"}, "pkg/k_triton.py", False),
    ({"pkg/ruff.toml": "[lint]\nselect = ['ARG']\n[lint.per-file-ignores]\n'pkg/*' = ['ARG']\n"}, "pkg/k.py",
     True),  # relative to pkg/: pkg/pkg/*
    ({"pyproject.toml": "[tool.ruff.lint]\nselect = ['ARG']\n[tool.ruff.lint.per-file-ignores]\n"
      "'pkg/{a,k}.py' = ['ARG']\n"}, "pkg/k.py", False),
]


@pytest.mark.parametrize("files, checked, expected", SELECTIONS, ids=[str(i) for i in range(len(SELECTIONS))])
def test_selection_is_ruffs(tree, files, checked, expected):
    for name, text in files.items():
        put(tree, name, text)
    put(tree, checked, UNUSED_ARGUMENT)
    assert ("ARG001" in ruff(tree, checked)[1]) == expected
    assert Resolver({}).for_path(checked).ruff.selects("ARG001", checked) == expected


def test_unreadable_configuration_is_passed_over(tree):
    put(tree, "pyproject.toml", "[tool.ruff.lint]\nselect = ['ARG']\n")
    put(tree, "pkg/ruff.toml", "this is not = = toml\n")
    assert Resolver({}).for_path("pkg/k.py").ruff.selects("ARG001", "pkg/k.py")


def test_isolated_and_explicit_configurations(tree):
    put(tree, "pyproject.toml", "[tool.ruff.lint]\nselect = ['ARG']\n")
    put(tree, "other.toml", "[tool.triton-migrate]\n")
    assert not Resolver({}, isolated=True).for_path("k.py").ruff.selects("ARG001", "k.py")
    assert Resolver({}, explicit="pyproject.toml").for_path("k.py").ruff.selects("ARG001", "k.py")
