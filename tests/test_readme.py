"""The README's command-line examples run and print what the README shows."""

from __future__ import annotations

import doctest
import os
import re
import shlex

import pytest

from conftest import ROOT
from scorekit.cli import main


def _examples() -> list[tuple[str, str]]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    found = []
    for block in re.findall(r"```console\n(.*?)```", text, flags=re.S):
        command, output = None, []
        for line in block.splitlines():
            if line.startswith("$ scorekit "):
                if command is not None:
                    found.append((command, "\n".join(output)))
                command, output = line[2:], []
            elif command is not None:
                output.append(line)
        if command is not None:
            found.append((command, "\n".join(output)))
    return found


EXAMPLES = _examples()


def test_readme_has_command_line_examples():
    assert len(EXAMPLES) >= 2


@pytest.mark.parametrize(("command", "expected"), EXAMPLES, ids=[c for c, _ in EXAMPLES])
def test_readme_command(command, expected, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    monkeypatch.setitem(os.environ, "COLUMNS", "120")
    assert main(shlex.split(command)[1:]) == 0
    got = capsys.readouterr().out
    checker = doctest.OutputChecker()
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    assert checker.check_output(expected.strip() + "\n", got.strip() + "\n", flags), got
