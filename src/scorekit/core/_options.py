"""Options given beside metric names (a command's flags): defaults for the metrics that take them.

One rule for every command: an option given beside the metric names applies to every
requested metric whose class has that option, whether the metric is named bare or with
options of its own; an option written in the metric's name wins; an option that none of
the requested metrics takes is an error naming it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from scorekit.core._fields import option_values
from scorekit.core._metric import Metric
from scorekit.core._registry import _option_names, available, get, parse_metric
from scorekit.errors import ConfigError, choices, message, raw

__all__ = ["option_choices", "option_names", "parse_metrics"]


def option_names(metric: str | Metric[Any]) -> set[str]:
    """The options ``metric`` (an instance or a metric name) takes by name.

    Examples
    --------
    >>> sorted(option_names("rougeL"))
    ['split_sentences', 'stemmer', 'tokenizer', 'weight']
    """
    return _option_names(type(parse_metric(metric)))


def option_choices(
    metric: str | Metric[Any] | type[Metric[Any]], option: str
) -> tuple[str, ...] | None:
    """The words an option of a metric takes, as declared on its field (for ``choices=``).

    The values listed by the field's :class:`~scorekit.core.OneOf` marker, None
    left out, when they are all text; None for an option declared otherwise (a
    number, a flag, a list of values that are not all text).

    Parameters
    ----------
    metric
        A metric name or alias (without ``@k`` or ``:variant``), a metric, or its class.
    option
        The name of one of its options.

    Returns
    -------
    tuple of str or None
        The choices, in their declared order.

    Raises
    ------
    ConfigError
        The metric does not take ``option``.

    Examples
    --------
    >>> option_choices("bleu", "tokenize")
    ('13a', 'intl', 'char', 'zh', 'none')
    >>> option_choices("bleu", "max_order") is None
    True
    """
    if isinstance(metric, str):
        cls: type[Metric[Any]] = get(metric).cls
    else:
        cls = metric if isinstance(metric, type) else type(metric)
    names = _option_names(cls)
    if option not in names:
        where = cls.info.name if hasattr(cls, "info") else cls.__name__
        raise ConfigError(message(where, "unknown option", option, choices(sorted(names))))
    values = option_values(cls, option)
    if values is None:
        return None
    words = tuple(v for v in values if v is not None)
    return words if all(isinstance(v, str) for v in words) else None


def parse_metrics(
    specs: Sequence[str | Metric[Any]],
    defaults: Mapping[str, Any] | None = None,
    *,
    where: str = "scorekit",
    spelled: Mapping[str, str] | None = None,
    strict: bool = True,
) -> list[Metric[Any]]:
    """The metrics named in ``specs``, each given the ``defaults`` it takes.

    An option of ``defaults`` goes to every metric whose class has an option of
    that name, named bare (``rouge1``) or with options (``rougeLsum:split_sentences=true``);
    an option written in the name wins over the default. A default of ``None`` is
    not given. With ``strict``, a default that none of the metrics takes is a
    ConfigError naming it as ``spelled`` spells it (a command's flag, e.g.
    ``--stemmer``). A metric given as an instance is taken as it is.

    Parameters
    ----------
    specs
        Metric names in the grammar of :func:`~scorekit.core.parse_metric`, or metrics.
    defaults
        Option name to value.
    where
        The start of an error message (a command, e.g. ``scorekit text``).
    spelled
        How the caller names each option, for the error (default: the option's name).
    strict
        Whether an option no metric takes is an error.

    Returns
    -------
    list of Metric
        One metric per spec, in order.

    Examples
    --------
    >>> found = parse_metrics(["rouge1", "rougeL:stemmer=false", "bleu"], {"stemmer": True})
    >>> [getattr(m, "stemmer", None) for m in found]
    [True, False, None]
    >>> parse_metrics(["wer"], {"stemmer": True}, where="scorekit text",
    ...               spelled={"stemmer": "--stemmer"})
    Traceback (most recent call last):
    ...
    scorekit.errors.ConfigError: scorekit text: no requested metric takes the option; got --stem...
    """
    given = {key: value for key, value in (defaults or {}).items() if value is not None}
    taken: set[str] = set()
    found: list[Metric[Any]] = []
    for spec in specs:
        metric = parse_metric(spec)
        fields = _option_names(type(metric))
        usable = {key: value for key, value in given.items() if key in fields}
        taken.update(usable)
        if usable and not isinstance(spec, Metric):
            metric = parse_metric(spec, **usable)
        found.append(metric)
    unused = [key for key in given if key not in taken]
    if strict and unused:
        key = unused[0]
        takers = [info.name for info in available() if key in _option_names(info.cls)]
        shown = ", ".join(takers[:3]) + (", ..." if len(takers) > 3 else "")
        raise ConfigError(
            message(
                where,
                "no requested metric takes the option",
                raw((spelled or {}).get(key, key)),
                f"a metric that takes it ({shown})" if takers else "no such option",
            )
        )
    return found
