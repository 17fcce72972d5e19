"""Timing helpers shared by the benchmarks: best-of-N wall time and a result row."""

from __future__ import annotations

import platform
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


def best_of(fn: Callable[[], Any], repeat: int = 3) -> tuple[float, Any]:
    """Smallest wall time of ``repeat`` calls, and the last result."""
    best = float("inf")
    result = None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


@dataclass
class Row:
    """One comparison: scorekit against a reference on the same data in the same process."""

    task: str
    size: str
    ours: float
    reference_name: str
    reference: float
    agree: str

    @property
    def ratio(self) -> float:
        return self.reference / self.ours

    def record(self) -> dict[str, Any]:
        """The row as the results file keeps it (``benchmarks/results.json``)."""
        return {
            "task": self.task,
            "size": self.size,
            "ours": self.ours,
            "reference_name": self.reference_name,
            "reference": self.reference,
            "ratio": self.ratio,
            "agree": self.agree,
        }

    def markdown(self) -> str:
        return (
            f"| {self.task} | {self.size} | {self.ours:.3f} s | {self.reference_name} "
            f"{self.reference:.3f} s | **{self.ratio:.1f}x** | {self.agree} |"
        )


HEADER = (
    "| task | data | scorekit | reference | speed-up | same result |\n|---|---|---|---|---|---|"
)


def machine() -> str:
    """A one-line description of the machine the numbers come from."""
    import os

    import numpy as np

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return (
        f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, numpy {np.__version__}"
    )
