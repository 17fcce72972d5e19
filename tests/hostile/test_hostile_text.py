"""Hostile inputs of the text metrics: empty lines, uneven references, non-UTF-8 files, a
scoring function that fails on one item, None among the texts."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from hostile import assert_clean_error, scorekit, write
from scorekit.errors import InputError
from scorekit.text import CHRF, TER, WER, from_function

METRICS = ["bleu", "chrf", "chrf++", "ter", "wer", "cer", "mer", "wil", "wip", "rougeW"]


def test_empty_hypothesis_and_reference_lines_score(tmp_path: Path) -> None:
    """[crash] empty lines on either side: every metric gives a number, per line too."""
    refs = write(tmp_path / "refs.txt", ["", "the cat", "", "a dog"])
    hyps = write(tmp_path / "hyps.txt", ["", "", "extra words", "a dog"])
    done = scorekit("text", "--refs", refs, "--hyps", hyps, "-m", *METRICS, "--format", "json")
    assert done.returncode == 0, done.stderr
    values = json.loads(done.stdout)
    assert all(isinstance(values[k], int | float) for k in ("chrf", "ter", "wer", "cer"))
    per_line = scorekit("text", "--refs", refs, "--hyps", hyps, "-m", *METRICS,
                        "--sentence-level", "--format", "json")  # fmt: skip
    assert per_line.returncode == 0, per_line.stderr
    rows = [json.loads(line) for line in per_line.stdout.splitlines()]
    assert len(rows) == 4 and rows[0]["wer"] == 0.0 and rows[2]["ter"] == 1.0


def test_reference_files_of_unequal_length_are_refused(tmp_path: Path) -> None:
    """[lost] a reference file shorter than the hypotheses: an error naming both files."""
    hyps = write(tmp_path / "hyps.txt", ["a", "b", "c"])
    ref_a = write(tmp_path / "ref_a.txt", ["a", "b", "c"])
    ref_b = write(tmp_path / "ref_b.txt", ["a", "b"])
    done = scorekit(
        "text", "--refs", ref_a, ref_b, "--hyps", hyps, "-m", "chrf", "--sentence-level"
    )
    assert_clean_error(done, "ref_b.txt")


def test_non_utf8_files_are_refused(tmp_path: Path) -> None:
    """[crash] Latin-1 bytes in a hypothesis file: an error naming the file and line."""
    hyps = tmp_path / "hyps.txt"
    hyps.write_bytes(b"fine\ncaf\xe9\n")
    refs = write(tmp_path / "refs.txt", ["fine", "cafe"])
    done = scorekit("text", "--refs", refs, "--hyps", hyps, "-m", "ter", "wer", "chrf")
    assert_clean_error(done, "hyps.txt", "line 2")


def test_uneven_references_per_segment_in_memory() -> None:
    """[silent] one or two references per item: chrF and TER choose per item, WER aligns each."""
    refs: list[Any] = [["a b c", "a b d"], "x y"]
    preds = ["a b d", "x y"]
    assert CHRF().score(refs, preds) == 1.0
    assert TER().score(refs, preds) == 0.0
    assert WER().score(refs, preds) == 0.0
    with pytest.raises(InputError, match="empty"):
        CHRF().score([[], "x"], ["a", "x"])


@pytest.mark.parametrize("value", [math.nan, float("inf"), "0.5"])
def test_a_scoring_function_failing_on_one_item_names_it(value: Any) -> None:
    """[silent] a judge returning NaN (or text) for one item must not poison the mean."""
    metric = from_function(lambda r, p: value if p == "bad" else 1.0, "judge")
    with pytest.raises(InputError, match="on item 1"):
        metric.score(["a", "b", "c"], ["a", "bad", "c"])

    def raises(r: str, p: str) -> float:
        raise RuntimeError("model out of memory")

    with pytest.raises(InputError, match=r"raised RuntimeError on item 0.*model out of memory"):
        from_function(raises, "judge").score(["a"], ["a"])


@pytest.mark.parametrize("metric", [CHRF(), TER(), WER()])
def test_none_among_the_texts_is_an_error(metric: Any) -> None:
    """[crash] None mixed into predictions or references: an InputError naming the position."""
    with pytest.raises(InputError, match=r"None.*index 1"):
        metric.score(["a", "b"], ["a", None])
    with pytest.raises(InputError, match="None"):
        metric.score(["a", None], ["a", "b"])
