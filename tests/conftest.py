"""Test configuration: Hypothesis profiles and shared fixtures."""

import os
from pathlib import Path

from hypothesis import HealthCheck, settings

os.environ.setdefault("MPLBACKEND", "Agg")
# ranx compiles its kernels with numba on first use (a minute or more in each test
# process); on the tests' small inputs the same source runs as plain Python
os.environ.setdefault("NUMBA_DISABLE_JIT", "1")

try:
    import pytrec_eval
except ImportError:  # pragma: no cover - a test extra
    pytrec_eval = None
if pytrec_eval is not None:
    from trec_isolated import isolate

    # each reference evaluation in a child process: see trec_isolated
    isolate(pytrec_eval)

settings.register_profile(
    "default", max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "ci",
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("ci" if os.environ.get("CI") else "default")

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
