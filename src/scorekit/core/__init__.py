"""The metric core: states and their merge rules, the Metric base, the registries, the fold.

Everything else in scorekit is built on these names; this package imports
nothing of scorekit but :mod:`scorekit.errors`, and knows no metric family, file
format, engine or command.

- :class:`State`, :func:`state_field`, :func:`encode_value`, :func:`decode_value`,
  :func:`equal_values`, :func:`totals_agree`: mergeable sufficient statistics, their
  plain-data form and the checks of a decoded state.
- :class:`Metric`, :func:`register`, :func:`available`, :func:`get`,
  :func:`parse_metric`, :func:`register_spelling`: metrics, the metric-name grammar and
  other tools' names for metrics; :func:`parse_metrics`: metric names with a command's
  options as defaults for the metrics that take them; :func:`row_replicates`: bootstrap
  replicates of metrics whose unit is a row.
- :class:`Range`, :class:`OneOf`, :class:`Flag`, :class:`Check`, :func:`check_fields`: the
  rules of a metric's options, declared on its fields and checked in one place;
  :func:`option_choices`: the words an option takes, for a command's choices.
- :class:`InputKind`, :func:`register_input_kind`, :func:`input_kind`: what a metric
  reads (roles, side inputs, grouping).
- :class:`MergeTree`: the one fold of many states; :class:`PartsOnRead`: the parts of a
  state read when asked for, and :func:`scan`, reading them in order with a carry.
- :class:`Grouped`, :class:`GroupStates`, :class:`ByGroup`: any metric per group of rows.
- :class:`Estimate`, :class:`QuantileSketch`: bounded results and states.
- :func:`load_plugins`: installed plug-ins (the ``scorekit.plugins`` entry points).
- :func:`catalog`, :class:`MetricEntry`: every registered metric's metadata, scorekit's
  own read from an index without importing a family.
- :class:`Explanation`: what ``scorekit explain`` says about a metric, kept on its class.
"""

from __future__ import annotations

from scorekit.core._caught import caught, reraise
from scorekit.core._estimate import Estimate
from scorekit.core._explanation import SK, Explanation, sentences
from scorekit.core._fields import Check, Flag, OneOf, Range, check_fields
from scorekit.core._fold import (
    GATHER_BYTES,
    MergeTree,
    merge_shared,
    merge_states,
    merges_alike,
    same_state,
    share_equal,
    state_nbytes,
)
from scorekit.core._groups import ByGroup, Grouped, GroupStates, group_columns, summarize_hooked
from scorekit.core._index import MetricEntry, catalog
from scorekit.core._inputs import InputKind, input_kind, input_kinds, register_input_kind
from scorekit.core._metric import Metric, MetricInfo, UnitWeights
from scorekit.core._options import option_choices, option_names, parse_metrics
from scorekit.core._parts import PartsOnRead, scan
from scorekit.core._plugins import load_plugins
from scorekit.core._providers import add_provider
from scorekit.core._registry import (
    INPUT_KINDS,
    available,
    get,
    iter_variants,
    parse_metric,
    register,
    register_spelling,
)
from scorekit.core._replicates import repeated_row_replicates, row_replicates
from scorekit.core._result import EvaluationResult, plain_value
from scorekit.core._sketch import QuantileSketch, check_relative_accuracy
from scorekit.core._state import (
    STATE_FORMAT,
    State,
    decode_value,
    encode_value,
    equal_values,
    narrowed,
    state_field,
    stored_sequence,
)
from scorekit.core._statecheck import totals_agree

__all__ = [
    "GATHER_BYTES",
    "INPUT_KINDS",
    "SK",
    "STATE_FORMAT",
    "ByGroup",
    "Check",
    "Estimate",
    "EvaluationResult",
    "Explanation",
    "Flag",
    "GroupStates",
    "Grouped",
    "InputKind",
    "MergeTree",
    "Metric",
    "MetricEntry",
    "MetricInfo",
    "OneOf",
    "PartsOnRead",
    "QuantileSketch",
    "Range",
    "State",
    "UnitWeights",
    "add_provider",
    "available",
    "catalog",
    "caught",
    "check_fields",
    "check_relative_accuracy",
    "decode_value",
    "encode_value",
    "equal_values",
    "get",
    "group_columns",
    "input_kind",
    "input_kinds",
    "iter_variants",
    "load_plugins",
    "merge_shared",
    "merge_states",
    "merges_alike",
    "narrowed",
    "option_choices",
    "option_names",
    "parse_metric",
    "parse_metrics",
    "plain_value",
    "register",
    "register_input_kind",
    "register_spelling",
    "repeated_row_replicates",
    "reraise",
    "row_replicates",
    "same_state",
    "scan",
    "sentences",
    "share_equal",
    "state_field",
    "state_nbytes",
    "stored_sequence",
    "summarize_hooked",
    "totals_agree",
]
