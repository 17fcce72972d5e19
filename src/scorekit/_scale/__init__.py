"""The scale options of the ``scorekit`` commands: chunked reading, engines and state files.

``eval``, ``rank``, ``text`` and ``throughput`` take ``--chunk-size N``,
``--quiet``, ``--engine stream|dask``, ``--scheduler`` / ``--workers`` and
``--save-state FILE``; ``scorekit merge`` combines state files
(:mod:`scorekit._statefile`). The commands' own logic stays in
:mod:`scorekit.cli` (and :mod:`scorekit._evaluate` for ``eval``); this package
holds what the scale options add:

- :mod:`._flags`: the flags and what they ask for;
- :mod:`._engines`: chunks of files through the stream engine's readers (read
  again from the start when a column's type widens), Dask runs, and the
  warnings of chunks with their ``K of N`` counts summed;
- :mod:`._text`: line-aligned text files in blocks of lines;
- :mod:`._rank`: a TREC run grouped by query, streamed in chunks of whole queries;
- :mod:`._dask_eval`: ``eval``'s task logic as metrics the engines can run;
- :mod:`._throughput`: the merged states of the serving report's metrics;
- here: the values a command prints for its states (``scorekit merge``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scorekit._scale._dask_eval import dask_eval
from scorekit._scale._engines import dask_run, fold_file
from scorekit._scale._flags import (
    DEFAULT_CHUNK_SIZE,
    add_scale_flags,
    check_scale_flags,
    chunk_size,
    progress,
    scaled,
)
from scorekit._scale._rank import rank_stream, run_table
from scorekit._scale._text import read_line_blocks, text_states
from scorekit._scale._throughput import throughput_states
from scorekit.core import Metric, State

__all__ = [
    "DEFAULT_CHUNK_SIZE",
    "add_scale_flags",
    "check_scale_flags",
    "chunk_size",
    "dask_eval",
    "dask_run",
    "display_values",
    "fold_file",
    "progress",
    "rank_stream",
    "read_line_blocks",
    "run_table",
    "scaled",
    "text_states",
    "throughput_states",
]


# values of merged states --------------------------------------------------------------------


def display_values(
    command: str, values: dict[str, Any], metrics: dict[str, Metric[Any]], states: dict[str, State]
) -> tuple[dict[str, Any], list[str]]:
    """The values a command prints for its metrics' states, and its notes for stderr.

    ``scorekit text`` shows ROUGE as precision, recall and F-measure rows and
    BLEU's signature as a note; other commands print the values as they are.
    """
    if command != "text":
        return dict(values), []
    shown: dict[str, Any] = {}
    notes: list[str] = []
    for key, value in values.items():
        if isinstance(value, dict):
            for name, score in value.items():
                shown[f"{name}:precision"] = score.precision
                shown[f"{name}:recall"] = score.recall
                shown[f"{name}:fmeasure"] = score.fmeasure
        else:
            shown[key] = value
            signature: Callable[[State], str] | None = getattr(metrics[key], "signature", None)
            if signature is not None:
                notes.append(f"{key} signature: {signature(states[key])}")
    return shown, notes
