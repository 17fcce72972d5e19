"""The scale options of the ``scorekit`` commands: chunked reading, engines and state files.

``eval``, ``rank``, ``text`` and ``throughput`` take ``--chunk-size N``,
``--quiet``, ``--engine stream|dask``, ``--scheduler`` / ``--workers`` and
``--save-state FILE``; ``scorekit merge`` combines state files. The commands'
own logic stays in :mod:`scorekit.cli` (and :mod:`scorekit._evaluate` for
``eval``); this module holds what the scale options add:

- reading line-aligned text files in blocks of lines (``text --chunk-size``);
- evaluating a TREC run in chunks of whole queries (``rank --chunk-size``). A
  TREC run is read whole by the TREC reader (it is parsed in parallel in one
  go), and then judged and evaluated a chunk of queries at a time;
- summing the counts of warnings that chunks repeat with their own numbers, so
  that a chunked run warns as the whole file would;
- the values printed for states read back from files (``scorekit merge``).
"""

from __future__ import annotations

import argparse
import dataclasses
import gzip
import itertools
import re
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from scorekit._core import Metric, State
from scorekit.errors import (
    ConfigError,
    InputError,
    ScorekitError,
    UndefinedMetricWarning,
    message,
    raw,
)

__all__ = [
    "DEFAULT_CHUNK_SIZE",
    "add_scale_flags",
    "check_scale_flags",
    "dask_run",
    "display_values",
    "fold_file",
    "rank_stream",
    "read_line_blocks",
    "scaled",
    "sum_counts",
    "text_states",
]

DEFAULT_CHUNK_SIZE = 65_536
"""Rows (lines, run rows) per chunk when ``--engine`` is given without ``--chunk-size``."""

ENGINES = ("stream", "dask")

T = TypeVar("T")


# flags --------------------------------------------------------------------------------------


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}")
    return value


def add_scale_flags(parser: argparse.ArgumentParser, *, unit: str = "rows") -> None:
    """Add ``--chunk-size``, ``--quiet``, ``--engine``, ``--scheduler``, ``--workers`` and
    ``--save-state`` to a command's parser, in one argument group."""
    group = parser.add_argument_group("scale")
    group.add_argument(
        "--chunk-size",
        type=_positive_int,
        metavar="N",
        help=f"read and evaluate {unit} N at a time, merging the states (memory bounded by N)",
    )
    group.add_argument(
        "--quiet", action="store_true", help="no progress bar (shown on a terminal when chunked)"
    )
    group.add_argument(
        "--engine",
        choices=ENGINES,
        help="stream: read in chunks on this machine; dask: summarize partitions on a Dask "
        f"cluster (default: read the whole input at once; with --chunk-size, stream; chunks of "
        f"{DEFAULT_CHUNK_SIZE:,} {unit} otherwise)",
    )
    group.add_argument(
        "--scheduler",
        metavar="tcp://HOST:PORT",
        help="the Dask scheduler to run on (--engine dask; default: a local cluster)",
    )
    group.add_argument(
        "--workers",
        type=_positive_int,
        metavar="N",
        help="worker processes of the local Dask cluster (--engine dask)",
    )
    group.add_argument(
        "--save-state",
        metavar="FILE",
        help="also write the metrics' states to FILE (JSON, gzip if it ends in .gz) for "
        "`scorekit merge`",
    )


def check_scale_flags(args: argparse.Namespace, command: str) -> None:
    """Reject scale flags that contradict each other, before any file is read."""
    engine = getattr(args, "engine", None)
    for flag in ("scheduler", "workers"):
        if getattr(args, flag, None) is not None and engine != "dask":
            raise ConfigError(
                message(
                    f"scorekit {command}",
                    f"--{flag} is for the Dask engine",
                    raw(f"--{flag} without --engine dask"),
                    f"--engine dask --{flag} ...",
                )
            )
    if getattr(args, "scheduler", None) is not None and getattr(args, "workers", None) is not None:
        raise ConfigError(
            message(
                f"scorekit {command}",
                "--scheduler and --workers exclude each other",
                raw("both"),
                "--scheduler to use a running cluster, or --workers for a local one",
            )
        )


def scaled(args: argparse.Namespace) -> bool:
    """Whether a scale flag asks for chunked or distributed evaluation."""
    return args.chunk_size is not None or args.engine is not None


def chunk_size(args: argparse.Namespace) -> int:
    """The chunk size asked for, or the default one."""
    return int(args.chunk_size or DEFAULT_CHUNK_SIZE)


def progress(args: argparse.Namespace) -> bool | None:
    """``False`` with ``--quiet``, else ``None`` (a progress bar when stderr is a terminal)."""
    return False if args.quiet else None


# warnings -----------------------------------------------------------------------------------

_COUNT = re.compile(r"\b(\d+) of (\d+)\b")


def sum_counts(texts: Sequence[str]) -> list[str]:
    """Distinct warnings, with the ``K of N`` counts of repeats summed.

    Chunks warn about their own part (``3 of 40 queries have no relevant
    document``); messages that differ only in such counts are one message
    about the whole data, with the counts added up.

    Examples
    --------
    >>> sum_counts(["map: 1 of 4 queries are empty.", "map: 2 of 5 queries are empty.", "x"])
    ['map: 3 of 9 queries are empty.', 'x']
    """
    totals: dict[str, list[int]] = {}
    order: list[str] = []
    for text in texts:
        shape = _COUNT.sub("{}", text)
        counts = [int(n) for pair in _COUNT.findall(text) for n in pair]
        if shape not in totals:
            totals[shape] = counts
            order.append(shape)
        elif len(totals[shape]) == len(counts):
            totals[shape] = [a + b for a, b in zip(totals[shape], counts, strict=True)]
    return [_fill(shape, totals[shape]) for shape in order]


def _fill(shape: str, counts: list[int]) -> str:
    parts = shape.split("{}")
    text = parts[0]
    for i, rest in enumerate(parts[1:]):
        text += f"{counts[2 * i]} of {counts[2 * i + 1]}" + rest
    return text


# text: blocks of lines ------------------------------------------------------------------------


def _open_lines(path: Path) -> Any:
    if not path.exists():
        raise InputError(message(str(path), "no such file", None, "an existing file"))
    if path.is_dir():
        raise InputError(message(str(path), "is a directory", None, "a file"))
    if path.name.endswith(".gz"):
        return gzip.open(path, "rb")
    return path.open("rb")


def _decoded(path: Path) -> Iterator[str]:
    """The lines of a UTF-8 file, as :func:`scorekit.text._lines.read_lines` reads them."""
    with _open_lines(path) as handle:
        for number, line in enumerate(handle, start=1):
            if number == 1 and line.startswith(b"\xef\xbb\xbf"):
                line = line[3:]
            if line.endswith(b"\n"):
                line = line[:-1]
            try:
                text = line.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise InputError(
                    message(
                        f"{path}, line {number}",
                        "not valid UTF-8",
                        raw(f"byte 0x{line[exc.start]:02x} at column {exc.start + 1}"),
                        "UTF-8 text",
                    )
                ) from None
            yield text[:-1] if text.endswith("\r") else text


def read_line_blocks(
    hypotheses: str | Path, references: Sequence[str | Path], lines: int
) -> Iterator[tuple[list[str], list[list[str]]]]:
    """Hypotheses and their references, ``lines`` lines at a time.

    The files are read as :func:`scorekit.text._lines.read_parallel` reads them
    (UTF-8, ``.gz``, byte-order mark, ``\\r\\n``), with the same errors; a
    difference in line count is found when the shorter file ends, and names
    both files and both counts.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "h.txt").write_text("a\\nb\\nc\\n"); _ = (d / "r.txt").write_text("A\\nB\\nC\\n")
    >>> [h for h, _ in read_line_blocks(d / "h.txt", [d / "r.txt"], 2)]
    [['a', 'b'], ['c']]
    """
    if not references:
        raise InputError(message("scorekit text", "no reference file", None, "--refs FILE"))
    paths = [Path(hypotheses), *(Path(r) for r in references)]
    streams = [_decoded(p) for p in paths]
    end = object()
    rows: Iterator[tuple[Any, ...]] = itertools.zip_longest(*streams, fillvalue=end)
    count = 0
    last: tuple[Any, ...] = ()
    while True:
        block = list(itertools.islice(rows, lines))
        whole = [row for row in block if not any(v is end for v in row)]
        count += len(whole)
        if whole:
            yield [row[0] for row in whole], [list(row[1:]) for row in whole]
        if len(whole) < len(block):
            last = block[len(whole)]
            break
        if len(block) < lines:
            return
    # one file ended before the others: count what the others still hold
    totals = [
        count + (v is not end) + sum(1 for _ in s) for v, s in zip(last, streams, strict=True)
    ]
    for path, n in zip(paths[1:], totals[1:], strict=True):
        if n != totals[0]:
            raise InputError(
                message(
                    "scorekit text",
                    "reference and hypothesis files differ in line count",
                    raw(f"{n} lines in {path}, {totals[0]} in {hypotheses}"),
                    "one reference line per hypothesis line",
                )
            )


def text_states(
    args: argparse.Namespace, metrics: dict[str, Metric[Any]]
) -> tuple[dict[str, State], int]:
    """States of text metrics over ``--hyps`` and ``--refs``, in blocks of lines or on Dask.

    The stream engine's way for text: the files are read ``--chunk-size`` lines
    at a time and each block's states are merged into the total. With
    ``--engine dask`` the files are read here and their lines sent to the
    cluster as a table (a column of hypotheses and one per reference file).
    """
    from scorekit.engines import _progress

    if args.engine == "dask":
        import pyarrow as pa

        from scorekit.text._lines import read_parallel

        hyps, refs = read_parallel(args.hyps, args.refs)
        names = [f"reference_{i}" for i in range(len(args.refs))]
        columns = {name: [r[i] for r in refs] for i, name in enumerate(names)}
        table = pa.table({"predictions": pa.array(hyps, pa.string()), **columns})
        mapping = {"references": names, "predictions": "predictions"}
        states, rows, _ = dask_run(table, metrics, mapping, args)
        return states, rows
    states = {key: metric.empty() for key, metric in metrics.items()}
    rows = 0
    bar = _progress.Progress(enabled=_progress.wanted(progress(args)))
    try:
        for hyps, refs in read_line_blocks(args.hyps, args.refs, chunk_size(args)):
            for key, metric in metrics.items():
                part = metric.summarize(refs, hyps)
                states[key] = part if rows == 0 else metric.merge(states[key], part)
            rows += len(hyps)
            bar.update(rows=len(hyps))
    finally:
        bar.close()
    return states, rows


# engines ------------------------------------------------------------------------------------

_RESTARTS = 64


def fold_file(
    source: str,
    wanted: Sequence[str],
    size: int,
    show: bool | None,
    fold: Callable[[Iterable[Any]], T],
) -> T:
    """Apply ``fold`` to the chunks of a file (or glob, or directory) read by the stream engine.

    The engine fixes the type of a column from its first block and, when a later
    value does not fit, reads the input again with the wider type: ``fold`` is
    then called again from the start, so the result is that of the whole file.
    """
    from scorekit.engines import _progress, _sources
    from scorekit.engines._readers import Widen

    src = _sources.open_source(source)
    plan = _sources.ReadPlan()
    enabled = _progress.wanted(show)
    for attempt in range(_RESTARTS + 1):
        bar = _progress.Progress(
            total_bytes=src.total_bytes, total_rows=src.total_rows, enabled=enabled
        )
        try:
            return fold(src.chunks(list(wanted), size, bar, plan))
        except Widen:
            if attempt == _RESTARTS:
                raise
        finally:
            bar.close()
    raise InputError(message(source, "column types do not settle", None, "readable files"))


def dask_run(
    source: Any,
    metrics: Mapping[str, Metric[Any]],
    columns: dict[str, Any] | None,
    args: argparse.Namespace,
    *,
    qrels: Any = None,
) -> tuple[dict[str, Any], int, list[str]]:
    """The states of ``metrics`` over ``source`` computed on a Dask cluster, with warnings.

    ``source`` is a path (glob, directory) of table files or an in-memory table.
    """
    from scorekit.engines import _sources
    from scorekit.engines._columns import resolve
    from scorekit.engines.dask import dask_states

    if isinstance(source, str):
        present = _sources.open_source(source).columns()
    else:
        present = list(source.column_names)
    listed = list(metrics.values())
    mapping = resolve(listed, columns, present)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        states, rows = dask_states(
            source,
            listed,
            mapping,
            qrels=qrels,
            scheduler=args.scheduler,
            workers=args.workers,
        )
    # the metrics warn on the workers; what reaches here is Dask's and pandas' own noise,
    # except for scorekit's warnings about undefined values
    texts = [str(w.message) for w in caught if issubclass(w.category, UndefinedMetricWarning)]
    return dict(zip(metrics, states, strict=True)), int(rows), list(dict.fromkeys(texts))


# rank: a run in chunks of whole queries ---------------------------------------------------------


def _judged_states(
    chosen: dict[str, Any], resolved: dict[str, Any], judgments: Any, table: Any, texts: list[str]
) -> dict[str, State]:
    from scorekit.ranking import Run
    from scorekit.ranking._ranked import judge

    run = Run(table.column("query"), table.column("doc"), table.column("score").to_numpy())
    judged = judge(judgments, run)
    out: dict[str, State] = {}
    for key, metric in resolved.items():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out[key] = metric.from_judged(judged)
        texts += [str(w.message) for w in caught]
    return out


def rank_stream(
    qrels: Any, run_path: str, chosen: dict[str, Any], *, size: int, show: bool | None
) -> tuple[dict[str, Any], int, list[str]]:
    """States of ranking metrics over a TREC run read in chunks of ``size`` rows.

    The run must list the rows of each query together (sorted by query, as
    search systems write runs); the rows of the last query of a chunk are
    carried into the next one. Runs whose fields are separated by single spaces
    or tabs are streamed; others are read whole by the TREC reader and then
    evaluated in chunks. The rows of a query are judged together, once for all
    metrics; the per-query states of the chunks are merged. Returns the states,
    the rows of the run and the warnings, with their counts summed over chunks.
    """
    from scorekit.engines import _progress, _readers, _sources
    from scorekit.engines._grouping import QueryGroups
    from scorekit.ranking import as_qrels

    judgments = as_qrels(qrels)
    resolved = {key: metric.for_qrels(judgments) for key, metric in chosen.items()}
    states: dict[str, State] = {}
    texts: list[str] = []
    path = Path(run_path)
    if not path.is_file():
        raise InputError(message(run_path, "no such file", None, "an existing run file"))
    groups = QueryGroups(QueryGroups.mapping)
    bar = _progress.Progress(total_bytes=path.stat().st_size, enabled=_progress.wanted(show))
    rows = 0

    def add(table: Any) -> None:
        for key, state in _judged_states(chosen, resolved, judgments, table, texts).items():
            states[key] = state if key not in states else chosen[key].merge(states[key], state)

    try:
        batches = _readers.batches(path, "trec", list(_QUERY_DOC_SCORE), size, None)
        for batch, position in batches:
            table = _sources._with_meta(_sources._table(batch), run_path, "trec", rows)
            rows += table.num_rows
            bar.update(rows=table.num_rows, bytes_read=position)
            ready = groups.push(table)
            if ready is not None:
                add(ready)
        last = groups.flush()
        if last is not None:
            add(last)
    finally:
        bar.close()
    for key, metric in chosen.items():
        states.setdefault(key, metric.empty())
    return states, rows, sum_counts(texts)


_QUERY_DOC_SCORE = ("query", "doc", "score")


def run_table(run_path: str) -> Any:
    """A TREC run as an in-memory table of ``query``, ``doc`` and ``score`` (for Dask)."""
    import pyarrow as pa

    from scorekit.ranking._trec import read_run_file

    cols = read_run_file(run_path)
    return pa.table({"query": cols.query, "doc": cols.doc, "score": cols.values})


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


# eval on Dask -----------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class _TaskMetric(Metric[Any]):
    """An ``eval`` metric as the engines see it: the task's columns in, the metric's state out.

    ``scorekit eval`` hands a metric its columns the way the task says (0/1
    truth for ``--pos-label`` where the metric has no such option, ``[1 - p,
    p]`` for class probabilities of a binary task, regression targets as one
    column or a matrix); this wrapper does the same on every partition, and
    leaves merge and compute to the metric.
    """

    inner: Metric[Any]
    task: str
    pos_label: Any
    targets: int

    @property
    def name(self) -> str:
        """The wrapped metric's name."""
        return self.inner.name

    def empty(self) -> Any:
        """The wrapped metric's empty state."""
        return self.inner.empty()

    def merge(self, a: Any, b: Any) -> Any:
        """The wrapped metric's merge."""
        return self.inner.merge(a, b)

    def compute(self, state: Any) -> Any:
        """The wrapped metric's value."""
        return self.inner.compute(state)

    def _summarize(self, y_true: Any, second: Any, weight: Any, scores: bool) -> Any:
        from scorekit._evaluate import _arguments, _Inputs

        if self.task == "regression" and self.targets == 1:
            y_true, second = y_true[:, 0], second[:, 0]
        data = _Inputs(
            self.task,
            y_true,
            None if scores else second,
            second if scores else None,
            weight,
            self.pos_label,
        )
        args, kwargs = _arguments(self.inner, data)
        return self.inner.summarize(*args, **kwargs)


@dataclasses.dataclass(frozen=True)
class _LabelTask(_TaskMetric):
    @property
    def inputs(self) -> str:
        """Labels, indicator matrices or regression targets, by task."""
        return {"multilabel": "multilabel", "regression": "regression_multi"}.get(
            self.task, "labels"
        )

    def summarize(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        """The wrapped metric's state of one partition."""
        return self._summarize(y_true, y_pred, sample_weight, scores=False)


@dataclasses.dataclass(frozen=True)
class _ScoreTask(_TaskMetric):
    @property
    def inputs(self) -> str:
        """Scores of the positive class, of each class, or of each label, by task."""
        return f"{self.task}_scores"

    def summarize(self, y_true: Any, y_score: Any, sample_weight: Any = None) -> Any:
        """The wrapped metric's state of one partition."""
        return self._summarize(y_true, y_score, sample_weight, scores=True)


def dask_eval(
    plan: Any, specs: Sequence[str] | None, args: argparse.Namespace, classes: Any
) -> Any:
    """``scorekit eval --engine dask``: the task's metrics over a file, on a Dask cluster.

    The first chunk of the file is read here to type ``--pos-label`` and to leave
    out default metrics that do not apply (as ``eval`` skips them); the others
    run on the cluster, where any error stops the evaluation.
    """
    from scorekit import _io
    from scorekit._evaluate import (
        _PRED_KINDS,
        Evaluation,
        _Inputs,
        _metric_for,
        _pos_label,
        default_metrics,
    )
    from scorekit._evaluate import _inputs as task_inputs

    explicit = bool(specs)
    names = list(dict.fromkeys(specs or ())) or default_metrics(
        plan.task, has_pred=plan.pred is not None, has_score=plan.score is not None
    )
    first = fold_file(plan.source, plan.needed(), chunk_size(args), False, _first)
    if first is None:
        raise InputError(message(plan.source, "no data", None, "a table with rows"))
    pos_label = _pos_label(plan.pos_label, _io.label_array(first, plan.true[0]))
    data: _Inputs = task_inputs(plan, first, pos_label)
    chosen: dict[str, Metric[Any]] = {}
    skipped: list[str] = []
    for name in names:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                metric = _metric_for(name, plan, pos_label, classes)
                _summarize_probe(metric, data)
        except ScorekitError as exc:
            if explicit:
                raise
            skipped.append(str(exc))
            continue
        kind = _LabelTask if metric.inputs in _PRED_KINDS else _ScoreTask
        chosen[name] = kind(metric, plan.task, pos_label, len(plan.true))
    columns = {"y_true": list(plan.true)}
    if any(isinstance(m, _LabelTask) for m in chosen.values()):
        columns["y_pred"] = list(plan.pred or ())
    if any(isinstance(m, _ScoreTask) for m in chosen.values()):
        columns["y_score"] = list(plan.score or ())
    if plan.weight:
        columns["sample_weight"] = [plan.weight]
    states, rows, notes = dask_run(plan.source, chosen, columns, args) if chosen else ({}, 0, [])
    values: dict[str, Any] = {}
    for name, metric in chosen.items():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                values[name] = metric.compute(states[name])
            except ScorekitError as exc:
                if explicit:
                    raise
                skipped.append(str(exc))
                continue
        notes += [t for t in dict.fromkeys(str(w.message) for w in caught) if t not in notes]
    inner = {name: m.inner for name, m in chosen.items() if isinstance(m, _TaskMetric)}
    return Evaluation(
        values=values,
        warnings=notes,
        skipped=skipped,
        rows=rows,
        metrics={k: inner[k] for k in values},
        states={k: states[k] for k in values},
        columns=plan.columns(),
        options={} if plan.pos_label is None else {"pos_label": plan.pos_label},
    )


def _first(chunks: Iterable[Any]) -> Any:
    return next(iter(chunks), None)


def _summarize_probe(metric: Metric[Any], data: Any) -> None:
    from scorekit._evaluate import _arguments

    args, kwargs = _arguments(metric, data)
    metric.summarize(*args, **kwargs)
