"""Per-group evaluation: one state of a metric per group of rows, merged group by group.

:class:`Grouped` wraps any metric whose inputs are rows. Its state,
:class:`GroupStates`, holds the wrapped metric's state of all the rows and one
state per distinct value (or tuple of values) of the group columns, with the
rows of each group. Two states merge group by group, so a grouped evaluation in
chunks, from shard files or on a cluster is the in-memory one. The engines see
a metric that reads one more input, ``group`` (the group columns, through
:attr:`Metric.key_column`), and nothing else changes.

:class:`ByGroup` is what :meth:`Grouped.compute` returns: the value on all the
rows, one value per group, the group sizes, and the spread of the values across
groups (:meth:`ByGroup.difference`, :meth:`ByGroup.ratio`, as fairlearn's
``MetricFrame``).
"""

from scorekit.core._groups._columns import group_columns
from scorekit.core._groups._metric import Grouped, grouped, summarize_hooked
from scorekit.core._groups._values import ByGroup, GroupStates

__all__ = ["ByGroup", "GroupStates", "Grouped", "group_columns", "grouped", "summarize_hooked"]
