"""Which class each multiclass ``--score`` column holds: by name, by ``--classes``, or by position.

A file of multiclass scores has one column per class, and a metric needs them in
the sorted order of the classes. Columns listed in another order used to give a
wrong ROC AUC with no word; now the columns are matched to the classes by name
when their names name the classes (``p_cat``, ``cat_prob``, ``score.cat``,
``p0``), by the order the user gives with ``--classes`` otherwise, and by
position (the documented sorted order) only with a warning that says so.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorekit.core import Metric, State, state_field
from scorekit.errors import InputError, message, raw

__all__ = ["SeenClasses", "TruthClasses", "column_classes", "order_score_columns"]


@dataclasses.dataclass(frozen=True, eq=False)
class SeenClasses(State):
    """The sorted distinct labels of the data summarized."""

    labels: NDArray[Any] = state_field("custom", check="labels")

    def _merge_custom(self, other: SeenClasses) -> dict[str, Any]:
        if not self.labels.size or not other.labels.size:
            return {"labels": self.labels if other.labels.size == 0 else other.labels}
        return {"labels": np.union1d(self.labels, other.labels)}


@dataclasses.dataclass(frozen=True)
class TruthClasses(Metric[SeenClasses]):
    """The classes of a truth column: a first pass over a table, folded by any engine.

    Examples
    --------
    >>> seen = TruthClasses()
    >>> state = seen.merge(seen.summarize(["b", "a"]), seen.summarize(["c", "a"]))
    >>> seen.compute(state).tolist()
    ['a', 'b', 'c']
    """

    @property
    def name(self) -> str:
        """``classes``."""
        return "classes"

    @property
    def inputs(self) -> str:
        """Labels (the truth column only)."""
        return "labels"

    def summarize(self, y_true: Any) -> SeenClasses:
        """The distinct labels of ``y_true``."""
        return SeenClasses(np.unique(np.asarray(y_true)))

    def empty(self) -> SeenClasses:
        """No label."""
        return SeenClasses(np.empty(0))

    def compute(self, state: SeenClasses) -> NDArray[Any]:
        """The sorted distinct labels."""
        return state.labels


def _names(column: str, label: str) -> bool:
    """Whether the column name ``column`` names the class ``label``."""
    name, label = column.casefold(), label.casefold()
    if not label:
        return False
    if name == label:
        return True
    digits = label.isdigit()
    if name.endswith(label):
        before = name[-len(label) - 1]
        if not before.isalnum() or (digits and not before.isdigit()):
            return True
    if name.startswith(label):
        after = name[len(label)]
        if not after.isalnum() or (digits and not after.isdigit()):
            return True
    return False


def column_classes(columns: Sequence[str], classes: Sequence[Any]) -> list[Any] | None:
    """The class each column names, when the names identify the classes one to one.

    Returns ``None`` when no column names a class. Raises when some do and
    others do not, or when a name fits several classes.

    Examples
    --------
    >>> column_classes(["p_dog", "p_bird", "p_cat"], ["bird", "cat", "dog"])
    ['dog', 'bird', 'cat']
    >>> column_classes(["p2", "p0", "p1"], [0, 1, 2])
    [2, 0, 1]
    >>> column_classes(["s1", "s2", "s3"], ["a", "b", "c"]) is None
    True
    """
    fits = [[c for c in classes if _names(col, str(c))] for col in columns]
    if not any(fits):
        return None
    taken = [fit[0] for fit in fits if len(fit) == 1]
    one_each = all(len(fit) == 1 for fit in fits) and len({str(c) for c in taken}) == len(columns)
    if one_each and len(columns) == len(classes):
        return taken
    unclear = [col for col, fit in zip(columns, fits, strict=True) if len(fit) != 1]
    raise InputError(
        message(
            "scorekit eval --score",
            "cannot tell which score column holds which class",
            raw(
                f"columns {list(columns)} for the classes {[str(c) for c in classes]}"
                + (f" ({', '.join(unclear)} name no single class)" if unclear else "")
            ),
            "one column named after each class (p_cat), or --classes in the order of the columns",
        )
    )


def order_score_columns(
    plan: Any, classes: NDArray[Any], given: Sequence[str] | None = None
) -> tuple[Any, list[str]]:
    """``plan`` with its score columns in the sorted order of ``classes``, and any warning.

    ``classes`` are the sorted classes of ``--true``; integer classes that miss a
    column stand for ``0 .. k-1``. ``given`` (``--classes``) names the class of
    each column in turn.
    """
    columns = list(plan.score or ())
    k = len(columns)
    universe: list[Any] = list(classes.tolist())
    if (
        len(universe) != k
        and classes.dtype.kind in "iu"
        and classes.size
        and classes.min() >= 0
        and classes.max() < k
    ):
        universe = list(range(k))
    if given is not None:
        order = _given_order(columns, universe, given)
    else:
        if len(universe) != k:
            return plan, []
        named = column_classes(columns, universe)
        if named is None:
            shown = ", ".join(f"{col}={c}" for col, c in zip(columns, universe, strict=True))
            return plan, [
                f"the --score columns do not name the classes; they are taken in the sorted "
                f"order of the classes ({shown}); name them after the classes (p_cat) or give "
                f"--classes in their order if that is wrong"
            ]
        order = named
    rank = {str(c): i for i, c in enumerate(universe)}
    ordered = [
        col for _, col in sorted(zip(order, columns, strict=True), key=lambda p: rank[str(p[0])])
    ]
    if ordered == columns:
        return plan, []
    return dataclasses.replace(plan, score=tuple(ordered)), []


def _given_order(columns: list[str], universe: list[Any], given: Sequence[str]) -> list[Any]:
    known = {str(c): c for c in universe}
    if len(given) != len(columns) or set(map(str, given)) != set(known):
        raise InputError(
            message(
                "scorekit eval --classes",
                "the classes do not match the score columns",
                raw(f"{list(given)} for the columns {columns} and classes {list(known)}"),
                "each class of --true once, in the order of the --score columns",
            )
        )
    named = column_classes(columns, universe) if len(universe) == len(columns) else None
    if named is not None and [str(c) for c in named] != [str(g) for g in given]:
        raise InputError(
            message(
                "scorekit eval --classes",
                "the classes contradict the score columns' names",
                raw(f"--classes {list(given)} for the columns {columns}"),
                f"the classes the names give: {[str(c) for c in named]}",
            )
        )
    return [known[str(g)] for g in given]
