"""``scorekit text`` as one call: text metrics of line-aligned files, whole, in blocks, by line."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator, Sequence
from typing import Any, cast

import numpy as np

from scorekit.api._ci import CI
from scorekit.core import EvaluationResult, Metric, available, parse_metric, parse_metrics
from scorekit.errors import ConfigError, InputError, message, raw
from scorekit.io import Source

__all__ = [
    "ROUGE_TOKENIZERS",
    "TEXT_DEFAULTS",
    "GroupedLines",
    "evaluate_text",
    "text_metric_names",
    "text_segments",
]

TEXT_DEFAULTS = ("bleu", "rouge1", "rouge2", "rougeL")
"""The metrics :func:`evaluate_text` reports when none are named."""

ROUGE_TOKENIZERS = {"default": "default", "unicode": "unicode", "whitespace": "none"}
"""The ROUGE tokenizers of :func:`evaluate_text`, by name, and the tokenizer each means."""

_ROUGE_TYPE = re.compile(r"^rouge([1-9]|L|Lsum|W|S[0-9]*|SU[0-9]*)$")


def text_metric_names() -> list[str]:
    """The metric names :func:`evaluate_text` accepts (``rougeS<d>``, ``rougeSU<d>``: any gap).

    Examples
    --------
    >>> names = text_metric_names()
    >>> "bleu" in names and "rougeSU4" in names and "chrf++" in names
    True
    """
    registered = [
        info.name
        for info in available()
        if info.inputs == "references_predictions" and not info.name.startswith("rouge")
    ]
    rouge = [*(f"rouge{n}" for n in range(1, 10)), "rougeL", "rougeLsum", "rougeW"]
    return [*registered, *rouge, "rougeS", "rougeSU", "rougeS4", "rougeSU4"]


def evaluate_text(
    hyps: str,
    refs: Sequence[str],
    metrics: Sequence[str] | None = None,
    *,
    tokenize: str | None = None,
    lowercase: bool | None = None,
    stemmer: bool | None = None,
    rouge_tokenizer: str | None = None,
    chunk_size: int | None = None,
    engine: str | None = None,
    scheduler: str | None = None,
    workers: int | None = None,
    progress: bool | None = None,
    ci: CI | None = None,
    by: str | None = None,
    groups: str | None = None,
) -> EvaluationResult:
    """The text metrics of a file of hypotheses against line-aligned reference files.

    ``metrics`` are ``bleu``, ``chrf``, ``chrf++``, ``ter``, ``wer``, ``cer``,
    ``mer``, ``wil``, ``wip`` (with options after a colon, as ``chrf:beta=1``)
    and the ROUGE types ``rouge1`` ... ``rouge9``, ``rougeL``, ``rougeLsum``,
    ``rougeW``, ``rougeS[<d>]`` and ``rougeSU[<d>]`` (default
    :data:`TEXT_DEFAULTS`). The ROUGE types are one
    :class:`scorekit.text.ROUGE` metric keyed ``rouge``.

    ``tokenize`` (BLEU's tokenizer), ``lowercase`` (BLEU, chrF), ``stemmer``
    and ``rouge_tokenizer`` (ROUGE's: ``"default"``, a-z and 0-9 as
    rouge-score; ``"unicode"``, the letters and digits of every script;
    ``"whitespace"``, split at whitespace) are defaults for every named metric
    that has the option, named bare or with options (``rougeLsum:split_sentences=true``);
    an option written in a metric's name wins, one that no named metric takes is
    an error, and ``None`` leaves the metrics' own defaults.

    Without ``chunk_size`` or ``engine`` the files are read
    whole; with them they are read ``chunk_size`` lines at a time and the
    blocks folded by the stream engine, or (``engine="dask"``) sent to a Dask
    cluster as a table.

    With ``ci`` (a :class:`CI`) each metric is folded as its bootstrap over the
    segments (lines, keyed by their position; the ROUGE types are then the
    registered single-number metrics ``rouge1``... of the mean F-measure) and
    each value is an :class:`~scorekit.stats.Interval`, the same in memory and
    in blocks of any size. A Dask cluster splits the lines into partitions that
    do not know their positions: intervals need the lines in memory or in blocks.

    With ``groups`` (a file of one group label per line, line-aligned with the
    hypotheses) and ``by`` (the name of the grouping, e.g. ``"domain"``) each
    value is a :class:`~scorekit.core.ByGroup`: the corpus score of all the
    lines and of the lines of each group, with the lines of each group (the
    ROUGE types are then the registered single-number metrics ``rouge1``...).
    An empty label is an error naming its line. The values are the same in
    memory, in blocks and on Dask. With ``ci`` too, each of those values is
    an interval, a line keeping the bootstrap weights of its line number in
    its group (in memory and in blocks).

    Examples
    --------
    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> hyp, ref = os.path.join(folder, "hyp.txt"), os.path.join(folder, "ref.txt")
    >>> with open(hyp, "w") as f:
    ...     _ = f.write("the cat sat on the mat\\n")
    >>> with open(ref, "w") as f:
    ...     _ = f.write("the cat sat on the mat\\n")
    >>> evaluate_text(hyp, [ref], ["bleu", "chrf"]).values
    {'bleu': 1.0, 'chrf': 1.0}
    """
    from scorekit.text import read_parallel

    if (by is None) != (groups is None):
        raise ConfigError(
            message(
                "scorekit text",
                "--by and --groups go together",
                raw("--by alone" if by is not None else "--groups alone"),
                "--by NAME --groups FILE",
            )
        )
    split = bool(ci) or by is not None
    chosen = _text_metrics(metrics, tokenize, lowercase, stemmer, rouge_tokenizer, split=split)
    if ci is not None:
        if ci.key is not None:
            raise ConfigError(
                message(
                    "scorekit text --ci",
                    "segments are keyed by their line number",
                    ci.key,
                    "no key column",
                )
            )
        chosen = {key: ci.wrap(metric) for key, metric in chosen.items()}
    if by is not None and groups is not None:
        return _by_group(
            hyps, refs, groups, by, chosen, chunk_size, engine, scheduler, workers, progress, ci
        )
    if chunk_size is not None or engine is not None:
        from scorekit.api._by import run_metrics
        from scorekit.text import LineFiles

        found = run_metrics(
            LineFiles(hyps, refs),
            chosen,
            chunk_size=chunk_size,
            engine=engine,
            scheduler=scheduler,
            workers=workers,
            progress=progress,
            compute=False,
        )
        states, rows = dict(found.states), found.rows
    else:
        hyp_lines, ref_lines = read_parallel(hyps, refs)
        states = {key: metric.summarize(ref_lines, hyp_lines) for key, metric in chosen.items()}
        rows = len(hyp_lines)
    if ci is not None:
        values: dict[str, Any] = ci.intervals(cast(Any, chosen), states)
    else:
        values = {key: metric.compute(states[key]) for key, metric in chosen.items()}
    return EvaluationResult(values, states, chosen, rows, settings=ci)


_FLAGS = {
    "tokenize": "tokenize (--tokenize)",
    "lowercase": "lowercase (--lowercase)",
    "stemmer": "stemmer (--stemmer)",
    "tokenizer": "rouge_tokenizer (--tokenizer)",
}


def _text_metrics(
    metrics: Sequence[str] | None,
    tokenize: str | None,
    lowercase: bool | None,
    stemmer: bool | None,
    rouge_tokenizer: str | None,
    *,
    split: bool = False,
) -> dict[str, Metric[Any]]:
    """The metrics named, keyed by name (the bare ROUGE types together under ``rouge``).

    ``tokenize``, ``lowercase``, ``stemmer`` and ``rouge_tokenizer`` (``None``:
    not given) are defaults for every metric that has the option, named bare or
    with options; an option written in a name wins, and one that no named metric
    takes is an error (:func:`scorekit.core.parse_metrics`). With ``split`` each
    ROUGE type is its registered metric of one number (the mean F-measure), keyed
    by its name.
    """
    if rouge_tokenizer is not None and rouge_tokenizer not in ROUGE_TOKENIZERS:
        raise ConfigError(
            message(
                "scorekit text",
                "unknown ROUGE tokenizer",
                rouge_tokenizer,
                ", ".join(ROUGE_TOKENIZERS),
            )
        )
    defaults = {
        "tokenize": tokenize,
        "lowercase": lowercase,
        "stemmer": stemmer,
        "tokenizer": None if rouge_tokenizer is None else ROUGE_TOKENIZERS[rouge_tokenizer],
    }
    names = list(dict.fromkeys(metrics or TEXT_DEFAULTS))
    types = [name for name in names if _ROUGE_TYPE.match(name)]
    keys = [name for name in names if name not in types]
    specs: list[str] = [_text_metric(name) for name in keys]
    if split:
        keys, specs = [*keys, *types], [*specs, *types]
    elif types:
        keys, specs = [*keys, "rouge"], [*specs, "rouge"]
    found = parse_metrics(specs, defaults, where="scorekit text", spelled=_FLAGS)
    chosen = dict(zip(keys, found, strict=True))
    if types and not split:
        chosen["rouge"] = dataclasses.replace(cast(Any, chosen["rouge"]), types=types)
    return chosen


def _text_metric(name: str) -> str:
    """``name`` when it names a registered text metric (options after a colon), else an error."""
    try:
        metric = parse_metric(name)
    except ConfigError as exc:
        if "unknown metric" not in str(exc):
            raise
        metric = None
    if metric is None or metric.inputs != "references_predictions":
        expected = ", ".join(text_metric_names()) + " (rougeS<d>, rougeSU<d>: any gap)"
        raise ConfigError(message("scorekit text", "unknown metric", name, expected))
    return name


def text_segments(
    hyps: str,
    refs: Sequence[str],
    metrics: Sequence[str] | None = None,
    *,
    tokenize: str | None = None,
    lowercase: bool | None = None,
    stemmer: bool | None = None,
    rouge_tokenizer: str | None = None,
    lines: int = 1000,
) -> Iterator[list[dict[str, float]]]:
    """Each line's scores, ``lines`` lines at a time: per line ``{column: value}``.

    The metrics and options are those of :func:`evaluate_text`. Each line is
    scored alone: BLEU as :func:`scorekit.text.sentence_bleu` (effective order,
    as ``sacrebleu --sentence-level``), chrF and TER as sacrebleu's sentence
    scores, the error rates per utterance, and ROUGE as precision, recall and
    F-measure columns ``<type>:precision`` ... per type.

    Examples
    --------
    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> hyp, ref = os.path.join(folder, "hyp.txt"), os.path.join(folder, "ref.txt")
    >>> with open(hyp, "w") as f:
    ...     _ = f.write("the cat sat\\na dog\\n")
    >>> with open(ref, "w") as f:
    ...     _ = f.write("the cat sat\\na cat\\n")
    >>> [row["wer"] for block in text_segments(hyp, [ref], ["wer"]) for row in block]
    [0.0, 0.5]
    """
    from scorekit.text import read_line_blocks

    chosen = _text_metrics(metrics, tokenize, lowercase, stemmer, rouge_tokenizer)
    for hyp_lines, ref_lines in read_line_blocks(hyps, refs, lines):
        columns: dict[str, Any] = {}
        for key, metric in chosen.items():
            columns.update(_segment_columns(key, metric, ref_lines, hyp_lines))
        yield [
            {name: float(values[i]) for name, values in columns.items()}
            for i in range(len(hyp_lines))
        ]


def _segment_columns(
    key: str, metric: Metric[Any], refs: list[list[str]], hyps: list[str]
) -> dict[str, Any]:
    """The per-line values of one metric, by column name."""
    from scorekit.text import rouge, sentence_bleu

    if key == "bleu":
        bleu = cast(Any, metric)
        return {
            "bleu": [
                sentence_bleu(r, h, tokenize=bleu.tokenize, lowercase=bleu.lowercase).score
                for r, h in zip(refs, hyps, strict=True)
            ]
        }
    if key == "rouge":
        settings = cast(Any, metric)
        scores = rouge(
            refs,
            hyps,
            types=settings.types,
            stemmer=settings.stemmer,
            tokenizer=settings.tokenizer,
            per_sample=True,
        )
        out: dict[str, Any] = {}
        for name, score in scores.items():
            per = np.asarray(score.per_sample)
            for k, field in enumerate(("precision", "recall", "fmeasure")):
                out[f"{name}:{field}"] = per[:, k]
        return out
    for method in ("segment_scores", "segment_values"):
        each = getattr(metric, method, None)
        if each is not None:
            return {key: each(refs, hyps)}
    raise ConfigError(
        message("scorekit text --sentence-level", "no per-line values", key, "a text metric")
    )


def _by_group(
    hyps: str,
    refs: Sequence[str],
    groups: str,
    by: str,
    chosen: dict[str, Metric[Any]],
    chunk_size: int | None,
    engine: str | None,
    scheduler: str | None,
    workers: int | None,
    progress: bool | None,
    ci: CI | None = None,
) -> EvaluationResult:
    """The metrics overall and per group of lines, the groups read from ``groups``.

    With ``ci`` (``chosen`` then holds bootstraps) each value is an interval
    overall and per group, a line keeping the replicate weights of its line
    number in its group.
    """
    from scorekit.api._by import run_metrics
    from scorekit.core import Grouped
    from scorekit.text import read_parallel

    grouped: dict[str, Metric[Any]] = {
        key: Grouped(metric, by=(by,)) for key, metric in chosen.items()
    }
    if chunk_size is None and engine is None:
        hyp_lines, ref_lines = read_parallel(hyps, [*refs, groups])
        labels = _labels(groups, [r[-1] for r in ref_lines], 0)
        ref_lines = [r[:-1] for r in ref_lines]
        states = {
            key: metric.summarize(ref_lines, hyp_lines, group=labels)
            for key, metric in grouped.items()
        }
        rows = len(hyp_lines)
    else:
        found = run_metrics(
            GroupedLines(hyps, refs, groups, by),
            grouped,
            chunk_size=chunk_size,
            engine=engine,
            scheduler=scheduler,
            workers=workers,
            progress=progress,
            compute=ci is None,
        )
        states, rows = dict(found.states), found.rows
        if ci is None:
            return EvaluationResult(dict(found.values), states, grouped, rows)
    values = {
        key: metric.compute(states[key])
        if ci is None
        else ci.group_intervals(cast(Any, metric), states[key])
        for key, metric in grouped.items()
    }
    return EvaluationResult(values, states, grouped, rows, settings=ci)


def _labels(path: str, labels: list[str], start: int) -> list[str]:
    """The group labels of lines ``start...``; an empty one is an error naming its line."""
    for i, label in enumerate(labels):
        if not label.strip():
            raise InputError(
                message(
                    f"{path}, line {start + i + 1}",
                    "missing group label",
                    label,
                    "one group label per line",
                )
            )
    return labels


class GroupedLines(Source):
    """Line-aligned hypothesis and reference files with a file of group labels, in blocks.

    Row ``i`` holds line ``i`` of the hypotheses (``predictions``), of every
    reference file (``references``) and of the groups file (the column
    ``by``). The files must have the same number of lines.

    Examples
    --------
    >>> import os, tempfile, scorekit
    >>> from scorekit.core import Grouped
    >>> folder = tempfile.mkdtemp()
    >>> paths = [os.path.join(folder, n) for n in ("hyp.txt", "ref.txt", "domain.txt")]
    >>> for path, text in zip(paths, ["a cat\\na dog\\n", "a cat\\nthe dog\\n", "x\\ny\\n"]):
    ...     with open(path, "w") as f:
    ...         _ = f.write(text)
    >>> source = GroupedLines(paths[0], [paths[1]], paths[2], "domain")
    >>> found = scorekit.evaluate(source, Grouped("wer", by="domain"), chunk_size=1)["wer"]
    >>> found.by_group
    {'x': 0.0, 'y': 0.5}
    """

    def __init__(self, hypotheses: str, references: Sequence[str], groups: str, by: str) -> None:
        self.hypotheses = hypotheses
        self.references = list(references)
        self.groups = groups
        self.by = by
        self.name = str(hypotheses)

    def columns(self) -> list[str]:
        """``predictions``, ``references`` and the group column."""
        return ["predictions", "references", self.by]

    def chunks(
        self, wanted: Sequence[str], chunk_size: int, progress: Any, plan: Any
    ) -> Iterator[Any]:
        """Tables of ``chunk_size`` lines of every file, with the ``wanted`` columns."""
        import pyarrow as pa

        from scorekit.io import with_meta
        from scorekit.text import read_line_blocks

        start = 0
        files = [*self.references, self.groups]
        for hyps, refs in read_line_blocks(self.hypotheses, files, chunk_size):
            labels = _labels(self.groups, [r[-1] for r in refs], start)
            table = pa.table(
                {
                    "predictions": pa.array(hyps, pa.string()),
                    "references": pa.array([r[:-1] for r in refs], pa.list_(pa.string())),
                    self.by: pa.array(labels, pa.string()),
                }
            )
            progress.update(rows=table.num_rows)
            yield with_meta(table.select(list(wanted)), self.name, None, start)
            start += table.num_rows
