"""State files: the states of several metrics in one portable, versioned file.

A shard of the data evaluated on one machine is saved with :func:`save_states`
(``scorekit eval ... --save-state FILE``); the files of all shards are merged
with :func:`merge_states` (``scorekit merge FILE...``, or
:func:`scorekit.api.merge_files` for the values) into the states of the whole
data. The format is JSON (gzip-compressed when the file name ends in
``.gz``), never pickle, so a state file from an untrusted source cannot run
code: it is read as numbers, strings and lists only.

Layout (format version 1)::

    {"scorekit_states": 1,          the version of this file layout
     "state_format": 1,             State.to_dict's format (scorekit.core.STATE_FORMAT)
     "scorekit": "0.1.0",           the scorekit that wrote the file (informative)
     "command": "eval",             what produced the states
     "input": "binary",             the input kind (eval's task, ranking, text, ...)
     "columns": {...},              role -> the columns read (eval)
     "options": {...},              settings beyond the metrics' own (eval's pos_label)
     "rows": 1234,                  rows (items, queries' rows) summarized
     "tallies": {...},              named counts beside the states, added up by merging
     "metrics": [
       {"key": "f1:macro", "metric": "f1", "config": {...}, "state": {...}},
       ...
     ]}

Each metric entry holds the metric string as given (``key``), the registered
name, the metric's full configuration (its dataclass fields, encoded as
:meth:`State.to_dict` encodes values) and ``state.to_dict()``; one entry is
written per line, so an error in a file names a line that points at a metric.

Binary files (``state_format="binary"``, ``--state-format binary``, and
``auto``, the default, when the states' arrays take 1 MiB or more) hold the
same document with each numeric array of a state in an npy block (never
pickle) in its smallest exact type: float64 scores that are float32 values as
float32, counts in the smallest integer type that holds them; the arrays are
read back block by block, at disk speed, into the types the states hold, and
the states are validated as those of a JSON file (see
:mod:`scorekit.statefiles._binary` for the layout). A binary file opens with
bytes that are never UTF-8 text; an exact ROC AUC state takes 6 bytes per
distinct (label, score) pair of float32 scores, against about 45 in JSON.

:func:`merge_states` reads one file at a time. The states of most metrics
are merged into the running states before the next file is read. Exact
score histograms (``roc_auc``, ``average_precision``) are gathered and merged
together once (one sort of their runs, not one merge per file); states split
by score ranges (``roc_auc:ranges=N``) of binary files are merged range by
range, one range of every file at a time, into a temporary file that the
metrics read one range at a time, so their merge holds one range, never the
whole histogram. Equal states of two metrics of one binary file (``roc_auc``
and ``average_precision`` of the same data) are read and merged once. The
states are those of merging the files pairwise in order, bit for bit.

Range files (layout version 2, :data:`RANGE_FILE_FORMAT`): ``merge_states(paths,
part=I)`` (``scorekit merge --part I ... --save-state FILE``) merges range ``I``
only of the states split by score ranges, and ``save_states(..., part=...)``
writes it with the header field ``"range": {"index": I, "count": N, "inputs":
ID}``. Such a state holds the merged shell (cut points and sample count of the
whole merge) and range ``I`` of the merge, its other ranges empty; the other
metrics' states are the whole merged states, in every range file. ``ID`` is a
digest of the merged files in order. :func:`merge_states` of the ``N`` range
files of one merge, in any order, assembles the merged states one range file at
a time, bit for bit those of the plain merge, and refuses range files that are
missing, repeated, of other merges or among shard files. A scorekit reading
version 1 only refuses a range file instead of merging it as a shard.

Compatibility: files merge when their ``scorekit_states`` and ``state_format``
versions are the ones this scorekit reads; the scorekit package version that
wrote them may differ (it is recorded, not compared), because the state format
version is what changes when a state's meaning or layout changes.
"""

from __future__ import annotations

from scorekit.statefiles._format import (
    AUTO_BINARY_BYTES,
    DEFAULT_BINARY_MEMORY,
    FILE_FORMAT,
    RANGE_FILE_FORMAT,
    STATE_FORMAT_VARIABLE,
    STATE_FORMATS,
    StateFile,
    binary_memory_limit,
)
from scorekit.statefiles._merge import merge_states
from scorekit.statefiles._read import load_states
from scorekit.statefiles._write import save_states

__all__ = [
    "AUTO_BINARY_BYTES",
    "DEFAULT_BINARY_MEMORY",
    "FILE_FORMAT",
    "RANGE_FILE_FORMAT",
    "STATE_FORMATS",
    "STATE_FORMAT_VARIABLE",
    "StateFile",
    "binary_memory_limit",
    "load_states",
    "merge_states",
    "save_states",
]
