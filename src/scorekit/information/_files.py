"""The columns of a file ranked as splits of a target (``scorekit features``).

:func:`rank_file` reads the file, turns each feature column into the array
:func:`scorekit.information.rank_features` takes (numeric columns as finite
floats, every other column as labels) and ranks them. Problems in the file are
reported with its name, the line or row, and the column.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorekit.errors import ConfigError, InputError, message, raw

__all__ = ["FeatureRanking", "rank_file"]

_COMMAND = "scorekit features"


@dataclasses.dataclass
class FeatureRanking:
    """What :func:`rank_file` found: the splits, best first."""

    criterion: str
    target: str
    splits: list[Any]
    rows: int
    classes: int


def _is_numeric(kind: Any) -> bool:
    import pyarrow as pa

    return bool(
        pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_decimal(kind)
    )


def _check_names(flag: str, names: Sequence[str], present: Sequence[str], path: str) -> None:
    unknown = [n for n in names if n not in present]
    if unknown:
        raise ConfigError(
            message(
                f"{_COMMAND} {flag}",
                f"no such column in {path}",
                raw(", ".join(repr(n) for n in unknown)),
                f"one of the columns present: {', '.join(repr(c) for c in present)}",
            )
        )


def _feature_names(
    present: Sequence[str],
    target: str,
    features: Sequence[str] | None,
    exclude: Sequence[str],
    weight: str | None,
    path: str,
) -> list[str]:
    _check_names("--target", [target], present, path)
    _check_names("--exclude", exclude, present, path)
    if weight is not None:
        _check_names("--weight", [weight], present, path)
    if features:
        _check_names("--features", features, present, path)
        clash = [n for n in features if n in (target, weight)]
        if clash:
            raise ConfigError(
                message(
                    f"{_COMMAND} --features",
                    "a feature is also the target or the weight",
                    clash[0],
                    "feature columns other than --target and --weight",
                )
            )
        names = list(dict.fromkeys(features))
    else:
        names = [c for c in present if c != target and c != weight]
    names = [n for n in names if n not in set(exclude)]
    if not names:
        raise ConfigError(
            message(
                _COMMAND,
                "no feature columns left to rank",
                raw(f"columns of {path}: {', '.join(repr(c) for c in present)}"),
                "at least one column besides --target, --weight and --exclude",
            )
        )
    return names


def rank_file(
    path: str,
    *,
    target: str,
    features: Sequence[str] | None = None,
    exclude: Sequence[str] = (),
    categorical: Sequence[str] = (),
    criterion: str = "information_gain",
    weight: str | None = None,
    base: float = 2.0,
) -> FeatureRanking:
    """Rank the feature columns of a file by how well each splits the target column.

    Numeric columns (integers, floats, decimals) are split in two at the best
    threshold unless named in ``categorical``; every other column (strings,
    booleans) splits multiway, one branch per value. Without ``features`` every
    column other than the target, the weight and ``exclude`` is ranked.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "weather.csv")
    >>> rows = ["outlook,temp,play", "sunny,30,no", "sunny,21,yes", "rain,18,yes", "rain,27,no"]
    >>> with open(path, "w") as f:
    ...     _ = f.write("\\n".join(rows))
    >>> ranking = rank_file(path, target="play")
    >>> [(s.feature, s.score, s.threshold) for s in ranking.splits]
    [('temp', 1.0, 24.0), ('outlook', 0.0, None)]
    """
    from scorekit import io as _io
    from scorekit.information._rank import rank_features

    table = _io.read_table(path)
    names = _feature_names(table.column_names, target, features, exclude, weight, path)
    _check_names("--categorical", categorical, names, path)
    y = _io.label_array(table, target)
    classes = np.unique(y)
    if len(y) and len(classes) < 2:
        raise InputError(
            message(
                f"{path}, column {target!r}",
                "the target has a single class",
                raw(f"only {classes[0].item()!r} in {len(y)} rows"),
                "at least two classes to split",
            )
        )
    columns: dict[str, NDArray[Any]] = {}
    multiway: list[str] = []
    for name in names:
        if name in categorical or not _is_numeric(table.schema.field(name).type):
            multiway.append(name)
            columns[name] = _io.label_array(table, name)
        else:
            columns[name] = _io.score_array(table, name)
    w = _io.weight_array(table, weight) if weight is not None else None
    splits = rank_features(
        columns,
        y,
        criterion=criterion,  # type: ignore[arg-type]
        categorical=multiway,
        sample_weight=w,
        base=base,
    )
    return FeatureRanking(criterion, target, splits, len(y), len(classes))
