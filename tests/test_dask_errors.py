"""The failures of a Dask cluster are one scorekit error naming the cause, never a traceback.

Workers that die on every try (``KilledWorker``) give an error naming the lost workers
and their memory limit; a lost connection and a local cluster that cannot start give
errors saying so. The killed workers run on a cluster of this module's own (one worker
process, no retry), so that the shared cluster of the other modules stays whole.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

import dask
import dask.dataframe as dd
import pandas as pd
from distributed import LocalCluster
from distributed.client import FutureCancelledError
from distributed.comm.core import CommClosedError

from scorekit import parse_metric
from scorekit.engines._columns import resolve
from scorekit.engines._dask_errors import cluster_errors, memory_limit, starting_errors
from scorekit.engines.dask import dask_states
from scorekit.errors import ConfigError, InputError

MEMORY = 700_000_000
DATA = Path(__file__).resolve().parent.parent / "examples" / "data"


def _piece(index: int) -> pd.DataFrame:
    """One partition; the partition 2 kills the worker process that loads it."""
    if index == 2:
        os._exit(3)
    return pd.DataFrame({"y_true": [index % 2, 1], "y_pred": [1, 1]})


@pytest.fixture(scope="module")
def fragile() -> Iterator[str]:
    """A cluster of one worker process whose scheduler gives up on a task at the first death."""
    with (
        dask.config.set({"distributed.scheduler.allowed-failures": 0}),
        LocalCluster(
            n_workers=1,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            memory_limit=MEMORY,
            dashboard_address=None,
            scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
        ) as cluster,
    ):
        yield cluster.scheduler_address


def test_killed_workers_are_one_error_naming_the_memory_limit(fragile: str) -> None:
    source = dd.from_map(_piece, list(range(4)), meta=_piece(0).iloc[:0])
    metrics = [parse_metric("accuracy")]
    mapping = resolve(metrics, None, ["y_true", "y_pred"])
    with pytest.raises(ConfigError) as caught:
        dask_states(source, metrics, mapping, scheduler=fragile)
    text = str(caught.value)
    assert text.startswith("the Dask engine (--engine dask): the workers were lost")
    assert "died 1 time" in text
    assert "a memory limit of 700.0 MB per worker" in text
    assert "--chunk-size" in text
    assert "\n" not in text


def test_the_cluster_still_works_after(fragile: str) -> None:
    source = dd.from_map(_piece, [0, 1, 3], meta=_piece(0).iloc[:0])
    metrics = [parse_metric("accuracy")]
    mapping = resolve(metrics, None, ["y_true", "y_pred"])
    states, rows = dask_states(source, metrics, mapping, scheduler=fragile)
    assert rows == 6
    assert metrics[0].compute(states[0]) == pytest.approx(5 / 6, rel=1e-12)


@pytest.mark.parametrize(
    "exc",
    [
        CommClosedError("in <TCP (closed)>: Stream is closed"),
        FutureCancelledError(key="scorekit-merge", reason="scheduler-connection-lost"),
        asyncio.CancelledError(),
        TimeoutError("timed out"),
    ],
    ids=lambda e: type(e).__name__,
)
def test_a_lost_connection_is_one_error(exc: BaseException) -> None:
    with (
        pytest.raises(ConfigError, match=r"the connection to the Dask cluster was lost") as caught,
        cluster_errors("tcp://10.0.0.1:8786"),
    ):
        raise exc
    assert "tcp://10.0.0.1:8786" in str(caught.value)
    assert caught.value.__cause__ is None


def test_other_errors_pass_unchanged() -> None:
    with pytest.raises(InputError, match="bad value"), cluster_errors(None):
        raise InputError("bad value")
    with pytest.raises(KeyError), cluster_errors(None):
        raise KeyError("x")


def test_a_cluster_that_cannot_start_is_one_error() -> None:
    with (
        pytest.raises(ConfigError, match=r"cannot start a local Dask cluster; got Nanny failed"),
        starting_errors(),
    ):
        raise RuntimeError("Nanny failed to start.")


def test_memory_limit_text() -> None:
    class Worker:
        memory_limit: Any = 0

    assert memory_limit(Worker()) == "no memory limit"
    Worker.memory_limit = 1_500_000
    assert memory_limit(Worker()) == "a memory limit of 1.5 MB per worker"


def test_a_scheduler_that_cannot_be_reached_is_one_cli_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from scorekit.cli import main

    argv = ["eval", str(DATA / "binary.csv"), "--task", "binary", "--true", "label"]
    argv += ["--pred", "pred", "--engine", "dask", "--scheduler", "tcp://127.0.0.1:9"]
    with dask.config.set({"distributed.comm.timeouts.connect": "2s"}):
        status = main(argv)
    _, err = capsys.readouterr()
    assert status == 2
    assert err.startswith("scorekit: ")
    assert "cannot connect to the Dask scheduler" in err and "tcp://127.0.0.1:9" in err
    assert "Traceback" not in err
