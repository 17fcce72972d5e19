"""Running the ``scorekit`` program on hostile inputs, with a time and a memory limit.

Every case of this directory states its kind (``silent``, ``lost``, ``crash``,
``hang``, ``memory``) and checks that scorekit answers with a clear error (exit
status 2, one ``scorekit:`` line, no traceback) or with the honest answer.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

__all__ = ["MEMORY_LIMIT", "TIME_LIMIT", "Run", "assert_clean_error", "scorekit"]

TIME_LIMIT = 60.0
"""Seconds a case may take before it counts as a hang."""

MEMORY_LIMIT = 3 * 2**30
"""Bytes of address space a case may use (pyarrow and numpy reserve some at start)."""


class Run(subprocess.CompletedProcess[str]):
    """A finished ``scorekit`` process: ``returncode``, ``stdout``, ``stderr``."""


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def scorekit(
    *args: str | os.PathLike[str],
    cwd: Path | None = None,
    timeout: float = TIME_LIMIT,
    stdin: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m scorekit ARGS`` in a child process under the limits.

    A case that runs past ``timeout`` fails the test (as a hang) instead of
    blocking the suite.
    """
    env = dict(os.environ, PYTHONWARNINGS="default", NO_COLOR="1")
    return subprocess.run(
        [sys.executable, "-m", "scorekit", *map(str, args)],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        preexec_fn=_limit_memory,
        check=False,
    )


def assert_clean_error(proc: subprocess.CompletedProcess[str], *fragments: str) -> None:
    """Assert a user error: status 2, no traceback, and a message holding each fragment."""
    detail = f"status {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    assert proc.returncode == 2, detail
    assert "Traceback" not in proc.stderr, detail
    assert any(line.startswith("scorekit: ") for line in proc.stderr.splitlines()), detail
    for fragment in fragments:
        assert fragment in proc.stderr, f"{fragment!r} not in the message\n{detail}"


def write(path: Path, lines: Sequence[str]) -> Path:
    """Write ``lines`` (each ended by a newline) to ``path`` and return it."""
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path
