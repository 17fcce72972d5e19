"""Installed plug-ins: ``docs/extending.md``'s package under the ``scorekit.plugins`` entry point.

Each test writes the page's metric and command recipes as one package
``my_package`` into a temporary directory, with the ``.dist-info`` folder that
``pip install`` would write (its ``entry_points.txt`` taken from the page's
``pyproject.toml`` block), and runs ``python -m scorekit`` or Python there in a
child process, so no other test sees the plug-in.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from test_extending import COMMAND, METRIC, RECIPES

SECTION = "Installing a plug-in"
BROKEN = "scorekit: plug-in 'broken' (module 'broken_plugin') failed to load: RuntimeError: "


def _entry_points() -> str:
    """The page's ``pyproject.toml`` block as the ``entry_points.txt`` pip writes."""
    (toml,) = [code for lang, title, code in RECIPES[SECTION] if title == "pyproject.toml"]
    group = re.search(r'^\[project\.entry-points\."([^"]+)"\]$', toml, re.M)
    entries = re.findall(r'^(\w+) = "([\w.]+)"$', toml, re.M)
    assert group is not None and group[1] == "scorekit.plugins" and entries, toml
    return f"[{group[1]}]\n" + "".join(f"{name} = {value}\n" for name, value in entries)


def _distribution(site: Path, name: str, entry_points: str) -> None:
    info = site / f"{name}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(entry_points)


@pytest.fixture
def site(tmp_path: Path) -> Path:
    """The metric and command recipes as one installed package, with the command's data."""
    registry_lines = []
    for recipe in (METRIC, COMMAND):
        for _, title, code in RECIPES[recipe]:
            if title is None:
                continue
            if title == "my_package/__init__.py":
                registry_lines.append(code)
                continue
            path = tmp_path / title
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(code, encoding="utf-8")
    (tmp_path / "my_package" / "__init__.py").write_text("\n".join(registry_lines))
    _distribution(tmp_path, "my_package", _entry_points())
    return tmp_path


def _run(site: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k != "SCOREKIT_NO_PLUGINS"}
    environ.update(PYTHONPATH=str(site), **env)
    return subprocess.run(
        [sys.executable, *args], cwd=site, env=environ, capture_output=True, text=True, timeout=120
    )


def _python_lines(site: Path, *lines: str) -> list[str]:
    """What a Python program of ``lines`` prints, run in a child with the site installed."""
    done = _run(site, "-c", "\n".join(lines) + "\n")
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_the_program_runs_an_installed_plugins_command_and_lists_its_metric(site: Path) -> None:
    done = _run(site, "-m", "scorekit", "count", "preds.csv")
    assert (done.returncode, done.stdout, done.stderr) == (
        0,
        "3 rows; columns: y_true, y_pred\n",
        "",
    )
    listed = _run(site, "-m", "scorekit", "list")
    assert listed.returncode == 0 and "within_tolerance" in listed.stdout


def test_python_loads_plugins_for_a_name_it_does_not_know(site: Path) -> None:
    printed = _python_lines(
        site,
        "import sys, scorekit",
        "print('my_package' in sys.modules)",
        "print(scorekit.parse_metric('accuracy').name, 'my_package' in sys.modules)",
        "metric = scorekit.parse_metric('within_tolerance:tol=0.2')",
        "print(metric.score([3, -0.5, 2, 7], [2.5, 0.0, 2, 9]), 'my_package' in sys.modules)",
        "print(scorekit.load_plugins())",
    )
    assert printed == [
        "False",
        "accuracy False",
        "0.25 True",
        "{'my_package': 'my_package'}",
    ]


def test_a_broken_plugin_is_one_line_and_the_others_still_load(site: Path) -> None:
    (site / "broken_plugin.py").write_text("raise RuntimeError('no licence file')\n")
    _distribution(site, "broken", "[scorekit.plugins]\nbroken = broken_plugin\n")
    done = _run(site, "-m", "scorekit", "count", "preds.csv")
    assert done.returncode == 0
    assert done.stdout == "3 rows; columns: y_true, y_pred\n"
    assert done.stderr.startswith(BROKEN + "no licence file;"), done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.splitlines()) == 1
    printed = _python_lines(
        site,
        "import warnings, scorekit",
        "with warnings.catch_warnings(record=True) as caught:",
        "    warnings.simplefilter('always')",
        "    print(scorekit.parse_metric('within_tolerance').name)",
        "print([(w.category.__name__, str(w.message)[:80]) for w in caught])",
    )
    assert printed == [
        "within_tolerance",
        str([("PluginWarning", (BROKEN + "no licence file")[:80])]),
    ]


def test_no_plugin_is_loaded_when_turned_off(site: Path) -> None:
    done = _run(site, "-m", "scorekit", "count", "preds.csv", SCOREKIT_NO_PLUGINS="1")
    assert done.returncode == 2 and "invalid choice: 'count'" in done.stderr
    code = "import scorekit\nscorekit.parse_metric('within_tolerance')\n"
    python = _run(site, "-c", code, SCOREKIT_NO_PLUGINS="1")
    assert python.returncode == 1
    assert "ConfigError: scorekit: unknown metric; got 'within_tolerance'" in python.stderr
