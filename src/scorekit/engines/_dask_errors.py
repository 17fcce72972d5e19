"""The failures of a Dask cluster as scorekit errors: one line naming the cause, no traceback.

A computation on a cluster fails for reasons that are not the data's: the workers
running a task die again and again (Dask's ``KilledWorker``, typically a worker
its nanny killed for going past its memory limit), the scheduler or the
connection to it is lost, a local cluster cannot start. Each becomes a
:class:`~scorekit.errors.ConfigError` saying what happened, with the memory
limit of the workers when the workers died, and what to try.

dask and distributed are imported inside the functions.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from typing import Any

from scorekit.errors import ConfigError, ScorekitError, message, raw
from scorekit.io import format_bytes

__all__ = ["cluster_errors", "first_line", "memory_limit", "starting_errors"]

WHERE = "the Dask engine (--engine dask)"


def first_line(exc: BaseException) -> str:
    """The first line of an exception's text, or its type's name when it has none.

    Examples
    --------
    >>> first_line(OSError("refused\\nmore"))
    'refused'
    >>> first_line(TimeoutError())
    'TimeoutError'
    """
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def memory_limit(worker: Any) -> str:
    """A worker's memory limit as text (``no memory limit`` when it has none).

    Examples
    --------
    >>> class Worker:
    ...     memory_limit = 2_000_000_000
    >>> memory_limit(Worker())
    'a memory limit of 2.0 GB per worker'
    >>> memory_limit(None)
    'no memory limit'
    """
    limit = getattr(worker, "memory_limit", None)
    if not isinstance(limit, int | float) or limit <= 0:
        return "no memory limit"
    return f"a memory limit of {format_bytes(limit)} per worker"


def _killed(exc: Any) -> ConfigError:
    worker = getattr(exc, "last_worker", None)
    tries = getattr(exc, "allowed_failures", 0) + 1
    address = getattr(worker, "address", None) or "a worker"
    got = raw(
        f"the workers running one task died {tries} time{'s' if tries != 1 else ''} "
        f"(the last at {address}, with {memory_limit(worker)})"
    )
    return ConfigError(
        message(
            WHERE,
            "the workers were lost",
            got,
            "workers that stay up: a worker is killed when it goes past its memory limit, so "
            "give each worker more memory (or fewer threads), or read smaller partitions "
            "(--chunk-size N, smaller files or row groups); the workers' logs say more",
        )
    )


def _lost(scheduler: str | None, exc: BaseException) -> ConfigError:
    return ConfigError(
        message(
            WHERE,
            "the connection to the Dask cluster was lost",
            raw(f"{scheduler or 'the local cluster'}: {first_line(exc)}"),
            "a scheduler and workers that stay up for the whole run",
        )
    )


@contextlib.contextmanager
def cluster_errors(scheduler: str | None) -> Iterator[None]:
    """Turn the failures of the cluster while it computes into ConfigErrors.

    Errors scorekit raised (on the workers too) and other exceptions pass
    unchanged.
    """
    from distributed import CancelledError, TimeoutError
    from distributed.client import FutureCancelledError
    from distributed.comm.core import CommClosedError
    from distributed.scheduler import KilledWorker

    try:
        yield
    except ScorekitError:
        raise
    except KilledWorker as exc:
        raise _killed(exc) from None
    except (
        FutureCancelledError,
        CancelledError,
        asyncio.CancelledError,
        CommClosedError,
        TimeoutError,
    ) as exc:
        raise _lost(scheduler, exc) from None


@contextlib.contextmanager
def starting_errors() -> Iterator[None]:
    """Turn a local cluster that cannot start into a ConfigError saying so."""
    try:
        yield
    except ScorekitError:
        raise
    except (RuntimeError, OSError, TimeoutError) as exc:
        raise ConfigError(
            message(
                WHERE,
                "cannot start a local Dask cluster",
                raw(first_line(exc)),
                "worker processes that can start here (a script that starts one runs its "
                "code under `if __name__ == '__main__':`), or --scheduler ADDRESS of a "
                "running cluster",
            )
        ) from None
