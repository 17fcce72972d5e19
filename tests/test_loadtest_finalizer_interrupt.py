"""A Ctrl-C that lands in a finalizer still interrupts ``scorekit loadtest``.

Python prints an exception raised in ``__del__`` (a KeyboardInterrupt too) with a
traceback and goes on; the command's hook turns such a Ctrl-C into an interrupt of the
main thread, which the command reports in one line.
"""

from __future__ import annotations

import signal
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest

from scorekit.cli._loadtest import _interrupting


class _RaisesOnDelete:
    def __init__(self, error: BaseException) -> None:
        self.error = error

    def __del__(self) -> None:
        raise self.error


@pytest.fixture
def hooked() -> Iterator[list[Any]]:
    passed: list[Any] = []
    previous_hook, previous_handler = sys.unraisablehook, signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    sys.unraisablehook = _interrupting(passed.append)
    try:
        yield passed
    finally:
        sys.unraisablehook = previous_hook
        signal.signal(signal.SIGINT, previous_handler)


def test_a_ctrl_c_in_a_finalizer_interrupts_the_main_thread(hooked: list[Any]) -> None:
    with pytest.raises(KeyboardInterrupt):
        _RaisesOnDelete(KeyboardInterrupt())
        for _ in range(2000):
            time.sleep(0.001)
    assert hooked == []


def test_other_unraisable_errors_go_to_the_previous_hook(hooked: list[Any]) -> None:
    _RaisesOnDelete(ValueError("in a finalizer"))
    assert [(u.exc_type, str(u.exc_value)) for u in hooked] == [(ValueError, "in a finalizer")]
