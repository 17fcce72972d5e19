"""The ``scorekit`` command: evaluate files, list and explain metrics, run the demo.

::

    scorekit eval DATA --task binary|multiclass|multilabel --true COL [COL ...]
                  (--pred COL [COL ...] | --score COL [COL ...]) [--weight COL]
                  [--metric NAME ...] [--format table|json|csv]
    scorekit list [--format table|json]
    scorekit explain NAME
    scorekit demo [--data DIR]
    scorekit --version

Metrics come from the registry, so every registered metric is available by its
name (``f1:macro``, ``roc_auc``). Each metric's ``inputs`` kind decides whether
it receives ``(y_true, y_pred)`` or ``(y_true, y_score)``. User errors print
``scorekit: <message>`` on stderr and exit with status 2.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import dataclasses
import inspect
import io
import json
import math
import sys
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO, cast

import numpy as np
from numpy.typing import NDArray

from scorekit._core import INPUT_KINDS, Metric, MetricInfo, available, get, parse_metric
from scorekit._explain import bound_text, explain
from scorekit._version import __version__
from scorekit.errors import ConfigError, InputError, ScorekitError, choices, message, raw

__all__ = ["TASKS", "Evaluation", "default_metrics", "evaluate_table", "main"]

TASKS = ("binary", "multiclass", "multilabel")
"""The tasks ``scorekit eval --task`` accepts."""

_PRED_KINDS = ("binary_labels", "labels", "multilabel")
_SCORE_KINDS = (
    "binary_scores",
    "multiclass_scores",
    "multilabel_scores",
    "binary_proba",
    "proba",
)
_TASK_KINDS = {
    "binary": ("binary_labels", "labels", "binary_scores", "binary_proba"),
    "multiclass": ("labels", "multiclass_scores", "proba"),
    "multilabel": ("multilabel", "multilabel_scores"),
}

_DEFAULTS_PRED = {
    "binary": ("accuracy", "precision", "recall", "f1", "mcc"),
    "multiclass": (
        "accuracy",
        "balanced_accuracy",
        "f1:macro",
        "f1:weighted",
        "mcc",
        "cohen_kappa",
    ),
    "multilabel": ("subset_accuracy", "hamming_loss", "f1:samples", "f1:micro", "f1:macro"),
}
_DEFAULTS_SCORE = {
    "binary": ("roc_auc", "average_precision", "log_loss"),
    "multiclass": ("roc_auc", "log_loss"),
    "multilabel": (
        "label_ranking_average_precision",
        "ranking_loss",
        "coverage_error",
        "one_error",
    ),
}


def default_metrics(task: str, *, has_pred: bool, has_score: bool) -> list[str]:
    """The metrics ``scorekit eval`` reports when none are named, for those registered.

    Examples
    --------
    >>> default_metrics("binary", has_pred=True, has_score=False)
    ['accuracy', 'precision', 'recall', 'f1', 'mcc']
    """
    names = list(_DEFAULTS_PRED[task]) if has_pred else []
    if has_score:
        names += _DEFAULTS_SCORE[task]
    return [n for n in names if _registered(n)]


def _registered(spec: str) -> bool:
    try:
        get(spec.split(":")[0].split("@")[0])
    except ConfigError:
        return False
    return True


# evaluation --------------------------------------------------------------------


@dataclasses.dataclass
class Evaluation:
    """What :func:`evaluate_table` found: values by metric name, warnings and skipped defaults."""

    values: dict[str, Any]
    warnings: list[str]
    skipped: list[str]
    rows: int


@dataclasses.dataclass
class _Inputs:
    task: str
    y_true: NDArray[Any]
    y_pred: NDArray[Any] | None
    y_score: NDArray[np.float64] | None
    weight: NDArray[np.float64] | None
    pos_label: Any


def _fields(info: MetricInfo) -> set[str]:
    if dataclasses.is_dataclass(info.cls):
        return {f.name for f in dataclasses.fields(info.cls)}
    return set(inspect.signature(info.cls).parameters)


def _configure(spec: str, task: str, options: dict[str, Any]) -> Metric[Any]:
    """Build the metric for ``spec``, choosing one-vs-rest for multiclass scores if needed."""
    metric = parse_metric(spec)
    fields = _fields(metric.info)
    usable = {k: v for k, v in options.items() if k in fields}
    if usable:
        metric = parse_metric(spec, **usable)
    if task == "multiclass" and metric.inputs not in _TASK_KINDS[task] and "multi_class" in fields:
        with contextlib.suppress(ConfigError):
            ovr = parse_metric(spec, multi_class="ovr", **usable)
            if ovr.inputs in _TASK_KINDS[task]:
                return ovr
    if metric.inputs not in _PRED_KINDS and metric.inputs not in _SCORE_KINDS:
        raise ConfigError(
            message(
                spec,
                f"does not apply to --task {task}",
                raw(f"input kind {metric.inputs!r} ({INPUT_KINDS.get(metric.inputs, '?')})"),
                "a metric of labels or scores",
            )
        )
    return metric


def _class_labels(
    metric: Metric[Any], y_true: NDArray[Any], y_score: NDArray[np.float64]
) -> Metric[Any]:
    """Tell a multiclass-score metric which class each score column belongs to."""
    k = y_score.shape[1]
    classes = np.unique(y_true)
    if len(classes) == k:
        return metric
    if (
        y_true.dtype.kind in "iu"
        and classes.size
        and classes.min() >= 0
        and classes.max() < k
        and "labels" in _fields(metric.info)
    ):
        configured: Metric[Any] = dataclasses.replace(cast(Any, metric), labels=tuple(range(k)))
        return configured
    raise InputError(
        message(
            metric.name,
            "score columns do not match the classes",
            raw(f"{k} --score columns for {len(classes)} classes in --true"),
            "one score column per class, in the sorted order of the classes",
        )
    )


def _run_one(spec: str, data: _Inputs) -> Any:
    options = {} if data.pos_label is None else {"pos_label": data.pos_label}
    metric = _configure(spec, data.task, options)
    kind = metric.inputs
    if kind in _PRED_KINDS:
        if data.y_pred is None:
            raise ConfigError(
                message(
                    spec, "needs predicted labels", raw("no --pred"), "--pred COL with the labels"
                )
            )
        second: NDArray[Any] = data.y_pred
    else:
        if data.y_score is None:
            raise ConfigError(
                message(spec, "needs scores", raw("no --score"), "--score COL with the scores")
            )
        second = data.y_score
        if data.task == "binary" and kind == "proba":
            second = np.column_stack([1.0 - data.y_score, data.y_score])
        if data.task == "multiclass":
            metric = _class_labels(metric, data.y_true, data.y_score)
    kwargs: dict[str, Any] = {}
    if data.weight is not None:
        if "sample_weight" not in inspect.signature(metric.summarize).parameters:
            raise ConfigError(
                message(spec, "does not take sample weights", raw("--weight"), "no --weight")
            )
        kwargs["sample_weight"] = data.weight
    return metric.score(data.y_true, second, **kwargs)


def _usage_error(problem: str, got: str, expected: str) -> ConfigError:
    return ConfigError(message("scorekit eval", problem, raw(got), expected))


def _check_flags(
    task: str, true: Sequence[str], pred: Sequence[str] | None, score: Sequence[str] | None
) -> None:
    """Check the number of columns given to each flag, before reading any file."""
    if task not in TASKS:
        raise ConfigError(message("scorekit eval", "unknown --task", task, choices(TASKS)))
    if not pred and not score:
        raise _usage_error("nothing to evaluate", "no --pred or --score", "--pred, --score or both")
    if task == "multilabel":
        for flag, cols in (("--pred", pred), ("--score", score)):
            if cols and len(cols) != len(true):
                raise _usage_error(
                    f"{flag} must name one column per --true column",
                    f"{len(cols)} columns for {len(true)} labels",
                    f"{len(true)} columns",
                )
        return
    for flag, cols in (("--true", true), ("--pred", pred)):
        if cols and len(cols) != 1:
            raise _usage_error(
                f"--task {task} takes one {flag} column",
                f"{len(cols)} columns",
                "one column (several are for --task multilabel)",
            )
    if score and task == "binary" and len(score) != 1:
        raise _usage_error(
            "--task binary takes one --score column (the positive class)",
            f"{len(score)} columns",
            "one column",
        )
    if score and task == "multiclass" and len(score) < 2:
        raise _usage_error(
            "--task multiclass takes one --score column per class",
            f"{len(score)} column",
            "at least two columns, in the sorted order of the classes",
        )


def _load(
    path: str,
    task: str,
    true: Sequence[str],
    pred: Sequence[str] | None,
    score: Sequence[str] | None,
    weight: str | None,
    pos_label: str | None,
) -> _Inputs:
    from scorekit import _io

    _check_flags(task, true, pred, score)
    needed = [*true, *(pred or ()), *(score or ()), *([weight] if weight else [])]
    table = _io.read_table(path, columns=needed)
    y_score: NDArray[np.float64] | None = None
    if task == "multilabel":
        y_true: NDArray[Any] = _io.label_matrix(table, true)
        y_pred = _io.label_matrix(table, pred) if pred else None
        y_score = _io.score_matrix(table, score) if score else None
    else:
        y_true = _io.label_array(table, true[0])
        y_pred = _io.label_array(table, pred[0]) if pred else None
        if score:
            y_score = (
                _io.score_array(table, score[0])
                if task == "binary"
                else _io.score_matrix(table, score)
            )
    classes = np.unique(y_true) if task == "binary" else y_true[:0]
    if len(classes) > 2:
        raise InputError(
            message(
                f"{path}, column {true[0]!r}",
                "--task binary needs at most two classes",
                raw(f"{len(classes)} classes: {_preview(classes)}"),
                "two classes (or --task multiclass)",
            )
        )
    w = _io.weight_array(table, weight) if weight else None
    return _Inputs(task, y_true, y_pred, y_score, w, _pos_label(pos_label, y_true))


def _preview(values: NDArray[Any], limit: int = 5) -> str:
    shown = ", ".join(repr(v) for v in values[:limit].tolist())
    return shown + (", ..." if len(values) > limit else "")


def _pos_label(text: str | None, y_true: NDArray[Any]) -> Any:
    """Read ``--pos-label`` as a value of the same type as the labels."""
    if text is None:
        return None
    kind = y_true.dtype.kind
    try:
        if kind in "iu":
            return int(text)
        if kind == "f":
            return float(text)
        if kind == "b":
            lowered = text.strip().lower()
            if lowered not in ("true", "false", "1", "0"):
                raise ValueError(text)
            return lowered in ("true", "1")
    except ValueError:
        raise ConfigError(
            message(
                "scorekit eval",
                "--pos-label does not match the type of the labels",
                text,
                f"a value like {y_true[0].item()!r}" if y_true.size else "a label",
            )
        ) from None
    return text


def evaluate_table(
    path: str,
    *,
    task: str,
    true: Sequence[str],
    pred: Sequence[str] | None = None,
    score: Sequence[str] | None = None,
    weight: str | None = None,
    metrics: Sequence[str] | None = None,
    pos_label: str | None = None,
) -> Evaluation:
    """Evaluate the columns of a file with the named metrics (or the task's defaults).

    Named metrics must all apply: any problem raises. Default metrics that do not
    apply to the data (scores that are not probabilities for ``log_loss``, say)
    are skipped and reported in ``skipped``.
    """
    data = _load(path, task, true, pred, score, weight, pos_label)
    explicit = bool(metrics)
    specs = list(dict.fromkeys(metrics or ())) or default_metrics(
        task, has_pred=data.y_pred is not None, has_score=data.y_score is not None
    )
    values: dict[str, Any] = {}
    skipped: list[str] = []
    seen: list[str] = []
    for spec in specs:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                values[spec] = _run_one(spec, data)
            except ScorekitError as exc:
                if explicit:
                    raise
                skipped.append(str(exc))
                continue
        for w in caught:
            text = str(w.message)
            if text not in seen:
                seen.append(text)
    return Evaluation(values=values, warnings=seen, skipped=skipped, rows=len(data.y_true))


# output -------------------------------------------------------------------------


def _plain(value: Any) -> Any:
    """JSON-ready form of a metric value: arrays become lists, NaN and inf become null."""
    if isinstance(value, np.ndarray):
        return _plain(value.tolist())
    if isinstance(value, np.generic):
        return _plain(value.item())
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _number(value: Any) -> str:
    if isinstance(value, bool | np.bool_):
        return str(bool(value))
    if isinstance(value, int | np.integer):
        return str(int(value))
    if isinstance(value, float | np.floating):
        v = float(value)
        if not math.isfinite(v):
            return str(v)
        return str(int(v)) if v.is_integer() and abs(v) >= 10 else f"{v:.4f}"
    return str(value)


def _cell(value: Any) -> list[str]:
    """Lines showing one value in the table: a number, or an indented array."""
    if isinstance(value, np.generic | int | float):
        return [_number(value)]
    if isinstance(value, np.ndarray) and value.dtype.kind in "biuf":
        if value.ndim == 0:
            return [_number(value.item())]
        with np.printoptions(precision=4, suppress=True, linewidth=80, threshold=60):
            return np.array2string(value).splitlines()
    if isinstance(value, tuple | list):
        lines = []
        for i, part in enumerate(value):
            sub = _cell(np.asarray(part) if isinstance(part, list) else part)
            lines += [f"[{i}] {sub[0]}", *(f"    {s}" for s in sub[1:])]
        return lines
    return str(value).splitlines() or [""]


def _write_table(values: dict[str, Any], out: TextIO) -> None:
    width = max([len("metric"), *(len(k) for k in values)])
    out.write(f"{'metric':<{width}}  value\n")
    out.write(f"{'-' * width}  {'-' * 10}\n")
    for name, value in values.items():
        lines = _cell(value)
        out.write(f"{name:<{width}}  {lines[0]}\n")
        for line in lines[1:]:
            out.write(f"{'':<{width}}  {line}\n")


def _write_values(values: dict[str, Any], fmt: str, out: TextIO) -> None:
    if fmt == "json":
        out.write(json.dumps({k: _plain(v) for k, v in values.items()}, indent=2) + "\n")
    elif fmt == "csv":
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["metric", "value"])
        for name, value in values.items():
            plain = _plain(value)
            cell = json.dumps(plain) if isinstance(plain, list | dict) else plain
            writer.writerow([name, "" if cell is None else cell])
    else:
        _write_table(values, out)


def _report_notes(result: Evaluation, err: TextIO) -> None:
    for text in result.warnings:
        err.write(f"scorekit: warning: {text}\n")
    for text in result.skipped:
        err.write(f"scorekit: skipped default metric: {text}\n")


# commands -----------------------------------------------------------------------


def _cmd_eval(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    result = evaluate_table(
        args.data,
        task=args.task,
        true=args.true,
        pred=args.pred,
        score=args.score,
        weight=args.weight,
        metrics=args.metric,
        pos_label=args.pos_label,
    )
    _report_notes(result, err)
    if not result.values:
        raise ConfigError(
            message("scorekit eval", "no metric could be computed", None, "see the notes above")
        )
    _write_values(result.values, args.format, out)
    return 0


def _direction(info: MetricInfo) -> str:
    if info.higher_is_better is None:
        return "—"
    return "higher" if info.higher_is_better else "lower"


def _listing() -> list[dict[str, Any]]:
    rows = []
    for info in available():
        rows.append(
            {
                "name": info.name,
                "aliases": list(info.aliases),
                "direction": _direction(info),
                "bounds": [info.bounds[0], info.bounds[1]],
                "inputs": info.inputs,
                "grows": info.grows,
                "variants": [f"{info.name}:{v}" for v in info.variants],
                "at": info.at,
                "summary": info.summary,
            }
        )
    return rows


def _cmd_list(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    rows = _listing()
    if args.format == "json":
        for row in rows:
            row["bounds"] = [_plainbound_text(b) for b in row["bounds"]]
            if row["direction"] == "—":
                row["direction"] = None
        out.write(json.dumps(rows, indent=2) + "\n")
        return 0
    header = ["name", "aliases", "direction", "bounds", "inputs", "grows", "summary"]
    table = [
        [
            r["name"] + (f"@{r['at']}" if r["at"] else ""),
            ", ".join(r["aliases"]) or "—",
            r["direction"],
            f"[{bound_text(r['bounds'][0])}, {bound_text(r['bounds'][1])}]",
            r["inputs"],
            "yes" if r["grows"] else "no",
            r["summary"],
        ]
        for r in rows
    ]
    widths = [max([len(h), *(len(line[i]) for line in table)]) for i, h in enumerate(header[:-1])]
    for line in [header, *table]:
        cells = [f"{c:<{w}}" for c, w in zip(line[:-1], widths, strict=True)]
        out.write("  ".join([*cells, line[-1]]).rstrip() + "\n")
    out.write(f"\n{len(rows)} metrics; `scorekit explain NAME` describes one.\n")
    return 0


def _plainbound_text(x: float) -> float | str:
    return bound_text(x) if math.isinf(x) else x


def _cmd_explain(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    out.write(explain(args.name) + "\n")
    return 0


_DEMO_HINT = "the directory with manifest.json made by examples/make_data.py"


def _demo_dir(given: str | None) -> Path:
    if given is not None:
        candidates = [Path(given)]
    else:
        here = Path(__file__).resolve().parent
        candidates = [here / "_demo_data", here.parents[1] / "examples" / "data"]
    for directory in candidates:
        if (directory / "manifest.json").is_file():
            return directory
    raise InputError(
        message(
            "scorekit demo",
            "example data not found",
            raw(", ".join(str(c) for c in candidates)),
            _DEMO_HINT + " (pass it with --data)",
        )
    )


def _demo_entries(directory: Path) -> list[dict[str, Any]]:
    manifest = directory / "manifest.json"
    try:
        entries = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise InputError(
            message(str(manifest), "cannot read the demo manifest", raw(str(exc)), "valid JSON")
        ) from None
    if not isinstance(entries, list):
        raise InputError(message(str(manifest), "not a list of files", None, "a JSON list"))
    return [e for e in entries if isinstance(e, dict)]


def _cmd_demo(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    directory = _demo_dir(args.data)
    entries = _demo_entries(directory)
    out.write(f"scorekit {__version__} demo: the files in {directory}\n")
    for entry in entries:
        path = directory / str(entry["file"])
        result = evaluate_table(
            str(path),
            task=str(entry["task"]),
            true=list(entry["true"]),
            pred=entry.get("pred"),
            score=entry.get("score"),
        )
        title = f"{entry.get('title', entry['file'])} ({entry['file']}, {result.rows} rows)"
        out.write(f"\n{title}\n{'=' * len(title)}\n")
        command = ["scorekit eval", str(entry["file"]), "--task", str(entry["task"])]
        for flag in ("true", "pred", "score"):
            if entry.get(flag):
                command += [f"--{flag}", *entry[flag]]
        out.write("$ " + " ".join(command) + "\n\n")
        _write_table(result.values, out)
        for text in result.warnings:
            out.write(f"note: {text}\n")
        for text in result.skipped:
            out.write(f"skipped: {text}\n")
    out.write("\nScores in [0, 1] are fractions (0.85 means 85%).\n")
    return 0


# argument parsing ---------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors read ``scorekit: ...`` like the others."""

    def error(self, text: str) -> Any:
        self.print_usage(sys.stderr)
        sys.stderr.write(f"scorekit: {text}\n")
        raise SystemExit(2)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``scorekit`` command."""
    parser = _Parser(
        prog="scorekit",
        description="Evaluation metrics for machine learning, from the command line.",
    )
    parser.add_argument("--version", action="version", version=f"scorekit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    ev = sub.add_parser(
        "eval",
        help="evaluate predictions in a CSV, TSV, Parquet or JSON Lines file",
        description=(
            "Evaluate labels and scores stored in a file. Multi-label truth and "
            "predictions are several 0/1 columns; multiclass scores are one column "
            "per class, in the sorted order of the classes."
        ),
    )
    ev.add_argument("data", metavar="DATA", help="the file (.csv, .tsv, .parquet, .jsonl, ...)")
    ev.add_argument("--task", required=True, choices=TASKS)
    ev.add_argument("--true", required=True, nargs="+", metavar="COL", help="true labels")
    ev.add_argument("--pred", nargs="+", metavar="COL", help="predicted labels")
    ev.add_argument("--score", nargs="+", metavar="COL", help="scores or probabilities")
    ev.add_argument("--weight", metavar="COL", help="sample weights")
    ev.add_argument(
        "--metric",
        nargs="+",
        action="extend",
        metavar="NAME",
        help="metric names such as accuracy, f1:macro, roc_auc (default: the task's set)",
    )
    ev.add_argument("--pos-label", metavar="LABEL", help="the positive class (binary task)")
    ev.add_argument("--format", choices=("table", "json", "csv"), default="table")
    ev.set_defaults(run=_cmd_eval)

    ls = sub.add_parser("list", help="list the registered metrics")
    ls.add_argument("--format", choices=("table", "json"), default="table")
    ls.set_defaults(run=_cmd_list)

    ex = sub.add_parser("explain", help="definition, formula and a worked example of a metric")
    ex.add_argument("name", metavar="NAME")
    ex.set_defaults(run=_cmd_explain)

    demo = sub.add_parser("demo", help="evaluate the bundled example files")
    demo.add_argument("--data", metavar="DIR", help=_DEMO_HINT)
    demo.set_defaults(run=_cmd_demo)
    return parser


@contextlib.contextmanager
def _captured_exit() -> Iterator[list[int]]:
    code: list[int] = []
    try:
        yield code
    except SystemExit as exc:
        code.append(exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2))


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``scorekit`` command; return the exit status (0 ok, 2 user error)."""
    parser = build_parser()
    with _captured_exit() as code:
        args = parser.parse_args(None if argv is None else list(argv))
    if code:
        return code[0]
    out, err = sys.stdout, sys.stderr
    buffer = io.StringIO()
    try:
        status: int = args.run(args, buffer, err)
    except ScorekitError as exc:
        text = str(exc)
        err.write(text if text.startswith("scorekit:") else f"scorekit: {text}")
        err.write("\n")
        return 2
    out.write(buffer.getvalue())
    return status
