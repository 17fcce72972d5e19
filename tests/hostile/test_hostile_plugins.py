"""Hostile cases: installed plug-ins that collide with scorekit's metrics, print, or exit.

Each case installs a plug-in as pip would (a ``*.dist-info`` folder naming its
module in the ``scorekit.plugins`` group) in a folder of its own and runs
``python -m scorekit`` with that folder on ``PYTHONPATH``, in a new process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "examples" / "data"

TAKEN = """
from dataclasses import dataclass
from scorekit.core import Metric, register

@register("accuracy", higher_is_better=True, bounds=(0, 1), inputs="labels")
@dataclass(frozen=True)
class Mine(Metric):
    def summarize(self, y_true, y_pred):
        return 0
    def compute(self, state):
        return 0
    def empty(self):
        return 0
"""


def _install(site: Path, module: str, code: str, extra: dict[str, str] | None = None) -> Path:
    info = site / "hostile_plugin-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: hostile-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[scorekit.plugins]\nhostile = {module}\n")
    (site / f"{module}.py").write_text(textwrap.dedent(code))
    for name, text in (extra or {}).items():
        (site / name).write_text(textwrap.dedent(text))
    return site


def _run(site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    path = os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH", "")) if p)
    env = dict(os.environ, PYTHONPATH=path, NO_COLOR="1")
    env.pop("SCOREKIT_NO_PLUGINS", None)
    return subprocess.run(
        [sys.executable, "-m", "scorekit", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def _one_warning(done: subprocess.CompletedProcess[str], *fragments: str) -> None:
    assert "Traceback" not in done.stderr, done.stderr
    lines = [line for line in done.stderr.splitlines() if "hostile" in line]
    assert len(lines) == 1, done.stderr
    for fragment in fragments:
        assert fragment in lines[0], done.stderr


RANK = ["rank", str(DATA / "qrels.txt"), str(DATA / "run.txt"), "-m", "map"]
EVAL = ["eval", str(DATA / "binary.csv"), "--task", "binary", "--true", "label", "--pred", "pred"]
ACCURACY = 0.7675
"""The accuracy of the bundled binary.csv (307 of 400 predictions right)."""


@pytest.mark.parametrize(
    ("how", "code", "extra"),
    [
        ("at import", TAKEN, None),
        (
            "through a provider",
            "from scorekit.core import add_provider\nadd_provider('hostile_metrics')\n",
            {"hostile_metrics.py": TAKEN},
        ),
    ],
)
def test_a_plugin_taking_a_builtin_name_is_skipped_and_the_builtin_keeps_it(
    tmp_path: Path, how: str, code: str, extra: dict[str, str] | None
) -> None:
    """[crash] A plug-in registering ``accuracy`` made every command fail, ``list`` too."""
    module = "hostile_plugin"
    site = _install(tmp_path, module, code, extra)
    listed = _run(site, "list", "--format", "json")
    assert listed.returncode == 0, listed.stderr
    (accuracy,) = [e for e in json.loads(listed.stdout) if e["name"] == "accuracy"]
    assert accuracy["family"] == "classification"
    _one_warning(listed, "accuracy", "scorekit's own")
    ranked = _run(site, *RANK)
    assert ranked.returncode == 0, ranked.stderr
    evaluated = _run(site, *EVAL, "--metric", "accuracy", "--format", "json")
    assert evaluated.returncode == 0, evaluated.stderr
    assert json.loads(evaluated.stdout)["accuracy"] == ACCURACY


def test_a_plugin_printing_at_import_leaves_stdout_to_the_command(tmp_path: Path) -> None:
    """[silent] A plug-in's ``print`` at import landed in ``--format json`` output."""
    site = _install(tmp_path, "hostile_plugin", "print('hello from the plug-in')\n")
    done = _run(site, "list", "--format", "json")
    assert done.returncode == 0, done.stderr
    assert isinstance(json.loads(done.stdout), list)
    assert "hello from the plug-in" in done.stderr


@pytest.mark.parametrize("raised", ["SystemExit(3)", "KeyboardInterrupt()"])
def test_a_plugin_exiting_at_import_is_one_warning(tmp_path: Path, raised: str) -> None:
    """[crash] ``SystemExit`` or ``KeyboardInterrupt`` at a plug-in's import ended the program."""
    site = _install(tmp_path, "hostile_plugin", f"raise {raised}\n")
    done = _run(site, *RANK)
    assert done.returncode == 0, done.stderr
    assert "map" in done.stdout
    _one_warning(done, "'hostile'", raised.split("(")[0], "failed to load")
