"""docs/hooks.md documents every hook of `toolscout.hookspecs`, with its real parameters.

A meta-test in the style of datasette's test_docs.py: adding a hook, renaming one or changing
its parameters without updating the reference page fails here, naming what to fix.
"""

from __future__ import annotations

import ast
import inspect
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from toolscout import hookspecs

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "hooks.md"

#: `## `register_backends(register)`` — a hook's section heading with its parameters.
HEADING = re.compile(r"^## `(\w+)\(([^)]*)\)`\s*$", re.M)


def specs() -> dict[str, Callable[..., Any]]:
    return {
        name: value
        for name, value in vars(hookspecs).items()
        if callable(value) and hasattr(value, "toolscout_spec")
    }


def parameters(function: Callable[..., Any]) -> list[str]:
    return list(inspect.signature(function).parameters)


def sections() -> dict[str, tuple[list[str], str]]:
    """Each documented hook: its parameters as the heading gives them, and its section text."""
    if not PAGE.is_file():
        pytest.fail(f"{PAGE} is missing; these tests run from a checkout of the repository")
    text = PAGE.read_text(encoding="utf-8")
    found: dict[str, tuple[list[str], str]] = {}
    matches = list(HEADING.finditer(text))
    for match, following in zip(matches, [*matches[1:], None], strict=True):
        end = following.start() if following is not None else len(text)
        # The section runs to the next heading of the same or a higher level.
        body = text[match.end() : end]
        body = re.split(r"^#{1,2} ", body, maxsplit=1, flags=re.M)[0]
        params = [p.strip() for p in match.group(2).split(",") if p.strip()]
        found[match.group(1)] = (params, body)
    return found


def test_there_are_hooks_to_document() -> None:
    assert set(specs()) >= {"register_backends", "register_embedders", "register_commands"}


def test_every_hook_has_a_section() -> None:
    missing = sorted(set(specs()) - set(sections()))
    assert not missing, f"add a '## `hook(params)`' section to docs/hooks.md for: {missing}"


def test_every_section_is_a_hook() -> None:
    unknown = sorted(set(sections()) - set(specs()))
    assert not unknown, f"docs/hooks.md documents hooks that hookspecs.py lacks: {unknown}"


@pytest.mark.parametrize("name", sorted(specs()))
def test_documented_parameters_match_the_hookspec(name: str) -> None:
    documented = sections().get(name, ([], ""))[0]
    assert documented == parameters(specs()[name]), (
        f"docs/hooks.md gives {name}({', '.join(documented)}) but hookspecs.py has "
        f"{name}({', '.join(parameters(specs()[name]))})"
    )


@pytest.mark.parametrize("name", sorted(specs()))
def test_each_parameter_is_described(name: str) -> None:
    body = sections().get(name, ([], ""))[1]
    undescribed = [p for p in parameters(specs()[name]) if f"- `{p}`:" not in body]
    assert not undescribed, f"describe {undescribed} in the {name} section of docs/hooks.md"


@pytest.mark.parametrize("name", sorted(specs()))
def test_each_section_has_an_example_implementing_the_hook(name: str) -> None:
    body = sections().get(name, ([], ""))[1]
    blocks = re.findall(r"```python\n(.*?)```", body, re.S)
    implementations = []
    for block in blocks:
        tree = ast.parse(block)  # the example is valid Python
        implementations += [
            node
            for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef) and node.name == name
        ]
    assert implementations, f"the {name} section of docs/hooks.md has no example defining {name}"
    for function in implementations:
        names = [a.arg for a in function.args.args]
        assert set(names) <= set(parameters(specs()[name])), (
            f"the {name} example takes {names}; the hook offers {parameters(specs()[name])}"
        )
        decorators = [ast.unparse(d) for d in function.decorator_list]
        assert "toolscout.hookimpl" in decorators, f"the {name} example lacks @toolscout.hookimpl"


def test_each_section_says_when_the_hook_was_added() -> None:
    for name, function in specs().items():
        version = re.search(r"\.\. versionadded:: (\S+)", inspect.getdoc(function) or "")
        assert version, f"hookspecs.{name} has no versionadded"
        body = sections().get(name, ([], ""))[1]
        assert f"Added in {version.group(1)}." in body, (
            f"the {name} section of docs/hooks.md should say 'Added in {version.group(1)}.'"
        )


def test_the_page_is_in_the_navigation() -> None:
    assert "hooks.md" in (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
