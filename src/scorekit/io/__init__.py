"""Reading data: the format registry, streaming readers, sources, column conversions, progress.

- Formats: :class:`Format`, :func:`register_format`, :func:`format_of`,
  :func:`formats`. CSV, TSV, Parquet and JSON Lines (``.gz`` for the text
  formats) are built in; families register theirs (ranking: TREC runs).
- Sources: :func:`open_source` opens a table, a dict of columns, a file, a glob or
  a directory as a :class:`Source` read in chunks; :func:`as_table` reads one whole.
  Readers settle column types that change below the first rows (:class:`Widen`).
- Columns: :func:`read_table`, :func:`label_array`, :func:`score_array`... turn
  columns into arrays with errors naming file, line and column;
  :func:`register_conversion` and :class:`Chunk` convert a column once per chunk.
- :class:`Progress`: the progress line of long reads.
- Remote inputs: a URL (``s3://``, ``gs://``, ``https://``, ``memory://``) is accepted
  wherever a path is, read through fsspec (the ``remote`` extra) by :func:`local_path`.
- :func:`read_limited`: a whole file (state, SQuAD, prompts), regular files only,
  at most :func:`max_file_size` bytes read and decompressed; :func:`read_json` and
  :func:`parse_json`: a JSON document, every failure an error naming line and column.
- Text files are read whole or not at all: a CSV quote left open, a NUL byte, a
  JSON line nested deeper than :data:`MAX_JSON_DEPTH` are errors naming the line.

This package knows no metric family, engine or command.
"""

from __future__ import annotations

from scorekit.io._blocks import (
    BOM,
    Widen,
    block_size,
    head,
    open_file,
    open_text,
    read_batches,
    skip,
    straddles,
)
from scorekit.io._blocks import empty as empty_file_error
from scorekit.io._columns import (
    check_present,
    group_arrays,
    is_numeric,
    is_string_view,
    label_array,
    label_matrix,
    score_array,
    score_matrix,
    source_of,
    table_column,
    weight_array,
    where,
)
from scorekit.io._convert import Chunk, conversions, convert, register_conversion
from scorekit.io._formats import (
    Format,
    directory_extensions,
    format_named,
    format_of,
    formats,
    listed_in_directories,
    register_format,
)
from scorekit.io._json import parse_json, read_json
from scorekit.io._limits import (
    DEFAULT_MAX_FILE_SIZE,
    MAX_FILE_SIZE_VARIABLE,
    STATE_WARNING_VARIABLE,
    max_file_size,
    parse_size,
    read_limited,
    read_text,
    require_regular,
    state_warning_size,
)
from scorekit.io._progress import Progress, format_bytes, format_count, format_duration
from scorekit.io._progress import wanted as progress_wanted
from scorekit.io._readers import batches, columns_of
from scorekit.io._remote import (
    REMOTE_SCHEMES,
    as_url,
    is_url,
    local_path,
    remote_files,
    remote_head,
)
from scorekit.io._scan import MAX_JSON_DEPTH
from scorekit.io._sources import (
    FileSource,
    ReadPlan,
    Source,
    TableSource,
    as_table,
    batch_table,
    open_source,
    with_meta,
)
from scorekit.io._tables import (
    FORMAT_KEY,
    OFFSET_KEY,
    SOURCE_KEY,
    SUPPORTED_EXTENSIONS,
    bad_row_error,
    check_columns,
    json_error,
    nonblank_line,
    pyarrow_error,
    read_table,
    release_read_buffers,
)

__all__ = [
    "BOM",
    "DEFAULT_MAX_FILE_SIZE",
    "FORMAT_KEY",
    "MAX_FILE_SIZE_VARIABLE",
    "MAX_JSON_DEPTH",
    "OFFSET_KEY",
    "REMOTE_SCHEMES",
    "SOURCE_KEY",
    "STATE_WARNING_VARIABLE",
    "SUPPORTED_EXTENSIONS",
    "Chunk",
    "FileSource",
    "Format",
    "Progress",
    "ReadPlan",
    "Source",
    "TableSource",
    "Widen",
    "as_table",
    "as_url",
    "bad_row_error",
    "batch_table",
    "batches",
    "block_size",
    "check_columns",
    "check_present",
    "columns_of",
    "conversions",
    "convert",
    "directory_extensions",
    "empty_file_error",
    "format_bytes",
    "format_count",
    "format_duration",
    "format_named",
    "format_of",
    "formats",
    "group_arrays",
    "head",
    "is_numeric",
    "is_string_view",
    "is_url",
    "json_error",
    "label_array",
    "label_matrix",
    "listed_in_directories",
    "local_path",
    "max_file_size",
    "nonblank_line",
    "open_file",
    "open_source",
    "open_text",
    "parse_json",
    "parse_size",
    "progress_wanted",
    "pyarrow_error",
    "read_batches",
    "read_json",
    "read_limited",
    "read_table",
    "read_text",
    "register_conversion",
    "register_format",
    "release_read_buffers",
    "remote_files",
    "remote_head",
    "require_regular",
    "score_array",
    "score_matrix",
    "skip",
    "source_of",
    "state_warning_size",
    "straddles",
    "table_column",
    "weight_array",
    "where",
    "with_meta",
]
