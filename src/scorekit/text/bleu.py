"""BLEU (Papineni et al., 2002) as sacrebleu computes it, corpus and sentence level.

The state (:class:`BLEUStats`) is BLEU's sufficient statistics summed over
segments: hypothesis and closest-reference lengths, and clipped n-gram matches
and n-gram totals per order. Merging adds them, so corpus BLEU from streamed or
merged chunks equals the in-memory value exactly (the statistics are integers).

A batch is counted without a Python loop per segment: the corpus is tokenized
as one text where the tokenizer allows (:mod:`scorekit.text._tokenize`), tokens
become integer ids, and each n-gram of each segment gets an integer code
(the code of its (n-1)-gram prefix paired with its last token, made dense by a
hash table), so per-segment n-gram counts are ``bincount`` calls.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from scorekit._version import __version__
from scorekit.core import Metric, State, register, state_field
from scorekit.errors import ConfigError, InputError, choices, message, raw
from scorekit.text._tokenize import TOKENIZERS, encode_lines

__all__ = ["BLEU", "BLEUResult", "BLEUStats", "bleu", "sentence_bleu"]

Tokenizer = Literal["13a", "intl", "char", "zh", "none"]
Smoothing = Literal["exp", "floor", "add-k", "none"]

SMOOTHING: dict[str, float | None] = {"exp": None, "floor": 0.1, "add-k": 1, "none": None}
"""The smoothing methods and the default value of those that take one (Chen & Cherry 2014)."""

_LOG_ZERO = -9999999999.0  # sacrebleu's log of a zero precision


@dataclass(frozen=True, eq=False)
class BLEUStats(State):
    """Summed BLEU statistics of a set of segments, and the settings that shaped them.

    Attributes
    ----------
    tokenize, lowercase, max_order, clip
        The tokenization and counting settings (states with different ones do
        not merge).
    segments : int
        The number of (prediction, references) pairs.
    hyp_len, ref_len : int
        Total prediction length and total closest-reference length, in tokens.
    matches, totals : ndarray of int64, shape (max_order,)
        Matched (clipped unless ``clip`` is false) and total prediction n-grams
        per order 1..max_order.
    min_refs, max_refs : int
        The fewest and most references a segment had (0 for no segments).
    """

    tokenize: str = state_field("same")
    lowercase: bool = state_field("same")
    max_order: int = state_field("same")
    clip: bool = state_field("same")
    segments: int = state_field("sum")
    hyp_len: int = state_field("sum")
    ref_len: int = state_field("sum")
    matches: NDArray[np.int64] = state_field("sum")
    totals: NDArray[np.int64] = state_field("sum")
    min_refs: int = state_field("custom")
    max_refs: int = state_field("custom")

    def _merge_custom(self, other: BLEUStats) -> dict[str, Any]:
        if other.segments == 0:
            return {"min_refs": self.min_refs, "max_refs": self.max_refs}
        if self.segments == 0:
            return {"min_refs": other.min_refs, "max_refs": other.max_refs}
        return {
            "min_refs": min(self.min_refs, other.min_refs),
            "max_refs": max(self.max_refs, other.max_refs),
        }


@dataclass(frozen=True)
class BLEUResult:
    """BLEU with the statistics behind it.

    Attributes
    ----------
    score : float
        BLEU as a fraction in [0, 1] (sacrebleu's score / 100).
    precisions : tuple of float
        The (smoothed) n-gram precisions per order, as fractions.
    counts, totals : tuple of int
        Matched and total prediction n-grams per order (unsmoothed; sacrebleu
        reports ``add-k`` counts with ``k`` added for orders above 1).
    bp : float
        The brevity penalty ``exp(1 - ref_len / hyp_len)`` when
        ``hyp_len < ref_len``, else 1 (0 for an empty prediction side).
    ratio : float
        ``hyp_len / ref_len`` (0 when ``ref_len`` is 0).
    hyp_len, ref_len : int
        Prediction length and closest-reference length, in tokens.
    signature : str
        The settings that reproduce the number: references per segment, case,
        effective order, tokenizer, smoothing and version, in sacrebleu's form.
    """

    score: float
    precisions: tuple[float, ...]
    counts: tuple[int, ...]
    totals: tuple[int, ...]
    bp: float
    ratio: float
    hyp_len: int
    ref_len: int
    signature: str

    def __float__(self) -> float:
        return self.score


# input checks ---------------------------------------------------------------------


def _as_list(metric: str, name: str, values: Any, expected: str) -> list[Any]:
    """The items of a sequence-like input (list, tuple, numpy, pandas, pyarrow) as a list."""
    if values is None:
        raise InputError(message(metric, f"{name} is missing", None, expected))
    if isinstance(values, str | bytes):
        raise InputError(message(metric, f"{name} is a single string", values, expected))
    if hasattr(values, "to_pylist"):  # pyarrow
        return list(values.to_pylist())
    if isinstance(values, np.ndarray) or type(values).__module__.startswith("pandas"):
        return list(values.tolist())
    if not isinstance(values, Sequence):
        raise InputError(message(metric, f"{name} is not a sequence", values, expected))
    return list(values)


def _where(value: Any, index: str) -> str:
    return raw(f"{value!r} ({type(value).__name__}) at index {index}")


def _predictions(metric: str, predictions: Any) -> list[str]:
    preds = _as_list(metric, "predictions", predictions, "a sequence of strings")
    for i, p in enumerate(preds):
        if not isinstance(p, str):
            problem = "predictions contain None" if p is None else "a prediction is not a string"
            raise InputError(message(metric, problem, _where(p, str(i)), "one string each"))
    return preds


_REFS_RULE = "a string or a non-empty list of strings per prediction"


def _references(metric: str, references: Any) -> tuple[list[str], list[int]]:
    """The references flattened in prediction order, and how many each prediction has."""
    items = _as_list(metric, "references", references, _REFS_RULE)
    flat: list[str] = []
    counts: list[int] = []
    for i, item in enumerate(items):
        if isinstance(item, str):
            flat.append(item)
            counts.append(1)
            continue
        if item is None:
            raise InputError(
                message(metric, "references contain None", _where(item, str(i)), _REFS_RULE)
            )
        if isinstance(item, np.ndarray):
            item = item.tolist()
        if not isinstance(item, list | tuple):
            raise InputError(
                message(metric, "a reference is not a string", _where(item, str(i)), _REFS_RULE)
            )
        if not item:
            raise InputError(
                message(
                    metric,
                    "a prediction has an empty reference list",
                    _where(item, str(i)),
                    _REFS_RULE,
                )
            )
        for j, ref in enumerate(item):
            if not isinstance(ref, str):
                if ref is None:
                    problem = "references contain None"
                elif isinstance(ref, list | tuple | np.ndarray):
                    problem = "references are nested too deeply"
                else:
                    problem = "a reference is not a string"
                raise InputError(message(metric, problem, _where(ref, f"[{i}][{j}]"), _REFS_RULE))
        flat.extend(item)
        counts.append(len(item))
    return flat, counts


def _check_lengths(metric: str, references: Any, n_refs: int, n_preds: int) -> None:
    if n_refs == n_preds:
        return
    expected = "one entry of references per prediction"
    if (
        isinstance(references, list | tuple)
        and references
        and all(isinstance(r, list | tuple) and len(r) == n_preds for r in references)
    ):
        expected += " (sacrebleu-style reference streams are transposed: use list(zip(*streams)))"
    raise InputError(
        message(
            metric,
            "references and predictions differ in length",
            raw(f"{n_refs} references for {n_preds} predictions"),
            expected,
        )
    )


# counting ---------------------------------------------------------------------------


def _dense(keys: NDArray[np.int64]) -> NDArray[np.int64]:
    """Codes 0..k-1 with equal codes exactly for equal keys (a hash table, no sort)."""
    import pyarrow as pa

    codes = pa.array(keys).dictionary_encode().indices
    return np.asarray(codes.to_numpy(zero_copy_only=False), dtype=np.int64)


def _count(
    ids: NDArray[np.int64],
    lengths: NDArray[np.int64],
    counts: NDArray[np.int64],
    max_order: int,
    clip: bool,
) -> tuple[int, int, NDArray[np.int64], NDArray[np.int64]]:
    """Summed hypothesis length, closest reference length, matches and totals per order.

    ``lengths`` holds the token counts of the ``n`` predictions followed by those
    of the references (grouped by prediction, ``counts[i]`` for prediction ``i``).
    """
    n = len(counts)
    hyp_lens, ref_lens = lengths[:n], lengths[n:]
    starts = np.cumsum(counts) - counts
    ref_item = np.repeat(np.arange(n), counts)
    ref_rank = np.arange(len(ref_lens)) - np.repeat(starts, counts)

    # closest reference length per prediction, the shorter on ties
    width = int(ref_lens.max()) + 1
    key = np.abs(ref_lens - hyp_lens[ref_item]) * width + ref_lens
    closest = np.minimum.reduceat(key, starts) % width
    hyp_len, ref_len = int(hyp_lens.sum()), int(closest.sum())

    matches = np.zeros(max_order, dtype=np.int64)
    totals = np.array([np.maximum(hyp_lens - i, 0).sum() for i in range(max_order)], np.int64)
    if len(ids) == 0:
        return hyp_len, ref_len, matches, totals
    hyp_tokens = hyp_len
    line_item = np.concatenate([np.arange(n), ref_item])
    token_line = np.repeat(np.arange(len(lengths)), lengths)
    remaining = np.cumsum(lengths)[token_line] - np.arange(len(ids))  # tokens left in the line
    token_rank = ref_rank[token_line[hyp_tokens:] - n]
    n_ranks = int(counts.max())
    width = int(ids.max()) + 1

    pos = np.arange(len(ids))
    code = _dense(line_item[token_line] * width + ids)  # (segment, token)
    alive = np.ones(0, dtype=bool)  # prefixes in both the prediction and a reference
    for order in range(1, max_order + 1):
        if order > 1:
            # only n-grams whose (n-1)-gram prefix occurs in both the prediction and
            # a reference of the segment can match
            keep = (remaining[pos] >= order) & alive[code]
            pos = pos[keep]
            if len(pos) == 0:
                break
            # (segment, n-gram) = ((segment, (n-1)-gram prefix), last token)
            code = _dense(code[keep] * width + ids[pos + order - 1])
        k = int(code.max()) + 1
        n_hyp = int(np.searchsorted(pos, hyp_tokens))
        hyp_count = np.bincount(code[:n_hyp], minlength=k)
        ref_codes = code[n_hyp:]
        if n_ranks == 1:
            ref_count = np.bincount(ref_codes, minlength=k)
        else:  # the most often any one reference has the n-gram
            ranks = token_rank[pos[n_hyp:] - hyp_tokens]
            ref_count = np.zeros(k, dtype=np.int64)
            for j in range(n_ranks):
                np.maximum(
                    ref_count, np.bincount(ref_codes[ranks == j], minlength=k), out=ref_count
                )
        if clip:
            matches[order - 1] = np.minimum(hyp_count, ref_count).sum()
        else:
            matches[order - 1] = hyp_count[ref_count > 0].sum()
        alive = (hyp_count > 0) & (ref_count > 0)
    return hyp_len, ref_len, matches, totals


# the metric ---------------------------------------------------------------------------


@register(
    "bleu",
    higher_is_better=True,
    bounds=(0.0, 1.0),
    inputs="references_predictions",
    aliases=("sacrebleu",),
    variant="tokenize",
    variants=TOKENIZERS,
)
@dataclass(frozen=True)
class BLEU(Metric[BLEUStats]):
    """Corpus BLEU: the brevity-penalised geometric mean of clipped n-gram precisions.

    .. math:: \\mathrm{BLEU} = \\mathrm{BP} \\cdot \\exp\\Big(\\sum_{n=1}^{N} w_n \\log p_n\\Big),
        \\qquad p_n = \\frac{\\sum_s \\sum_{g} \\min(c_s(g), \\max_r c_{s,r}(g))}
        {\\sum_s \\sum_g c_s(g)},
        \\qquad \\mathrm{BP} = \\begin{cases} 1 & c > r \\\\ e^{1 - r/c} & c \\le r \\end{cases}

    where :math:`c_s(g)` counts n-gram :math:`g` in prediction :math:`s`,
    :math:`c_{s,r}(g)` in its reference :math:`r`, :math:`c` is the total
    prediction length and :math:`r` the total of each segment's closest
    reference length (the shorter one on ties). The statistics are summed over
    the corpus first: corpus BLEU is not the mean of sentence BLEU.

    Parameters
    ----------
    tokenize : {"13a", "intl", "char", "zh", "none"}, default "13a"
        The tokenization (sacrebleu's tokenizers of those names).
    lowercase : bool, default False
        Lowercase predictions and references first.
    smooth : {"exp", "floor", "add-k", "none"}, default "exp"
        Smoothing of zero precisions (Chen & Cherry 2014): ``exp`` gives the
        k-th zero precision ``1 / (2^k total)`` (NIST), ``floor`` uses
        ``smooth_value`` matches instead of 0, ``add-k`` adds ``smooth_value``
        to the matches and totals of orders above 1, ``none`` leaves a zero
        precision (and a score of 0).
    smooth_value : float, optional
        The value of ``floor`` (default 0.1, at most 1) and ``add-k`` (default 1).
    max_order : int, default 4
        The largest n-gram order N.
    weights : sequence of float, optional
        Weights of the log precisions per order (``max_order`` non-negative
        values); uniform by default. They are divided by their sum over the
        orders used.
    effective_order : bool, default False
        Use only the orders up to the longest one the predictions have n-grams
        of (sacrebleu's ``use_effective_order``; on for :func:`sentence_bleu`).
    clip : bool, default True
        Clip each n-gram's matches to its count in the reference. ``False``
        gives the unclipped precision, only to show what clipping prevents.

    Notes
    -----
    Agrees with sacrebleu's ``corpus_bleu`` and ``sentence_bleu`` (score / 100
    and precisions / 100, counts, totals, lengths, brevity penalty), including
    its conventions: when no n-gram of any order matches, every precision and
    the score are 0; the loop over orders stops at the first order without
    prediction n-grams; an empty prediction side has BP 0. Each prediction may
    have any number (at least one) of references.

    ``compute`` returns the score; :meth:`result` and :meth:`details` (and the
    functions :func:`bleu`, :func:`sentence_bleu`) return a :class:`BLEUResult`
    with the statistics and a reproducibility signature. Empty input raises
    :class:`~scorekit.errors.InputError`.

    References
    ----------
    K. Papineni, S. Roukos, T. Ward, W.-J. Zhu, "BLEU: a method for automatic
    evaluation of machine translation", ACL 2002. M. Post, "A Call for Clarity
    in Reporting BLEU Scores", WMT 2018 (sacrebleu, the implementation matched).
    B. Chen, C. Cherry, "A Systematic Comparison of Smoothing Techniques for
    Sentence-Level BLEU", WMT 2014.

    Examples
    --------
    >>> refs = ["the cat sat on a mat", "the quick brown fox"]
    >>> preds = ["the cat sat on the mat", "a quick brown fox"]
    >>> BLEU().score(refs, preds)
    0.5
    >>> multi = [["the cat sat on a mat", "there is a cat on the mat"], ["the quick brown fox"]]
    >>> round(BLEU().score(multi, preds), 4)
    0.5844
    >>> BLEU(clip=False).details(["the dog"], ["the the the"]).precisions[0]
    1.0
    """

    tokenize: Tokenizer = "13a"
    lowercase: bool = False
    smooth: Smoothing = "exp"
    smooth_value: float | None = None
    max_order: int = 4
    weights: tuple[float, ...] | None = None
    effective_order: bool = False
    clip: bool = True

    def __post_init__(self) -> None:
        if self.tokenize not in TOKENIZERS:
            raise ConfigError(self._error("unknown tokenize", self.tokenize, choices(TOKENIZERS)))
        if self.smooth not in SMOOTHING:
            raise ConfigError(self._error("unknown smooth", self.smooth, choices(SMOOTHING)))
        for name in ("lowercase", "effective_order", "clip"):
            if not isinstance(getattr(self, name), bool | np.bool_):
                raise ConfigError(
                    self._error(f"{name} must be a bool", getattr(self, name), "True or False")
                )
            object.__setattr__(self, name, bool(getattr(self, name)))
        if (
            isinstance(self.max_order, bool)
            or not isinstance(self.max_order, int | np.integer)
            or self.max_order < 1
        ):
            raise ConfigError(self._error("invalid max_order", self.max_order, "an integer >= 1"))
        object.__setattr__(self, "max_order", int(self.max_order))
        if self.smooth_value is not None:
            if SMOOTHING[self.smooth] is None:
                raise ConfigError(
                    self._error(
                        f"smooth={self.smooth!r} takes no smooth_value",
                        self.smooth_value,
                        "None, or smooth='floor' or 'add-k'",
                    )
                )
            value = self.smooth_value
            if isinstance(value, bool) or not isinstance(value, int | float | np.number):
                raise ConfigError(self._error("invalid smooth_value", value, "a number >= 0"))
            if not math.isfinite(value) or value < 0:
                raise ConfigError(
                    self._error("invalid smooth_value", value, "a finite number >= 0")
                )
            if self.smooth == "floor" and value > 1:
                # a floor above one match would give a precision above 1 for a total of 1
                raise ConfigError(
                    self._error("invalid smooth_value", value, "at most 1 for 'floor'")
                )
        if self.weights is not None:
            try:
                weights = tuple(float(w) for w in self.weights)
            except (TypeError, ValueError):
                raise ConfigError(
                    self._error(
                        "weights must be numbers", self.weights, f"{self.max_order} numbers >= 0"
                    )
                ) from None
            if len(weights) != self.max_order:
                raise ConfigError(
                    self._error(
                        "weights need one value per order",
                        raw(f"{len(weights)} weights"),
                        f"{self.max_order} (max_order)",
                    )
                )
            if not all(math.isfinite(w) and w >= 0 for w in weights) or sum(weights) == 0:
                raise ConfigError(
                    self._error(
                        "invalid weights", weights, "finite numbers >= 0 with a positive sum"
                    )
                )
            object.__setattr__(self, "weights", weights)

    def empty(self) -> BLEUStats:
        """The state of no segments."""
        return BLEUStats(
            tokenize=self.tokenize,
            lowercase=self.lowercase,
            max_order=self.max_order,
            clip=self.clip,
            segments=0,
            hyp_len=0,
            ref_len=0,
            matches=np.zeros(self.max_order, dtype=np.int64),
            totals=np.zeros(self.max_order, dtype=np.int64),
            min_refs=0,
            max_refs=0,
        )

    def summarize(self, references: Any, predictions: Any) -> BLEUStats:
        """Sum the BLEU statistics of one batch of (references, prediction) pairs.

        ``references`` holds per prediction one reference string or a list of
        them (the number may differ between predictions).
        """
        preds = _predictions(self.name, predictions)
        flat, counts = _references(self.name, references)
        _check_lengths(self.name, references, len(counts), len(preds))
        if not preds:
            return self.empty()
        ids, lengths = encode_lines(preds + flat, self.tokenize, self.lowercase)
        n_refs = np.asarray(counts, dtype=np.int64)
        hyp_len, ref_len, matches, totals = _count(ids, lengths, n_refs, self.max_order, self.clip)
        return BLEUStats(
            tokenize=self.tokenize,
            lowercase=self.lowercase,
            max_order=self.max_order,
            clip=self.clip,
            segments=len(preds),
            hyp_len=hyp_len,
            ref_len=ref_len,
            matches=matches,
            totals=totals,
            min_refs=int(n_refs.min()),
            max_refs=int(n_refs.max()),
        )

    def compute(self, state: BLEUStats) -> float:
        """BLEU of the summed statistics, as a fraction."""
        return self.result(state).score

    def details(self, references: Any, predictions: Any) -> BLEUResult:
        """BLEU of one batch with its statistics and signature.

        Examples
        --------
        >>> r = BLEU().details(["the cat sat on a mat"], ["the cat sat on the mat"])
        >>> r.counts, r.totals, r.hyp_len, r.ref_len
        ((5, 3, 2, 1), (6, 5, 4, 3), 6, 6)
        """
        return self.result(self.summarize(references, predictions))

    def result(self, state: BLEUStats) -> BLEUResult:
        """The :class:`BLEUResult` of a state."""
        if state.segments == 0:
            raise InputError(
                self._error("empty input", raw("0 predictions"), "at least one prediction")
            )
        for name in ("tokenize", "lowercase", "max_order", "clip"):
            if getattr(state, name) != getattr(self, name):
                raise InputError(
                    self._error(
                        f"the state was counted with another {name}",
                        getattr(state, name),
                        f"{getattr(self, name)!r} as configured",
                    )
                )
        score, precisions, bp = self._score(
            [int(v) for v in state.matches],
            [int(v) for v in state.totals],
            state.hyp_len,
            state.ref_len,
        )
        return BLEUResult(
            score=score,
            precisions=tuple(precisions),
            counts=tuple(int(v) for v in state.matches),
            totals=tuple(int(v) for v in state.totals),
            bp=bp,
            ratio=state.hyp_len / state.ref_len if state.ref_len else 0.0,
            hyp_len=state.hyp_len,
            ref_len=state.ref_len,
            signature=self.signature(state),
        )

    def _score(
        self, correct: list[int], total: list[int], sys_len: int, ref_len: int
    ) -> tuple[float, list[float], float]:
        """Score, precisions (fractions) and brevity penalty, in sacrebleu's arithmetic."""
        order = self.max_order
        bp = 1.0
        if sys_len < ref_len:
            bp = math.exp(1 - ref_len / sys_len) if sys_len > 0 else 0.0
        percents = [0.0] * order  # sacrebleu's arithmetic, for the score
        fractions = [0.0] * order  # the same precisions, reported as fractions
        if not any(correct):
            return 0.0, fractions, bp
        value = self.smooth_value if self.smooth_value is not None else SMOOTHING[self.smooth]
        k: float = 0 if value is None else value
        halvings = 1.0
        used = order
        for n in range(1, order + 1):
            c: float = correct[n - 1]
            t: float = total[n - 1]
            if self.smooth == "add-k" and n > 1:
                c, t = c + k, t + k
            if t == 0:
                break
            if self.effective_order:
                used = n
            if c == 0:
                if self.smooth == "exp":
                    halvings *= 2
                    percents[n - 1] = 100.0 / (halvings * t)
                    fractions[n - 1] = 1.0 / (halvings * t)
                elif self.smooth == "floor":
                    percents[n - 1] = 100.0 * k / t
                    fractions[n - 1] = k / t
            else:
                percents[n - 1] = 100.0 * c / t
                fractions[n - 1] = c / t
        logs = [math.log(p) if p != 0.0 else _LOG_ZERO for p in percents[:used]]
        if self.weights is None:
            score = bp * math.exp(sum(logs) / used)
        else:
            w = self.weights[:used]
            mass = sum(w)
            if mass == 0:
                score = 0.0
            else:
                score = bp * math.exp(
                    sum(wi * li for wi, li in zip(w, logs, strict=True) if wi > 0) / mass
                )
        # exp(mean log) of precisions all 1 can round to just above 1
        return min(score / 100.0, 1.0), fractions, bp

    def signature(self, state: BLEUStats | None = None) -> str:
        """The reproducibility signature, in sacrebleu's ``key:value|...`` form.

        Examples
        --------
        >>> BLEU(smooth="floor").signature()
        'nrefs:?|case:mixed|eff:no|tok:13a|smooth:floor[0.10]|version:scorekit-...'
        """
        if state is None or state.segments == 0:
            nrefs = "?"
        elif state.min_refs == state.max_refs:
            nrefs = str(state.min_refs)
        else:
            nrefs = "var"
        smooth: str = self.smooth
        default = SMOOTHING[smooth]
        if default is not None:
            value = self.smooth_value if self.smooth_value is not None else default
            smooth += f"[{value:.2f}]"
        parts = [
            f"nrefs:{nrefs}",
            f"case:{'lc' if self.lowercase else 'mixed'}",
            f"eff:{'yes' if self.effective_order else 'no'}",
            f"tok:{self.tokenize}",
            f"smooth:{smooth}",
        ]
        if self.max_order != 4:
            parts.append(f"order:{self.max_order}")
        if self.weights is not None:
            parts.append("weights:" + ",".join(f"{w:g}" for w in self.weights))
        if not self.clip:
            parts.append("clip:no")
        parts.append(f"version:scorekit-{__version__}")
        return "|".join(parts)


# functions ----------------------------------------------------------------------------


def bleu(
    references: Any,
    predictions: Any,
    *,
    tokenize: Tokenizer = "13a",
    lowercase: bool = False,
    smooth: Smoothing = "exp",
    smooth_value: float | None = None,
    max_order: int = 4,
    weights: Sequence[float] | None = None,
    effective_order: bool = False,
    clip: bool = True,
) -> BLEUResult:
    """Corpus BLEU with its statistics; see :class:`BLEU`.

    Examples
    --------
    >>> r = bleu(["the cat sat on a mat", "the quick brown fox"],
    ...          ["the cat sat on the mat", "a quick brown fox"])
    >>> r.score, r.precisions
    (0.5, (0.8, 0.625, 0.5, 0.25))
    >>> r.signature
    'nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:scorekit-...'
    """
    metric = BLEU(
        tokenize=tokenize,
        lowercase=lowercase,
        smooth=smooth,
        smooth_value=smooth_value,
        max_order=max_order,
        weights=None if weights is None else tuple(weights),
        effective_order=effective_order,
        clip=clip,
    )
    return metric.details(references, predictions)


def sentence_bleu(
    references: Any,
    prediction: str,
    *,
    tokenize: Tokenizer = "13a",
    lowercase: bool = False,
    smooth: Smoothing = "exp",
    smooth_value: float | None = None,
    max_order: int = 4,
    weights: Sequence[float] | None = None,
    effective_order: bool = True,
    clip: bool = True,
) -> BLEUResult:
    """BLEU of one prediction against one reference string or a list of them.

    Sentence BLEU is corpus BLEU of a one-segment corpus; as in sacrebleu's
    ``sentence_bleu``, ``effective_order`` is on by default.

    Examples
    --------
    >>> round(sentence_bleu("the cat sat on a mat", "the cat sat on the mat").score, 4)
    0.5373
    >>> sentence_bleu(["the dog"], "the the the").precisions[0]
    0.333...
    """
    name = "sentence_bleu"
    if not isinstance(prediction, str):
        problem = "prediction is missing" if prediction is None else "prediction is not a string"
        raise InputError(message(name, problem, _where(prediction, "0"), "one string"))
    if not isinstance(references, str):
        refs = _as_list(name, "references", references, "a string or a non-empty list of strings")
        if not refs:
            raise InputError(
                message(
                    name, "references is empty", refs, "a string or a non-empty list of strings"
                )
            )
        references = refs
    return bleu(
        [references],
        [prediction],
        tokenize=tokenize,
        lowercase=lowercase,
        smooth=smooth,
        smooth_value=smooth_value,
        max_order=max_order,
        weights=weights,
        effective_order=effective_order,
        clip=clip,
    )
