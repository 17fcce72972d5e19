"""Perplexity from per-token log-probabilities or from logits and target ids.

The state is the summed negative log-likelihood and the token count, so the
corpus perplexity of merged chunks equals the in-memory one. Per-sequence
perplexities need the sequence boundaries and are returned by
:func:`perplexity` (and :meth:`Perplexity.details`), not kept in the state.
"""

from __future__ import annotations

import inspect
import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Literal

import numpy as np
from numpy.typing import NDArray

from scorekit.core import Check, Explanation, Metric, Range, State, register, state_field
from scorekit.errors import ConfigError, InputError, UndefinedMetricWarning, choices, message, raw
from scorekit.text._segments import unit_weights

__all__ = ["NLLSums", "Perplexity", "PerplexityResult", "perplexity"]

Base = Literal["e", 2]
_BASES: dict[Any, str] = {"e": "e", math.e: "e", 2: "2", "2": "2"}
_BLOCK = 1 << 22  # logits elements per log-softmax block


def _base_key(base: Any) -> str | None:
    """The state's name of a base (``e`` or ``2``), None for another value."""
    if isinstance(base, bool):
        return None
    try:
        return _BASES.get(base)
    except TypeError:
        return None


def _base_option(metric: Any, base: Any) -> Any:
    """A base option: e (natural logarithms) or 2, as given."""
    if _base_key(base) is None:
        raise ConfigError(message(metric.name, "unknown base", base, choices(("e", 2))))
    return base


@dataclass(frozen=True, eq=False)
class NLLSums(State):
    """Summed negative log-likelihood (in units of ``base``) and the number of tokens."""

    base: str = state_field("same", check="text", allowed=("e", "2"))
    tokens: int = state_field("sum", check="count", default=0)
    nll: float = state_field("sum", check="finite", default=0.0)

    def _check(self) -> None:
        # log-probabilities are <= 0, so the summed NLL is >= 0 but for rounding
        if self.nll < -1e-9 * max(self.tokens, 1):
            raise self._invalid("nll", "negative log-likelihood below 0", self.nll, ">= 0")
        if self.tokens == 0 and self.nll:
            raise self._invalid("nll", "a log-likelihood without tokens", self.nll, "0")


@dataclass(frozen=True)
class PerplexityResult:
    """Corpus and per-sequence perplexity of one batch.

    Attributes
    ----------
    corpus : float
        ``base ** (total NLL / total tokens)``: token-weighted over the corpus.
    per_sequence : ndarray of float
        ``base ** (NLL_i / tokens_i)`` for each sequence; ``nan`` for a sequence
        without tokens.
    mean_per_sequence : float
        The unweighted mean of ``per_sequence`` over sequences with tokens.
    cross_entropy : float
        Total NLL / total tokens, in nats (base e) or bits (base 2): PyTorch's
        ``cross_entropy(..., reduction="mean")`` for base e.
    tokens : int
        The number of tokens counted.
    """

    corpus: float
    per_sequence: NDArray[np.float64]
    mean_per_sequence: float
    cross_entropy: float
    tokens: int


def _power(base: str, x: Any) -> Any:
    with np.errstate(over="ignore"):
        return np.exp2(x) if base == "2" else np.exp(x)


@register(
    "perplexity",
    higher_is_better=False,
    bounds=(1.0, math.inf),
    inputs="log_probs",
    aliases=("ppl",),
    variant="base",
    variants=("e", "2"),
)
@dataclass(frozen=True)
class Perplexity(Metric[NLLSums]):
    """Perplexity: the exponentiated mean negative log-likelihood per token over the corpus.

    .. math:: \\mathrm{PPL} = b^{\\,-\\frac{1}{N} \\sum_{s} \\sum_{t \\in s} \\log_b p(x_t)}

    where :math:`N` counts the tokens of all sequences (token-weighted, not the
    mean of per-sequence perplexities; those are in :meth:`details`).

    Parameters
    ----------
    base : {"e", 2}, default "e"
        The base :math:`b` of the log-probabilities and of the power. Given
        logits, log-softmax is natural and the NLL is converted to bits for base
        2, which leaves the perplexity unchanged.
    ignore_index : int, default -100
        With ``target``: positions holding this id are left out, as PyTorch's
        ``cross_entropy(ignore_index=-100)``.

    Notes
    -----
    Input is one of

    - ``log_probs``: a list of 1-D arrays (one per sequence, any lengths) or a
      padded 2-D array ``(sequences, positions)`` with an optional ``mask`` of
      the same shape (true or 1 = token, false or 0 = padding);
    - ``logits`` and ``target``: a list of ``(length, vocabulary)`` arrays and a
      list of 1-D integer arrays, or a padded ``(sequences, positions,
      vocabulary)`` array and a ``(sequences, positions)`` array; ``mask`` and
      ``ignore_index`` drop positions.

    The NLL of a position from logits is PyTorch's: ``logsumexp(x) - x[target]``
    with the maximum subtracted before exponentiation, computed in float64.
    Log-probabilities must be finite and at most 0 where counted (padding may
    hold anything). A sequence without tokens has per-sequence perplexity
    ``nan`` (with an :class:`~scorekit.errors.UndefinedMetricWarning`) and is
    left out of the mean; input without any token raises
    :class:`~scorekit.errors.InputError`.

    A bootstrap resamples sequences (the unit is the ``sequence``): the
    tokens of a sequence are not independent draws, so they are kept together,
    and a replicate's state sums each sequence's NLL and tokens as often as the
    replicate draws it.

    References
    ----------
    Jelinek et al., "Perplexity -- a measure of the difficulty of speech
    recognition tasks", JASA 1977; the NLL agrees with PyTorch's
    ``torch.nn.functional.cross_entropy``.

    Examples
    --------
    >>> import numpy as np
    >>> Perplexity().score([np.log([0.5, 0.25]), np.log([0.5])])
    2.519...
    >>> Perplexity(base=2).score([np.log2([0.5, 0.25]), np.log2([0.5])])
    2.519...
    >>> logits = np.array([[[2.0, 0.0], [0.0, 0.0]]])
    >>> Perplexity().score(logits=logits, target=[[0, -100]])
    1.135...
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="Perplexity: the exponential of the mean negative log-likelihood per token, "
        "over the whole corpus (token-weighted).",
        formula="PPL = exp(-sum_tokens log p(token) / number of tokens)",
        convention="From per-token log-probabilities (a list of arrays, or a padded array with a "
        "mask) or from logits and target ids (log-softmax, ignore_index like PyTorch). base='2' "
        "reads log2 probabilities. The function perplexity() also returns per-sequence "
        "perplexities and their mean (named apart from the corpus value). The state is the "
        "summed NLL and the token count.",
        reference="PyTorch's cross_entropy arithmetic (mean NLL over non-ignored tokens).",
    )

    base: Annotated[Base | str | float, Check(_base_option)] = "e"
    ignore_index: Annotated[
        int, Range(problem="ignore_index must be an integer", expected="")
    ] = -100

    unit: ClassVar[str] = "sequence"

    @property
    def _base(self) -> str:
        return _base_key(self.base) or "e"

    def empty(self) -> NLLSums:
        """The state of no tokens."""
        return NLLSums(base=self._base)

    def _token_nll(
        self, log_probs: Any, mask: Any, logits: Any, target: Any
    ) -> tuple[NDArray[np.float64], NDArray[np.int64], int]:
        """Per-token NLL in units of the base, each token's sequence, the number of sequences."""
        if logits is not None or target is not None:
            if log_probs is not None:
                raise InputError(
                    message(
                        self.name,
                        "both log_probs and logits given",
                        raw("log_probs and logits/target"),
                        "one of them",
                    )
                )
            nll, seq, n = _nll_from_logits(self.name, logits, target, mask, self.ignore_index)
            if self._base == "2":
                nll = nll / math.log(2)
            return nll, seq, n
        lp, seq, n = _select(self.name, "log_probs", log_probs, mask, np.float64, 0)
        _check_log_probs(self.name, lp)
        return -lp, seq, n

    def summarize(
        self, log_probs: Any = None, mask: Any = None, *, logits: Any = None, target: Any = None
    ) -> NLLSums:
        """Sum the NLL and count the tokens of one batch."""
        nll, _, _ = self._token_nll(log_probs, mask, logits, target)
        return NLLSums(base=self._base, tokens=len(nll), nll=float(nll.sum()))

    def count_units(self, *batch: Any, **kwargs: Any) -> int:
        """The number of sequences of one batch (a bootstrap resamples whole sequences)."""
        _, _, n = self._token_nll(*self._inputs(batch, kwargs))
        return n

    def summarize_replicates(
        self, *batch: Any, weights: NDArray[np.int64], **kwargs: Any
    ) -> list[NLLSums]:
        """States of replicates of one batch: sequence ``i`` counts ``weights[b, i]`` times.

        Each sequence's NLL and token count are computed once; a replicate's
        state is their sum weighted by the sequence weights.
        """
        nll, seq, n = self._token_nll(*self._inputs(batch, kwargs))
        w = unit_weights(self, weights, n).astype(np.float64)
        seq_nll = np.bincount(seq, weights=nll, minlength=n)
        seq_tokens = np.bincount(seq, minlength=n).astype(np.float64)
        nll_sums = w @ seq_nll
        token_sums = np.rint(w @ seq_tokens).astype(np.int64)
        return [
            NLLSums(base=self._base, tokens=int(t), nll=float(v) if t else 0.0)
            for t, v in zip(token_sums.tolist(), nll_sums.tolist(), strict=True)
        ]

    def _inputs(self, batch: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any, Any, Any]:
        """``(log_probs, mask, logits, target)`` of a call, or the metric's error for others."""
        try:
            bound = inspect.signature(self.summarize).bind(*batch, **kwargs)
        except TypeError:
            self._summarize_checked(batch, kwargs)  # raises the metric's own input error
            raise
        args = bound.arguments
        return args.get("log_probs"), args.get("mask"), args.get("logits"), args.get("target")

    def compute(self, state: NLLSums) -> float:
        """The corpus perplexity ``base ** (nll / tokens)``."""
        if state.tokens == 0:
            raise InputError(
                message(self.name, "empty input", raw("0 tokens"), "at least one token")
            )
        return float(_power(state.base, state.nll / state.tokens))

    def details(
        self, log_probs: Any = None, mask: Any = None, *, logits: Any = None, target: Any = None
    ) -> PerplexityResult:
        """Corpus, per-sequence and mean per-sequence perplexity of one batch.

        Examples
        --------
        >>> import numpy as np
        >>> lp = np.log([[0.5, 0.25, 1.0], [0.5, 1.0, 1.0]])
        >>> r = Perplexity().details(lp, mask=[[1, 1, 0], [1, 0, 0]])
        >>> r.corpus, r.per_sequence, r.mean_per_sequence
        (2.519..., array([2.828..., 2. ]), 2.414...)
        """
        nll, seq, n = self._token_nll(log_probs, mask, logits, target)
        corpus = self.compute(NLLSums(base=self._base, tokens=len(nll), nll=float(nll.sum())))
        seq_nll = np.bincount(seq, weights=nll, minlength=n)
        seq_tokens = np.bincount(seq, minlength=n)
        has = seq_tokens > 0
        per_sequence = np.full(n, np.nan)
        per_sequence[has] = _power(self._base, seq_nll[has] / seq_tokens[has])
        if not has.all():
            warnings.warn(
                f"{self.name}: {int((~has).sum())} sequences have no tokens; their perplexity "
                "is nan and they are left out of mean_per_sequence.",
                UndefinedMetricWarning,
                stacklevel=2,
            )
        return PerplexityResult(
            corpus=corpus,
            per_sequence=per_sequence,
            mean_per_sequence=float(per_sequence[has].mean()),
            cross_entropy=float(nll.sum()) / len(nll),
            tokens=len(nll),
        )


def perplexity(
    log_probs: Any = None,
    mask: Any = None,
    *,
    logits: Any = None,
    target: Any = None,
    ignore_index: int = -100,
    base: Base = "e",
) -> PerplexityResult:
    """Corpus perplexity, per-sequence perplexities and their mean; see :class:`Perplexity`.

    Examples
    --------
    >>> import numpy as np
    >>> r = perplexity([np.log([0.5, 0.25]), np.log([0.5])])
    >>> r.corpus, r.mean_per_sequence
    (2.519..., 2.414...)
    >>> r.per_sequence
    array([2.828..., 2. ])
    """
    return Perplexity(base=base, ignore_index=ignore_index).details(
        log_probs, mask, logits=logits, target=target
    )


# input handling ------------------------------------------------------------------


def _as_float(metric: str, name: str, values: Any, dtype: Any) -> NDArray[Any]:
    try:
        arr = np.asarray(values)
    except (ValueError, TypeError) as exc:
        raise InputError(
            message(metric, f"{name} is not a rectangular array", raw(str(exc)), "an array")
        ) from None
    if arr.dtype == object and arr.size and any(v is None for v in arr.ravel()):
        raise InputError(message(metric, f"{name} contains None", None, "numbers"))
    if dtype is np.int64:
        if arr.size and arr.dtype.kind not in "iu":
            raise InputError(
                message(metric, f"{name} must hold integer ids", raw(str(arr.dtype)), "integers")
            )
        return arr.astype(np.int64, copy=False)
    if arr.dtype.kind not in "biuf" and arr.size:
        raise InputError(
            message(metric, f"{name} must be numeric", raw(str(arr.dtype)), "real numbers")
        )
    return arr.astype(np.float64, copy=False)


def _as_mask(metric: str, mask: Any, shape: tuple[int, ...], what: str) -> NDArray[np.bool_]:
    try:
        m = np.asarray(mask)
    except (ValueError, TypeError) as exc:
        raise InputError(
            message(metric, "mask is not a rectangular array", raw(str(exc)), "an array")
        ) from None
    if m.shape != shape:
        raise InputError(
            message(metric, "mask has the wrong shape", raw(str(m.shape)), f"{shape} as {what}")
        )
    if m.dtype.kind == "b":
        return m
    if m.dtype.kind in "iuf" and np.isin(m, (0, 1)).all():
        return m.astype(bool)
    raise InputError(message(metric, "mask must be boolean or 0/1", raw(str(m.dtype)), "0/1"))


def _is_ragged(values: Any) -> bool:
    return isinstance(values, Sequence) and not isinstance(values, str | bytes)


def _select(
    metric: str, name: str, values: Any, mask: Any, dtype: Any, inner: int
) -> tuple[NDArray[Any], NDArray[np.int64], int]:
    """The counted entries of padded or ragged per-sequence data, with their sequences.

    ``inner`` is the number of dimensions of one position (0 for ids and
    log-probabilities, 1 for a logits row); sequences have ``inner + 1``
    dimensions and a padded batch ``inner + 2``.
    """
    if values is None:
        raise InputError(message(metric, f"{name} is missing", None, "an array"))
    if _is_ragged(values):
        seqs = [_as_float(metric, f"{name}[{i}]", v, dtype) for i, v in enumerate(values)]
        for i, s in enumerate(seqs):
            if s.ndim != inner + 1:
                raise InputError(
                    message(
                        metric,
                        f"{name}[{i}] has the wrong number of dimensions",
                        raw(f"{s.ndim}-D"),
                        f"{inner + 1}-D per sequence",
                    )
                )
        n = len(seqs)
        lengths = np.array([len(s) for s in seqs], dtype=np.int64)
        if inner and len({s.shape[1:] for s in seqs}) > 1:
            raise InputError(
                message(
                    metric,
                    f"{name} sequences differ in vocabulary size",
                    raw(str(sorted({s.shape[1] for s in seqs}))),
                    "one size",
                )
            )
        tail = seqs[0].shape[1:] if seqs else ((0,) if inner else ())
        flat = np.concatenate(seqs) if seqs else np.zeros((0, *tail))
        seq = np.repeat(np.arange(n, dtype=np.int64), lengths)
        if mask is not None:
            if not _is_ragged(mask) or len(mask) != n:
                raise InputError(
                    message(
                        metric,
                        "mask has the wrong shape",
                        raw(type(mask).__name__),
                        f"a list of {n} 1-D masks matching {name}",
                    )
                )
            keep = np.concatenate(
                [
                    _as_mask(metric, m, (int(k),), f"{name}[{i}]")
                    for i, (m, k) in enumerate(zip(mask, lengths, strict=True))
                ]
                or [np.zeros(0, dtype=bool)]
            )
            return flat[keep], seq[keep], n
        return flat, seq, n
    arr = _as_float(metric, name, values, dtype)
    if arr.ndim != inner + 2:
        raise InputError(
            message(
                metric,
                f"{name} has the wrong number of dimensions",
                raw(f"{arr.ndim}-D"),
                f"a list of {inner + 1}-D arrays or a padded {inner + 2}-D array",
            )
        )
    n = arr.shape[0]
    if mask is None:
        keep = np.ones(arr.shape[:2], dtype=bool)
    else:
        keep = _as_mask(metric, mask, arr.shape[:2], name)
    seq, _ = np.nonzero(keep)
    return arr[keep], seq.astype(np.int64), n


def _check_log_probs(metric: str, lp: NDArray[np.float64]) -> None:
    bad = ~np.isfinite(lp)
    if bad.any():
        v = lp[bad][0]
        raise InputError(
            message(
                metric,
                "log-probabilities are not finite",
                raw(f"{v} ({int(bad.sum())} values)"),
                "finite values at counted positions",
            )
        )
    if lp.size and lp.max() > 0:
        raise InputError(
            message(
                metric,
                "log-probabilities above 0",
                raw(f"{lp.max()} ({int((lp > 0).sum())} values)"),
                "log p <= 0 (pass log-probabilities, not negative log-likelihoods)",
            )
        )


def _nll_from_logits(
    metric: str, logits: Any, target: Any, mask: Any, ignore_index: int
) -> tuple[NDArray[np.float64], NDArray[np.int64], int]:
    if logits is None or target is None:
        missing = "logits" if logits is None else "target"
        raise InputError(message(metric, f"{missing} is missing", None, "logits with target"))
    if _is_ragged(logits):
        if not _is_ragged(target) or len(logits) != len(target):
            raise InputError(
                message(
                    metric,
                    "logits and target differ in shape",
                    raw(f"{len(logits)} logits sequences"),
                    "one target sequence per logits sequence",
                )
            )
        shapes = [np.shape(x)[:1] for x in logits]
        lengths = [np.shape(x)[:1] for x in target]
        if shapes != lengths:
            raise InputError(
                message(
                    metric,
                    "logits and target differ in length",
                    raw(f"{shapes} vs {lengths}"),
                    "one logits row per target id",
                )
            )
        t, t_seq, n = _select(metric, "target", target, mask, np.int64, 0)
        x, _, _ = _select(metric, "logits", logits, mask, np.float64, 1)
    else:
        arr = _as_float(metric, "logits", logits, np.float64)
        ids = _as_float(metric, "target", target, np.int64)
        if arr.ndim != 3 or arr.shape[:2] != ids.shape:
            raise InputError(
                message(
                    metric,
                    "logits and target differ in shape",
                    raw(f"{arr.shape} and {ids.shape}"),
                    "(sequences, positions, vocabulary) and (sequences, positions)",
                )
            )
        t, t_seq, n = _select(metric, "target", ids, mask, np.int64, 0)
        x, _, _ = _select(metric, "logits", arr, mask, np.float64, 1)
    keep = t != ignore_index
    x, t, t_seq = x[keep], t[keep], t_seq[keep]
    vocab = x.shape[1] if x.ndim == 2 else 0
    out_of_range = (t < 0) | (t >= vocab)
    if out_of_range.any():
        raise InputError(
            message(
                metric,
                "target id out of range",
                int(t[out_of_range][0]),
                f"0 <= id < {vocab} (the vocabulary size) or ignore_index={ignore_index}",
            )
        )
    if np.isnan(x).any() or np.isposinf(x).any():
        raise InputError(
            message(metric, "logits are nan or +inf", None, "finite logits (or -inf) where counted")
        )
    nll = np.empty(len(t))
    step = max(1, _BLOCK // max(vocab, 1))
    for lo in range(0, len(t), step):
        block = x[lo : lo + step]
        top = block.max(axis=1)
        shifted = block - top[:, None]
        with np.errstate(divide="ignore"):
            log_sum = np.log(np.exp(shifted).sum(axis=1))
        picked = shifted[np.arange(len(block)), t[lo : lo + step]]
        nll[lo : lo + step] = log_sum - picked
    if not np.isfinite(nll).all():
        raise InputError(
            message(
                metric,
                "a target token has probability 0",
                raw(f"{int((~np.isfinite(nll)).sum())} positions"),
                "a finite logit for every counted target",
            )
        )
    return nll, t_seq, n
