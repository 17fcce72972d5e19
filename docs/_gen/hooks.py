"""MkDocs hooks: the generated pages, the tables of names, and the docstring check.

``on_config`` fails the build on a public function or class without a docstring
and on a documented module that does not exist; ``on_files`` adds the metric,
reference and speed pages built by ``pages.py``; ``on_page_markdown`` fills the
``<!-- names:SOURCE -->`` placeholders of the migration guides and turns links to
files of the repository outside ``docs/`` into their paths; ``on_page_content`` shows
the docstrings' reStructuredText roles as code.
"""

from __future__ import annotations

import logging
import re
import sys
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

sys.path.insert(0, str(Path(__file__).resolve().parent))

import pages

log = logging.getLogger("mkdocs.hooks.scorekit")

_ROLE = re.compile(r":(?:func|class|meth|mod|data|attr|exc|obj|const|math):<code>~?")
_PLACEHOLDER = re.compile(r"<!-- names:([a-z_]+) -->")
_OUTSIDE = re.compile(r"\[([^\]]+)\]\((\.\./[^)\s]+)\)")


def on_config(config: Any) -> Any:
    try:
        missing = pages.missing_docstrings()
    except pages.MissingModule as exc:
        raise PluginError(str(exc)) from exc
    for name in missing:
        log.warning("public name without a docstring: %s", name)
    return config


def _generated(config: Any) -> dict[str, str]:
    out = {"metrics/index.md": pages.metrics_index()}
    for family in pages.FAMILIES:
        out[f"metrics/{family}.md"] = pages.family_page(family)
    out["reference/index.md"] = pages.reference_index()
    for package in pages.PACKAGES:
        out[pages.page_of(package)] = pages.reference_page(package)
    out["speed.md"] = pages.speed_page()
    return out


def on_files(files: Files, config: Any) -> Files:
    try:
        generated = _generated(config)
    except pages.MissingModule as exc:
        raise PluginError(str(exc)) from exc
    for path, content in generated.items():
        files.append(File.generated(config, path, content=content))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    def table(match: re.Match[str]) -> str:
        try:
            return pages.names_table(match[1])
        except pages.MissingModule as exc:
            raise PluginError(f"{page.file.src_uri}: {exc}") from exc

    markdown = _PLACEHOLDER.sub(table, markdown)
    docs = Path(config["docs_dir"]).resolve()
    here = (docs / page.file.src_uri).parent

    def outside(match: re.Match[str]) -> str:
        target = (here / match[2]).resolve()
        if target.is_relative_to(docs):
            return match[0]
        if not target.exists():
            log.warning("%s links to a missing file: %s", page.file.src_uri, match[2])
        path = target.relative_to(pages.ROOT).as_posix()
        label = match[1]
        return label if path in label else f"{label} (`{path}` in the repository)"

    return _OUTSIDE.sub(outside, markdown)


def on_page_content(html: str, page: Any, config: Any, files: Files) -> str:
    """The docstrings' reStructuredText roles (``:func:`x```) shown as plain code."""
    return _ROLE.sub("<code>", html)
