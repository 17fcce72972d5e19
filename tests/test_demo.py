"""``scorekit demo`` on a machine without the optional extras."""

from __future__ import annotations

import subprocess
import sys

_FAMILIES = (
    "Binary classification",
    "Multi-label classification",
    "Regression",
    "scorekit features",
    "scorekit rank",
    "scorekit text",
    "scorekit qa",
    "scorekit throughput",
)


def _demo_without(packages: list[str], *argv: str) -> subprocess.CompletedProcess[str]:
    """``scorekit demo ARGV`` in a child where ``packages`` cannot be imported."""
    code = (
        "import sys\n"
        f"for name in {packages!r}:\n"
        "    sys.modules[name] = None\n"
        "from scorekit.cli import main\n"
        f"raise SystemExit(main(['demo', *{list(argv)!r}]))\n"
    )
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)


def test_demo_without_the_report_extra_shows_every_family_and_says_how_to_get_the_report():
    done = _demo_without(["matplotlib", "jinja2"])
    assert done.returncode == 0, done.stderr
    for family in _FAMILIES:
        assert family in done.stdout, family
    last = done.stdout.strip().splitlines()[-1]
    assert last == (
        "report: not written: the HTML report needs matplotlib and jinja2, which are not "
        "installed; pip install 'scorekit[report]' adds it"
    )


def test_demo_names_the_one_missing_package():
    done = _demo_without(["jinja2"])
    assert done.returncode == 0, done.stderr
    assert "the HTML report needs jinja2, which is not installed" in done.stdout


def test_a_report_asked_for_by_path_without_the_extra_is_an_error(tmp_path):
    target = tmp_path / "demo.html"
    done = _demo_without(["matplotlib"], "--report", str(target))
    assert done.returncode == 2
    assert "matplotlib is not installed" in done.stderr
    assert "pip install 'scorekit[report]'" in done.stderr
    assert "Traceback" not in done.stderr and not target.exists()
