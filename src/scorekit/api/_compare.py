"""Several systems against a baseline, from files: the calls of ``--test`` on the commands.

:func:`compare_table` compares columns of one file (``scorekit eval --test``),
:func:`compare_runs` TREC runs against one qrels file (``scorekit rank`` with
several runs), and :func:`compare_text` hypothesis files against the same
references (``scorekit text`` with several ``--hyps``). Each reads the inputs
into memory and runs :func:`scorekit.stats.compare` for every metric, the first
system being the baseline.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from scorekit import io
from scorekit.api._ci import check_resampling
from scorekit.classification import LABEL_KINDS, TASKS, TableTask, default_metrics, task_arguments
from scorekit.core import EvaluationResult, Metric
from scorekit.errors import ConfigError, ScorekitError, choices, message, raw
from scorekit.stats import (
    ALTERNATIVES,
    CORRECTION_ALIASES,
    CORRECTIONS,
    ONE_SIDED,
    Comparison,
    check_cells,
    check_draws,
    check_seed,
    compare,
    parse_test,
)

__all__ = [
    "Paired",
    "compare_runs",
    "compare_table",
    "compare_text",
    "paired_text",
]


@dataclasses.dataclass(frozen=True)
class Paired:
    """How to compare systems: the test, its alternative, its correction and its randomness.

    Parameters
    ----------
    test
        One of :data:`scorekit.stats.TESTS` (``"paired_bootstrap"``,
        ``"randomization"``, ``"t"``, ``"wilcoxon"``, ``"fisher"``,
        ``"mcnemar"``, ``"delong"``, ``"tukey"``), with the options of
        :data:`scorekit.stats.TEST_OPTIONS` after a colon
        (``"wilcoxon:zero_method=pratt,method=exact,correction=true"``).
    correction
        ``None`` or one of :data:`scorekit.stats.CORRECTIONS` (``"holm"``,
        ``"bonferroni"``, ``"hochberg"``, ``"sidak"``, ``"holm_sidak"``,
        ``"bh"``, ``"by"``, ``"two_stage_bh"``): p-values adjusted for the
        several systems compared with the baseline (see
        :func:`scorekit.stats.adjust`; ``"two_stage_bh"`` at the level
        ``1 - confidence``). statsmodels' names (``"fdr_bh"``...,
        :data:`scorekit.stats.CORRECTION_ALIASES`) become scorekit's.
    n_resamples, confidence, seed
        Replicates or permutations of the randomized tests (1 to 1,000,000),
        the coverage of the difference's interval, and the seed (an integer in
        ``[0, 2**64)``).
    sampling
        The paired bootstrap's ``"poisson"`` weights or sacrebleu's
        ``"resample"`` of indices.
    key
        A column of unit ids (:func:`compare_table` with Poisson sampling).
    alternative
        ``"two-sided"``, ``"greater"`` (each system better than the baseline:
        its metric larger) or ``"less"``, for the tests of
        :data:`scorekit.stats.ONE_SIDED`.

    Examples
    --------
    >>> Paired("t", "holm").test
    't'
    >>> Paired("t", "fdr_bh").correction
    'bh'
    >>> Paired("wilcoxon:zero_method=pratt", alternative="greater").alternative
    'greater'
    >>> Paired("z")
    Traceback (most recent call last):
    ...
    scorekit.errors.ConfigError: --test: unknown test; got 'z', expected one of ...
    >>> Paired("mcnemar", alternative="less")
    Traceback (most recent call last):
    ...
    scorekit.errors.ConfigError: --alternative: the test 'mcnemar' is two-sided only; ...
    """

    test: str = "paired_bootstrap"
    correction: str | None = None
    n_resamples: int = 1000
    confidence: float = 0.95
    seed: int = 0
    sampling: str = "poisson"
    key: str | None = None
    alternative: str = "two-sided"

    def __post_init__(self) -> None:
        name, _ = parse_test(self.test, "--test")
        if self.alternative not in ALTERNATIVES:
            raise ConfigError(
                message(
                    "--alternative", "unknown alternative", self.alternative, choices(ALTERNATIVES)
                )
            )
        if self.alternative != "two-sided" and name not in ONE_SIDED:
            raise ConfigError(
                message(
                    "--alternative",
                    f"the test {name!r} is two-sided only",
                    raw(f"--alternative {self.alternative}"),
                    "--test " + ", ".join(ONE_SIDED),
                )
            )
        if self.correction is not None and name == "tukey":
            raise ConfigError(
                message(
                    "--correction",
                    "Tukey's HSD p-values are adjusted for every pair already",
                    raw(f"--correction {self.correction}"),
                    "--test tukey without --correction",
                )
            )
        if self.correction is not None:
            known = (*CORRECTIONS, *CORRECTION_ALIASES)
            if self.correction not in known:
                raise ConfigError(
                    message("--correction", "unknown correction", self.correction, choices(known))
                )
            object.__setattr__(
                self, "correction", CORRECTION_ALIASES.get(self.correction, self.correction)
            )
        n_resamples, seed = check_resampling(self.confidence, self.n_resamples, self.seed)
        object.__setattr__(self, "n_resamples", n_resamples)
        object.__setattr__(self, "seed", seed)

    def options(self) -> dict[str, Any]:
        """The keyword arguments of :func:`scorekit.stats.compare`."""
        return {
            "test": self.test,
            "correction": self.correction,
            "n_resamples": self.n_resamples,
            "confidence": self.confidence,
            "seed": self.seed,
            "sampling": self.sampling,
            "alternative": self.alternative,
        }


def _need_two(systems: Sequence[Any], what: str) -> None:
    if len(systems) < 2:
        raise ConfigError(
            message(
                "compare",
                f"needs a baseline and at least one other {what}",
                raw(f"{len(systems)} {what}"),
                f"two or more {what}s, the first the baseline",
            )
        )


def _distinct_names(paths: Sequence[Any]) -> list[str]:
    """Short names of the systems: file or column names, made unique."""
    names = [Path(str(p)).name or str(p) for p in paths]
    if len(set(names)) < len(names):
        names = [str(p) for p in paths]
    if len(set(names)) < len(names):
        names = [f"{n} ({i})" for i, n in enumerate(names)]
    return names


_ONLY = {"delong": "roc_auc", "mcnemar": "accuracy"}
"""The metric a test is about, for the tests that are about one metric."""


@dataclasses.dataclass
class _Job:
    """One metric to compare: its key, the metric (``None``: skipped, with ``failure``) and
    its inputs as the metric reads them."""

    key: str
    metric: Metric[Any] | None
    truth: Any = None
    systems: Sequence[Any] = ()
    kwargs: dict[str, Any] = dataclasses.field(default_factory=dict)
    failure: str | None = None


def _run(
    jobs: Sequence[_Job], names: list[str], paired: Paired, explicit: bool
) -> EvaluationResult:
    """``stats.compare`` for every metric; a default metric that fails is skipped."""
    rows: list[tuple[str, Comparison]] = []
    skipped: list[str] = []
    for job in jobs:
        if job.metric is None:
            skipped.append(job.failure or job.key)
            continue
        try:
            found = compare(
                job.metric,
                job.truth,
                *job.systems,
                names=names,
                **paired.options(),
                **job.kwargs,
            )
        except ScorekitError as exc:
            if explicit:
                raise
            skipped.append(str(exc))
            continue
        rows += [(job.key, c) for c in found]
    if not rows:
        raise ConfigError(
            message(
                "compare", "no metric could be compared", raw(skipped[0]), "a metric that applies"
            )
            if skipped
            else message("compare", "no metric to compare", None, "at least one metric")
        )
    return EvaluationResult({}, comparisons=rows, systems=names, settings=paired, skipped=skipped)


def compare_table(
    path: str,
    *,
    task: str,
    true: str,
    systems: Sequence[str],
    scores: bool,
    metrics: Sequence[str] | None = None,
    weight: str | None = None,
    pos_label: str | None = None,
    paired: Paired | None = None,
) -> EvaluationResult:
    """Columns of one file compared on the task's metrics: the first column is the baseline.

    Parameters
    ----------
    path
        A table file (CSV, TSV, Parquet, JSON Lines; a glob or directory).
    task
        ``"binary"``, ``"multiclass"`` or ``"regression"``: one column per system.
    true
        The truth column.
    systems
        One column per system (labels or values; with ``scores``, binary scores).
    scores
        Whether the columns hold scores (``--score``) rather than labels or
        values (``--pred``).
    metrics
        Metric names (default: the task's metrics that apply).
    weight, pos_label
        The sample-weight column and the positive class, as ``scorekit eval``.
    paired
        The test and its settings (default: the Poisson paired bootstrap).

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "preds.csv")
    >>> rows = ["y,a,b"] + ["1,1,1", "0,1,0", "1,0,1", "0,0,0"] * 10
    >>> with open(path, "w") as f:
    ...     _ = f.write("\\n".join(rows) + "\\n")
    >>> found = compare_table(path, task="binary", true="y", systems=["a", "b"], scores=False,
    ...                       metrics=["accuracy"], paired=Paired("mcnemar"))
    >>> [(key, c.system, c.difference) for key, c in found.comparisons]
    [('accuracy', 'b', 0.5)]
    """
    paired = paired or Paired()
    _need_two(systems, "column")
    if task not in TASKS or task == "multilabel":
        usable = [t for t in TASKS if t != "multilabel"]
        raise ConfigError(message("compare", "systems are one column each", task, choices(usable)))
    if scores and task != "binary":
        raise ConfigError(
            message(
                "compare",
                "--score columns are systems for --task binary only",
                raw(f"--task {task}"),
                "--task binary, or --pred columns",
            )
        )
    key = [paired.key] if paired.key else []
    needed = list(dict.fromkeys([true, *systems, *([weight] if weight else []), *key]))
    table = io.read_table(path, columns=needed)
    plans = [
        TableTask(
            str(path),
            task,
            (true,),
            None if scores else (column,),
            (column,) if scores else None,
            weight,
            pos_label,
        )
        for column in systems
    ]
    y_true = io.label_array(table, true) if task != "regression" else None
    label = plans[0].positive(y_true) if y_true is not None else None
    data = [plan.arrays(table, label) for plan in plans]
    unit_key = io.label_array(table, paired.key) if paired.key else None
    explicit = bool(metrics)
    only = _ONLY.get(parse_test(paired.test, "--test")[0])
    names = list(dict.fromkeys(metrics or ())) or (
        [only] if only else default_metrics(task, has_pred=not scores, has_score=scores)
    )
    jobs: list[_Job] = []
    for spec in names:
        if only and spec.split(":")[0] != only:
            raise ConfigError(
                message(
                    f"compare --test {paired.test}",
                    f"the test compares {only} only",
                    spec,
                    only,
                )
            )
        try:
            metric = plans[0].metric(spec, label, None)
            if (metric.inputs in LABEL_KINDS) == scores:
                problem = "needs --pred columns" if scores else "needs --score columns"
                raise ConfigError(message(spec, problem, raw("--score" if scores else "--pred")))
        except ScorekitError as exc:
            if explicit:
                raise
            jobs.append(_Job(spec, None, failure=str(exc)))
            continue
        arguments = [task_arguments(metric, d) for d in data]
        kwargs = dict(arguments[0][1])
        if unit_key is not None:
            kwargs["key"] = unit_key
        jobs.append(_Job(spec, metric, arguments[0][0][0], [a[0][1] for a in arguments], kwargs))
    return _run(jobs, _distinct_names(systems), paired, explicit)


def compare_runs(
    qrels: Any,
    runs: Sequence[str],
    metrics: Sequence[str],
    *,
    paired: Paired | None = None,
    **options: Any,
) -> EvaluationResult:
    """TREC runs compared on ranking metrics, the first run the baseline; a query is a unit.

    ``options`` are the metrics' options (``missing``, ``gain``,
    ``relevance_level``). The runs must rank the same queries (with
    ``missing="zero"`` every judged query counts).

    Examples
    --------
    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> files = {
    ...     "qrels": "q1 0 d1 1\\nq2 0 d2 1\\nq3 0 d3 1\\n",
    ...     "a": "q1 Q0 d1 1 2 a\\nq1 Q0 d9 2 1 a\\nq2 Q0 d9 1 2 a\\nq2 Q0 d2 2 1 a\\n"
    ...          "q3 Q0 d9 1 2 a\\nq3 Q0 d3 2 1 a\\n",
    ...     "b": "q1 Q0 d1 1 2 b\\nq1 Q0 d9 2 1 b\\nq2 Q0 d2 1 2 b\\nq2 Q0 d9 2 1 b\\n"
    ...          "q3 Q0 d3 1 2 b\\nq3 Q0 d9 2 1 b\\n",
    ... }
    >>> for name, text in files.items():
    ...     with open(os.path.join(folder, name), "w") as f:
    ...         _ = f.write(text)
    >>> found = compare_runs(os.path.join(folder, "qrels"),
    ...                      [os.path.join(folder, "a"), os.path.join(folder, "b")],
    ...                      ["mrr"], paired=Paired("t"))
    >>> [(key, c.system, round(c.difference, 4)) for key, c in found.comparisons]
    [('mrr', 'b', 0.3333)]
    """
    from scorekit import ranking

    paired = paired or Paired()
    _need_two(runs, "run")
    if paired.key:
        raise ConfigError(
            message("compare", "queries are keyed by their ids", paired.key, "no key column")
        )
    judgments = ranking.as_qrels(qrels)
    read = [ranking.read_run(run) for run in runs]
    chosen = ranking.ranking_metrics(metrics, options)
    jobs = [_Job(key, metric, judgments, read) for key, metric in chosen.items()]
    return _run(jobs, _distinct_names(runs), paired, True)


def compare_text(
    hyps: Sequence[str],
    refs: Sequence[str],
    metrics: Sequence[str] | None = None,
    *,
    tokenize: str | None = None,
    lowercase: bool | None = None,
    stemmer: bool | None = None,
    rouge_tokenizer: str | None = None,
    paired: Paired | None = None,
) -> EvaluationResult:
    """Hypothesis files compared on text metrics against the same references; a unit is a line.

    The metrics and options are those of :func:`scorekit.api.evaluate_text`
    (each ROUGE type as its own metric of the mean F-measure). Every hypothesis
    file must have as many lines as the references.

    Examples
    --------
    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> texts = {"ref": "a b c d\\ne f g h\\n" * 5, "x": "a b c d\\ne f g x\\n" * 5,
    ...          "y": "a b c d\\ne f g h\\n" * 5}
    >>> for name, text in texts.items():
    ...     with open(os.path.join(folder, name), "w") as f:
    ...         _ = f.write(text)
    >>> found = compare_text([os.path.join(folder, "x"), os.path.join(folder, "y")],
    ...                      [os.path.join(folder, "ref")], ["wer"], paired=Paired("t"))
    >>> [(key, c.system, c.difference) for key, c in found.comparisons]
    [('wer', 'y', -0.125)]
    """
    from scorekit.api._text import _text_metrics
    from scorekit.text import read_parallel

    paired = paired or Paired()
    _need_two(hyps, "hypothesis file")
    if paired.key:
        raise ConfigError(
            message("compare", "segments are keyed by their line number", paired.key, "no key")
        )
    chosen = _text_metrics(metrics, tokenize, lowercase, stemmer, rouge_tokenizer, split=True)
    read = [read_parallel(h, refs) for h in hyps]
    references = read[0][1]
    outputs = [lines for lines, _ in read]
    jobs = [_Job(key, metric, references, outputs) for key, metric in chosen.items()]
    return _run(jobs, _distinct_names(hyps), paired, True)


def paired_text(
    hyps: Sequence[str],
    refs: Sequence[str],
    metrics: Sequence[str] | None = None,
    *,
    test: str = "bs",
    n_samples: int | None = None,
    seed: int | None = None,
    tokenize: str | None = None,
    lowercase: bool | None = None,
    stemmer: bool | None = None,
    rouge_tokenizer: str | None = None,
) -> Any:
    """sacrebleu's paired test of hypothesis files: ``--paired-bs`` or ``--paired-ar``.

    ``test`` is ``"bs"`` (paired bootstrap resampling, 1000 resamples by
    default) or ``"ar"`` (approximate randomization, 10000 trials), at most
    1,000,000 and at most 2**27 cells of drawn indices (``n_samples`` times the
    segments, 1 GiB); the seed is sacrebleu's 12345 by default, an integer in
    ``[0, 2**64)``. A system identical to the baseline (every difference zero)
    is warned about: sacrebleu's p-value marks it significant. ``metrics`` are BLEU, chrF and TER
    configurations (default BLEU), as :func:`evaluate_text` names them, with its
    option defaults (``stemmer`` and ``rouge_tokenizer`` apply to no metric of
    these tests, so giving them is an error). The
    result is a :class:`scorekit.stats.PairedTest` on sacrebleu's 0-100 scale,
    with sacrebleu's numbers for the same seed
    (:func:`scorekit.stats.paired_bs`, :func:`scorekit.stats.paired_ar`). The
    systems are named by their paths as given, as sacrebleu names them.

    Examples
    --------
    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> texts = {"ref": "a b c d\\ne f g h\\n" * 5, "x": "a b c d\\ne f g x\\n" * 5,
    ...          "y": "a b c d\\ne f g h\\n" * 5}
    >>> for name, text in texts.items():
    ...     with open(os.path.join(folder, name), "w") as f:
    ...         _ = f.write(text)
    >>> found = paired_text([os.path.join(folder, "x"), os.path.join(folder, "y")],
    ...                     [os.path.join(folder, "ref")], n_samples=100)
    >>> [round(r.score, 1) for r in found.results["BLEU"]]
    [72.3, 100.0]
    """
    from scorekit.api._text import _text_metrics
    from scorekit.stats import SACREBLEU_SEED, paired_ar, paired_bs
    from scorekit.text import read_parallel

    if test not in ("bs", "ar"):
        raise ConfigError(message("paired_text", "unknown test", test, choices(("bs", "ar"))))
    if n_samples is not None:
        n_samples = check_draws(n_samples, "--n-resamples", "number of resamples")
    seed = seed if seed is None else check_seed(seed, "--seed")
    _need_two(hyps, "hypothesis file")
    chosen = _text_metrics(
        metrics or ["bleu"], tokenize, lowercase, stemmer, rouge_tokenizer, split=True
    )
    read = [read_parallel(h, refs) for h in hyps]
    check_cells(
        n_samples or (1000 if test == "bs" else 10000),
        len(read[0][1]),
        "--n-resamples",
        "resamples" if test == "bs" else "trials",
        "segments",
    )
    names = [str(h) for h in hyps]
    names = names if len(set(names)) == len(names) else _distinct_names(hyps)
    systems = dict(zip(names, (lines for lines, _ in read), strict=True))
    options: dict[str, Any] = {"seed": SACREBLEU_SEED if seed is None else seed}
    if n_samples is not None:
        options["n_samples"] = n_samples
    run = paired_bs if test == "bs" else paired_ar
    return run(read[0][1], systems, metrics=list(chosen.values()), **options)
