"""sacrebleu's functions, classes and score objects, computed by scorekit's text metrics.

``from scorekit.compat import sacrebleu`` replaces ``import sacrebleu`` for
BLEU, chrF and TER: :func:`corpus_bleu`, :func:`sentence_bleu`,
:func:`corpus_chrf`, :func:`sentence_chrf`, :func:`corpus_ter`,
:func:`sentence_ter` and :func:`raw_corpus_bleu` take sacrebleu's arguments in its order (hypotheses
first, references as a list of reference *streams*), and the classes
:class:`BLEU`, :class:`CHRF` and :class:`TER` have ``corpus_score``,
``sentence_score`` and ``get_signature`` (and ``BLEU.compute_bleu`` gives BLEU from
its sufficient statistics). Scores are on sacrebleu's 0-100
scale and the score objects have sacrebleu's fields and print as sacrebleu's
(``str(score)`` and ``score.format()``).

The numbers come from :class:`scorekit.text.BLEU`, :class:`~scorekit.text.CHRF`
and :class:`~scorekit.text.TER` (fractions there, times 100 here; BLEU and chrF
scores may differ from sacrebleu's in the last bit of the product). Where this
module departs from sacrebleu:

- signatures end in ``version:scorekit-<version>`` instead of sacrebleu's version;
- tokenizers scorekit lacks (``ja-mecab``, ``ko-mecab``, ``spm``, ``flores101``...)
  raise :class:`~scorekit.errors.ConfigError` naming them;
- an empty corpus raises :class:`~scorekit.errors.InputError` (sacrebleu
  raises ``IndexError``); bootstrap intervals (``n_bootstrap``) are
  :mod:`scorekit.stats`' and are not offered here;
- a ``smooth_value`` with ``exp`` or ``none`` smoothing, which sacrebleu
  ignores, and a ``floor`` value above 1 raise :class:`~scorekit.errors.ConfigError`;
- ``force`` only silences sacrebleu's warning about tokenized input, which
  scorekit does not give; it is accepted and has no effect.

Examples
--------
>>> from scorekit.compat import sacrebleu
>>> hyps = ["the cat sat on the mat", "a quick brown fox"]
>>> refs = [["the cat sat on a mat", "the quick brown fox"]]
>>> print(sacrebleu.corpus_bleu(hyps, refs))
BLEU = 50.00 80.0/62.5/50.0/25.0 (BP = 1.000 ratio = 1.000 hyp_len = 10 ref_len = 10)
>>> sacrebleu.corpus_chrf(hyps, refs).format(width=1)
'chrF2 = 76.0'
>>> sacrebleu.NAMES["corpus_bleu"]
'scorekit.text.bleu'
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, Generic, TypeVar

import numpy as np

from scorekit.errors import ConfigError, InputError, message, raw
from scorekit.text import BLEU as _BLEU
from scorekit.text import CHRF as _CHRF
from scorekit.text import TER as _TER
from scorekit.text import BLEUStats

__all__ = [
    "BLEU",
    "CHRF",
    "NAMES",
    "TER",
    "BLEUScore",
    "CHRFScore",
    "Score",
    "Signature",
    "TERScore",
    "corpus_bleu",
    "corpus_chrf",
    "corpus_ter",
    "raw_corpus_bleu",
    "sentence_bleu",
    "sentence_chrf",
    "sentence_ter",
]

NAMES: dict[str, str] = {
    "corpus_bleu": "scorekit.text.bleu",
    "sentence_bleu": "scorekit.text.sentence_bleu",
    "raw_corpus_bleu": "scorekit.text.bleu",
    "BLEU": "scorekit.text.BLEU",
    "corpus_chrf": "scorekit.text.chrf",
    "sentence_chrf": "scorekit.text.sentence_chrf",
    "CHRF": "scorekit.text.CHRF",
    "corpus_ter": "scorekit.text.ter",
    "sentence_ter": "scorekit.text.sentence_ter",
    "TER": "scorekit.text.TER",
}
"""sacrebleu's functions and classes -> the scorekit functions and classes that compute them."""

_ABBREVIATIONS = {
    "version": "v",
    "nrefs": "#",
    "case": "c",
    "eff": "e",
    "tok": "tok",
    "smooth": "s",
    "nc": "nc",
    "nw": "nw",
    "space": "s",
    "norm": "nr",
    "punct": "pn",
    "asian": "as",
}
"""sacrebleu's short signature keys."""

_TER_ABBREVIATIONS = {"tok": "t"}
"""Keys TER shortens otherwise than BLEU and chrF."""


class Signature:
    """The settings behind a score, printed as sacrebleu prints signatures.

    Examples
    --------
    >>> s = BLEU().get_signature()
    >>> s.format(short=True)
    '#:?|c:mixed|e:no|tok:13a|s:exp|v:scorekit-...'
    """

    def __init__(self, text: str, *, ter: bool = False) -> None:
        self._pairs = [tuple(part.split(":", 1)) for part in text.split("|")]
        self._ter = ter

    def format(self, short: bool = False) -> str:
        """The signature; ``short=True`` uses sacrebleu's abbreviated keys."""
        if not short:
            return "|".join(f"{k}:{v}" for k, v in self._pairs)
        table = {**_ABBREVIATIONS, **(_TER_ABBREVIATIONS if self._ter else {})}
        return "|".join(f"{table.get(k, k)}:{v}" for k, v in self._pairs)

    def __str__(self) -> str:
        return self.format()

    def __repr__(self) -> str:
        return self.format()


class Score:
    """A score on sacrebleu's 0-100 scale with its name, printed as sacrebleu's.

    Parameters
    ----------
    name : str
        The metric's name as sacrebleu prints it (``BLEU``, ``chrF2``, ``TER``).
    score : float
        The score (0-100; TER may exceed 100).
    """

    def __init__(self, name: str, score: float) -> None:
        self.name = name
        self.score = score
        self._verbose = ""

    def format(
        self, width: int = 2, score_only: bool = False, signature: str = "", is_json: bool = False
    ) -> str:
        """The score as sacrebleu writes it: ``NAME = 12.34 ...``, the number only, or JSON.

        Examples
        --------
        >>> Score("TER", 12.3456).format()
        'TER = 12.35'
        >>> Score("TER", 12.3456).format(width=1, signature="nrefs:1")
        'TER|nrefs:1 = 12.3'
        """
        number = f"{self.score:.{width}f}"
        if score_only:
            return number
        head = f"{self.name}|{signature}" if signature else self.name
        line = f"{head} = {number}"
        if self._verbose:
            line += f" {self._verbose}"
        if is_json:
            data: dict[str, Any] = {"name": self.name, "score": float(number)}
            data["signature"] = signature
            if self._verbose:
                data["verbose_score"] = self._verbose
            for pair in signature.split("|") if signature else []:
                key, value = pair.split(":")
                data[key] = value
            return json.dumps(data, indent=1, ensure_ascii=False)
        return line

    def __repr__(self) -> str:
        return self.format()


class BLEUScore(Score):
    """BLEU with sacrebleu's fields: counts, totals, precisions (0-100), bp, sys_len, ref_len.

    Examples
    --------
    >>> s = corpus_bleu(["the cat sat"], [["the cat sat down"]])
    >>> s.counts, s.totals, s.sys_len, s.ref_len, round(s.bp, 4)
    ([3, 2, 1, 0], [3, 2, 1, 0], 3, 4, 0.7165)
    """

    def __init__(
        self,
        score: float,
        counts: list[Any],
        totals: list[Any],
        precisions: list[float],
        bp: float,
        sys_len: int,
        ref_len: int,
    ) -> None:
        super().__init__("BLEU", score)
        self.bp = bp
        self.counts = counts
        self.totals = totals
        self.sys_len = sys_len
        self.ref_len = ref_len
        self.precisions = precisions
        self.prec_str = "/".join(f"{p:.1f}" for p in precisions)
        self.ratio = sys_len / ref_len if ref_len else 0
        self._verbose = (
            f"{self.prec_str} (BP = {bp:.3f} ratio = {self.ratio:.3f} "
            f"hyp_len = {sys_len:d} ref_len = {ref_len:d})"
        )


class CHRFScore(Score):
    """chrF (chrF++ with word n-grams) with its orders and beta; named ``chrF2``, ``chrF2++``."""

    def __init__(self, score: float, char_order: int, word_order: int, beta: Any) -> None:
        self.beta = beta
        self.char_order = char_order
        self.word_order = word_order
        super().__init__(f"chrF{beta}" + "+" * word_order, score)


class TERScore(Score):
    """TER with the summed edits and (mean) reference lengths."""

    def __init__(self, score: float, num_edits: float, ref_length: float) -> None:
        super().__init__("TER", score)
        self.num_edits = int(num_edits)
        self.ref_length = ref_length


# references ------------------------------------------------------------------------------


def _segments(name: str, hypotheses: Any, references: Any) -> list[list[str]]:
    """sacrebleu's reference streams -> each hypothesis' references (``None`` dropped)."""
    if isinstance(hypotheses, str):
        raise InputError(
            message(name, "hypotheses is one string", hypotheses, "a sequence of strings")
        )
    if references is None or isinstance(references, str):
        raise InputError(
            message(
                name,
                "references are not reference streams",
                references,
                "a list of streams, each a list of strings parallel to the hypotheses",
            )
        )
    streams = list(references)
    if not streams:
        raise InputError(message(name, "no reference stream", raw("[]"), "at least one stream"))
    n = len(hypotheses)
    for i, stream in enumerate(streams):
        if isinstance(stream, str):
            raise InputError(
                message(
                    name,
                    f"reference stream {i} is one string",
                    stream,
                    "a list of strings (wrap the stream: [refs])",
                )
            )
        if len(stream) != n:
            raise InputError(
                message(
                    name,
                    f"reference stream {i} and the hypotheses differ in length",
                    raw(f"{len(stream)} references for {n} hypotheses"),
                    "one reference per hypothesis",
                )
            )
    return [[r for r in refs if r is not None] for refs in zip(*streams, strict=True)]


def _sentence_refs(name: str, references: Any) -> list[str]:
    if isinstance(references, str) or references is None:
        raise InputError(
            message(name, "references are not a list", references, "a list of reference strings")
        )
    return list(references)


# BLEU --------------------------------------------------------------------------------------

_LANG_TOKENIZERS = {"zh": "zh", "ja": "ja-mecab", "ko": "ko-mecab"}
"""sacrebleu's tokenizer for a target language (13a otherwise)."""


def _percent(count: Any, total: Any, fraction: float, smooth: str, k: float) -> float:
    """A precision in percent, in sacrebleu's arithmetic (one division of integers or floats)."""
    if fraction == 0.0 or total == 0:
        return 0.0
    if count != 0:
        return float(100.0 * count / total)
    if smooth == "exp":
        halvings = round(1.0 / (fraction * total))
        return float(100.0 / (halvings * total))
    return float(100.0 * k / total)


_ScoreT = TypeVar("_ScoreT", bound=Score)


class _Metric(ABC, Generic[_ScoreT]):
    """What sacrebleu's metric objects share: corpus and sentence scores and the signature."""

    _name = ""
    _ter = False
    _refs: Sequence[Sequence[str | None]] | None
    _signature: str

    def corpus_score(
        self,
        hypotheses: Sequence[str],
        references: Sequence[Sequence[str | None]] | None,
        n_bootstrap: int = 1,
    ) -> _ScoreT:
        """The corpus score of the hypotheses against the reference streams (or the cached ones)."""
        cached = _cached(self._name, references, self._refs, n_bootstrap)
        return self._score(_segments(self._name, hypotheses, cached), list(hypotheses))

    def sentence_score(self, hypothesis: str, references: Sequence[str]) -> _ScoreT:
        """The score of one hypothesis against its references (a list of strings)."""
        return self._score([_sentence_refs(self._name, references)], [hypothesis])

    def get_signature(self) -> Signature:
        """The settings of the last score (``nrefs:?`` before any)."""
        return Signature(self._signature, ter=self._ter)

    @abstractmethod
    def _score(self, references: list[list[str]], hypotheses: list[str]) -> _ScoreT:
        """The score of the hypotheses against one list of references per hypothesis."""


class BLEU(_Metric[BLEUScore]):
    """sacrebleu's ``BLEU`` metric object, computed by :class:`scorekit.text.BLEU`.

    Parameters
    ----------
    lowercase, force, tokenize, smooth_method, smooth_value, max_ngram_order, effective_order,
    trg_lang, references
        sacrebleu's: ``tokenize=None`` means ``13a`` (``zh`` for ``trg_lang="zh"``);
        ``references`` are cached for :meth:`corpus_score` calls without them.

    Examples
    --------
    >>> bleu = BLEU()
    >>> bleu.corpus_score(["a b c d"], [["a b c d"]]).score
    100.0
    >>> str(bleu.get_signature())
    'nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:scorekit-...'
    """

    _name = "BLEU"

    def __init__(
        self,
        lowercase: bool = False,
        force: bool = False,
        tokenize: str | None = None,
        smooth_method: str = "exp",
        smooth_value: float | None = None,
        max_ngram_order: int = 4,
        effective_order: bool = False,
        trg_lang: str = "",
        references: Sequence[Sequence[str | None]] | None = None,
    ) -> None:
        if tokenize is None:
            tokenize = _LANG_TOKENIZERS.get(trg_lang, "13a")
        self.force = force
        self.trg_lang = trg_lang
        self._metric = _BLEU(
            tokenize=tokenize,  # type: ignore[arg-type]
            lowercase=lowercase,
            smooth=smooth_method,  # type: ignore[arg-type]
            smooth_value=smooth_value,
            max_order=max_ngram_order,
            effective_order=effective_order,
        )
        self._refs = references
        self._signature = self._metric.signature()

    @staticmethod
    def compute_bleu(
        correct: Sequence[int],
        total: Sequence[int],
        sys_len: int,
        ref_len: int,
        smooth_method: str = "none",
        smooth_value: float | None = None,
        effective_order: bool = False,
        max_ngram_order: int = 4,
    ) -> BLEUScore:
        """sacrebleu's ``BLEU.compute_bleu``: BLEU from its sufficient statistics.

        ``correct`` and ``total`` are the matched and total n-gram counts of
        orders 1 to ``max_ngram_order``, ``sys_len`` and ``ref_len`` the
        hypothesis and reference lengths, as :class:`BLEUScore` reports them.
        Unlike sacrebleu's, the lists given are not changed by ``add-k``.

        Examples
        --------
        >>> s = BLEU.compute_bleu([5, 3, 2, 1], [6, 5, 4, 3], 6, 6)
        >>> round(s.score, 4), s.precisions[0]
        (53.7285, 83.3...)
        >>> print(BLEU.compute_bleu([3, 2, 1, 0], [3, 2, 1, 1], 3, 4, smooth_method="exp"))
        BLEU = 60.25 100.0/100.0/100.0/50.0 (BP = 0.717 ratio = 0.750 hyp_len = 3 ref_len = 4)
        """
        bleu = BLEU(
            smooth_method=smooth_method,
            smooth_value=smooth_value,
            max_ngram_order=max_ngram_order,
            effective_order=effective_order,
        )
        return bleu._of_state(_statistics(bleu._metric, correct, total, sys_len, ref_len))

    def _score(self, references: list[list[str]], hypotheses: list[str]) -> BLEUScore:
        return self._of_state(self._metric.summarize(references, hypotheses))

    def _of_state(self, state: BLEUStats) -> BLEUScore:
        metric = self._metric
        result = metric.result(state)
        self._signature = result.signature
        smooth = metric.smooth
        default = {"floor": 0.1, "add-k": 1}.get(smooth, 0)
        k = metric.smooth_value if metric.smooth_value is not None else default
        counts: list[Any] = list(result.counts)
        totals: list[Any] = list(result.totals)
        if any(counts) and smooth == "add-k":
            # sacrebleu adds k to the orders above 1 up to the first with no n-gram
            for n in range(1, len(counts)):
                if totals[n - 1] == 0:
                    break
                counts[n] += k
                totals[n] += k
        precisions = [
            _percent(c, t, f, smooth, k)
            for c, t, f in zip(counts, totals, result.precisions, strict=True)
        ]
        return BLEUScore(
            100.0 * result.score,
            counts,
            totals,
            precisions,
            result.bp,
            result.hyp_len,
            result.ref_len,
        )


def _count(name: str, value: Any) -> int:
    """One count of ``compute_bleu``'s statistics: a whole number >= 0."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 0:
        raise InputError(
            message("compute_bleu", f"{name} must be a count", value, "an integer >= 0")
        )
    return int(value)


def _statistics(metric: _BLEU, correct: Any, total: Any, sys_len: Any, ref_len: Any) -> BLEUStats:
    """The state of ``compute_bleu``'s sufficient statistics, checked."""
    counts = []
    for name, values in (("correct", correct), ("total", total)):
        if isinstance(values, str | bytes) or not isinstance(values, Sequence | np.ndarray):
            raise InputError(
                message("compute_bleu", f"{name} must be a list", values, "one count per order")
            )
        if len(values) != metric.max_order:
            raise InputError(
                message(
                    "compute_bleu",
                    f"{name} has another length than max_ngram_order",
                    raw(f"{len(values)} counts"),
                    f"{metric.max_order} counts",
                )
            )
        counts.append(np.array([_count(f"{name}[{i}]", v) for i, v in enumerate(values)]))
    matches, totals = counts
    above = np.flatnonzero(matches > totals)
    if above.size:
        i = int(above[0])
        raise InputError(
            message(
                "compute_bleu",
                "more matched than total n-grams",
                raw(f"correct[{i}] = {matches[i]} > total[{i}] = {totals[i]}"),
                "correct <= total at every order",
            )
        )
    return BLEUStats(
        tokenize=metric.tokenize,
        lowercase=metric.lowercase,
        max_order=metric.max_order,
        clip=metric.clip,
        segments=1,
        hyp_len=_count("sys_len", sys_len),
        ref_len=_count("ref_len", ref_len),
        matches=matches.astype(np.int64),
        totals=totals.astype(np.int64),
        min_refs=1,
        max_refs=1,
    )


def _cached(name: str, references: Any, cached: Any, n_bootstrap: int) -> Any:
    if n_bootstrap != 1:
        raise ConfigError(
            message(name, "n_bootstrap is not offered", n_bootstrap, "1 (see scorekit.stats)")
        )
    if references is None:
        if cached is None:
            raise InputError(
                message(name, "no references given or cached", None, "a list of reference streams")
            )
        return cached
    return references


def corpus_bleu(
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str | None]],
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    force: bool = False,
    lowercase: bool = False,
    tokenize: str = "13a",
    use_effective_order: bool = False,
) -> BLEUScore:
    """sacrebleu's ``corpus_bleu``: BLEU (0-100) of hypotheses against reference streams.

    Examples
    --------
    >>> corpus_bleu(["the cat sat on the mat"], [["the cat sat on a mat"]]).score
    53.7...
    """
    return BLEU(
        lowercase=lowercase,
        force=force,
        tokenize=tokenize,
        smooth_method=smooth_method,
        smooth_value=smooth_value,
        effective_order=use_effective_order,
    ).corpus_score(hypotheses, references)


def raw_corpus_bleu(
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str | None]],
    smooth_value: float | None = 0.1,
) -> BLEUScore:
    """sacrebleu's ``raw_corpus_bleu``: BLEU of untokenized text, floor-smoothed.

    As :func:`corpus_bleu` with ``tokenize="none"``, ``smooth_method="floor"``
    and ``use_effective_order=True``: tokens are the text split at spaces.

    Examples
    --------
    >>> print(raw_corpus_bleu(["the cat sat on the mat."], [["the cat sat on a mat."]]))
    BLEU = 53.73 83.3/60.0/50.0/33.3 (BP = 1.000 ratio = 1.000 hyp_len = 6 ref_len = 6)
    """
    return corpus_bleu(
        hypotheses,
        references,
        smooth_method="floor",
        smooth_value=smooth_value,
        force=True,
        tokenize="none",
        use_effective_order=True,
    )


def sentence_bleu(
    hypothesis: str,
    references: Sequence[str],
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    lowercase: bool = False,
    tokenize: str = "13a",
    use_effective_order: bool = True,
) -> BLEUScore:
    """sacrebleu's ``sentence_bleu``: BLEU of one hypothesis against a list of references.

    Examples
    --------
    >>> print(sentence_bleu("the cat sat", ["the cat sat down"]))
    BLEU = 71.65 100.0/100.0/100.0/0.0 (BP = 0.717 ratio = 0.750 hyp_len = 3 ref_len = 4)
    """
    return BLEU(
        lowercase=lowercase,
        tokenize=tokenize,
        smooth_method=smooth_method,
        smooth_value=smooth_value,
        effective_order=use_effective_order,
    ).sentence_score(hypothesis, references)


# chrF --------------------------------------------------------------------------------------


class CHRF(_Metric[CHRFScore]):
    """sacrebleu's ``CHRF`` metric object, computed by :class:`scorekit.text.CHRF`.

    Examples
    --------
    >>> chrf = CHRF(word_order=2)
    >>> print(chrf.corpus_score(["a b c"], [["a b d"]]))
    chrF2++ = 46.67
    >>> chrf.get_signature().format(short=True)
    '#:1|c:mixed|e:yes|nc:6|nw:2|s:no|v:scorekit-...'
    """

    _name = "chrF"

    def __init__(
        self,
        char_order: int = 6,
        word_order: int = 0,
        beta: int = 2,
        lowercase: bool = False,
        whitespace: bool = False,
        eps_smoothing: bool = False,
        references: Sequence[Sequence[str | None]] | None = None,
    ) -> None:
        self._metric = _CHRF(
            char_order=char_order,
            word_order=word_order,
            beta=beta,
            lowercase=lowercase,
            whitespace=whitespace,
            eps_smoothing=eps_smoothing,
        )
        self.char_order, self.word_order, self.beta = char_order, word_order, beta
        self._refs = references
        self._signature = self._metric.signature()

    def _score(self, references: list[list[str]], hypotheses: list[str]) -> CHRFScore:
        result = self._metric.result(self._metric.summarize(references, hypotheses))
        self._signature = result.signature
        return CHRFScore(100.0 * result.score, self.char_order, self.word_order, self.beta)


def corpus_chrf(
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str | None]],
    char_order: int = 6,
    word_order: int = 0,
    beta: int = 2,
    remove_whitespace: bool = True,
    eps_smoothing: bool = False,
) -> CHRFScore:
    """sacrebleu's ``corpus_chrf``: chrF (0-100) of hypotheses against reference streams.

    Examples
    --------
    >>> round(corpus_chrf(["the cat sat"], [["the cat sat down"]]).score, 2)
    66.02
    """
    return CHRF(
        char_order=char_order,
        word_order=word_order,
        beta=beta,
        whitespace=not remove_whitespace,
        eps_smoothing=eps_smoothing,
    ).corpus_score(hypotheses, references)


def sentence_chrf(
    hypothesis: str,
    references: Sequence[str],
    char_order: int = 6,
    word_order: int = 0,
    beta: int = 2,
    remove_whitespace: bool = True,
    eps_smoothing: bool = False,
) -> CHRFScore:
    """sacrebleu's ``sentence_chrf``: chrF of one hypothesis against a list of references.

    Examples
    --------
    >>> print(sentence_chrf("the cat sat", ["the cat sat down"]))
    chrF2 = 66.02
    """
    return CHRF(
        char_order=char_order,
        word_order=word_order,
        beta=beta,
        whitespace=not remove_whitespace,
        eps_smoothing=eps_smoothing,
    ).sentence_score(hypothesis, references)


# TER ---------------------------------------------------------------------------------------


class TER(_Metric[TERScore]):
    """sacrebleu's ``TER`` metric object, computed by :class:`scorekit.text.TER`.

    Examples
    --------
    >>> ter = TER()
    >>> print(ter.corpus_score(["a b c"], [["a b d"]]))
    TER = 33.33
    >>> ter.get_signature().format(short=True)
    '#:1|c:lc|t:tercom|nr:no|pn:yes|as:no|v:scorekit-...'
    """

    _name = "TER"
    _ter = True

    def __init__(
        self,
        normalized: bool = False,
        no_punct: bool = False,
        asian_support: bool = False,
        case_sensitive: bool = False,
        references: Sequence[Sequence[str | None]] | None = None,
    ) -> None:
        self._metric = _TER(
            normalized=normalized,
            no_punct=no_punct,
            asian_support=asian_support,
            case_sensitive=case_sensitive,
        )
        self._refs = references
        self._signature = self._metric.signature()

    def _score(self, references: list[list[str]], hypotheses: list[str]) -> TERScore:
        result = self._metric.result(self._metric.summarize(references, hypotheses))
        self._signature = result.signature
        return TERScore(100 * result.score, result.num_edits, result.ref_length)


def corpus_ter(
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str | None]],
    normalized: bool = False,
    no_punct: bool = False,
    asian_support: bool = False,
    case_sensitive: bool = False,
) -> TERScore:
    """sacrebleu's ``corpus_ter``: TER (0-100) of hypotheses against reference streams.

    Examples
    --------
    >>> corpus_ter(["on the mat the cat sat"], [["the cat sat on the mat"]]).score
    16.66...
    """
    return TER(
        normalized=normalized,
        no_punct=no_punct,
        asian_support=asian_support,
        case_sensitive=case_sensitive,
    ).corpus_score(hypotheses, references)


def sentence_ter(
    hypothesis: str,
    references: Sequence[str],
    normalized: bool = False,
    no_punct: bool = False,
    asian_support: bool = False,
    case_sensitive: bool = False,
) -> TERScore:
    """sacrebleu's ``sentence_ter``: TER of one hypothesis against a list of references.

    Examples
    --------
    >>> sentence_ter("a b c", ["a b d", "a b c"]).score
    0.0
    """
    return TER(
        normalized=normalized,
        no_punct=no_punct,
        asian_support=asian_support,
        case_sensitive=case_sensitive,
    ).sentence_score(hypothesis, references)
