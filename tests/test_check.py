"""The check of text inputs, :func:`scorekit._check.as_strings`, as BLEU, ROUGE and QA use it."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from scorekit import qa, text
from scorekit._check import StringErrors, as_list, as_strings
from scorekit.errors import InputError


class Answer(str):
    pass


@pytest.mark.parametrize(
    "values",
    [
        ["a b", "c"],
        ("a b", "c"),
        np.array(["a b", "c"]),
        np.array(["a b", "c"], dtype=object),
        pd.Series(["a b", "c"]),
        pa.array(["a b", "c"]),
        pa.chunked_array([["a b"], ["c"]]),
        iter(["a b", "c"]),
        [Answer("a b"), "c"],
    ],
)
def test_strings_from_every_sequence_form(values: Any) -> None:
    got = as_strings("m", "predictions", values, expected="strings")
    assert got == ["a b", "c"]
    assert all(type(s) is str for s in got)


@pytest.mark.parametrize(
    ("values", "per_item", "expected"),
    [
        (["a", ["b", "c"]], "string_or_list", (["a", "b", "c"], [1, 2])),
        ([("a",), np.array(["b", "c"])], "string_or_list", (["a", "b", "c"], [1, 2])),
        (np.array([["a", "b"], ["c", "d"]]), "list", (["a", "b", "c", "d"], [2, 2])),
        (pa.array([["a"], ["b", "c"]]), "list", (["a", "b", "c"], [1, 2])),
        ([[Answer("a")], ["b"]], "list", (["a", "b"], [1, 1])),
        ([], "list", ([], [])),
    ],
)
def test_lists_of_strings_are_flattened_with_counts(
    values: Any, per_item: Any, expected: tuple[list[str], list[int]]
) -> None:
    flat, counts = as_strings("m", "references", values, expected="lists", per_item=per_item)
    assert (flat, counts) == expected
    assert all(type(s) is str for s in flat)


def test_the_callers_data_is_left_alone() -> None:
    refs = [["a", Answer("b")], ("c",)]
    as_strings("m", "references", refs, expected="lists", per_item="list")
    assert refs == [["a", Answer("b")], ("c",)]
    assert type(refs[0][1]) is Answer


@pytest.mark.parametrize(
    ("values", "kwargs", "problem"),
    [
        (None, {}, "predictions is missing"),
        ("a b", {}, "predictions is a single string"),
        ({"q1": "a"}, {}, "predictions is a mapping"),
        ({"a", "b"}, {}, "predictions is not a sequence; got set"),
        (5, {}, "predictions is not a sequence; got int"),
        (np.array("a"), {}, "predictions is a single value"),
        (np.array([["a"]]), {}, "predictions has the wrong shape"),
        (np.array([["a"]]), {"per_item": "list", "rows": False}, "predictions has the wrong shape"),
        (["a", None], {}, "predictions contains None; got None at index 1"),
        (["a", 3], {}, "predictions has a non-string item; got int 3 at index 1"),
        (
            [["a"], "b"],
            {"per_item": "list"},
            "has the wrong nesting; got the string 'b' at index 1",
        ),
        ([["a"], None], {"per_item": "list"}, "predictions contains None; got None at index 1"),
        ([["a"], []], {"per_item": "list"}, "an item has no answer; got [] at index 1"),
        ([["a", None]], {"per_item": "list"}, "contains None; got None at index 0, answer 1"),
        ([["a", ["b"]]], {"per_item": "list"}, "got a list inside the answers at index 0"),
        (
            [["a", 2]],
            {"per_item": "string_or_list"},
            "non-string item; got int 2 at index 0, answer 1",
        ),
        ([5], {"per_item": "string_or_list"}, "non-string item; got int 5 at index 0"),
    ],
)
def test_errors_name_the_problem_and_the_place(
    values: Any, kwargs: dict[str, Any], problem: str
) -> None:
    with pytest.raises(InputError, match="^m: .*" + re.escape(problem)):
        as_strings("m", "predictions", values, expected="strings", item="answer", **kwargs)


def test_a_family_words_its_errors_by_overriding_a_method() -> None:
    class Terse(StringErrors):
        def none(self, where: tuple[int, ...]) -> InputError:
            return self.error("a gap", None)

    with pytest.raises(InputError, match=r"^m: a gap; expected strings\.$"):
        as_strings("m", "x", ["a", None], expected="strings", errors=Terse)
    with pytest.raises(InputError, match=r"^m: x is missing"):
        as_list("m", "x", None, expected="strings", errors=Terse)


# the families ------------------------------------------------------------------------


def test_the_families_read_the_same_forms() -> None:
    refs, preds = ["the cat sat", "a dog"], ["the cat sat", "one dog"]
    em = qa.exact_match([[r] for r in refs], preds)
    for form in (np.array, pd.Series, pa.array, tuple):
        assert text.bleu(form(refs), form(preds)).score == text.bleu(refs, preds).score
        assert text.rouge(form(refs), form(preds)) == text.rouge(refs, preds)
        assert qa.exact_match(pa.array([[r] for r in refs]), form(preds)) == em


@pytest.mark.parametrize(
    ("call", "problem"),
    [
        (lambda: text.bleu(["a"], {"a"}), "bleu: predictions is not a sequence"),
        (lambda: text.rouge(["a"], {"a"}), "rouge: predictions is not a sequence"),
        (lambda: qa.f1([["a"]], {"a"}), "qa_f1: predictions is not a sequence"),
        (
            lambda: text.rouge(np.array([["a", "b"]]), ["a"]),
            "rouge: references has the wrong shape",
        ),
        (lambda: qa.f1([["a"]], np.array("a")), "qa_f1: predictions is a single value"),
        (lambda: text.rouge(["a"], np.array("a")), "rouge: predictions has the wrong shape"),
    ],
)
def test_sets_and_wrong_shapes_are_refused(call: Any, problem: str) -> None:
    with pytest.raises(InputError, match="^" + re.escape(problem)):
        call()


def test_bleu_and_qa_read_a_2d_array_as_references_per_row() -> None:
    refs = np.array([["the cat sat", "a cat sat"], ["a dog", "one dog"]])
    as_lists = [list(r) for r in refs.tolist()]
    preds = ["the cat sat", "a dog"]
    assert text.bleu(refs, preds) == text.bleu(as_lists, preds)
    assert qa.f1(refs, preds) == qa.f1(as_lists, preds)
