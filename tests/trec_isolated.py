"""pytrec_eval's evaluators, each evaluation run in a forked child process.

trec_eval (inside pytrec_eval) can leave a process in a state where a later,
ordinary evaluation never returns: seen in the tests with runs of graded
judgments that include negative grades, each input evaluating at once on its
own. Evaluating in a child that exits afterwards keeps the test process clean,
and a child that does not answer within :data:`TIMEOUT` seconds is an error
rather than a test run that hangs.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
from typing import Any

TIMEOUT = 120.0


def _evaluate_in_child(make: Any, args: tuple[Any, ...], kwargs: dict[str, Any], run: Any) -> Any:
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: evaluate, send the result (or the error), leave
        os.close(read)
        try:
            try:
                payload = (True, make(*args, **kwargs).evaluate(run))
            except Exception as exc:  # the parent raises it again
                payload = (False, exc)
            with os.fdopen(write, "wb") as out:
                pickle.dump(payload, out)
        finally:
            os._exit(0)
    os.close(write)
    chunks = []
    with os.fdopen(read, "rb") as inp:
        while True:
            ready, _, _ = select.select([inp], [], [], TIMEOUT)
            if not ready:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                raise RuntimeError(f"pytrec_eval did not return within {TIMEOUT:g} s")
            chunk = os.read(inp.fileno(), 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
    os.waitpid(pid, 0)
    ok, value = pickle.loads(b"".join(chunks))
    if not ok:
        raise value
    return value


def isolating(real: type) -> type:
    """A stand-in for an evaluator class whose ``evaluate`` runs in a child process."""

    class Isolated:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            self._args, self._kwargs = args, kwargs

        def evaluate(self, run: Any) -> Any:
            return _evaluate_in_child(real, self._args, self._kwargs, run)

    Isolated.__name__ = Isolated.__qualname__ = real.__name__
    return Isolated


def isolate(module: Any) -> None:
    """Replace the evaluator classes of the pytrec_eval module by isolating stand-ins."""
    for name in ("RelevanceEvaluator", "_RelevanceEvaluator"):
        real = getattr(module, name, None)
        if isinstance(real, type):
            setattr(module, name, isolating(real))
