"""The parts of a report's page: sections, tables, and figures as inline SVG."""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["Section", "Table", "clip", "figure", "svg"]

_MAX_LINE_POINTS = 2000
_MAX_CELL = 200
_counter = itertools.count()


@dataclasses.dataclass
class Table:
    """A captioned table of text cells."""

    caption: str
    headers: list[str]
    rows: list[list[str]]


@dataclasses.dataclass
class Section:
    """A titled part of the report: figures (caption, inline SVG), tables and paragraphs."""

    title: str
    figures: list[tuple[str, str]] = dataclasses.field(default_factory=list)
    tables: list[Table] = dataclasses.field(default_factory=list)
    text: list[str] = dataclasses.field(default_factory=list)


def clip(text: Any, limit: int = _MAX_CELL) -> str:
    """``text`` as a table cell: at most ``limit`` characters, an ellipsis marking the cut.

    Examples
    --------
    >>> clip("abc"), clip("abcdef", 4)
    ('abc', 'abc…')
    """
    shown = str(text)
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"


def _thin(ax: Any) -> None:
    """Keep at most ``_MAX_LINE_POINTS`` evenly spread points (and the ends) of each line."""
    for line in ax.lines:
        x, y = line.get_xdata(), line.get_ydata()
        if len(x) > _MAX_LINE_POINTS:
            keep = np.unique(np.linspace(0, len(x) - 1, _MAX_LINE_POINTS).astype(int))
            line.set_data(np.asarray(x)[keep], np.asarray(y)[keep])


def svg(draw: Callable[[Any], Any], size: tuple[float, float] = (5.0, 3.8)) -> str:
    """The inline SVG of a figure drawn by ``draw(ax)``: text as text, a generic font, no link.

    Examples
    --------
    >>> text = svg(lambda ax: ax.plot([0, 1], [0, 1]))
    >>> text.startswith("<svg") and "<?xml" not in text
    True
    """
    import io

    import matplotlib
    from matplotlib.backends.backend_svg import FigureCanvasSVG
    from matplotlib.figure import Figure

    style: Any = {
        "svg.fonttype": "none",
        "svg.hashsalt": f"scorekit-{next(_counter)}",
        "font.family": "sans-serif",
        "font.size": 9,
        # names from the data are drawn as written, never as mathtext ($5 to $10)
        "text.parse_math": False,
    }
    with matplotlib.rc_context(style):
        fig = Figure(figsize=size)
        fig.subplots_adjust(left=0.15, right=0.86, bottom=0.14, top=0.96)
        FigureCanvasSVG(fig)
        ax = fig.add_subplot()
        draw(ax)
        for each in fig.axes:
            _thin(each)
        buffer = io.StringIO()
        fig.savefig(
            buffer, format="svg", bbox_inches="tight", metadata={"Date": None, "Creator": None}
        )
    text = buffer.getvalue()
    text = text[text.index("<svg") :]
    text = re.sub(r"<metadata>.*?</metadata>\s*", "", text, flags=re.DOTALL)
    # matplotlib names the fonts it knows; the report asks for a generic family only
    return re.sub(r"font-family:[^;\"']*", "font-family: sans-serif", text)


def figure(section: Section, caption: str, draw: Callable[[Any], Any]) -> None:
    """Add the figure ``draw(ax)`` draws, with its caption, to ``section``."""
    section.figures.append((caption, svg(draw)))
