"""Test configuration: Hypothesis profiles and shared fixtures."""

import gc
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
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


@pytest.fixture(scope="session")
def dask_cluster() -> Iterator[Any]:
    """One local Dask cluster of two single-threaded worker processes per test process.

    Starting worker processes (each imports scorekit, pandas and Dask) costs seconds,
    so the modules that need a cluster share this one. No client is made the default
    here: a module that runs Dask without naming the scheduler opens its own client.
    """
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=2,
        processes=True,
        threads_per_worker=1,
        host="127.0.0.1",
        dashboard_address=None,
        scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
    ) as local:
        # import every metric family on the workers once, outside the timed tests (the code
        # as text: a function would be pickled by the name of the module defining it)
        with distributed.Client(local, set_as_default=False) as client:
            client.run(exec, "import scorekit\nscorekit.available()")
        yield local


@pytest.fixture(scope="session")
def spark_python() -> Iterator[None]:
    """Spark's Python workers run this Python, which has scorekit; the local session the
    Spark test modules share is stopped after the last test of the test process."""
    before = os.environ.get("PYSPARK_PYTHON")
    os.environ["PYSPARK_PYTHON"] = sys.executable
    try:
        yield
    finally:
        if "pyspark" in sys.modules:
            from pyspark.sql import SparkSession

            active = SparkSession.getActiveSession()
            if active is not None:
                active.stop()
        if before is None:
            os.environ.pop("PYSPARK_PYTHON", None)
        else:
            os.environ["PYSPARK_PYTHON"] = before


@pytest.fixture
def spark(spark_python: None) -> Any:
    """The local Spark session of two cores the Spark tests share (started again if a test
    stopped it): one start of Spark per test process, whichever modules its tests are in."""
    from pyspark.sql import SparkSession

    from local_spark import start_local_spark

    return SparkSession.getActiveSession() or start_local_spark()


@pytest.fixture
def count_calls(monkeypatch: pytest.MonkeyPatch) -> Any:
    """``count_calls(cls, *names)``: the calls of those methods of ``cls`` in the test, by
    name, counted as they happen (the methods still run)."""

    def counting(cls: type, *names: str) -> dict[str, int]:
        counted = dict.fromkeys(names, 0)
        for name in names:
            original = getattr(cls, name)

            def wrapped(self: Any, *args: Any, _name: str = name, _original: Any = original) -> Any:
                counted[_name] += 1
                return _original(self, *args)

            monkeypatch.setattr(cls, name, wrapped)
        return counted

    return counting


@pytest.fixture
def quick_gc() -> Iterator[None]:
    """``gc.collect()`` in the test looks only at the objects made since it began.

    The objects of the tests run before in the same process are frozen out of the
    collector, so a test that collects garbage before each of its checks (to see which
    states are still alive) costs the same alone and late in a long run.
    """
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
