"""The import rules of the source tree that import-linter does not check.

- No module of ``src/scorekit`` imports another package's private module or
  private name (``from scorekit.classification._counts import ...`` from
  ``multilabel``, or ``_metrics`` from ``scorekit.ranking``). The root
  package's own private modules, ``scorekit._check`` (the one place inputs are
  converted and checked) and ``scorekit._version``, are shared by design.
- No import cycle between modules, counting imports inside functions too.

The layers themselves (errors <- core <- {_check, io} <- families <- engines <-
api <- cli) are import-linter contracts in ``pyproject.toml``.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
SHARED = ("scorekit._check", "scorekit._version")


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted(SRC.rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _package(module: str) -> str:
    """The top-level package of a module: ``scorekit.ranking._data`` -> ``scorekit.ranking``."""
    return ".".join(module.split(".")[:2])


def _private(part: str) -> bool:
    return part.startswith("_") and not part.startswith("__")


@functools.cache
def _imports(module: str) -> tuple[tuple[str, str | None], ...]:
    """``(imported module, imported name or None)`` for every scorekit import of ``module``.

    Each module is parsed once per test process; both checks read its imports.
    """
    return tuple(_read_imports(module))


def _read_imports(module: str) -> Iterator[tuple[str, str | None]]:
    path = MODULES[module]
    package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".") if package else module.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            if not source.startswith("scorekit"):
                continue
            for alias in node.names:
                full = f"{source}.{alias.name}"
                if full in MODULES:
                    yield full, None
                else:
                    yield source, alias.name
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("scorekit"):
                    yield alias.name, None


def _known(module: str) -> str:
    """The nearest enclosing module that is a file of the tree."""
    while module not in MODULES and "." in module:
        module = module.rsplit(".", 1)[0]
    return module


def test_no_module_imports_another_packages_private_names() -> None:
    found = []
    for module in MODULES:
        for target, name in _imports(module):
            if _package(target) == _package(module) or target.startswith(SHARED):
                continue
            parts = target.split(".")[1:]
            if any(_private(p) for p in parts) or (name is not None and _private(name)):
                found.append(f"{module} imports {target}{'' if name is None else '.' + name}")
    assert found == []


def _cycles() -> list[list[str]]:
    graph = {m: {_known(t) for t, _ in _imports(m)} - {m} for m in MODULES}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in graph[node]:
            if other not in MODULES:
                continue
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for module in MODULES:
        if module not in index:
            visit(module)
    return components


def test_no_import_cycles() -> None:
    assert _cycles() == []


def test_the_checks_see_the_tree() -> None:
    # the checks above pass trivially on an empty tree: make sure they read the package
    assert "scorekit.core" in MODULES and "scorekit.cli" in MODULES
    assert ("scorekit.core._metric", "Metric") in set(_imports("scorekit.core"))
