"""ROUGE-N, ROUGE-L and ROUGE-Lsum as Google's rouge-score computes them.

Each (reference, prediction) pair gets a precision, recall and F-measure per
ROUGE type, exactly as ``rouge_score.rouge_scorer.RougeScorer.score`` (several
references: the one of highest F-measure per type, as ``score_multi``). A batch
is reduced to the sums of those per-pair values and the number of pairs
(:class:`RougeSums`), so the mean over a corpus is the same from merged chunks
as in memory.

The batch is tokenized once; n-gram overlaps of all pairs are counted with
numpy (dense n-gram ids, one sort), LCS lengths with rapidfuzz's bit-parallel
kernel, and the union LCS of ROUGE-Lsum with bit-vector rows
(:mod:`scorekit.text._lcs`).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain
from typing import Any, ClassVar, NamedTuple

import numpy as np
from numpy.typing import NDArray

from scorekit._core import Metric, State, register, state_field
from scorekit.errors import ConfigError, InputError, choices, message, raw
from scorekit.text._lcs import lcs_lengths, lcs_positions, position_masks
from scorekit.text._porter import stem

__all__ = [
    "ROUGE",
    "ROUGE1",
    "ROUGE2",
    "ROUGE3",
    "ROUGE4",
    "ROUGE5",
    "ROUGE6",
    "ROUGE7",
    "ROUGE8",
    "ROUGE9",
    "ROUGEL",
    "ROUGE_TYPES",
    "TOKENIZERS",
    "ROUGELsum",
    "RougeScore",
    "RougeSums",
    "rouge",
]

ROUGE_TYPES = (*(f"rouge{n}" for n in range(1, 10)), "rougeL", "rougeLsum")
"""The ROUGE types: n-gram overlap for n = 1..9, LCS, and summary-level union LCS."""

TOKENIZERS = ("default", "unicode", "none")
"""The built-in tokenizers; a callable ``str -> list[str]`` is accepted too."""

_DEFAULT_TYPES = ("rouge1", "rouge2", "rougeL", "rougeLsum")

Tokenizer = str | Callable[[str], Sequence[str]]
SentenceSplit = bool | Callable[[str], Sequence[str]]


class RougeScore(NamedTuple):
    """Precision, recall and F-measure of one ROUGE type.

    Attributes
    ----------
    precision, recall, fmeasure : float
        Means over the items (for each item, the values of the reference of
        highest F-measure).
    per_sample : ndarray of shape (n, 3), optional
        Per item: precision, recall, fmeasure. Only when asked for with
        ``rouge(..., per_sample=True)``.
    """

    precision: float
    recall: float
    fmeasure: float
    per_sample: NDArray[np.float64] | None = None


@dataclass(frozen=True, eq=False)
class RougeSums(State):
    """Sums of per-item precision, recall and F-measure per ROUGE type, and the item count.

    ``sums[t]`` holds the sums for ``types[t]``; merging adds sums and counts.
    The tokenizer, stemming and sentence splitting that produced the values are
    recorded and must agree when merging.
    """

    types: tuple[str, ...] = state_field("same")
    tokenizer: str = state_field("same")
    stemmer: bool = state_field("same")
    sentences: str = state_field("same")
    count: int = state_field("sum")
    sums: NDArray[np.float64] = state_field("sum")


# tokenizers -------------------------------------------------------------------

_DEFAULT_TOKEN = re.compile(r"[a-z0-9]+")
# Han, kana and other scripts written without spaces: one token per character
_CJK = (
    "\u2e80-\u2fdf\u3040-\u30ff\u3100-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
    "\U00020000-\U0003134f"
)


@lru_cache(maxsize=1)
def _unicode_token() -> re.Pattern[str]:
    """Runs of letters, digits and combining marks (not ``_``), or one CJK character."""
    marks: list[str] = []
    for lo, hi in ((0x300, 0x20000), (0xE0100, 0xE01F0)):
        chars = "".join(map(chr, range(lo, hi)))
        is_mark = np.fromiter((c[0] == "M" for c in map(unicodedata.category, chars)), bool)
        edges = np.flatnonzero(np.diff(np.concatenate([[False], is_mark, [False]])))
        for start, stop in zip(edges[::2].tolist(), edges[1::2].tolist(), strict=True):
            marks.append(f"{re.escape(chars[start])}-{re.escape(chars[stop - 1])}")
    return re.compile(f"[{_CJK}]|(?:[^\\W_{_CJK}]|[{''.join(marks)}])+")


def _default_tokens(text: str) -> list[str]:
    return _DEFAULT_TOKEN.findall(text.lower())


_SEP = b"\x00"
# bytes of a-z and 0-9 stay, NUL marks the end of a text, every other byte separates
_ALNUM_BYTES = bytes(c if c == 0 or 48 <= c <= 57 or 97 <= c <= 122 else 32 for c in range(256))


def _default_flat(texts: list[str]) -> tuple[list[bytes], dict[bytes, None]] | None:
    """All texts' default tokens in one pass, with a NUL token after each text but the last.

    The whole batch is lowercased, mapped byte-wise (non-ASCII characters only
    ever separate tokens) and split at once; ``None`` when a text contains NUL.
    """
    joined = " \x00 ".join(texts)
    if joined.count("\x00") != max(len(texts) - 1, 0):
        return None
    data = joined.lower().encode("utf-8", "surrogatepass").translate(_ALNUM_BYTES)
    flat = data.split()
    vocab = dict.fromkeys(flat)
    vocab.setdefault(_SEP)
    return flat, vocab


def _unicode_tokens(text: str) -> list[str]:
    return _unicode_token().findall(unicodedata.normalize("NFKC", text).lower())


def _none_tokens(text: str) -> list[str]:
    return text.split()


def _stem_default(token: str) -> str:
    return stem(token) if len(token) > 3 else token


def _stem_unicode(token: str) -> str:
    return stem(token) if len(token) > 3 and token.isascii() else token


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n")


def _rule_sentences(text: str) -> list[str]:
    return _SENTENCE_END.split(text)


def _newline_sentences(text: str) -> list[str]:
    return text.split("\n")


def _describe(fn: Callable[..., Any]) -> str:
    module = getattr(fn, "__module__", None) or "?"
    name = getattr(fn, "__qualname__", None) or type(fn).__qualname__
    return f"callable {module}.{name}"


# inputs -----------------------------------------------------------------------


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _bad_item(metric: str, name: str, value: Any, where: str) -> InputError:
    if value is None:
        return InputError(
            message(metric, f"{name} contains None", raw(f"None at {where}"), "a string")
        )
    return InputError(
        message(
            metric,
            f"{name} has a non-string item",
            raw(f"{type(value).__name__} {_short(value)} at {where}"),
            "a string",
        )
    )


def _sequence(metric: str, name: str, values: Any, expected: str) -> list[Any]:
    if values is None:
        raise InputError(message(metric, f"{name} is missing", None, expected))
    if isinstance(values, str | bytes):
        raise InputError(message(metric, f"{name} is a single string", values, expected))
    if isinstance(values, Mapping):
        raise InputError(
            message(metric, f"{name} is a mapping", raw(type(values).__name__), expected)
        )
    if isinstance(values, np.ndarray):
        if values.ndim != 1:
            raise InputError(message(metric, f"{name} has the wrong shape", values.shape, expected))
        return list(values.tolist())
    to_list = getattr(values, "to_pylist", None) or getattr(values, "tolist", None)
    if to_list is not None and not isinstance(values, list | tuple):
        return list(to_list())
    try:
        return list(values)
    except TypeError:
        raise InputError(
            message(metric, f"{name} is not a sequence", raw(type(values).__name__), expected)
        ) from None


def _check_inputs(
    metric: str, references: Any, predictions: Any
) -> tuple[list[str], list[int], list[str]]:
    """Validate; return the flat references, the number per item, and the predictions."""
    preds = _sequence(metric, "predictions", predictions, "one predicted string per item")
    for i, p in enumerate(preds):
        if type(p) is not str:
            if not isinstance(p, str):
                raise _bad_item(metric, "predictions", p, f"index {i}")
            preds[i] = str(p)
    expected = "per item a reference string or a list of reference strings"
    refs = _sequence(metric, "references", references, expected)
    if len(refs) != len(preds):
        raise InputError(
            message(
                metric,
                "inputs differ in length",
                raw(f"references has {len(refs)}, predictions has {len(preds)}"),
                "equal lengths",
            )
        )
    flat: list[str] = []
    counts: list[int] = []
    for i, item in enumerate(refs):
        if type(item) is str:
            flat.append(item)
            counts.append(1)
            continue
        if isinstance(item, np.ndarray):
            item = item.tolist()
        if isinstance(item, str):
            flat.append(str(item))
            counts.append(1)
            continue
        if not isinstance(item, list | tuple):
            raise _bad_item(metric, "references", item, f"index {i}")
        if not item:
            raise InputError(
                message(metric, "an item has no reference", raw(f"[] at index {i}"), expected)
            )
        for j, r in enumerate(item):
            if type(r) is not str:
                if isinstance(r, list | tuple):
                    raise InputError(
                        message(
                            metric,
                            "references has the wrong nesting",
                            raw(f"a {type(r).__name__} inside the references at index {i}"),
                            expected,
                        )
                    )
                if not isinstance(r, str):
                    raise _bad_item(metric, "references", r, f"index {i}, reference {j}")
                r = str(r)
            flat.append(r)
        counts.append(len(item))
    return flat, counts, preds


# kernels ----------------------------------------------------------------------


def _dense(codes: NDArray[np.int64]) -> tuple[NDArray[np.int64], int]:
    uniq, inverse = np.unique(codes, return_inverse=True)
    return inverse.reshape(-1).astype(np.int64), len(uniq)


class _Batch:
    """Token ids of the predictions (texts ``0..n-1``) and references (``n..``) of a batch."""

    def __init__(
        self,
        texts: list[str],
        tokenize: Callable[[str], list[str]],
        stem_token: Callable[[str], str] | None,
    ) -> None:
        fast = _default_flat(texts) if tokenize is _default_tokens else None
        if fast is None:
            lists = [tokenize(t) for t in texts]
            lengths = np.fromiter(map(len, lists), dtype=np.int64, count=len(lists))
            flat: list[Any] = list(chain.from_iterable(lists))
            vocab: dict[Any, None] = dict.fromkeys(flat)
        else:
            flat, vocab = fast
        if stem_token is None:
            index = {tok: i for i, tok in enumerate(vocab)}
        else:
            stems: dict[str, int] = {}
            index = {
                tok: stems.setdefault(
                    stem_token(tok if isinstance(tok, str) else tok.decode()), len(stems)
                )
                for tok in vocab
            }
        ids = np.fromiter(map(index.__getitem__, flat), dtype=np.int64, count=len(flat))
        if fast is not None:
            # the texts were joined with a separator token; cut them apart again
            is_sep = ids == index[_SEP]
            bounds = np.flatnonzero(is_sep)
            lengths = np.diff(bounds, prepend=-1, append=len(ids)) - 1
            ids = ids[~is_sep]
        self.ids = ids
        self.vocab = max(len(index), 1)
        self.lengths = lengths
        self.ends = np.cumsum(lengths)
        self.starts = self.ends - lengths
        self._codes: list[NDArray[np.int64]] = [self.ids]

    def ngram_codes(self, n: int) -> NDArray[np.int64]:
        """Dense ids of the n-grams starting at each position (``len(ids) - n + 1`` of them)."""
        while len(self._codes) < n:
            k = len(self._codes)
            prev = self._codes[-1]
            combined = prev[:-1] * self.vocab + self.ids[k:]
            self._codes.append(_dense(combined)[0])
        return self._codes[n - 1]


def _ngram_stats(
    batch: _Batch, n: int, n_items: int, pair_item: NDArray[np.int64]
) -> tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.int64]]:
    """Per pair: clipped n-gram overlap, reference n-gram count, prediction n-gram count."""
    n_pairs = len(pair_item)
    counts = np.maximum(batch.lengths - n + 1, 0)
    pred_total = counts[pair_item]
    ref_total = counts[n_items:]
    codes = batch.ngram_codes(n)
    if codes.size == 0 or not counts.any():
        return np.zeros(n_pairs), ref_total, pred_total
    text_of = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    starts = np.repeat(batch.starts, counts)
    offsets = np.arange(len(text_of), dtype=np.int64) - np.repeat(
        np.cumsum(counts) - counts, counts
    )
    grams = codes[starts + offsets]
    size = int(grams.max()) + 1
    is_ref = text_of >= n_items
    ref_keys, ref_counts = np.unique(
        (text_of[is_ref] - n_items) * size + grams[is_ref], return_counts=True
    )
    pred_keys, pred_counts = np.unique(text_of[~is_ref] * size + grams[~is_ref], return_counts=True)
    pair = ref_keys // size
    lookup = pair_item[pair] * size + ref_keys % size
    at = np.searchsorted(pred_keys, lookup)
    at_ok = np.minimum(at, max(len(pred_keys) - 1, 0))
    found = (
        (at < len(pred_keys)) & (pred_keys[at_ok] == lookup)
        if len(pred_keys)
        else np.zeros(len(lookup), bool)
    )
    matched = np.where(
        found, np.minimum(ref_counts, pred_counts[at_ok] if len(pred_keys) else 0), 0
    )
    overlap = np.bincount(pair, weights=matched.astype(np.float64), minlength=n_pairs)
    return overlap.astype(np.float64), ref_total.astype(np.int64), pred_total.astype(np.int64)


def _prf(
    hits: NDArray[np.float64], pred_total: NDArray[Any], ref_total: NDArray[Any]
) -> NDArray[np.float64]:
    """Precision, recall and F-measure columns, with rouge-score's arithmetic."""
    precision = hits / pred_total
    recall = hits / ref_total
    with np.errstate(invalid="ignore", divide="ignore"):
        total = precision + recall
        fmeasure = np.where(total > 0, 2 * precision * recall / total, 0.0)
    return np.stack([precision, recall, fmeasure], axis=-1)


def _summary_hits(
    ref_sents: list[list[str]],
    pred_sents: list[list[str]],
    pred_masks: list[dict[Hashable, int]],
    pred_counts: Counter[str],
    pred_sets: list[set[str]],
) -> int:
    """Union-LCS hits of ROUGE-Lsum, each token counted at most as often as on both sides."""
    ref_counts: Counter[str] = Counter(chain.from_iterable(ref_sents))
    pred_left = Counter(pred_counts)
    hits = 0
    for sent in ref_sents:
        union: set[int] = set()
        tokens = set(sent)
        for cand, masks, cand_set in zip(pred_sents, pred_masks, pred_sets, strict=True):
            if tokens.isdisjoint(cand_set):
                continue
            union.update(lcs_positions(sent, cand, masks))
        for i in sorted(union):
            t = sent[i]
            if pred_left[t] > 0 and ref_counts[t] > 0:
                hits += 1
                pred_left[t] -= 1
                ref_counts[t] -= 1
    return hits


# metrics ----------------------------------------------------------------------


@dataclass(frozen=True)
class _RougeBase(Metric[RougeSums]):
    """Settings and per-item scores shared by :class:`ROUGE` and the single-type metrics."""

    stemmer: bool = False
    tokenizer: Tokenizer = "default"
    split_sentences: SentenceSplit = False

    def __post_init__(self) -> None:
        if not isinstance(self.stemmer, bool | np.bool_):
            raise ConfigError(
                message(self.name, "stemmer must be True or False", self.stemmer, "a bool")
            )
        if isinstance(self.tokenizer, str):
            if self.tokenizer not in TOKENIZERS:
                raise ConfigError(
                    message(
                        self.name,
                        "unknown tokenizer",
                        self.tokenizer,
                        choices(TOKENIZERS) + " or a callable",
                    )
                )
        elif not callable(self.tokenizer):
            raise ConfigError(
                message(
                    self.name,
                    "unknown tokenizer",
                    self.tokenizer,
                    choices(TOKENIZERS) + " or a callable",
                )
            )
        if self.stemmer and self.tokenizer not in ("default", "unicode"):
            raise ConfigError(
                message(
                    self.name,
                    "stemming needs a built-in word tokenizer",
                    self.tokenizer,
                    "tokenizer 'default' or 'unicode' (stem inside your own tokenizer)",
                )
            )
        if not isinstance(self.split_sentences, bool | np.bool_) and not callable(
            self.split_sentences
        ):
            raise ConfigError(
                message(
                    self.name,
                    "split_sentences must be a bool or a callable",
                    self.split_sentences,
                    "False (newlines), True (newlines and . ! ?) or a function str -> list[str]",
                )
            )

    def _types(self) -> tuple[str, ...]:
        raise NotImplementedError

    # settings ---------------------------------------------------------------

    def _tokenizer_name(self) -> str:
        return self.tokenizer if isinstance(self.tokenizer, str) else _describe(self.tokenizer)

    def _sentences_name(self) -> str:
        if callable(self.split_sentences):
            return _describe(self.split_sentences)
        return "rule" if self.split_sentences else "newline"

    def _tokenize_fn(self) -> Callable[[str], list[str]]:
        if self.tokenizer == "default":
            return _default_tokens
        if self.tokenizer == "unicode":
            return _unicode_tokens
        if self.tokenizer == "none":
            return _none_tokens
        user = self.tokenizer
        assert callable(user)
        name = self.name

        def tokenize(text: str) -> list[str]:
            tokens = user(text)
            if (
                isinstance(tokens, str)
                or not isinstance(tokens, Sequence)
                or not all(isinstance(t, str) for t in tokens)
            ):
                raise ConfigError(
                    message(name, "the tokenizer did not return strings", tokens, "a list of str")
                )
            return list(tokens)

        return tokenize

    def _stem_fn(self) -> Callable[[str], str] | None:
        if not self.stemmer:
            return None
        return _stem_unicode if self.tokenizer == "unicode" else _stem_default

    def _split_fn(self) -> Callable[[str], Sequence[str]]:
        if callable(self.split_sentences):
            return self.split_sentences
        return _rule_sentences if self.split_sentences else _newline_sentences

    # scoring ----------------------------------------------------------------

    def _item_scores(self, references: Any, predictions: Any) -> NDArray[np.float64]:
        """Per item and type: precision, recall, F-measure, shape ``(n, types, 3)``."""
        types = self._types()
        refs, per_item, preds = _check_inputs(self.name, references, predictions)
        n = len(preds)
        out = np.zeros((len(refs), len(types), 3))
        if n == 0:
            return out
        pair_item = np.repeat(np.arange(n, dtype=np.int64), per_item)
        tokenize, stem_token = self._tokenize_fn(), self._stem_fn()
        if any(t != "rougeLsum" for t in types):
            batch = _Batch(preds + refs, tokenize, stem_token)
            for k, rouge_type in enumerate(types):
                if rouge_type == "rougeL":
                    out[:, k] = self._lcs_scores(batch, n, pair_item)
                elif rouge_type != "rougeLsum":
                    hits, ref_total, pred_total = _ngram_stats(
                        batch, int(rouge_type[5:]), n, pair_item
                    )
                    out[:, k] = _prf(hits, np.maximum(pred_total, 1), np.maximum(ref_total, 1))
        if "rougeLsum" in types:
            out[:, types.index("rougeLsum")] = self._summary_scores(
                refs, preds, pair_item, tokenize, stem_token
            )
        if len(refs) == n:
            return out
        return _best_per_item(out, np.asarray(per_item, dtype=np.int64))

    def _lcs_scores(
        self, batch: _Batch, n: int, pair_item: NDArray[np.int64]
    ) -> NDArray[np.float64]:
        ref_len = batch.lengths[n:]
        pred_len = batch.lengths[pair_item]
        lcs = lcs_lengths(
            batch.ids,
            batch.starts[n:],
            batch.ends[n:],
            batch.starts[pair_item],
            batch.ends[pair_item],
        ).astype(np.float64)
        scores = _prf(lcs, np.maximum(pred_len, 1), np.maximum(ref_len, 1))
        scores[(ref_len == 0) | (pred_len == 0)] = 0.0
        return scores

    def _summary_scores(
        self,
        refs: list[str],
        preds: list[str],
        pair_item: NDArray[np.int64],
        tokenize: Callable[[str], list[str]],
        stem_token: Callable[[str], str] | None,
    ) -> NDArray[np.float64]:
        split = self._split_fn()
        stems: dict[str, str] = {}

        def sentences(text: str) -> list[list[str]]:
            sents = [tokenize(s) for s in split(text) if len(s)]
            if stem_token is None:
                return sents
            return [
                [stems[t] if t in stems else stems.setdefault(t, stem_token(t)) for t in s]
                for s in sents
            ]

        pred_info: dict[
            int,
            tuple[list[list[str]], list[dict[Hashable, int]], Counter[str], list[set[str]], int],
        ] = {}
        hits = np.zeros(len(refs))
        ref_total = np.zeros(len(refs))
        pred_total = np.zeros(len(refs))
        for k, (ref, item) in enumerate(zip(refs, pair_item.tolist(), strict=True)):
            if item not in pred_info:
                sents = sentences(preds[item])
                pred_info[item] = (
                    sents,
                    [position_masks(s) for s in sents],
                    Counter(chain.from_iterable(sents)),
                    [set(s) for s in sents],
                    sum(map(len, sents)),
                )
            p_sents, p_masks, p_counts, p_sets, p_total = pred_info[item]
            r_sents = sentences(ref)
            r_total = sum(map(len, r_sents))
            if r_total and p_total:
                hits[k] = _summary_hits(r_sents, p_sents, p_masks, p_counts, p_sets)
                ref_total[k] = r_total
                pred_total[k] = p_total
        scores = _prf(hits, np.maximum(pred_total, 1), np.maximum(ref_total, 1))
        return scores

    # the Metric interface ----------------------------------------------------

    def empty(self) -> RougeSums:
        """The state of no data."""
        types = self._types()
        return RougeSums(
            types=types,
            tokenizer=self._tokenizer_name(),
            stemmer=bool(self.stemmer),
            sentences=self._sentences_name(),
            count=0,
            sums=np.zeros((len(types), 3)),
        )

    def _state_of(self, scores: NDArray[np.float64]) -> RougeSums:
        empty = self.empty()
        return RougeSums(
            types=empty.types,
            tokenizer=empty.tokenizer,
            stemmer=empty.stemmer,
            sentences=empty.sentences,
            count=len(scores),
            sums=scores.sum(axis=0) if len(scores) else empty.sums,
        )

    def summarize(self, references: Any, predictions: Any) -> RougeSums:
        """Sum the per-item precision, recall and F-measure of one batch."""
        return self._state_of(self._item_scores(references, predictions))

    def _means(self, state: RougeSums) -> NDArray[np.float64]:
        if state.count == 0:
            raise InputError(message(self.name, "empty input", raw("0 items"), "at least one item"))
        return np.asarray(state.sums / state.count, dtype=np.float64)


def _best_per_item(scores: NDArray[np.float64], per_item: NDArray[np.int64]) -> NDArray[np.float64]:
    """Per item and type, the reference of highest F-measure (the first of equals)."""
    starts = np.cumsum(per_item) - per_item
    fmeasure = scores[..., 2]
    best = np.maximum.reduceat(fmeasure, starts, axis=0)
    rows = np.arange(len(fmeasure), dtype=np.int64)[:, None]
    first = np.where(fmeasure == np.repeat(best, per_item, axis=0), rows, len(fmeasure))
    pick = np.minimum.reduceat(first, starts, axis=0)
    return np.take_along_axis(scores, pick[..., None], axis=0)


def _check_types(name: str, types: Any) -> tuple[str, ...]:
    if isinstance(types, str):
        types = (types,)
    try:
        chosen = tuple(types)
    except TypeError:
        raise ConfigError(
            message(name, "types must be a list of ROUGE types", types, choices(ROUGE_TYPES))
        ) from None
    if not chosen:
        raise ConfigError(
            message(
                name, "no ROUGE type given", chosen, "at least one of " + ", ".join(ROUGE_TYPES)
            )
        )
    for t in chosen:
        if t not in ROUGE_TYPES:
            raise ConfigError(message(name, "unknown ROUGE type", t, choices(ROUGE_TYPES)))
    if len(set(chosen)) != len(chosen):
        raise ConfigError(message(name, "a ROUGE type is given twice", chosen, "distinct types"))
    return chosen


_DOC_NOTES = """
    Tokens (``tokenizer="default"``) are rouge-score's: the text is lowercased and
    every run of characters other than ``a-z`` and ``0-9`` separates tokens. Text
    in other scripts therefore has no tokens at all and scores 0 (rouge-score
    scores Chinese or Greek text as 0 too); ``tokenizer="unicode"`` keeps letters
    and digits of every script (NFKC-normalised, lowercased; Han and kana
    characters are one token each), ``"none"`` splits on whitespace only and keeps
    case (pre-tokenized text), and a callable ``str -> list[str]`` does its own
    tokenizing. ``stemmer=True`` applies the Porter stemmer (NLTK's default
    variant, as rouge-score) to tokens longer than 3 characters.
"""


@register("rouge", higher_is_better=True, bounds=(0.0, 1.0), inputs="references_predictions")
@dataclass(frozen=True)
class ROUGE(_RougeBase):
    """ROUGE-N, ROUGE-L and ROUGE-Lsum precision, recall and F-measure, as rouge-score.

        For each item, with reference :math:`r` and prediction :math:`p`,

        .. math::

            P = \\frac{\\mathrm{hits}}{|p|}, \\quad R = \\frac{\\mathrm{hits}}{|r|},
            \\quad F = \\frac{2PR}{P + R}

        where for ``rougeN`` the hits are the clipped n-gram matches and ``|.|`` the
        number of n-grams, for ``rougeL`` the hits are the length of the longest
        common subsequence of the tokens, and for ``rougeLsum`` the union LCS of
        each reference sentence with all predicted sentences (a token counted at
        most as often as it occurs on both sides). The results are the means of
        these per-item values.

        Parameters
        ----------
        stemmer : bool
            Porter-stem tokens longer than 3 characters (rouge-score's ``use_stemmer``).
        tokenizer : {"default", "unicode", "none"} or callable
            How text becomes tokens; see Notes.
        split_sentences : bool or callable
            Sentences for ``rougeLsum``: ``False`` splits at newlines (rouge-score's
            default); ``True`` also after ``.``, ``!`` or ``?`` followed by
            whitespace; a callable ``str -> list[str]`` (e.g. ``nltk.sent_tokenize``,
            as rouge-score's ``split_summaries=True``) splits its own way.
        types : sequence of str
            The ROUGE types: ``rouge1`` ... ``rouge9``, ``rougeL``, ``rougeLsum``.

        Returns
        -------
        dict of str to RougeScore
            ``compute`` maps each type to the mean precision, recall and F-measure.

        Notes
        -----
        With several references for an item, each type takes the reference of
        highest F-measure (the first of equals), as rouge-score's ``score_multi``.
        An item whose reference or prediction has no tokens scores 0. Empty input
        raises :class:`~scorekit.errors.InputError`.
    {notes}
        References
        ----------
        Lin, C.-Y. (2004). ROUGE: A package for automatic evaluation of summaries.
        Text Summarization Branches Out. The values equal Google's rouge-score
        (``rouge_score.rouge_scorer.RougeScorer``) to 1e-12.

        Examples
        --------
        >>> result = ROUGE(types=("rouge1", "rougeL")).score(
        ...     ["the cat sat on the mat"], ["the cat lay on the mat"])
        >>> result["rouge1"].fmeasure
        0.833...
        >>> result["rougeL"]
        RougeScore(precision=0.833..., recall=0.833..., fmeasure=0.833..., per_sample=None)
    """

    types: Sequence[str] = _DEFAULT_TYPES

    def __post_init__(self) -> None:
        object.__setattr__(self, "types", _check_types(self.name, self.types))
        super().__post_init__()

    def _types(self) -> tuple[str, ...]:
        return tuple(self.types)

    def compute(self, state: RougeSums) -> dict[str, RougeScore]:
        """The mean precision, recall and F-measure per type."""
        means = self._means(state)
        return {
            t: RougeScore(float(means[k, 0]), float(means[k, 1]), float(means[k, 2]))
            for k, t in enumerate(state.types)
        }


ROUGE.__doc__ = (ROUGE.__doc__ or "").replace("{notes}", _DOC_NOTES)


@dataclass(frozen=True)
class _SingleRouge(_RougeBase):
    """One ROUGE type; its value is the mean F-measure."""

    rouge_type: ClassVar[str] = ""

    def _types(self) -> tuple[str, ...]:
        return (self.rouge_type,)

    def compute(self, state: RougeSums) -> float:
        """The mean F-measure."""
        return float(self._means(state)[0, 2])


_SINGLE_DOC = """{title}, as rouge-score: the mean F-measure over the items.

    {what}

    Parameters
    ----------
    stemmer : bool
        Porter-stem tokens longer than 3 characters (rouge-score's ``use_stemmer``).
    tokenizer : {{"default", "unicode", "none"}} or callable
        How text becomes tokens; see :class:`ROUGE`.
    split_sentences : bool or callable
        How texts are cut into sentences (``rougeLsum`` only); see :class:`ROUGE`.

    Notes
    -----
    Precision and recall are in :func:`rouge`'s result. Several references per
    item: the one of highest F-measure, as rouge-score's ``score_multi``.

    References
    ----------
    Lin, C.-Y. (2004). ROUGE: A package for automatic evaluation of summaries.
    Values equal Google's rouge-score to 1e-12.

    Examples
    --------
    >>> {cls}().score(["the cat sat on the mat"], ["the cat lay on the mat"])
    {value}
"""


def _single(
    cls_name: str, rouge_type: str, title: str, what: str, value: str
) -> type[_SingleRouge]:
    namespace = {
        "rouge_type": rouge_type,
        "__doc__": _SINGLE_DOC.format(title=title, what=what, cls=cls_name, value=value),
        "__module__": __name__,
        "__qualname__": cls_name,
    }
    cls: type[_SingleRouge] = dataclass(frozen=True)(type(cls_name, (_SingleRouge,), namespace))
    registered = register(
        rouge_type, higher_is_better=True, bounds=(0.0, 1.0), inputs="references_predictions"
    )(cls)
    return registered


def _ngram_doc(n: int) -> str:
    return (
        f"Hits are the {n}-grams of the prediction matched in the reference, each "
        f"counted at most as often as it occurs in both; precision divides by the "
        f"prediction's {n}-grams, recall by the reference's."
    )


# "the cat sat on the mat" vs "the cat lay on the mat": matches per n-gram order
_EXAMPLE = {1: "0.833...", 2: "0.6", 3: "0.25", 4: "0.0"}

ROUGE1 = _single("ROUGE1", "rouge1", "ROUGE-1 (unigram overlap)", _ngram_doc(1), _EXAMPLE[1])
ROUGE2 = _single("ROUGE2", "rouge2", "ROUGE-2 (bigram overlap)", _ngram_doc(2), _EXAMPLE[2])
ROUGE3 = _single("ROUGE3", "rouge3", "ROUGE-3 (3-gram overlap)", _ngram_doc(3), _EXAMPLE[3])
ROUGE4 = _single("ROUGE4", "rouge4", "ROUGE-4 (4-gram overlap)", _ngram_doc(4), _EXAMPLE[4])
ROUGE5 = _single("ROUGE5", "rouge5", "ROUGE-5 (5-gram overlap)", _ngram_doc(5), _EXAMPLE[4])
ROUGE6 = _single("ROUGE6", "rouge6", "ROUGE-6 (6-gram overlap)", _ngram_doc(6), _EXAMPLE[4])
ROUGE7 = _single("ROUGE7", "rouge7", "ROUGE-7 (7-gram overlap)", _ngram_doc(7), _EXAMPLE[4])
ROUGE8 = _single("ROUGE8", "rouge8", "ROUGE-8 (8-gram overlap)", _ngram_doc(8), _EXAMPLE[4])
ROUGE9 = _single("ROUGE9", "rouge9", "ROUGE-9 (9-gram overlap)", _ngram_doc(9), _EXAMPLE[4])
ROUGEL = _single(
    "ROUGEL",
    "rougeL",
    "ROUGE-L (longest common subsequence)",
    "Hits are the length of the longest common subsequence of the two token "
    "sequences; precision divides by the prediction's tokens, recall by the "
    "reference's.",
    _EXAMPLE[1],
)
ROUGELsum = _single(
    "ROUGELsum",
    "rougeLsum",
    "ROUGE-Lsum (summary-level union LCS)",
    "Texts are cut into sentences (at newlines by default); hits are, over the "
    "reference sentences, the union of each one's LCS with every predicted "
    "sentence, a token counted at most as often as it occurs on both sides.",
    _EXAMPLE[1],
)


def rouge(
    references: Any,
    predictions: Any,
    *,
    types: Sequence[str] = _DEFAULT_TYPES,
    stemmer: bool = False,
    tokenizer: Tokenizer = "default",
    split_sentences: SentenceSplit = False,
    per_sample: bool = False,
) -> dict[str, RougeScore]:
    """ROUGE precision, recall and F-measure per type, as Google's rouge-score.

    Parameters
    ----------
    references : sequence
        Per item, a reference string or a list of reference strings.
    predictions : sequence of str
        Per item, the predicted string.
    types, stemmer, tokenizer, split_sentences
        See :class:`ROUGE`.
    per_sample : bool
        Also return each item's precision, recall and F-measure
        (``RougeScore.per_sample``, shape ``(n, 3)``).

    Returns
    -------
    dict of str to RougeScore
        Per type, the means over items of precision, recall and F-measure.

    Examples
    --------
    >>> scores = rouge(["the cat sat on the mat", ["a dog", "the dog ran"]],
    ...                ["the cat lay on the mat", "the dog ran away"],
    ...                types=("rouge1", "rouge2"), per_sample=True)
    >>> scores["rouge1"].fmeasure
    0.845...
    >>> scores["rouge2"].per_sample
    array([[0.6       , 0.6       , 0.6       ],
           [0.66666667, 1.        , 0.8       ]])
    """
    metric = ROUGE(
        types=types, stemmer=stemmer, tokenizer=tokenizer, split_sentences=split_sentences
    )
    scores = metric._item_scores(references, predictions)
    result = metric.compute(metric._state_of(scores))
    if not per_sample:
        return result
    return {
        t: r._replace(per_sample=scores[:, k].copy()) for k, (t, r) in enumerate(result.items())
    }
