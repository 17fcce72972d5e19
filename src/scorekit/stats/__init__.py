"""Confidence intervals and paired significance tests, for any registered metric.

A bootstrap of a metric is itself a metric: its state holds the states of the
replicates (or, for metrics that keep one value per unit, the metric's own
state), so it streams, merges from shard files and runs on Dask like any other.
"""

from __future__ import annotations

from scorekit.stats._analytic import delong, delong_interval, wilson
from scorekit.stats._bootstrap import bootstrap, replicate_values, state_interval
from scorekit.stats._compare import (
    ALTERNATIVES,
    ONE_SIDED,
    TEST_OPTIONS,
    TESTS,
    Comparison,
    compare,
    parse_test,
    unit_values,
)
from scorekit.stats._corrections import (
    CORRECTION_ALIASES,
    CORRECTIONS,
    adjust,
    benjamini_hochberg,
    benjamini_yekutieli,
    bonferroni,
    hochberg,
    holm,
    holm_sidak,
    sidak,
    two_stage_bh,
)
from scorekit.stats._intervals import INTERVALS, interval
from scorekit.stats._limits import MAX_CELLS, MAX_DRAWS, check_cells, check_draws, check_seed
from scorekit.stats._paired import fisher_randomization, mcnemar, paired_t, wilcoxon
from scorekit.stats._poisson import replicate_progress
from scorekit.stats._replicates import Bootstrap, Replicated, Replicates
from scorekit.stats._resampling import Resampled
from scorekit.stats._results import DeLongResult, Interval, TestResult
from scorekit.stats._sacrebleu import SACREBLEU_SEED, PairedResult, PairedTest, paired_ar, paired_bs
from scorekit.stats._sacrebleu_table import format_paired
from scorekit.stats._standard import ANALYTIC, analytic_interval
from scorekit.stats._tukey import (
    TukeyHSDResult,
    studentized_range_cdf,
    studentized_range_quantile,
    studentized_range_sf,
    tukey_hsd,
)

__all__ = [
    "ALTERNATIVES",
    "ANALYTIC",
    "CORRECTIONS",
    "CORRECTION_ALIASES",
    "INTERVALS",
    "MAX_CELLS",
    "MAX_DRAWS",
    "ONE_SIDED",
    "SACREBLEU_SEED",
    "TESTS",
    "TEST_OPTIONS",
    "Bootstrap",
    "Comparison",
    "DeLongResult",
    "Interval",
    "PairedResult",
    "PairedTest",
    "Replicated",
    "Replicates",
    "Resampled",
    "TestResult",
    "TukeyHSDResult",
    "adjust",
    "analytic_interval",
    "benjamini_hochberg",
    "benjamini_yekutieli",
    "bonferroni",
    "bootstrap",
    "check_cells",
    "check_draws",
    "check_seed",
    "compare",
    "delong",
    "delong_interval",
    "fisher_randomization",
    "format_paired",
    "hochberg",
    "holm",
    "holm_sidak",
    "interval",
    "mcnemar",
    "paired_ar",
    "paired_bs",
    "paired_t",
    "parse_test",
    "replicate_progress",
    "replicate_values",
    "sidak",
    "state_interval",
    "studentized_range_cdf",
    "studentized_range_quantile",
    "studentized_range_sf",
    "tukey_hsd",
    "two_stage_bh",
    "unit_values",
    "wilcoxon",
    "wilson",
]
