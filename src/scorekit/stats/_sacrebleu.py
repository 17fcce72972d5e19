"""sacrebleu's paired significance tests of BLEU, chrF and TER, reproduced number for number.

:func:`paired_bs` is the paired bootstrap resampling test (``sacrebleu
--paired-bs``) and :func:`paired_ar` the paired approximate randomization test
(``--paired-ar``): several systems against a baseline (the first system). With
the same seed they return sacrebleu 2.6's scores, bootstrap means, 95%
confidence intervals and p-values exactly, and
:func:`~scorekit.stats.format_paired` prints them in the layout of sacrebleu's
text table.

What sacrebleu does, and what is reproduced:

- the statistics of each segment (:func:`scorekit.text.segment_statistics`)
  are counted once per system;
- a bootstrap resample draws segment indices with
  ``numpy.random.default_rng(seed).choice(n, size=(n_samples, n))`` (the same
  indices for the baseline and every system), sums the drawn statistics in
  float32 and scores the sum in float32 arithmetic where sacrebleu's operands
  are float32 (chrF's and TER's scores are float32 numbers, BLEU's precisions
  are); here the sums are ``counts @ statistics`` of a matrix of how often each
  segment is drawn, exact whenever the statistics are integers whose totals
  stay below 2**24 (and summed as sacrebleu sums them otherwise);
- the bootstrap mean is the mean of the sorted resample scores, the 95%
  interval their ``n // 40``-th smallest and largest values, reported as a
  half-width around the mean;
- the bootstrap p-value is ``(c + 1) / (n_samples + 1)`` with ``c`` the
  resamples whose centred absolute score difference exceeds the observed one;
- approximate randomization swaps each segment's statistics between baseline
  and system with probability 1/2 (``rng.integers(2, size=(n_samples, n),
  dtype=bool)``), and counts the trials whose absolute difference exceeds the
  observed one.

Scores are on sacrebleu's scale (0 to 100), as it prints them, unlike the rest
of scorekit (fractions): the point of these functions is to give sacrebleu's
numbers.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorekit.core import Metric, parse_metric
from scorekit.errors import ConfigError, InputError, message, raw
from scorekit.stats._limits import check_cells, check_draws, check_seed
from scorekit.text import BLEU, CHRF, TER, segment_statistics

__all__ = ["SACREBLEU_SEED", "PairedResult", "PairedTest", "paired_ar", "paired_bs"]

SACREBLEU_SEED = 12345
"""sacrebleu's default seed (its ``SACREBLEU_SEED`` environment variable)."""

_EXACT = 2.0**24  # float32 integers are exact below this
_LOG_ZERO = -9999999999  # sacrebleu's log of a zero precision
_BLOCK = 1 << 22  # resample x segment cells per block of drawn counts


@dataclass(frozen=True)
class PairedResult:
    """One system's result for one metric, on sacrebleu's scale (0 to 100).

    Attributes
    ----------
    system : str
        The system's name.
    score : float
        The metric on the whole test set.
    p_value : float or None
        The paired test's p-value against the baseline (None for the baseline).
    mean : float or None
        The mean of the bootstrap resample scores (None without a bootstrap).
    ci : float or None
        Half the width of the 95% interval of the resample scores.
    low, high : float or None
        The ``n // 40``-th smallest and largest resample scores: the interval
        whose half-width is ``ci``.
    """

    system: str
    score: float
    p_value: float | None = None
    mean: float | None = None
    ci: float | None = None
    low: float | None = None
    high: float | None = None


@dataclass(frozen=True)
class PairedTest:
    """The results of a paired test: per metric, one :class:`PairedResult` per system.

    Attributes
    ----------
    test : {"bs", "ar"}
        Paired bootstrap resampling or approximate randomization.
    n_samples : int
        Resamples (``bs``) or trials (``ar``).
    n_ar_confidence : int
        Bootstrap resamples behind the intervals of an ``ar`` test (-1: none).
    seed : int or None
        The seed of the resampling.
    systems : tuple of str
        The system names, the baseline first.
    results : dict
        Metric name (``BLEU``, ``chrF2``, ``TER``...) -> the results of the
        systems, in order.
    signatures : dict
        Metric name -> its signature with the test's settings added.
    """

    test: str
    n_samples: int
    n_ar_confidence: int
    seed: int | None
    systems: tuple[str, ...]
    results: dict[str, tuple[PairedResult, ...]]
    signatures: dict[str, str]


# the metrics in sacrebleu's arithmetic ---------------------------------------------


def _metric(spec: Any) -> Metric[Any]:
    metric = parse_metric(spec)
    where = "paired test"
    if not isinstance(metric, BLEU | CHRF | TER):
        raise ConfigError(
            message(where, "sacrebleu's paired tests score BLEU, chrF or TER", metric.name, None)
        )
    if isinstance(metric, BLEU) and (metric.weights is not None or not metric.clip):
        raise ConfigError(
            message(
                where,
                "BLEU options sacrebleu does not have",
                raw(f"weights={metric.weights}, clip={metric.clip}"),
                "weights=None, clip=True",
            )
        )
    if isinstance(metric, CHRF) and metric.eps_smoothing:
        raise ConfigError(
            message(where, "chrF's eps_smoothing is not reproduced", True, "eps_smoothing=False")
        )
    return metric


def _name(metric: Metric[Any]) -> str:
    if isinstance(metric, CHRF):
        return f"chrF{metric.beta:g}" + "+" * metric.word_order
    return "BLEU" if isinstance(metric, BLEU) else "TER"


def _scores(metric: Metric[Any], sums: NDArray[Any]) -> NDArray[Any]:
    """sacrebleu's scores of rows of summed statistics, in their dtype's arithmetic.

    ``float32`` rows are scored as sacrebleu scores its float32 bootstrap sums;
    integer and ``float64`` rows as it scores Python or numpy sums. The result
    has the dtype of the array sacrebleu builds from its scores.
    """
    if isinstance(metric, BLEU):
        return _bleu(metric, sums)
    if isinstance(metric, CHRF):
        return _chrf(metric, sums)
    return _ter(sums)


def _bleu(metric: BLEU, sums: NDArray[Any]) -> NDArray[np.float64]:
    dt = np.float32 if sums.dtype == np.float32 else np.float64
    order = metric.max_order
    correct = np.asarray(sums[:, 2 : 2 + order], dtype=dt).copy()
    total = np.asarray(sums[:, 2 + order :], dtype=dt).copy()
    none_match = ~(correct != 0).any(axis=1)
    value = metric.smooth_value
    if value is None:
        value = {"floor": 0.1, "add-k": 1}.get(metric.smooth, 0)
    hundred = dt(100.0)
    precisions = np.zeros(correct.shape, dtype=np.float64)
    going = np.ones(len(sums), dtype=bool)
    halvings = np.ones(len(sums), dtype=np.float64)
    used = np.full(len(sums), order)
    with np.errstate(divide="ignore", invalid="ignore"):
        for n in range(order):
            if metric.smooth == "add-k" and n > 0:
                correct[:, n] += dt(value)
                total[:, n] += dt(value)
            t, c = total[:, n], correct[:, n]
            going &= t != 0
            if metric.effective_order:
                used = np.where(going, n + 1, used)
            zero = going & (c == 0)
            p = np.where(going & ~zero, (hundred * c) / t, 0.0)
            if metric.smooth == "exp":
                halvings = np.where(zero, halvings * 2, halvings)
                p = np.where(zero, hundred / (halvings.astype(dt) * t), p)
            elif metric.smooth == "floor":
                p = np.where(zero, dt(100.0 * value) / t, p)
            precisions[:, n] = p
    out = np.zeros(len(sums), dtype=np.float64)
    lengths = np.asarray(sums[:, :2], dtype=np.float64).astype(np.int64).tolist()
    for i, ((sys_len, ref_len), row, k) in enumerate(
        zip(lengths, precisions.tolist(), used.tolist(), strict=True)
    ):
        if none_match[i]:
            continue
        bp = 1.0
        if sys_len < ref_len:
            bp = math.exp(1 - ref_len / sys_len) if sys_len > 0 else 0.0
        logs = [_LOG_ZERO if p == 0.0 else math.log(p) for p in row[:k]]
        out[i] = bp * math.exp(sum(logs) / k)
    return out


def _chrf(metric: CHRF, sums: NDArray[Any]) -> NDArray[Any]:
    dt = np.float32 if sums.dtype == np.float32 else np.float64
    orders = metric.char_order + metric.word_order
    stats = np.asarray(sums, dtype=dt).reshape(len(sums), orders, 3)
    factor = metric.beta**2
    avg_prec = np.zeros(len(sums), dtype=dt)
    avg_rec = np.zeros(len(sums), dtype=dt)
    effective = np.zeros(len(sums), dtype=np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in range(orders):
            hyp, ref, match = stats[:, i, 0], stats[:, i, 1], stats[:, i, 2]
            both = (hyp > 0) & (ref > 0)
            avg_prec = np.where(both, avg_prec + match / hyp, avg_prec)
            avg_rec = np.where(both, avg_rec + match / ref, avg_rec)
            effective += both
        count = effective.astype(dt)
        avg_prec = np.where(effective > 0, avg_prec / count, dt(0))
        avg_rec = np.where(effective > 0, avg_rec / count, dt(0))
        score = dt(1 + factor) * avg_prec * avg_rec
        score = score / (dt(factor) * avg_prec + avg_rec)
        score = dt(100) * score
    defined = (avg_prec + avg_rec) != 0
    out = np.where(defined, score, dt(0))
    # sacrebleu's undefined scores are Python floats: its array of scores is then float64
    return np.asarray(out if defined.all() else out.astype(np.float64))


def _ter(sums: NDArray[Any]) -> NDArray[Any]:
    dt = np.float32 if sums.dtype == np.float32 else np.float64
    edits = np.asarray(sums[:, 0], dtype=dt)
    length = np.asarray(sums[:, 1], dtype=dt)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = dt(100) * (edits / length)
    defined = length > 0
    out = np.where(defined, ratio, np.where(edits > 0, dt(100.0), dt(0.0)))
    return np.asarray(out if defined.all() else out.astype(np.float64))


def _total(metric: Metric[Any], stats: NDArray[Any]) -> float:
    """The score of a whole system: statistics summed in order, as Python numbers."""
    columns = [stats[:, j].tolist() for j in range(stats.shape[1])]
    sums = []
    for column in columns:
        total = 0
        for value in column:
            total += value
        sums.append(total)
    row = np.array([sums], dtype=np.int64 if stats.dtype.kind in "iu" else np.float64)
    if isinstance(metric, TER) and len(stats):
        row = np.array([[int(sums[0]), sums[1]]], dtype=np.float64)
    return float(_scores(metric, row)[0])


# resampling ----------------------------------------------------------------------


def _resample_sums(
    stats: Sequence[NDArray[Any]], idx: NDArray[np.intp]
) -> list[NDArray[np.float32]]:
    """Per matrix of ``stats`` and row of ``idx``, the float32 sum of the drawn rows (sacrebleu's).

    sacrebleu sums the drawn float32 rows; when the rows are integers whose
    totals stay below 2**24 that sum is exact, and it is computed here as
    ``counts @ stats`` (``counts[b, i]``: how often resample ``b`` draws row
    ``i``), the counts of a block of resamples made once for every matrix.
    Other matrices are summed as sacrebleu sums them.
    """
    n_samples, n = idx.shape
    tables = [np.asarray(m, dtype=np.float32) for m in stats]
    exact = [
        float(np.abs(t).max(initial=0.0)) * n < _EXACT and bool(np.array_equal(t, np.round(t)))
        for t in tables
    ]
    out = [np.empty((n_samples, t.shape[1]), dtype=np.float32) for t in tables]
    fast = [i for i, ok in enumerate(exact) if ok]
    if fast and n_samples:
        stacked = np.concatenate([tables[i] for i in fast], axis=1).astype(np.float64)
        edges = np.cumsum([0] + [tables[i].shape[1] for i in fast])
        block = max(1, _BLOCK // max(n, 1))
        for start in range(0, n_samples, block):
            rows = idx[start : start + block]
            offsets = np.arange(len(rows))[:, None] * n
            counts = np.bincount((rows + offsets).ravel(), minlength=len(rows) * n)
            sums = counts.reshape(len(rows), n).astype(np.float64) @ stacked
            for j, i in enumerate(fast):
                out[i][start : start + len(rows)] = sums[:, edges[j] : edges[j + 1]]
    for i, ok in enumerate(exact):
        if not ok:
            for b, row in enumerate(idx):
                out[i][b] = tables[i][row].sum(0)
    return out


def _estimate(scores: NDArray[Any]) -> tuple[float, float, float, float]:
    """Mean, half-width, low and high of the 95% interval of resample scores, as sacrebleu."""
    ordered = np.sort(scores)
    n = len(ordered)
    cut = n // 40
    low, high = ordered[cut], ordered[n - cut - 1]
    return float(ordered.mean()), float(0.5 * (high - low)), float(low), float(high)


def _p_value(values: NDArray[Any], observed: float) -> float:
    exceed = int(np.sum(values > observed))
    return (exceed + 1) / (len(values) + 1)


def _rng_seed(seed: int | None) -> int | None:
    if seed is None:
        return int(np.random.SeedSequence().generate_state(1)[0])
    return check_seed(seed, "paired test", none=True)


def _systems(
    references: Any, systems: Mapping[str, Sequence[str]] | Sequence[Sequence[str]]
) -> tuple[list[str], list[list[str]], int]:
    if isinstance(systems, Mapping):
        names = [str(k) for k in systems]
        hyps = [list(v) for v in systems.values()]
    else:
        if isinstance(systems, str):
            raise InputError(
                message("paired test", "systems is one string", systems, "a list of systems")
            )
        hyps = [list(v) for v in systems]
        names = ["Baseline"] + [f"System {i}" for i in range(1, len(hyps))]
    if len(hyps) < 2:
        raise InputError(
            message(
                "paired test",
                "too few systems",
                raw(f"{len(hyps)} system{'s' if len(hyps) != 1 else ''}"),
                "a baseline and at least one system",
            )
        )
    try:
        n_refs = len(references)
    except TypeError:
        raise InputError(
            message("paired test", "references is not a sequence", references, "one per segment")
        ) from None
    for i, h in enumerate(hyps):
        if len(h) != n_refs:
            raise InputError(
                message(
                    "paired test",
                    f"system {i} ({names[i]}) has another number of segments than the references",
                    raw(f"{len(h)} segments, {n_refs} references"),
                    f"{n_refs} segments, one per reference entry",
                )
            )
    if n_refs == 0:
        raise InputError(message("paired test", "no segments", raw("0 segments"), ">= 1"))
    return names, hyps, n_refs


def _count(value: Any, name: str, n: int) -> int:
    """Resamples or trials: 1 to 1,000,000, and at most 2**27 cells of ``n`` segments each."""
    count = check_draws(value, "paired test", name)
    check_cells(count, n, "paired test", name, "segments")
    return count


def _same_as_baseline(
    names: Sequence[str], per_metric: Mapping[str, Sequence[NDArray[Any]]]
) -> None:
    """Warn once about the systems whose statistics equal the baseline's on every segment."""
    same: list[str] = []
    for i in range(1, len(names)):
        equal = [k for k, s in per_metric.items() if np.array_equal(s[i], s[0])]
        if len(equal) == len(per_metric):
            same.append(repr(names[i]))
        elif equal:
            same.append(f"{names[i]!r} ({', '.join(equal)})")
    if not same:
        return
    systems = ", ".join(same)
    warnings.warn(
        message(
            "paired test",
            f"every difference from the baseline {names[0]!r} is zero for {systems}: sacrebleu "
            "counts the resamples whose difference exceeds the observed one, so the p-value "
            "is 1 / (n_samples + 1) and such a system is marked significant though it does not "
            "differ from the baseline",
            None,
            None,
        ),
        UserWarning,
        stacklevel=3,
    )


def _signature(metric: Metric[Any], references: Any, extra: list[tuple[str, Any]]) -> str:
    """The metric's signature with the test's settings after ``nrefs``, as sacrebleu's."""
    counts = {1 if isinstance(r, str) else len(r) for r in references}
    nrefs = str(counts.pop()) if len(counts) == 1 else "var"
    parts = str(metric.signature(None)).split("|")  # type: ignore[attr-defined]
    added = [f"{k}:{v}" for k, v in extra]
    return "|".join([f"nrefs:{nrefs}", *added, *parts[1:]])


# the tests ----------------------------------------------------------------------


def paired_bs(
    references: Any,
    systems: Mapping[str, Sequence[str]] | Sequence[Sequence[str]],
    *,
    metrics: Sequence[Any] = ("bleu",),
    n_samples: int = 1000,
    seed: int | None = SACREBLEU_SEED,
) -> PairedTest:
    """sacrebleu's paired bootstrap resampling test (``--paired-bs``) of systems against a baseline.

    Parameters
    ----------
    references : sequence
        Per segment one reference string or a list of them (scorekit's order;
        sacrebleu's reference streams are ``list(zip(*streams))``).
    systems : mapping of name to hypotheses, or sequence of hypotheses
        The baseline first. Unnamed systems are called ``Baseline``,
        ``System 1``, ... as sacrebleu names systems read from standard input.
    metrics : sequence of metrics or names, default ("bleu",)
        BLEU, chrF (chrF++) or TER configurations, for example
        ``["bleu", "chrf", "ter"]`` (sacrebleu's order in its table is the
        order given).
    n_samples : int, default 1000
        Bootstrap resamples (``--paired-bs-n``): 1 to 1,000,000, and the drawn
        indices (``n_samples`` times the segments) at most 2**27 cells (1 GiB).
    seed : int or None, default 12345
        sacrebleu's ``SACREBLEU_SEED``: an integer (Python or numpy) in
        ``[0, 2**64)``. None draws a seed from the operating
        system (one seed for all systems; sacrebleu draws one per system).
        sacrebleu treats a seed of 0 as None for the systems; here 0 is a seed.

    Returns
    -------
    PairedTest
        Per metric, the baseline's score, mean and interval, and each system's
        score, mean, interval and p-value, all on sacrebleu's 0-100 scale.

    Raises
    ------
    InputError
        A system with another number of segments than the references (naming
        the system's index and both lengths), fewer than two systems.
    ConfigError
        A metric that is not BLEU, chrF or TER, or options sacrebleu does not
        have; ``n_samples`` below 1 or above the ceilings; a seed outside
        ``[0, 2**64)``.

    Warns
    -----
    UserWarning
        A system whose statistics are the baseline's on every segment (an
        identical system): every difference is zero, and sacrebleu's p-value,
        which counts differences above the observed one, is then
        ``1 / (n_samples + 1)``, marked significant; the warning names the
        systems (and the metrics, when only some have no difference).

    Examples
    --------
    >>> refs = ["the cat sat on the mat", "a dog runs", "it is red", "go home now"]
    >>> systems = {"a": ["the cat sat on a mat", "a dog runs", "it is blue", "go home"],
    ...            "b": ["a cat is on the mat", "dogs run", "it is red", "now go home"]}
    >>> test = paired_bs(refs, systems, metrics=["chrf"], n_samples=100)
    >>> [round(r.score, 2) for r in test.results["chrF2"]]
    [64.76, 54.98]
    >>> round(test.results["chrF2"][1].p_value, 4)
    0.2079
    """
    names, hyps, n = _systems(references, systems)
    n_samples = _count(n_samples, "n_samples", n)
    chosen = [_metric(m) for m in metrics]
    rng_seed = _rng_seed(seed)
    idx = np.random.default_rng(rng_seed).choice(n, size=(n_samples, n), replace=True)
    stats = [[segment_statistics(m, references, h) for h in hyps] for m in chosen]
    _same_as_baseline(names, {_name(m): s for m, s in zip(chosen, stats, strict=True)})
    sums = iter(_resample_sums([s for per_system in stats for s in per_system], idx))
    results: dict[str, tuple[PairedResult, ...]] = {}
    signatures: dict[str, str] = {}
    for metric, per_system in zip(chosen, stats, strict=True):
        totals = [_total(metric, s) for s in per_system]
        scores = [_scores(metric, next(sums)) for _ in per_system]
        base = scores[0]
        mean, ci, low, high = _estimate(base)
        rows = [PairedResult(names[0], totals[0], None, mean, ci, low, high)]
        for i in range(1, len(hyps)):
            mean, ci, low, high = _estimate(scores[i])
            diffs = np.abs(scores[i] - base)
            p = _p_value(diffs - diffs.mean(), abs(totals[0] - totals[i]))
            rows.append(PairedResult(names[i], totals[i], p, mean, ci, low, high))
        name = _name(metric)
        results[name] = tuple(rows)
        signatures[name] = _signature(
            metric, references, [("bs", n_samples), ("seed", _seed_text(seed))]
        )
    return PairedTest("bs", n_samples, -1, seed, tuple(names), results, signatures)


def paired_ar(
    references: Any,
    systems: Mapping[str, Sequence[str]] | Sequence[Sequence[str]],
    *,
    metrics: Sequence[Any] = ("bleu",),
    n_samples: int = 10000,
    n_ar_confidence: int = -1,
    seed: int | None = SACREBLEU_SEED,
) -> PairedTest:
    """sacrebleu's paired approximate randomization test (``--paired-ar``) against a baseline.

    Parameters, errors and warnings are those of :func:`paired_bs`, with
    ``n_samples`` trials (``--paired-ar-n``, default 10000) and
    ``n_ar_confidence`` bootstrap resamples for intervals around each system's
    score (-1: none, as sacrebleu's command line; 0: 1000), each under the
    same ceilings as :func:`paired_bs`'s ``n_samples``.

    Examples
    --------
    >>> refs = ["the cat sat on the mat", "a dog runs", "it is red", "go home now"]
    >>> systems = [["the cat sat on a mat", "a dog runs", "it is blue", "go home"],
    ...            ["a cat is on the mat", "dogs run", "it is red", "now go home"]]
    >>> test = paired_ar(refs, systems, metrics=["ter"], n_samples=200)
    >>> [(r.system, round(r.score, 2)) for r in test.results["TER"]]
    [('Baseline', 20.0), ('System 1', 40.0)]
    >>> round(test.results["TER"][1].p_value, 4)
    0.2736
    """
    names, hyps, n = _systems(references, systems)
    n_samples = _count(n_samples, "n_samples", n)
    if isinstance(n_ar_confidence, bool) or not isinstance(n_ar_confidence, int | np.integer):
        raise ConfigError(
            message("paired test", "invalid n_ar_confidence", n_ar_confidence, "an integer")
        )
    confidence = 1000 if n_ar_confidence == 0 else int(n_ar_confidence)
    if confidence > 0:
        _count(confidence, "n_ar_confidence", n)
    chosen = [_metric(m) for m in metrics]
    rng_seed = _rng_seed(seed)
    rng = np.random.default_rng(rng_seed)
    swap = rng.integers(2, size=(n_samples, n), dtype=bool)
    keep = ~swap
    sys_idx = rng.choice(n, size=(confidence, n), replace=True) if confidence > 0 else None
    base_idx = None
    if confidence > 0:
        base_idx = np.random.default_rng(rng_seed).choice(n, size=(confidence, n), replace=True)
    results: dict[str, tuple[PairedResult, ...]] = {}
    signatures: dict[str, str] = {}
    compared: dict[str, list[NDArray[Any]]] = {}
    for metric in chosen:
        stats = [segment_statistics(metric, references, h) for h in hyps]
        compared[_name(metric)] = stats
        if isinstance(metric, TER):
            stats = [s.astype(np.float64) for s in stats]
        totals = [_total(metric, s) for s in stats]
        rows = [_with_interval(PairedResult(names[0], totals[0]), metric, stats[0], base_idx)]
        for i in range(1, len(hyps)):
            a = _scores(metric, swap @ stats[0] + keep @ stats[i])
            b = _scores(metric, keep @ stats[0] + swap @ stats[i])
            p = _p_value(np.abs(a - b), abs(totals[0] - totals[i]))
            result = PairedResult(names[i], totals[i], p)
            rows.append(_with_interval(result, metric, stats[i], sys_idx))
        name = _name(metric)
        results[name] = tuple(rows)
        extra: list[tuple[str, Any]] = []
        if confidence > 0:
            extra.append(("bs", confidence))
        extra += [("ar", n_samples), ("seed", _seed_text(seed))]
        signatures[name] = _signature(metric, references, extra)
    _same_as_baseline(names, compared)
    return PairedTest("ar", n_samples, confidence, seed, tuple(names), results, signatures)


def _with_interval(
    result: PairedResult, metric: Metric[Any], stats: NDArray[Any], idx: NDArray[np.intp] | None
) -> PairedResult:
    if idx is None:
        return result
    mean, ci, low, high = _estimate(_scores(metric, _resample_sums([stats], idx)[0]))
    return PairedResult(result.system, result.score, result.p_value, mean, ci, low, high)


def _seed_text(seed: int | None) -> str:
    return "none" if seed is None else str(seed)
