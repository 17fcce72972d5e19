"""A one-line progress bar on stderr: rows and bytes read, their rate, and the time left.

Shown while :func:`scorekit.evaluate` reads its input, when stderr is a terminal
(or when forced with ``progress=True``). The line is redrawn in place with a
carriage return at most ten times a second, and finished with a newline.
"""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

__all__ = ["Progress", "format_bytes", "format_count", "format_duration", "wanted"]

_INTERVAL = 0.1


def wanted(progress: bool | None, stream: Any = None) -> bool:
    """Whether to show progress: as forced, or (``None``) when ``stream`` is a terminal.

    Examples
    --------
    >>> import io
    >>> wanted(None, io.StringIO()), wanted(True, io.StringIO()), wanted(False, io.StringIO())
    (False, True, False)
    """
    if progress is not None:
        return bool(progress)
    stream = sys.stderr if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty()) if isatty is not None else False
    except (OSError, ValueError):
        return False


def format_bytes(n: float) -> str:
    """A byte count in decimal units.

    Examples
    --------
    >>> format_bytes(512), format_bytes(1_534_000), format_bytes(2.5e9)
    ('512 B', '1.5 MB', '2.5 GB')
    """
    for unit in ("B", "kB", "MB", "GB", "TB"):
        if abs(n) < 1000 or unit == "TB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} TB"  # pragma: no cover - the loop returns


def format_count(n: float) -> str:
    """A count with a k/M/G suffix above 10,000.

    Examples
    --------
    >>> format_count(950), format_count(12_345), format_count(3_400_000)
    ('950', '12.3k', '3.4M')
    """
    if abs(n) < 10_000:
        return f"{n:.0f}"
    for unit in ("k", "M", "G"):
        n /= 1000
        if abs(n) < 1000 or unit == "G":
            break
    return f"{n:.1f}{unit}"


def format_duration(seconds: float) -> str:
    """``m:ss`` or ``h:mm:ss``.

    Examples
    --------
    >>> format_duration(5), format_duration(125), format_duration(3725)
    ('0:05', '2:05', '1:02:05')
    """
    total = round(max(seconds, 0.0))
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}:{minutes:02d}:{secs:02d}"
    return f"{minutes}:{secs:02d}"


class Progress:
    """Rows and bytes read so far, drawn as one line on a terminal.

    Parameters
    ----------
    total_bytes, total_rows
        The size of the input when known (for the bar and the time left).
    enabled
        Draw nothing when false (the counts are still kept).
    stream
        Where to draw; stderr by default.
    clock
        A monotonic clock in seconds (for tests).
    unit
        What is counted, in the plural (``rows``; ``replicates`` for a bootstrap).
    label
        What the line is about, shown first (``bootstrap of roc_auc``).

    Examples
    --------
    >>> import io
    >>> out = io.StringIO()
    >>> ticks = iter([0.0, 2.0, 2.0])
    >>> bar = Progress(total_rows=1000, enabled=True, stream=out, clock=lambda: next(ticks))
    >>> bar.update(rows=250)
    >>> bar.close()
    >>> print(out.getvalue().split("\\r")[-1].strip())
    250/1,000 rows   25%  125 rows/s  ETA 0:06
    """

    def __init__(
        self,
        *,
        total_bytes: int | None = None,
        total_rows: int | None = None,
        enabled: bool = True,
        stream: TextIO | None = None,
        clock: Callable[[], float] = time.monotonic,
        unit: str = "rows",
        label: str = "",
    ) -> None:
        self.unit = unit
        self.label = label
        self.total_bytes = total_bytes
        self.total_rows = total_rows
        self.enabled = enabled
        self.stream = stream
        self.clock = clock
        self.rows = 0
        self.bytes = 0
        self._start = clock()
        self._drawn = -float("inf")
        self._width = 0
        self._closed = False

    def update(self, *, rows: int = 0, bytes_read: int | None = None) -> None:
        """Count ``rows`` more rows; ``bytes_read`` is the total read so far, if known."""
        self.rows += rows
        if bytes_read is not None:
            self.bytes = max(self.bytes, bytes_read)
        if not self.enabled:
            return
        now = self.clock()
        if now - self._drawn >= _INTERVAL:
            self._draw(now)

    def close(self) -> None:
        """Draw the final line and end it with a newline."""
        if self._closed:
            return
        self._closed = True
        if self.enabled:
            self._draw(self.clock(), final=True)

    def line(self, now: float) -> str:
        """The text of the progress line at time ``now``."""
        elapsed = max(now - self._start, 1e-9)
        parts = [f"{self.label}:"] if self.label else []
        rows = f"{self.rows:,}"
        if self.total_rows is not None and self.total_bytes is None:
            rows += f"/{self.total_rows:,}"
        parts.append(f"{rows} {self.unit}")
        fraction = None
        if self.total_bytes:
            parts.append(f"{format_bytes(self.bytes)}/{format_bytes(self.total_bytes)}")
            fraction = min(self.bytes / self.total_bytes, 1.0)
        elif self.total_rows:
            fraction = min(self.rows / self.total_rows, 1.0)
        if fraction is not None:
            parts.append(f"{fraction:4.0%}")
        parts.append(f"{format_count(self.rows / elapsed)} {self.unit}/s")
        if self.total_bytes:
            parts.append(f"{format_bytes(self.bytes / elapsed)}/s")
        if fraction is not None and 0 < fraction < 1:
            parts.append(f"ETA {format_duration(elapsed * (1 - fraction) / fraction)}")
        elif fraction is not None and fraction >= 1:
            parts.append(f"in {format_duration(elapsed)}")
        return "  ".join(parts)

    def _draw(self, now: float, final: bool = False) -> None:
        self._drawn = now
        stream = self.stream if self.stream is not None else sys.stderr
        text = self.line(now)
        columns = shutil.get_terminal_size((100, 20)).columns
        text = text[: max(columns - 1, 20)]
        pad = " " * max(self._width - len(text), 0)
        self._width = len(text)
        try:
            stream.write("\r" + text + pad + ("\n" if final else ""))
            stream.flush()
        except (OSError, ValueError):
            self.enabled = False
