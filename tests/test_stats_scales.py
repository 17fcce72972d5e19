"""A bootstrap gives the same replicates at every scale, for every registered metric.

For each configuration reachable by name (as in ``test_properties.py``), wrapped
in :class:`scorekit.stats.Bootstrap`: the in-memory replicates equal those of
``scorekit.evaluate`` over the batch as a table in random chunks (units keyed by
their row position), those keyed by a key column, those of the batch cut into
shards summarized separately by key and merged after a JSON round trip of each
shard's state, and the values are the wrapped metric's own. Metrics whose value
is not one number refuse the bootstrap the same way everywhere.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit.core import Metric, State
from scorekit.errors import ScorekitError
from scorekit.stats import Bootstrap
from scorekit.stats._resampling import from_state
from strategies import batches
from tables import to_table
from test_engine_properties import _check, _quiet, _streamed
from test_properties import CONFIGS, _takes_weight

EXAMPLES = int(os.environ.get("SCOREKIT_STATS_EXAMPLES", "1"))
KEY = "unit_id"


def _boot(metric: Metric[Any], key: str = "") -> Bootstrap:
    return Bootstrap.of(metric, n_resamples=3, seed=11, key=key, groups=2)


def _keyed(table: pa.Table, n: int) -> pa.Table:
    ids = [f"u{(i * 7919) % 100_003}" for i in range(n)]
    return table.append_column(KEY, pa.array(ids))


def _shards(
    boot: Bootstrap, args: tuple[Any, ...], weights: Any, cut: int, n: int
) -> tuple[str, Any, Any]:
    """Two shards summarized by key apart, each state through JSON, merged."""
    ids = np.array([f"u{(i * 7919) % 100_003}" for i in range(n)])
    states: list[State] = []
    for lo, hi in ((0, cut), (cut, n)):
        part = tuple(_take(a, lo, hi) for a in args)
        extra = (
            {}
            if weights is None or not _takes_weight(boot.inner)
            else {"sample_weight": np.asarray(weights)[lo:hi]}
        )
        state = boot.summarize(*part, unit_key=ids[lo:hi], **extra)
        states.append(State.from_json(state.to_json()))
    merged = states[0].merge(states[1])
    return "value", boot.compute(merged), merged


def _take(value: Any, lo: int, hi: int) -> Any:
    return value[lo:hi]


def _memory(
    boot: Metric[Any], args: tuple[Any, ...], weights: Any, **kwargs: Any
) -> tuple[str, Any, Any]:
    """The in-memory outcome, the wrapped metric given the weights when it takes them."""
    inner = getattr(boot, "inner", boot)
    if weights is not None and _takes_weight(inner):
        kwargs["sample_weight"] = weights
    manager = _quiet()
    try:
        state = boot.summarize(*args, **kwargs)
        return "value", boot.compute(state), state
    except ScorekitError as exc:
        return "error", type(exc).__name__, None
    finally:
        manager.__exit__(None, None, None)


@pytest.mark.parametrize("metric", CONFIGS)
def test_bootstrap_replicates_equal_at_every_scale(metric: Metric[Any]) -> None:
    boot = _boot(metric)

    @settings(max_examples=EXAMPLES, deadline=None)
    @given(data=batches(metric.inputs), parts=st.integers(1, 5), cut=st.floats(0.2, 0.8))
    def check(data: dict[str, Any], parts: int, cut: float) -> None:
        args, weights = data["args"], data["weights"]
        expected = _memory(boot, args, weights)
        if expected[0] == "value":
            plain = _memory(metric, args, weights)
            assert plain[0] == "value"
            assert expected[1].value == pytest.approx(float(plain[1]), rel=1e-12, nan_ok=True)
        table, columns, extra = to_table(metric.inputs, args, metric=metric, weights=weights)
        chunk = max(1, -(-table.num_rows // parts))
        read = {"columns": columns, **extra}
        _check(expected, _streamed(boot, table, chunk_size=chunk, **read), "chunks")
        if from_state(metric) or metric.inputs in ("requests", "log_probs"):
            return
        n = table.num_rows
        keyed = _boot(metric, KEY)
        by_key = _memory_keyed(keyed, args, weights, n)
        _check(by_key, _streamed(keyed, _keyed(table, n), chunk_size=chunk, **read), "keyed")
        if n >= 2 and by_key[0] == "value":
            _check(by_key, _shards(keyed, args, weights, max(1, int(n * cut)), n), "shards")

    check()


def _memory_keyed(boot: Bootstrap, args: tuple[Any, ...], weights: Any, n: int) -> Any:
    ids = np.array([f"u{(i * 7919) % 100_003}" for i in range(n)])
    return _memory(boot, args, weights, unit_key=ids)


# Dask: every registered metric's bootstrap, units keyed by a column (queries for ranking) ------

from test_dask import CONFIGS as DASK_CONFIGS  # noqa: E402
from test_dask import _kind_table, _outcome, _pieces, _same_state  # noqa: E402
from test_engine_properties import _close  # noqa: E402


@pytest.mark.parametrize("kind", sorted(DASK_CONFIGS))
def test_every_bootstrap_on_dask_equals_in_memory(dask_cluster: Any, kind: str) -> None:
    from scorekit.engines._columns import resolve
    from scorekit.engines.dask import dask_states

    plain = DASK_CONFIGS[kind]
    table, columns, qrels, args, weights = _kind_table(kind, plain, 1)
    keyed = kind != "qrels_run"
    boots = [
        Bootstrap.of(m, n_resamples=3, seed=4, groups=2, key=KEY if keyed else "") for m in plain
    ]
    n = table.num_rows
    ids = np.array([f"u{(i * 7919) % 100_003}" for i in range(n)])
    if keyed:
        table = table.append_column(KEY, pa.array(ids))
    expected = [_memory(b, args, weights, **({"unit_key": ids} if keyed else {}))[2] for b in boots]
    mapping = resolve(boots, columns, table.column_names)
    states, rows = dask_states(
        _pieces(table, np.random.default_rng(3)),
        boots,
        mapping,
        side={"qrels": qrels},
        scheduler=dask_cluster.scheduler_address,
    )
    assert rows == n
    for boot, state, want in zip(boots, states, expected, strict=True):
        if want is None:  # the metric refuses this batch in memory
            continue
        assert _same_state(state, want), boot
        got, wanted = _outcome(boot, state), _outcome(boot, want)
        assert got[0] == wanted[0], (boot, got, wanted)
        assert _close(got[1], wanted[1], 1e-9), (boot, got[1], wanted[1])
