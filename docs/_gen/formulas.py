"""A griffe extension for the API reference: formulas as MathML, and no borrowed docstrings.

The API reference is rendered from numpydoc docstrings, where a formula is a
reStructuredText directive: ``.. math:: LATEX`` with indented continuation
lines, or ``.. math::`` followed by an indented block. Markdown would show it
as raw text (and read ``_`` and ``*`` in the LaTeX as emphasis), so each
directive is replaced, before the docstring is rendered, by a block of MathML
made by ``latex2mathml``: drawn by the browser itself, with no script, font
or network. A formula that does not convert fails the build, naming the object.

The reference is built by inspecting the imported modules, where an object can
show a docstring that is not its own: a constant or a class attribute shows that
of its value's type (``str(object='') -> str...``, or a scorekit class's), a
descriptor made by Python or the standard library shows its maker's
(``__weakref__``, a named tuple's ``Alias for field number 0``), a method made by
the standard library shows the library's, and a name bound to a ``typing``
object is documented as that object (``Union type; ...``). Such a docstring is
borrowed. A module's constant, or a name of its ``__all__`` bound to an object
from outside the package, gets instead the string written under its assignment
in the module that defines it (following the imports), or an empty docstring,
which keeps it listed. A class member with a borrowed docstring loses it, which
leaves it out (a dataclass or named tuple field is documented under Parameters);
special attributes without a docstring (``__weakref__``, ``__dict__``...) and
aliases of objects from outside the package are removed from the class.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import importlib.util
import inspect
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import griffe
from latex2mathml.converter import convert
from mkdocs.exceptions import PluginError

_SPECIAL = re.compile(r"__\w+__")
"""A special name: ``__weakref__``, ``__dict__``, ``__module__``."""

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


def _root(path: str) -> str:
    """The top-level package of a dotted path."""
    return path.partition(".")[0]


def _statements(body: list[ast.stmt]) -> Iterator[tuple[ast.stmt, ast.stmt | None]]:
    """Each statement of a block with the next one, into ``if`` and ``try`` blocks."""
    for node, after in zip(body, [*body[1:], None], strict=False):
        if isinstance(node, ast.If | ast.Try):
            for block in (node.body, node.orelse, getattr(node, "finalbody", [])):
                yield from _statements(block)
            for handler in getattr(node, "handlers", []):
                yield from _statements(handler.body)
        else:
            yield node, after


@functools.cache
def _bindings(module: str) -> dict[str, str | tuple[str, str] | None]:
    """What the top-level statements of a module's source last bind each name to.

    The string written under an assignment, ``None`` for an assignment without one,
    or ``(module, name)`` for a name a ``from ... import`` statement binds; the
    statements of top-level ``if`` and ``try`` blocks (``if TYPE_CHECKING:``) count.
    """
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return {}
    origin = getattr(spec, "origin", None)
    if not isinstance(origin, str) or not origin.endswith(".py"):
        return {}
    path = Path(origin)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    bound: dict[str, str | tuple[str, str] | None] = {}
    for node, after in _statements(ast.parse(path.read_text(encoding="utf-8")).body):
        if isinstance(node, ast.ImportFrom):
            relative = "." * node.level + (node.module or "")
            try:
                source = importlib.util.resolve_name(relative, package) if node.level else relative
            except ImportError:
                continue
            for alias in node.names:
                bound[alias.asname or alias.name] = (source, alias.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            value = after.value if isinstance(after, ast.Expr) else None
            text = value.value if isinstance(value, ast.Constant) else None
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    bound[target.id] = inspect.cleandoc(text) if isinstance(text, str) else None
    return bound


def source_docstring(module: str, name: str) -> str | None:
    """The string written under the assignment of ``module.name``, following its imports."""
    for _ in range(20):
        found = _bindings(module).get(name)
        if not isinstance(found, tuple):
            return found
        module, name = found
    return None


def _maker(value: Any) -> str:
    """The module whose code made a member's docstring: a routine's own, else its type's."""
    if isinstance(value, property):
        value = value.fget
    elif isinstance(value, functools.cached_property):
        value = value.func
    value = getattr(value, "__func__", value)
    if not inspect.isroutine(value):
        return type(value).__module__
    with contextlib.suppress(ValueError):
        value = inspect.unwrap(value)
    module = getattr(value, "__module__", None)
    return module if isinstance(module, str) else ""


def borrowed(obj: Any, value: Any) -> bool:
    """Whether the docstring of an inspected object is not its own.

    It is when it is the docstring of the value's type, or when the code that
    made it (a function's, or a descriptor's or a constant's type) is outside
    the object's package: a built-in, the standard library, a dependency.
    Modules and classes are always their own.
    """
    if obj.docstring is None or obj.is_module or obj.is_class:
        return False
    kind = getattr(type(value), "__doc__", None)
    if isinstance(kind, str) and obj.docstring.value == inspect.cleandoc(kind):
        return True
    return _root(_maker(value)) != _root(obj.path)


def _exported(node: Any) -> bool:
    """Whether an inspected module member is in its module's ``__all__`` (public without one)."""
    names = getattr(getattr(node.parent, "obj", None), "__all__", None)
    return node.name in names if names is not None else not node.name.startswith("_")


class DocstringMath(griffe.Extension):
    """Each docstring as :func:`math_blocks` makes it; a borrowed one replaced or dropped."""

    def on_instance(self, *, node: Any, obj: Any, **kwargs: Any) -> None:
        docstring = None if obj.is_alias else obj.docstring
        if docstring is None:
            return
        if borrowed(obj, getattr(node, "obj", None)):
            parent = obj.parent
            own = source_docstring(parent.path, obj.name) if parent.is_module else None
            if own is None and not (parent.is_module and _exported(node)):
                obj.docstring = None
                return
            docstring.value = own or ""
        if ".. math::" in docstring.value:
            docstring.value = math_blocks(docstring.value, obj.path)

    def on_module_members(self, *, node: Any, mod: Any, agent: Any, **kwargs: Any) -> None:
        """A name of ``__all__`` bound to an object from outside the package, as a constant."""
        for name in getattr(node.obj, "__all__", ()):
            member = mod.members.get(name)
            if member is None or not member.is_alias:
                continue
            value = getattr(node.obj, name, None)
            if inspect.ismodule(value) or _root(member.target_path) == _root(mod.path):
                continue
            text = source_docstring(mod.path, name) or ""
            if ".. math::" in text:
                text = math_blocks(text, f"{mod.path}.{name}")
            docstring = griffe.Docstring(
                text, parser=agent.docstring_parser, parser_options=agent.docstring_options
            )
            constant = griffe.Attribute(name, value=repr(value), docstring=docstring)
            constant.labels.add("module-attribute")
            mod.set_member(name, constant)

    def on_class_members(self, *, cls: Any, **kwargs: Any) -> None:
        """Aliases of objects outside the package and undocumented special attributes removed."""
        for name, member in list(cls.members.items()):
            if name == "__init__":
                continue
            if member.is_alias:
                outside = _root(member.target_path) != _root(cls.path)
            else:
                special = member.is_attribute and _SPECIAL.fullmatch(name) is not None
                outside = special and member.docstring is None
            if outside:
                cls.del_member(name)
