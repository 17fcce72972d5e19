"""Hostile numbers and call shapes: overflow, wrong inputs, huge size options, bad records."""

from __future__ import annotations

import pytest

import scorekit
from scorekit.errors import InputError


@pytest.mark.parametrize(
    ("args", "kwargs", "got"),
    [
        (([1, 0],), {}, "got 1 positional input,"),
        (([1, 0], [1, 0], [1, 1], [2]), {}, "got 4 positional inputs,"),
        (([1, 0], [1, 0]), {"weights": [1, 1]}, "keyword 'weights'"),
    ],
)
def test_score_with_wrong_inputs(args: tuple, kwargs: dict, got: str) -> None:
    """[crash] Metric.score with too few, too many or unknown inputs names the inputs it takes."""
    metric = scorekit.parse_metric("accuracy")
    with pytest.raises(InputError, match="accuracy: wrong inputs") as info:
        metric.score(*args, **kwargs)
    assert got in str(info.value)
    assert "(y_true, y_pred, sample_weight=None)" in str(info.value)
    with pytest.raises(InputError, match="accuracy: wrong inputs"):
        metric.update(metric.empty(), *args, **kwargs)
