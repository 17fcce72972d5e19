"""Multiclass ROC AUC under the names of scikit-learn's scorers.

``roc_auc_ovr``, ``roc_auc_ovr_weighted``, ``roc_auc_ovo`` and
``roc_auc_ovo_weighted`` are :class:`~scorekit.classification.ROCAUC` with
``multi_class`` and ``average`` fixed as scikit-learn's scorers of those names
fix them, so ``scorekit eval --metrics roc_auc_ovo`` needs no options.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import ClassVar, Literal, TypeVar

from scorekit.classification._roc import ROCAUC
from scorekit.classification._scores import Average
from scorekit.core import SK, Explanation, register
from scorekit.errors import ConfigError, raw

__all__ = ["ROCAUCOvO", "ROCAUCOvOWeighted", "ROCAUCOvR", "ROCAUCOvRWeighted"]

_R = TypeVar("_R", bound=type[ROCAUC])


@dataclass(frozen=True)
class _NamedROCAUC(ROCAUC):
    """ROC AUC whose ``multi_class`` and ``average`` the name fixes to their defaults."""

    def __post_init__(self) -> None:
        default = {f.name: f.default for f in fields(self)}
        multi_class, average = default["multi_class"], default["average"]
        if (self.multi_class, self.average) != (multi_class, average):
            raise ConfigError(
                self._error(
                    "the name fixes multi_class and average",
                    raw(f"multi_class={self.multi_class!r}, average={self.average!r}"),
                    f"multi_class={multi_class!r}, average={average!r} (or roc_auc with options)",
                )
            )
        super().__post_init__()


def _scorer(name: str) -> Callable[[_R], _R]:
    """Register a class of this module under scikit-learn's scorer name ``name``."""
    return register(
        name, higher_is_better=True, bounds=(0.0, 1.0), inputs="multiclass_scores", grows=True
    )


def _explanation(multi_class: str, average: str) -> Explanation:
    if multi_class == "ovo":
        what = "the mean over pairs of classes (a, b) of (AUC(a|b) + AUC(b|a)) / 2 (Hand & Till)"
        weight = "weighted by the pair's share of the samples" if average == "weighted" else ""
        formula = "AUC_ovo = mean_{a<b} (AUC(a|b) + AUC(b|a)) / 2"
    else:
        what = "the mean over classes of the AUC of each class against the rest"
        weight = "weighted by the class's prevalence" if average == "weighted" else ""
        formula = "AUC_ovr = mean_c AUC(c | rest)"
    suffix = "_weighted" if average == "weighted" else ""
    return Explanation(
        definition=f"Multiclass ROC AUC: {what}" + (f", {weight}." if weight else "."),
        formula=formula,
        convention=f"roc_auc with multi_class={multi_class!r}, average={average!r}; 2-D scores "
        "with a column per sorted class (rows summing to 1). A class pair or class without "
        "both outcomes is nan with an UndefinedMetricWarning.",
        reference=f"{SK} roc_auc_score, the 'roc_auc_{multi_class}{suffix}' scorer.",
    )


@_scorer("roc_auc_ovr")
@dataclass(frozen=True)
class ROCAUCOvR(_NamedROCAUC):
    """One-vs-rest multiclass ROC AUC, the macro mean over classes (scikit-learn's ``roc_auc_ovr``).

    :class:`~scorekit.classification.ROCAUC` with ``multi_class='ovr'`` and
    ``average='macro'``; see it for the parameters and the state.

    Examples
    --------
    >>> y = [0, 1, 2, 2]
    >>> s = [[0.5, 0.2, 0.3], [0.2, 0.5, 0.3], [0.3, 0.4, 0.3], [0.3, 0.3, 0.4]]
    >>> round(ROCAUCOvR().score(y, s), 6)
    0.916667
    """

    explanation: ClassVar[Explanation] = _explanation("ovr", "macro")
    multi_class: Literal["raise", "ovr", "ovo"] = "ovr"
    average: Average = "macro"


@_scorer("roc_auc_ovr_weighted")
@dataclass(frozen=True)
class ROCAUCOvRWeighted(_NamedROCAUC):
    """One-vs-rest ROC AUC weighted by class prevalence (scikit-learn's ``roc_auc_ovr_weighted``).

    :class:`~scorekit.classification.ROCAUC` with ``multi_class='ovr'`` and
    ``average='weighted'``.

    Examples
    --------
    >>> y = [0, 1, 2, 2]
    >>> s = [[0.5, 0.2, 0.3], [0.2, 0.5, 0.3], [0.3, 0.4, 0.3], [0.3, 0.3, 0.4]]
    >>> round(ROCAUCOvRWeighted().score(y, s), 6)
    0.875
    """

    explanation: ClassVar[Explanation] = _explanation("ovr", "weighted")
    multi_class: Literal["raise", "ovr", "ovo"] = "ovr"
    average: Average = "weighted"


@_scorer("roc_auc_ovo")
@dataclass(frozen=True)
class ROCAUCOvO(_NamedROCAUC):
    """One-vs-one multiclass ROC AUC (Hand & Till), the macro mean over class pairs.

    scikit-learn's ``roc_auc_ovo`` scorer: :class:`~scorekit.classification.ROCAUC`
    with ``multi_class='ovo'`` and ``average='macro'``.

    Examples
    --------
    >>> y = [0, 1, 2, 2]
    >>> s = [[0.5, 0.2, 0.3], [0.2, 0.5, 0.3], [0.3, 0.4, 0.3], [0.3, 0.3, 0.4]]
    >>> round(ROCAUCOvO().score(y, s), 6)
    0.916667
    """

    explanation: ClassVar[Explanation] = _explanation("ovo", "macro")
    multi_class: Literal["raise", "ovr", "ovo"] = "ovo"
    average: Average = "macro"


@_scorer("roc_auc_ovo_weighted")
@dataclass(frozen=True)
class ROCAUCOvOWeighted(_NamedROCAUC):
    """One-vs-one ROC AUC, class pairs weighted by their share of the samples.

    scikit-learn's ``roc_auc_ovo_weighted`` scorer:
    :class:`~scorekit.classification.ROCAUC` with ``multi_class='ovo'`` and
    ``average='weighted'``.

    Examples
    --------
    >>> y = [0, 1, 2, 2]
    >>> s = [[0.5, 0.2, 0.3], [0.2, 0.5, 0.3], [0.3, 0.4, 0.3], [0.3, 0.3, 0.4]]
    >>> round(ROCAUCOvOWeighted().score(y, s), 6)
    0.90625
    """

    explanation: ClassVar[Explanation] = _explanation("ovo", "weighted")
    multi_class: Literal["raise", "ovr", "ovo"] = "ovo"
    average: Average = "weighted"
