"""``scorekit text`` as one call: BLEU and ROUGE of line-aligned files, whole or in blocks."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from typing import Any, cast

from scorekit.api._engines import dask_run
from scorekit.core import Metric, State
from scorekit.errors import ConfigError, message

__all__ = ["TEXT_DEFAULTS", "TextEvaluation", "evaluate_text"]

TEXT_DEFAULTS = ("bleu", "rouge1", "rouge2", "rougeL")
"""The metrics :func:`evaluate_text` reports when none are named."""

_ROUGE_TYPE = re.compile(r"^rouge([1-9]|L|Lsum)$")


@dataclasses.dataclass
class TextEvaluation:
    """What :func:`evaluate_text` found: the metrics, their states and values, and the lines."""

    metrics: dict[str, Metric[Any]]
    states: dict[str, State]
    values: dict[str, Any]
    rows: int


def evaluate_text(
    hyps: str,
    refs: Sequence[str],
    metrics: Sequence[str] | None = None,
    *,
    tokenize: str = "13a",
    lowercase: bool = False,
    stemmer: bool = False,
    rouge_tokenizer: str = "default",
    chunk_size: int | None = None,
    engine: str | None = None,
    scheduler: str | None = None,
    workers: int | None = None,
    progress: bool | None = None,
) -> TextEvaluation:
    """BLEU and ROUGE of a file of hypotheses against line-aligned reference files.

    ``metrics`` are ``bleu``, ``rouge1`` ... ``rouge9``, ``rougeL`` and
    ``rougeLsum`` (default :data:`TEXT_DEFAULTS`); the ROUGE types are one
    :class:`scorekit.text.ROUGE` metric keyed ``rouge``, tokenized by
    ``rouge_tokenizer`` (``"default"``: a-z and 0-9 as rouge-score;
    ``"unicode"``: the letters and digits of every script). Without ``chunk_size``
    or ``engine`` the files are read whole; with them they are read
    ``chunk_size`` lines at a time and the blocks folded by the stream engine,
    or (``engine="dask"``) sent to a Dask cluster as a table.

    Examples
    --------
    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> hyp, ref = os.path.join(folder, "hyp.txt"), os.path.join(folder, "ref.txt")
    >>> with open(hyp, "w") as f:
    ...     _ = f.write("the cat sat on the mat\\n")
    >>> with open(ref, "w") as f:
    ...     _ = f.write("the cat sat on the mat\\n")
    >>> evaluate_text(hyp, [ref], ["bleu"]).values["bleu"]
    1.0
    """
    from scorekit.text import BLEU, ROUGE, read_parallel

    names = list(dict.fromkeys(metrics or TEXT_DEFAULTS))
    unknown = [m for m in names if m != "bleu" and not _ROUGE_TYPE.match(m)]
    if unknown:
        raise ConfigError(
            message(
                "scorekit text",
                "unknown metric",
                unknown[0],
                "bleu, rouge1 ... rouge9, rougeL or rougeLsum",
            )
        )
    chosen: dict[str, Metric[Any]] = {}
    if "bleu" in names:
        chosen["bleu"] = BLEU(tokenize=cast(Any, tokenize), lowercase=lowercase)
    types = [m for m in names if m != "bleu"]
    if types:
        chosen["rouge"] = ROUGE(types=types, stemmer=stemmer, tokenizer=rouge_tokenizer)
    if engine == "dask":
        states, rows = _dask_states(hyps, refs, chosen, scheduler, workers)
    elif chunk_size is not None or engine is not None:
        states, rows = _stream_states(hyps, refs, chosen, chunk_size, progress)
    else:
        hyp_lines, ref_lines = read_parallel(hyps, refs)
        states = {key: metric.summarize(ref_lines, hyp_lines) for key, metric in chosen.items()}
        rows = len(hyp_lines)
    values = {key: metric.compute(states[key]) for key, metric in chosen.items()}
    return TextEvaluation(chosen, states, values, rows)


def _stream_states(
    hyps: str,
    refs: Sequence[str],
    metrics: dict[str, Metric[Any]],
    chunk_size: int | None,
    progress: bool | None,
) -> tuple[dict[str, State], int]:
    """The files read ``chunk_size`` lines at a time, the blocks folded by the stream engine."""
    from scorekit import engines
    from scorekit.text import LineFiles

    states, rows = engines.engine("stream")(
        LineFiles(hyps, refs),
        list(metrics.values()),
        chunk_size=chunk_size or engines.DEFAULT_CHUNK_SIZE,
        progress=progress,
    )
    return dict(zip(metrics, states, strict=True)), rows


def _dask_states(
    hyps: str,
    refs: Sequence[str],
    metrics: dict[str, Metric[Any]],
    scheduler: str | None,
    workers: int | None,
) -> tuple[dict[str, State], int]:
    """The files read here and their lines sent to a Dask cluster as a table."""
    from scorekit.text import LineFiles

    source = LineFiles(hyps, refs)
    states, rows, _ = dask_run(source, metrics, None, scheduler=scheduler, workers=workers)
    return states, rows
