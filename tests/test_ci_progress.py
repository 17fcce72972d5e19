"""The bootstrap's progress line: replicates counted as their weights are drawn, on stderr."""

from __future__ import annotations

from typing import Any

import numpy as np

from scorekit import api
from scorekit.stats import replicate_progress


def _data() -> dict[str, Any]:
    rng = np.random.default_rng(4)
    return {"y": rng.integers(0, 2, 400), "s": rng.random(400)}


def test_the_replicates_of_kept_rows_are_counted_once_each() -> None:
    # exact score metrics keep their rows and draw the replicates' weights when computed
    data = _data()
    for name, second in (("roc_auc", data["s"]), ("average_precision", data["s"])):
        ci = api.CI(n_resamples=37, seed=1)
        boot = ci.wrap(name)
        state = boot.summarize(data["y"], second)
        done: list[int] = []
        with replicate_progress(done.append):
            found = ci.interval(boot, state)
        assert sum(done) == 37 and all(n > 0 for n in done)
        assert found == api.CI(n_resamples=37, seed=1).interval(boot, state)


def test_the_line_names_the_metric_and_counts_to_the_end(capsys: Any) -> None:
    data = _data()
    ci = api.CI(n_resamples=50, seed=1, progress=True)
    boot = ci.wrap("roc_auc")
    ci.interval(boot, boot.summarize(data["y"], data["s"]))
    last = capsys.readouterr().err.split("\r")[-1]
    assert last.startswith("bootstrap of roc_auc:  50/50 replicates  100%")
    assert last.endswith("\n")


def test_no_line_for_replicates_made_while_reading(capsys: Any) -> None:
    data = _data()
    ci = api.CI(n_resamples=50, seed=1, progress=True)
    boot = ci.wrap("accuracy")
    ci.interval(boot, boot.summarize(data["y"], (data["s"] > 0.5).astype(int)))
    assert capsys.readouterr().err == ""


def test_no_line_when_not_asked_and_progress_shapes_no_value(capsys: Any) -> None:
    data = _data()
    quiet, shown = api.CI(n_resamples=20), api.CI(n_resamples=20, progress=True)
    boot = quiet.wrap("roc_auc")
    state = boot.summarize(data["y"], data["s"])
    assert quiet == shown
    assert quiet.interval(boot, state) == shown.interval(boot, state)
    capsys.readouterr()
    quiet.interval(boot, state)
    assert capsys.readouterr().err == ""
