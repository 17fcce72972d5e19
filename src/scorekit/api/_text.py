"""``scorekit text`` as one call: text metrics of line-aligned files, whole, in blocks, by line."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator, Sequence
from typing import Any, cast

from scorekit.api._ci import CI
from scorekit.core import EvaluationResult, Metric, available, parse_metric, parse_metrics
from scorekit.errors import ConfigError, message, raw

__all__ = [
    "ROUGE_TOKENIZERS",
    "TEXT_DEFAULTS",
    "evaluate_text",
    "text_metric_names",
    "text_segments",
]

TEXT_DEFAULTS = ("bleu", "rouge1", "rouge2", "rougeL")
"""The metrics :func:`evaluate_text` reports when none are named."""

ROUGE_TOKENIZERS = {"default": "default", "unicode": "unicode", "whitespace": "none"}
"""The ROUGE tokenizers of :func:`evaluate_text`, by name, and the tokenizer each means."""

_WHOLE = 1 << 40
"""Lines per block when the files are read whole."""

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
    from scorekit.api._by import fold
    from scorekit.text import GroupedLines, LineFiles

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
    if ci is not None and ci.key is not None:
        raise ConfigError(
            message(
                "scorekit text --ci", "segments are keyed by their line number", ci.key, "no key"
            )
        )
    source: Any = LineFiles(hyps, refs)
    if by is not None and groups is not None:
        source = GroupedLines(hyps, refs, groups, by)
    return fold(
        source,
        chosen,
        ci=ci,
        by=by,
        # read whole (one block of every line) unless blocks or an engine are asked for
        chunk_size=chunk_size or (None if engine else _WHOLE),
        engine=engine,
        scheduler=scheduler,
        workers=workers,
        progress=progress if chunk_size or engine else False,
    )


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
    from scorekit.text import line_values, read_line_blocks

    chosen = _text_metrics(metrics, tokenize, lowercase, stemmer, rouge_tokenizer)
    for hyp_lines, ref_lines in read_line_blocks(hyps, refs, lines):
        columns: dict[str, Any] = {}
        for key, metric in chosen.items():
            columns.update(line_values(key, metric, ref_lines, hyp_lines))
        yield [
            {name: float(values[i]) for name, values in columns.items()}
            for i in range(len(hyp_lines))
        ]
