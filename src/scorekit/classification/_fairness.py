"""Fairness metrics, as fairlearn computes them: selection rate, demographic parity, equalized odds.

:class:`SelectionRate` is a metric on :class:`ConfusionCounts` like accuracy:
per group (``--by``, :class:`~scorekit.core.Grouped`) its difference and ratio
across the groups are the demographic parity difference and ratio.
:class:`DemographicParity` and :class:`EqualizedOdds` read the sensitive
feature columns themselves; their state is the confusion counts of all the rows
and of each group (:class:`~scorekit.core.GroupStates`, the state of
``selection_rate`` evaluated per group), so states of shards merge group by
group and the summaries are computed once, from the merged counts.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, ClassVar, Literal

import numpy as np

from scorekit.classification._counts import ConfusionCounts
from scorekit.classification._labels import (
    CountsMetric,
    _pos_label_option,
    _require_data,
    scaled_counts,
)
from scorekit.classification._rates import binary_cells
from scorekit.core import (
    ByGroup,
    Check,
    Explanation,
    Grouped,
    GroupStates,
    Metric,
    OneOf,
    caught,
    group_columns,
    register,
    reraise,
)
from scorekit.errors import (
    ConfigError,
    InputError,
    StateMismatchError,
    UndefinedMetricWarning,
    message,
    raw,
)

__all__ = [
    "DemographicParity",
    "EqualizedOdds",
    "SelectionRate",
    "demographic_parity_difference",
    "demographic_parity_ratio",
    "equalized_odds_difference",
    "equalized_odds_ratio",
    "selection_rate",
]

FL = "fairlearn's"
"""How explanations name fairlearn as the reference implementation."""

Method = Literal["between_groups", "to_overall"]
METHODS: tuple[str, ...] = ("between_groups", "to_overall")
Kind = Literal["difference", "ratio"]
KINDS: tuple[str, ...] = ("difference", "ratio")
Agg = Literal["worst_case", "mean"]
AGGS: tuple[str, ...] = ("worst_case", "mean")


@register("selection_rate", higher_is_better=None, bounds=(0.0, 1.0), inputs="labels")
@dataclass(frozen=True)
class SelectionRate(CountsMetric):
    """Selection rate: the fraction of samples predicted as ``pos_label``.

    .. math:: \\mathrm{selection\\ rate} = \\frac{\\sum_i w_i [\\hat y_i = \\mathrm{pos}]}
              {\\sum_i w_i}

    ``y_true`` is counted (the state is the confusion counts that accuracy
    and precision share) but plays no part in the value.

    Parameters
    ----------
    pos_label : label, default 1
        The selected ("good") outcome. Any number of classes may be predicted.

    Notes
    -----
    A ``pos_label`` never predicted gives 0, as fairlearn. When every sample
    weight is 0 the rate is nan with an
    :class:`~scorekit.errors.UndefinedMetricWarning`. Empty input, multi-label
    indicator matrices and a ``pos_label`` of another type than the labels (a
    number against string labels), which fairlearn scores 0, raise an
    :class:`~scorekit.errors.InputError`. Evaluated per group (``--by``), the
    difference and ratio across the groups are the demographic parity
    difference and ratio (:func:`demographic_parity_difference`).

    References
    ----------
    Agrees with fairlearn's ``selection_rate`` (``fairlearn.metrics``).

    Examples
    --------
    >>> SelectionRate().score([0, 1, 1, 0], [1, 1, 0, 0])
    0.5
    >>> SelectionRate(pos_label="yes").score(["yes", "no", "no"], ["yes", "yes", "no"])
    0.666...
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="The fraction of samples predicted as the selected outcome (pos_label).",
        formula="selection_rate = sum_i w_i [y_pred_i == pos_label] / sum_i w_i",
        convention="y_true is read but plays no part. A pos_label never predicted gives 0; when "
        "every sample weight is 0 the value is nan with an UndefinedMetricWarning. Per group "
        "(--by) the difference and ratio across the groups are the demographic parity "
        "difference and ratio.",
        reference=f"{FL} selection_rate.",
    )

    pos_label: Annotated[Any, Check(_pos_label_option)] = 1

    def compute(self, state: ConfusionCounts) -> float:
        """The (weighted) fraction of samples predicted ``pos_label``."""
        selected, total = _selected(self.name, state, self.pos_label)
        if total == 0:
            warnings.warn(
                f"{self.name}: all sample weights are 0; returning nan.",
                UndefinedMetricWarning,
                stacklevel=2,
            )
            return math.nan
        return selected / total


def _single_label(metric: str, state: ConfusionCounts) -> None:
    _require_data(metric, state)
    if state.multilabel:
        raise InputError(
            message(metric, "needs 1-D labels", raw("a multi-label indicator matrix"), "1-D labels")
        )


def _selected(metric: str, state: ConfusionCounts, pos_label: Any) -> tuple[float, float]:
    """The weight predicted ``pos_label`` and the total weight, scaled by one power of two."""
    _single_label(metric, state)
    matrix, _ = scaled_counts(metric, state.matrix)
    present = state.labels.tolist()
    text = state.labels.dtype.kind == "U"
    if text != isinstance(pos_label, str):
        raise InputError(
            message(
                metric,
                "pos_label is not of the type of the labels",
                pos_label,
                f"a {'string' if text else 'number'} label, as the labels "
                f"{present[:5]!r}{'...' if len(present) > 5 else ''}",
            )
        )
    total = float(matrix.sum())
    if pos_label not in present:
        return 0.0, total
    return float(matrix[:, present.index(pos_label)].sum()), total


def selection_rate(
    y_true: Any, y_pred: Any, *, pos_label: Any = 1, sample_weight: Any = None
) -> float:
    """Selection rate, as :class:`SelectionRate` (fairlearn's ``selection_rate``).

    Examples
    --------
    >>> selection_rate([1, 0, 1, 0], [1, 1, 1, 0], sample_weight=[1, 1, 2, 4])
    0.5
    """
    return float(
        SelectionRate(pos_label=pos_label).score(y_true, y_pred, sample_weight=sample_weight)
    )


# summaries across the groups of sensitive features -----------------------------------


def _sensitive_option(metric: Any, value: Any) -> tuple[str, ...]:
    """The sensitive feature column(s): one name or distinct names, as a tuple."""
    names = (value,) if isinstance(value, str) else value
    if (
        not isinstance(names, Sequence)
        or not names
        or not all(isinstance(n, str) and n for n in names)
        or len(set(names)) != len(names)
    ):
        raise ConfigError(
            metric._error("invalid sensitive", value, "a column name or distinct column names")
        )
    return tuple(names)


@dataclass(frozen=True)
class _Disparity(Metric[GroupStates]):
    """A summary across the groups of sensitive features, from per-group confusion counts.

    The state is the :class:`~scorekit.core.GroupStates` of ``selection_rate``
    grouped by the sensitive columns (``Grouped("selection_rate", by=sensitive)``):
    any such state, saved by ``scorekit eval --metric selection_rate --by COL
    --save-state``, computes the summary.
    """

    sensitive: Annotated[Any, Check(_sensitive_option)] = "sensitive_features"
    kind: Annotated[Kind, OneOf(KINDS)] = "difference"
    method: Annotated[Method, OneOf(METHODS)] = "between_groups"
    pos_label: Annotated[Any, Check(_pos_label_option)] = 1

    counts: Grouped = field(init=False, repr=False, compare=False)

    key_role: ClassVar[str] = "sensitive_features"
    key_conversion: ClassVar[str] = "groups"
    _measure: ClassVar[str] = ""
    _inputs: ClassVar[str] = "labels"

    def __post_init__(self) -> None:
        super().__post_init__()
        inner = SelectionRate(pos_label=self.pos_label)
        object.__setattr__(self, "counts", Grouped(inner, by=self.sensitive))

    @property
    def name(self) -> str:
        """``<measure>_difference`` or ``<measure>_ratio``."""
        return f"{self._measure}_{self.kind}"

    @property
    def inputs(self) -> str:
        return self._inputs

    @property
    def key_column(self) -> str:
        """The first sensitive column (all of them: :attr:`key_columns`)."""
        return str(self.sensitive[0])

    @property
    def key_columns(self) -> tuple[str, ...]:
        """The sensitive columns, read together as the input ``sensitive_features``."""
        return tuple(self.sensitive)

    @property
    def key_roles(self) -> dict[str, tuple[str, tuple[str, ...]]]:
        """The input ``sensitive_features``: one column's array, or a tuple of arrays for several.

        One column is read as an array so that a per-group evaluation (``by=``)
        can split its rows with those of the other inputs.
        """
        conversion = "labels" if len(self.sensitive) == 1 else self.key_conversion
        return {self.key_role: (conversion, self.key_columns)}

    def summarize(
        self, y_true: Any, y_pred: Any, sample_weight: Any = None, sensitive_features: Any = None
    ) -> GroupStates:
        """The confusion counts of all the rows and of each group of ``sensitive_features``.

        ``sensitive_features`` is one column of group values for one sensitive
        column, else a sequence of one column per name of ``sensitive``.
        """
        if sensitive_features is None:
            raise InputError(
                self._error(
                    "no sensitive features given",
                    None,
                    f"sensitive_features=, the values of {', '.join(self.sensitive)}",
                )
            )
        try:
            rows: int | None = len(y_pred)
        except TypeError:
            rows = None
        columns = group_columns(self.name, self.sensitive, sensitive_features, rows)
        return self.counts.summarize(
            y_true, y_pred, sample_weight=sample_weight, group=tuple(columns)
        )

    def empty(self) -> GroupStates:
        return self.counts.empty()

    def _grouped(self, state: GroupStates) -> tuple[Grouped, ConfusionCounts]:
        """The per-group metric of ``state``'s group columns, and its counts of all the rows.

        A saved state names its own group columns; the counts must be of 1-D labels.
        """
        if not isinstance(state, GroupStates) or not isinstance(state.overall, ConfusionCounts):
            raise StateMismatchError(
                self._error(
                    "state of another kind",
                    raw(type(getattr(state, "overall", state)).__name__),
                    "the GroupStates of confusion counts of a metric such as selection_rate "
                    "evaluated per group",
                )
            )
        overall = state.overall
        _single_label(self.name, overall)
        return Grouped(self.counts.inner, by=tuple(state.by.tolist())), overall

    def _spread(self, values: ByGroup, rate: str) -> float:
        """The difference or ratio of the groups' ``rate`` values, warning when undefined."""
        found, raised = caught(
            lambda: (
                values.difference(method=self.method)
                if self.kind == "difference"
                else values.ratio(method=self.method)
            )
        )
        # the summary's own undefined-value warnings are worded once, below, with its name
        reraise([w for w in raised if not issubclass(w.category, UndefinedMetricWarning)])
        if math.isnan(found) or math.isinf(found):
            warnings.warn(
                f"{self.name}: the {rate} {self.kind} across the groups is {found} "
                f"({self._undefined_reason(values)}).",
                UndefinedMetricWarning,
                stacklevel=3,
            )
        return found

    def _undefined_reason(self, values: ByGroup) -> str:
        numbers = [float(v) for v in values.by_group.values() if not math.isnan(float(v))]
        if not numbers:
            return "no group has a value"
        if self.method == "to_overall":
            return f"the overall value is {values.overall}"
        return f"the largest group value is {max(numbers)}"


@dataclass(frozen=True)
class DemographicParity(_Disparity):
    """Demographic parity: the spread of the selection rates of the groups of sensitive features.

    .. math:: \\mathrm{difference} = \\max_a \\mathrm{SR}_a - \\min_a \\mathrm{SR}_a, \\qquad
              \\mathrm{ratio} = \\frac{\\min_a \\mathrm{SR}_a}{\\max_a \\mathrm{SR}_a}

    where :math:`\\mathrm{SR}_a` is the selection rate (:class:`SelectionRate`)
    of the rows whose sensitive features are ``a``.

    Parameters
    ----------
    sensitive : str or tuple of str, default 'sensitive_features'
        The sensitive feature column(s) read from a table; in memory,
        ``summarize`` takes their values as ``sensitive_features=``. Group
        values are strings, integers or booleans.
    kind : {'difference', 'ratio'}, default 'difference'
        The summary: fairlearn's ``demographic_parity_difference`` or
        ``demographic_parity_ratio``.
    method : {'between_groups', 'to_overall'}, default 'between_groups'
        Compare the groups with each other, or each group with all the rows
        (:meth:`~scorekit.core.ByGroup.difference`, as fairlearn's
        ``MetricFrame.difference``).
    pos_label : label, default 1
        The selected outcome.

    Notes
    -----
    The state is the confusion counts of all the rows and of each group
    (:class:`~scorekit.core.GroupStates`), so shards merge group by group;
    the state of ``selection_rate`` evaluated per group (``--by``) is the
    same state. A group whose weights are all 0 has no rate and is left out;
    a ratio of 0/0 is nan, with an :class:`~scorekit.errors.UndefinedMetricWarning`.

    References
    ----------
    Agrees with fairlearn's ``demographic_parity_difference`` and
    ``demographic_parity_ratio``. Agarwal, A. et al. (2018), A reductions
    approach to fair classification, *ICML*.

    Examples
    --------
    >>> dp = DemographicParity(sensitive="sex")
    >>> state = dp.summarize([1, 0, 1, 0], [1, 1, 0, 0], sensitive_features=["f", "f", "m", "m"])
    >>> dp.compute(state)
    1.0
    >>> DemographicParity(sensitive="sex", kind="ratio", method="to_overall").compute(state)
    0.0
    """

    _measure: ClassVar[str] = "demographic_parity"
    _inputs: ClassVar[str] = "labels"

    def compute(self, state: GroupStates) -> float:
        """The difference or ratio of the groups' selection rates."""
        grouped, _ = self._grouped(state)
        return self._spread(grouped.compute(state), "selection rate")


@dataclass(frozen=True)
class EqualizedOdds(_Disparity):
    """Equalized odds: the larger spread of the true and false positive rates of the groups.

    .. math:: \\mathrm{difference} = \\max(\\Delta\\mathrm{TPR}, \\Delta\\mathrm{FPR}),
              \\qquad \\mathrm{ratio} = \\min(\\rho\\,\\mathrm{TPR}, \\rho\\,\\mathrm{FPR})

    where :math:`\\Delta` is the difference and :math:`\\rho` the ratio of a
    rate across the groups (``agg='worst_case'``); ``agg='mean'`` averages the
    two instead.

    Parameters
    ----------
    sensitive : str or tuple of str, default 'sensitive_features'
        The sensitive feature column(s) read from a table; in memory,
        ``summarize`` takes their values as ``sensitive_features=``.
    kind : {'difference', 'ratio'}, default 'difference'
        The summary: fairlearn's ``equalized_odds_difference`` or
        ``equalized_odds_ratio``.
    method : {'between_groups', 'to_overall'}, default 'between_groups'
        Compare the groups with each other, or each group with all the rows.
    agg : {'worst_case', 'mean'}, default 'worst_case'
        The larger difference (smaller ratio) of the two rates, or their mean.
    pos_label : label, default 1
        The positive class; the other label is negative.

    Notes
    -----
    Binary labels only: more than two classes, or a ``pos_label`` that is not
    one of two classes, raise an :class:`~scorekit.errors.InputError`.
    fairlearn takes no ``pos_label`` here and needs labels in {0, 1} or
    {-1, 1}; scorekit also takes other pairs with ``pos_label``. A group with
    no positive (negative) sample has a TPR (FPR) of 0, as fairlearn (its
    rates come from scikit-learn's ``confusion_matrix(normalize='true')``,
    whose 0/0 is 0), with an :class:`~scorekit.errors.UndefinedMetricWarning`
    naming the group. A ratio of 0/0 is nan; ``agg`` leaves a nan rate out
    (the other rate decides; nan when both are), where fairlearn's
    ``worst_case`` returns nan when the TPR's is nan and the FPR's is not.

    References
    ----------
    Agrees with fairlearn's ``equalized_odds_difference`` and
    ``equalized_odds_ratio`` (including ``agg``). Hardt, M., Price, E. and
    Srebro, N. (2016), Equality of opportunity in supervised learning, *NeurIPS*.

    Examples
    --------
    >>> eo = EqualizedOdds(sensitive="sex")
    >>> state = eo.summarize(
    ...     [1, 1, 0, 0, 1, 1, 0, 0],
    ...     [1, 1, 1, 0, 1, 0, 0, 0],
    ...     sensitive_features=["f", "f", "f", "f", "m", "m", "m", "m"],
    ... )
    >>> eo.compute(state)
    0.5
    >>> EqualizedOdds(sensitive="sex", agg="mean").compute(state)
    0.5
    """

    agg: Annotated[Agg, OneOf(AGGS)] = "worst_case"

    _measure: ClassVar[str] = "equalized_odds"
    _inputs: ClassVar[str] = "binary_labels"

    def compute(self, state: GroupStates) -> float:
        """The worst (or mean) difference or ratio of the groups' TPR and FPR."""
        grouped, overall = self._grouped(state)
        binary_cells(self.name, overall, self.pos_label)
        spreads = [
            self._spread(grouped.values_of(state, self._rate(cells, what)), rate)
            for cells, what, rate in (((3, 2), "positive", "TPR"), ((1, 0), "negative", "FPR"))
        ]
        defined = [s for s in spreads if not math.isnan(s)]
        if not defined:
            return math.nan
        if self.agg == "mean":
            return sum(defined) / len(defined)
        return max(defined) if self.kind == "difference" else min(defined)

    def _rate(self, cells: tuple[int, int], what: str) -> Any:
        """The TPR (``cells`` tp, fn) or FPR (fp, tn) of a state; 0/0 is 0 with a warning."""
        rate = "TPR" if what == "positive" else "FPR"

        def value(counts: ConfusionCounts) -> float:
            found = binary_cells(self.name, counts, self.pos_label)
            hit, miss = found[cells[0]], found[cells[1]]
            if hit + miss == 0:
                warnings.warn(
                    f"{self.name}: no {what} sample; its {rate} is 0 (0/0), as fairlearn.",
                    UndefinedMetricWarning,
                    stacklevel=2,
                )
                return 0.0
            return hit / (hit + miss)

        return value


def _feature_columns(sensitive_features: Any) -> tuple[tuple[str, ...], Any]:
    """The names and values of sensitive features given as fairlearn takes them.

    A pandas DataFrame or a mapping gives its columns by name; a pandas Series
    its values, under its name; a 2-D array (rows are samples) or a list of
    rows its columns; anything else is one column. Unnamed columns are called
    ``sensitive_feature_<i>``, as fairlearn calls them.
    """
    if hasattr(sensitive_features, "columns") and hasattr(sensitive_features, "iloc"):
        names = tuple(str(c) for c in sensitive_features.columns)
        columns = tuple(sensitive_features[c].to_numpy() for c in sensitive_features.columns)
        return names, columns
    if isinstance(sensitive_features, Mapping):
        names = tuple(str(k) for k in sensitive_features)
        return names, tuple(sensitive_features.values())
    if (
        hasattr(sensitive_features, "iloc")
        and getattr(sensitive_features, "name", None) is not None
    ):
        return (str(sensitive_features.name),), sensitive_features
    if hasattr(sensitive_features, "iloc") or hasattr(sensitive_features, "null_count"):
        return ("sensitive_feature_0",), sensitive_features
    values = np.asarray(sensitive_features, dtype=object)
    if values.ndim == 2:
        names = tuple(f"sensitive_feature_{i}" for i in range(values.shape[1]))
        return names, tuple(values[:, i] for i in range(values.shape[1]))
    return ("sensitive_feature_0",), sensitive_features


def _summary(
    metric: type[_Disparity],
    y_true: Any,
    y_pred: Any,
    sensitive_features: Any,
    sample_weight: Any,
    **options: Any,
) -> float:
    names, values = _feature_columns(sensitive_features)
    found = metric(sensitive=names, **options)
    return float(
        found.score(y_true, y_pred, sample_weight=sample_weight, sensitive_features=values)
    )


def demographic_parity_difference(
    y_true: Any,
    y_pred: Any,
    *,
    sensitive_features: Any,
    method: Method = "between_groups",
    sample_weight: Any = None,
    pos_label: Any = 1,
) -> float:
    """The largest gap of the groups' selection rates (fairlearn's function of that name).

    As :class:`DemographicParity` with ``kind='difference'``. ``sensitive_features``
    is one column of group values, or several (a DataFrame, a mapping of
    name to column, or a 2-D array whose rows are the samples).

    Examples
    --------
    >>> demographic_parity_difference(
    ...     [1, 0, 1, 0], [1, 1, 1, 0], sensitive_features=["a", "a", "b", "b"]
    ... )
    0.5
    """
    return _summary(
        DemographicParity,
        y_true,
        y_pred,
        sensitive_features,
        sample_weight,
        kind="difference",
        method=method,
        pos_label=pos_label,
    )


def demographic_parity_ratio(
    y_true: Any,
    y_pred: Any,
    *,
    sensitive_features: Any,
    method: Method = "between_groups",
    sample_weight: Any = None,
    pos_label: Any = 1,
) -> float:
    """The smallest ratio of the groups' selection rates (fairlearn's function of that name).

    As :class:`DemographicParity` with ``kind='ratio'``.

    Examples
    --------
    >>> demographic_parity_ratio(
    ...     [1, 0, 1, 0], [1, 1, 1, 0], sensitive_features=["a", "a", "b", "b"]
    ... )
    0.5
    """
    return _summary(
        DemographicParity,
        y_true,
        y_pred,
        sensitive_features,
        sample_weight,
        kind="ratio",
        method=method,
        pos_label=pos_label,
    )


def equalized_odds_difference(
    y_true: Any,
    y_pred: Any,
    *,
    sensitive_features: Any,
    method: Method = "between_groups",
    sample_weight: Any = None,
    agg: Agg = "worst_case",
    pos_label: Any = 1,
) -> float:
    """The larger gap of the groups' TPR and FPR (fairlearn's function of that name).

    As :class:`EqualizedOdds` with ``kind='difference'``.

    Examples
    --------
    >>> equalized_odds_difference(
    ...     [1, 1, 0, 0, 1, 1, 0, 0],
    ...     [1, 1, 1, 0, 1, 0, 0, 0],
    ...     sensitive_features=["f", "f", "f", "f", "m", "m", "m", "m"],
    ... )
    0.5
    """
    return _summary(
        EqualizedOdds,
        y_true,
        y_pred,
        sensitive_features,
        sample_weight,
        kind="difference",
        method=method,
        agg=agg,
        pos_label=pos_label,
    )


def equalized_odds_ratio(
    y_true: Any,
    y_pred: Any,
    *,
    sensitive_features: Any,
    method: Method = "between_groups",
    sample_weight: Any = None,
    agg: Agg = "worst_case",
    pos_label: Any = 1,
) -> float:
    """The smaller ratio of the groups' TPR and FPR (fairlearn's function of that name).

    As :class:`EqualizedOdds` with ``kind='ratio'``.

    Examples
    --------
    >>> equalized_odds_ratio(
    ...     [1, 1, 0, 0, 1, 1, 0, 0],
    ...     [1, 1, 1, 0, 1, 0, 0, 0],
    ...     sensitive_features=["f", "f", "f", "f", "m", "m", "m", "m"],
    ... )
    0.0
    """
    return _summary(
        EqualizedOdds,
        y_true,
        y_pred,
        sensitive_features,
        sample_weight,
        kind="ratio",
        method=method,
        agg=agg,
        pos_label=pos_label,
    )
