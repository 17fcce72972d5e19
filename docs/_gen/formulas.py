"""A griffe extension for the API reference: formulas as MathML, and no borrowed docstrings.

The API reference is rendered from numpydoc docstrings, where a formula is a
reStructuredText directive: ``.. math:: LATEX`` with indented continuation
lines, or ``.. math::`` followed by an indented block. Markdown would show it
as raw text (and read ``_`` and ``*`` in the LaTeX as emphasis), so each
directive is replaced, before the docstring is rendered, by a block of MathML
made by ``latex2mathml``: drawn by the browser itself, with no script, font
or network. A formula that does not convert fails the build, naming the object.

The reference is built by inspecting the imported modules, where a constant
or a dataclass field has no docstring of its own and shows that of its value's
type (``str(object='') -> str...``). A module's constant gets instead the string
written under its assignment in the module's source where there is one; the
borrowed docstrings of class attributes (dataclass fields, documented under
Parameters, and dunder attributes) are dropped, which leaves them out.
"""

from __future__ import annotations

import ast
import functools
import inspect
import re
from pathlib import Path
from typing import Any

import griffe
from latex2mathml.converter import convert
from mkdocs.exceptions import PluginError

_BORROWED = {
    inspect.cleandoc(t.__doc__ or "")
    for t in (bool, int, float, complex, str, bytes, tuple, list, dict, set, frozenset, type(None))
}
"""The docstrings of built-in types, which an inspected constant shows as its own."""

_DIRECTIVE = re.compile(r"^(?P<indent>[ \t]*)\.\. math::[ \t]*(?P<first>.*)$")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def math_blocks(text: str, where: str = "docstring") -> str:
    """``text`` with each ``.. math::`` directive replaced by a ``<div class="math">`` of MathML."""
    lines = text.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        found = _DIRECTIVE.match(lines[i])
        if found is None:
            out.append(lines[i])
            i += 1
            continue
        base = len(found["indent"])
        body = [found["first"].strip()] if found["first"].strip() else []
        i += 1
        while i < len(lines) and (not lines[i].strip() or _indent(lines[i]) > base):
            body.append(lines[i].strip())
            i += 1
        latex = "\n".join(part for part in body if part)
        if not latex:
            raise PluginError(f"{where}: a '.. math::' directive without a formula")
        try:
            mathml = convert(latex, display="block")
        except Exception as exc:
            problem = f"{type(exc).__name__}: {exc}".rstrip(": ")
            raise PluginError(
                f"{where}: the formula {latex!r} does not convert ({problem})"
            ) from exc
        out += ["", found["indent"] + f'<div class="math">{mathml}</div>', ""]
    return "\n".join(out)


@functools.cache
def _source_docstrings(path: str) -> dict[str, str]:
    """The strings written under module-level assignments of a source file, by name."""
    tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    found: dict[str, str] = {}
    for node, after in zip(tree.body, tree.body[1:], strict=False):
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        if not isinstance(node, ast.Assign | ast.AnnAssign):
            continue
        value = after.value if isinstance(after, ast.Expr) else None
        text = value.value if isinstance(value, ast.Constant) else None
        if isinstance(text, str):
            for target in targets:
                if isinstance(target, ast.Name):
                    found[target.id] = inspect.cleandoc(text)
    return found


def _own_docstring(obj: Any) -> str | None:
    """The source docstring of a module's constant (None for other objects or none found)."""
    parent = getattr(obj, "parent", None)
    if parent is None or not getattr(parent, "is_module", False):
        return None
    try:
        path = parent.filepath
    except Exception:
        return None
    if not isinstance(path, Path) or path.suffix != ".py":
        return None
    return _source_docstrings(str(path)).get(obj.name)


class DocstringMath(griffe.Extension):
    """Each object's docstring as :func:`math_blocks` makes it; a borrowed one dropped."""

    def on_instance(self, *, obj: Any, **kwargs: Any) -> None:
        docstring = getattr(obj, "docstring", None)
        if docstring is None:
            return
        if inspect.cleandoc(docstring.value) in _BORROWED:
            own = _own_docstring(obj)
            if own is not None:
                docstring.value = own
            elif not getattr(obj.parent, "is_module", False):
                obj.docstring = None
        elif ".. math::" in docstring.value:
            docstring.value = math_blocks(docstring.value, obj.path)
