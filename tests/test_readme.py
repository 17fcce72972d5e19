"""The command-line examples of the README and of the site's pages run and print what they show.

Every ``$ scorekit ...`` line of a ```` ```console ```` block of ``README.md`` or of a
Markdown page under ``docs/`` is run, and its output compared with the lines below it.
"""

from __future__ import annotations

import doctest
import os
import re
import shlex
from pathlib import Path

import pytest

from conftest import ROOT
from scorekit.cli import main

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def _examples(path: Path) -> list[tuple[str, str]]:
    """``(command, expected output)`` of each ``$ scorekit`` line of the console blocks."""
    text = path.read_text(encoding="utf-8")
    found = []
    for block in re.findall(r"```console\n(.*?)```", text, flags=re.S):
        command, output = None, []
        for line in block.splitlines():
            if line.startswith("$ "):
                if command is not None:
                    found.append((command, "\n".join(output)))
                command = line[2:] if line.startswith("$ scorekit ") else None
                output = []
            elif command is not None:
                output.append(line)
        if command is not None:
            found.append((command, "\n".join(output)))
    return found


EXAMPLES = [
    (path.relative_to(ROOT).as_posix(), command, expected)
    for path in PAGES
    for command, expected in _examples(path)
]


def test_readme_and_guides_have_command_line_examples():
    files = {name for name, _, _ in EXAMPLES}
    assert sum(name == "README.md" for name, _, _ in EXAMPLES) >= 2
    assert {
        "docs/getting-started.md",
        "docs/guides/large-files.md",
        "docs/guides/groups.md",
        "docs/guides/confidence-intervals.md",
        "docs/guides/load-testing.md",
    } <= files
    assert len(EXAMPLES) >= 15


def test_examples_end_at_the_next_prompt(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "```console\n$ scorekit list\nout 1\n$ pip install x\nnot ours\n"
        "$ scorekit demo\nout 2\n```\n\n```console\n$ scorekit merge a\n```\n",
        encoding="utf-8",
    )
    assert _examples(page) == [
        ("scorekit list", "out 1"),
        ("scorekit demo", "out 2"),
        ("scorekit merge a", ""),
    ]


@pytest.mark.parametrize(
    ("page", "command", "expected"), EXAMPLES, ids=[f"{p}: {c}" for p, c, _ in EXAMPLES]
)
def test_command_line_example(page, command, expected, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    monkeypatch.setitem(os.environ, "COLUMNS", "120")
    assert main(shlex.split(command)[1:]) == 0
    got = capsys.readouterr().out
    checker = doctest.OutputChecker()
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    assert checker.check_output(expected.strip() + "\n", got.strip() + "\n", flags), got
