"""The merged parts of a state kept on the workers of a Dask cluster, and read there.

The Dask engine merges the parts of a parted state (score ranges) in trees of
their own; the merged parts stay on the workers as futures, in a
:class:`ClusterParts`. A reader that goes through :func:`scorekit.core.scan`
runs each of its steps on the worker that holds the part, so only the carries
and the steps' outputs (per-range totals) reach this process. Reading a part by
index fetches it.

A cluster the engine started (a local cluster, or a client of a scheduler
address) stops at the end of the run or session; before it does, the parts
still in use are brought here one at a time into files
(:class:`~scorekit.engines._parts.StoredParts`), as the states must outlive the
cluster, unless the session was told its states are not used after it (a
command that prints values and saves no state). The parts of a cluster the
caller runs (the current ``distributed`` client) stay on it as long as that
client and the state live.

dask and distributed are imported by the caller: this module needs only the
client it is given.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from scorekit.core import PartsOnRead, State, scan
from scorekit.engines._dask_errors import cluster_errors
from scorekit.engines._parts import StoredParts, keep_for, keeping_parts, lost_on_failure
from scorekit.errors import ConfigError, message, raw

__all__ = ["ClusterParts", "keeping_parts"]

C = TypeVar("C")
R = TypeVar("R")


class ClusterParts(PartsOnRead[State]):
    """The parts of a merged state, one future each, on the workers of a Dask cluster.

    :meth:`scan` runs each step on the worker holding its part; item ``i``
    fetches part ``i``. A pickled sequence is a tuple of the parts (fetched).

    Parameters
    ----------
    client
        The ``distributed`` client the futures belong to.
    futures
        One future per part, in order.
    scheduler
        The scheduler address the run was given, for the errors of a lost cluster.
    """

    def __init__(self, client: Any, futures: Sequence[Any], scheduler: str | None = None) -> None:
        self._client = client
        self._futures = list(futures)
        self._scheduler = scheduler
        self._stored: StoredParts | None = None
        self._gone = False
        keep_for(client, self)

    @property
    def on_cluster(self) -> bool:
        """Whether the parts are still on the cluster (not brought here, nor lost)."""
        return self._stored is None and not self._gone

    def __len__(self) -> int:
        return len(self._futures) if self._stored is None else len(self._stored)

    def _read(self, index: int) -> State:
        if self._stored is not None:
            return self._stored[index]
        self._check()
        with cluster_errors(self._scheduler):
            part: State = self._futures[index].result()
        return part

    def scan(
        self, step: Callable[[C, State], tuple[C, R]], carry: C, *, reverse: bool = False
    ) -> tuple[C, list[R]]:
        """:func:`scorekit.core.scan` with each step run on the worker holding its part.

        The carry goes from one step's task to the next on the cluster; the
        outputs and the last carry are gathered here at the end.
        """
        if self._stored is not None:
            return scan(self._stored, step, carry, reverse=reverse)
        self._check()
        client = self._client
        pairs = []
        previous: Any = carry
        for future in reversed(self._futures) if reverse else self._futures:
            pair = client.submit(_step, step, previous, future, pure=False)
            previous = client.submit(_carry, pair, pure=False)
            pairs.append(pair)
        with cluster_errors(self._scheduler):
            found = client.gather(pairs)
        outs = [out for _, out in found]
        last = found[-1][0] if found else carry
        return last, outs

    def localize(self) -> None:
        """Bring the parts here, one at a time, into files; the futures are let go."""
        if self._stored is not None or self._gone:
            return
        stored = StoredParts()
        with lost_on_failure(self), cluster_errors(self._scheduler):
            for i in range(len(self._futures)):
                future = self._futures[i]
                stored.append(future.result())
                self._futures[i] = None
                future.release()
                del future
        self._futures = []
        self._stored = stored

    def drop(self) -> None:
        """Let the futures go: the parts are lost (their cluster stops)."""
        for future in self._futures:
            if future is not None:
                future.release()
        self._futures = [None] * len(self._futures)
        self._gone = True

    def _check(self) -> None:
        if self._gone:
            raise ConfigError(
                message(
                    "the Dask engine (--engine dask)",
                    "the merged parts of this state were on a cluster that has stopped",
                    raw(f"{len(self._futures)} parts"),
                    "a state read while its cluster runs, or one of a run that ended normally",
                )
            )

    def __repr__(self) -> str:
        where = "on the cluster" if self.on_cluster else "here" if self._stored else "lost"
        return f"ClusterParts({len(self)} parts {where})"


def _step(step: Callable[[Any, State], tuple[Any, Any]], carry: Any, part: State) -> Any:
    """One step of a scan, on the worker holding ``part``.

    Steps may change their carry in place, and the carry given here is the result
    of an earlier task, which Dask may hold and use again (a task computed again
    after a worker is lost): the step takes a copy of it.
    """
    return step(copy.deepcopy(carry), part)


def _carry(pair: tuple[Any, Any]) -> Any:
    """The carry of a step's result, for the next step."""
    return pair[0]
