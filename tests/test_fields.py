"""Options declared on the fields of metrics (scorekit.core._fields) and checked in one place."""

from __future__ import annotations

import dataclasses
import math
import typing
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

import numpy as np
import pytest

from scorekit.core import (
    Check,
    Flag,
    Metric,
    OneOf,
    Range,
    State,
    available,
    check_fields,
    get,
    option_choices,
    parse_metric,
)
from scorekit.core import _metric as metric_module
from scorekit.errors import ConfigError

if TYPE_CHECKING:
    from decimal import Decimal


def _even(metric: Any, value: Any) -> int:
    if value % 2:
        raise ConfigError(metric._error("n must be even", value, "an even number"))
    return int(value) // 2 * 2


@dataclass(frozen=True)
class Toy(Metric[State]):
    """A metric that only holds options, one of each kind of rule."""

    n: Annotated[int, Range(1)] = 1
    depth: Annotated[int | None, Range(1)] = None
    p: Annotated[float, Range(0, 1, closed="neither")] = 0.5
    share: Annotated[float, Range(0, 1, closed="right")] = 1.0
    beta: Annotated[float, Range(0, math.inf)] = 1.0
    scale: Annotated[float, Range(0, convert=float)] = 1
    size: Annotated[int, Range(1, 10, problem="size out of range", expected="1 to 10")] = 5
    mode: Annotated[str, OneOf(("fast", "exact"))] = "fast"
    average: Annotated[str | None, OneOf(("macro", "micro", None))] = "macro"
    flag: Annotated[bool, Flag] = False
    strict: Annotated[bool | None, Flag(problem="invalid strict", expected="a bool")] = None
    even: Annotated[int, Check(_even)] = 2
    free: Any = None

    @property
    def name(self) -> str:
        return "toy"

    def summarize(self, *batch: Any, **kwargs: Any) -> State:
        raise NotImplementedError

    def compute(self, state: State) -> Any:
        raise NotImplementedError

    def empty(self) -> State:
        raise NotImplementedError


@dataclass(frozen=True)
class ToyDefault(Toy):
    """A subclass that gives ``n`` a new default, without markers."""

    n: int = 3


@dataclass(frozen=True)
class ToyCross(Toy):
    """A subclass with a rule across fields, checked after the fields."""

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.mode == "exact" and self.depth is not None:
            raise ConfigError(self._error("depth needs mode='fast'", self.depth))


@dataclass(frozen=True)
class ToyHidden(Toy):
    """A field whose annotation names a type imported for type checkers only."""

    hidden: Decimal | None = None


def _message(options: dict[str, Any], cls: type[Toy] = Toy) -> str:
    with pytest.raises(ConfigError) as caught:
        cls(**options)
    return str(caught.value)


# each rule on the toy metric ----------------------------------------------------------------


def test_defaults_pass_and_keep_their_values() -> None:
    toy = Toy()
    assert (toy.n, toy.depth, toy.p, toy.mode, toy.flag, toy.even) == (
        1,
        None,
        0.5,
        "fast",
        False,
        2,
    )
    assert type(toy.scale) is float


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({"n": 0}, "toy: invalid n; got 0, expected an integer >= 1."),
        ({"n": True}, "toy: invalid n; got True, expected an integer >= 1."),
        ({"n": np.True_}, "toy: invalid n; got np.True_, expected an integer >= 1."),
        ({"n": 2.0}, "toy: invalid n; got 2.0, expected an integer >= 1."),
        ({"n": "3"}, "toy: invalid n; got '3', expected an integer >= 1."),
        ({"n": None}, "toy: invalid n; expected an integer >= 1."),
        ({"depth": 0}, "toy: invalid depth; got 0, expected an integer >= 1 or None."),
        ({"p": 0}, "toy: invalid p; got 0, expected a number in (0, 1)."),
        ({"p": 1.0}, "toy: invalid p; got 1.0, expected a number in (0, 1)."),
        ({"p": math.nan}, "toy: invalid p; got nan, expected a number in (0, 1)."),
        ({"p": False}, "toy: invalid p; got False, expected a number in (0, 1)."),
        ({"share": 0.0}, "toy: invalid share; got 0.0, expected a number in (0, 1]."),
        ({"beta": -1}, "toy: invalid beta; got -1, expected a number in [0, inf]."),
        ({"beta": math.nan}, "toy: invalid beta; got nan, expected a number in [0, inf]."),
        ({"scale": math.inf}, "toy: invalid scale; got inf, expected a number >= 0."),
        ({"size": 11}, "toy: size out of range; got 11, expected 1 to 10."),
        ({"mode": "slow"}, "toy: unknown mode; got 'slow', expected one of 'fast', 'exact'."),
        ({"mode": ["fast"]}, "toy: unknown mode; got ['fast'], expected one of 'fast', 'exact'."),
        (
            {"average": "x"},
            "toy: unknown average; got 'x', expected one of 'macro', 'micro', None.",
        ),
        ({"flag": "yes"}, "toy: flag must be a bool; got 'yes', expected True or False."),
        ({"flag": 1}, "toy: flag must be a bool; got 1, expected True or False."),
        ({"flag": None}, "toy: flag must be a bool; expected True or False."),
        ({"strict": 0}, "toy: invalid strict; got 0, expected a bool."),
        ({"even": 3}, "toy: n must be even; got 3, expected an even number."),
    ],
)
def test_each_rule_names_the_option_in_the_house_form(
    options: dict[str, Any], expected: str
) -> None:
    assert _message(options) == expected


def test_ranges_admit_their_ends_and_infinity_only_when_closed() -> None:
    assert Toy(share=1).share == 1
    assert Toy(beta=0).beta == 0
    assert Toy(beta=math.inf).beta == math.inf
    assert Toy(size=1).size == 1 and Toy(size=10).size == 10
    assert Toy(depth=None).depth is None
    assert Toy(average=None).average is None
    assert Toy(strict=None).strict is None


@pytest.mark.parametrize(
    ("option", "given", "kept", "kind"),
    [
        ("n", np.int64(3), 3, int),
        ("n", np.uint8(2), 2, int),
        ("depth", np.int32(7), 7, int),
        ("p", np.float32(0.25), 0.25, float),
        ("p", np.float64(0.5), 0.5, float),
        ("beta", np.int64(2), 2, int),
        ("beta", 2, 2, int),
        ("scale", 2, 2.0, float),
        ("scale", np.int64(2), 2.0, float),
        ("flag", np.True_, True, bool),
        ("strict", np.False_, False, bool),
        ("even", np.int64(4), 4, int),
    ],
)
def test_values_are_normalized(option: str, given: Any, kept: Any, kind: type) -> None:
    value = getattr(Toy(**{option: given}), option)
    assert value == kept
    assert type(value) is kind


def test_a_value_that_passes_keeps_its_identity() -> None:
    marker = object()
    assert Toy(free=marker).free is marker
    mode = "exact"
    assert Toy(mode=mode).mode is mode


def test_fields_are_checked_in_order_then_the_rules_across_fields() -> None:
    assert _message({"mode": "slow", "n": 0}) == "toy: invalid n; got 0, expected an integer >= 1."
    assert _message({"mode": "exact", "depth": 2}, ToyCross) == (
        "toy: depth needs mode='fast'; got 2."
    )
    assert _message({"mode": "exact", "depth": 0}, ToyCross).startswith("toy: invalid depth")


def test_a_field_declared_again_without_markers_keeps_them() -> None:
    assert ToyDefault().n == 3
    assert _message({"n": 0}, ToyDefault) == "toy: invalid n; got 0, expected an integer >= 1."
    assert option_choices(ToyDefault, "mode") == ("fast", "exact")


def test_an_annotation_for_type_checkers_only_leaves_the_other_fields_checked() -> None:
    with pytest.raises(NameError):
        typing.get_type_hints(ToyHidden)
    assert ToyHidden(hidden=None).hidden is None
    assert _message({"n": 0}, ToyHidden) == "toy: invalid n; got 0, expected an integer >= 1."


def test_replace_checks_again() -> None:
    toy = Toy(n=np.int64(4))
    assert dataclasses.replace(toy, p=0.25).n == 4
    with pytest.raises(ConfigError, match="invalid p"):
        dataclasses.replace(toy, p=2)


def test_check_fields_on_a_built_metric() -> None:
    toy = Toy()
    object.__setattr__(toy, "n", np.int64(5))
    check_fields(toy)
    assert type(toy.n) is int
    object.__setattr__(toy, "mode", "slow")
    with pytest.raises(ConfigError, match="unknown mode"):
        check_fields(toy)


def test_range_on_a_field_that_is_no_number_is_refused() -> None:
    @dataclass(frozen=True)
    class Wrong(Toy):
        word: Annotated[str, Range(1)] = "a"

    with pytest.raises(TypeError, match="Range needs an int or float field"):
        Wrong()


# option_choices --------------------------------------------------------------------------


def test_option_choices_from_the_declaration() -> None:
    from scorekit.text import TOKENIZERS

    assert option_choices("bleu", "tokenize") == tuple(TOKENIZERS)
    assert option_choices(get("bleu").cls, "smooth") == ("exp", "floor", "add-k", "none")
    assert option_choices(parse_metric("ndcg@10"), "missing") == ("skip", "zero")
    assert option_choices("sacrebleu", "tokenize") == tuple(TOKENIZERS)
    # None is not text a command line can give
    assert option_choices("f1", "average") == ("binary", "micro", "macro", "weighted", "samples")
    assert option_choices(Toy, "average") == ("macro", "micro")


def test_option_choices_is_none_without_a_list_of_words() -> None:
    assert option_choices("bleu", "max_order") is None
    assert option_choices("bleu", "lowercase") is None
    assert option_choices("brier", "scale_by_half") is None
    assert option_choices("rougeL", "tokenizer") is None


def test_option_choices_of_an_unknown_option() -> None:
    with pytest.raises(ConfigError) as caught:
        option_choices("bleu", "tokenizer")
    assert str(caught.value).startswith("bleu: unknown option; got 'tokenizer', expected one of")
    with pytest.raises(ConfigError, match="unknown metric"):
        option_choices("no_such_metric", "k")


# the registered metrics ------------------------------------------------------------------


def test_every_registered_metric_resolves_its_annotations() -> None:
    for info in available():
        typing.get_type_hints(info.cls, include_extras=True)


def test_every_registered_metric_runs_the_field_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[type[Any]] = []

    def counted(metric: Any) -> None:
        seen.append(type(metric))
        check_fields(metric)

    monkeypatch.setattr(metric_module, "check_fields", counted)
    for info in available():
        if not dataclasses.is_dataclass(info.cls):
            continue
        seen.clear()
        info.cls()
        assert seen == [info.cls], info.name


# (metric, option, value, message): the messages users see, word for word
MESSAGES = [
    (
        "bleu",
        "tokenize",
        "x",
        "bleu: unknown tokenize; got 'x', expected one of '13a', 'intl', 'char', 'zh', 'none'.",
    ),
    ("bleu", "max_order", 0, "bleu: invalid max_order; got 0, expected an integer >= 1."),
    ("bleu", "lowercase", "x", "bleu: lowercase must be a bool; got 'x', expected True or False."),
    (
        "bleu",
        "smooth",
        "x",
        "bleu: unknown smooth; got 'x', expected one of 'exp', 'floor', 'add-k', 'none'.",
    ),
    ("chrf", "beta", 0, "chrf: invalid beta; got 0, expected a number > 0."),
    ("chrf", "char_order", -1, "chrf: invalid char_order; got -1, expected an integer >= 0."),
    ("chrf++", "word_order", -1, "chrf++: invalid word_order; got -1, expected an integer >= 0."),
    ("ter", "normalized", 1, "ter: normalized must be a bool; got 1, expected True or False."),
    ("wer", "normalize", "x", "wer: normalize must be a bool; got 'x', expected True or False."),
    (
        "rougeL",
        "weight",
        0.5,
        "rougeL: weight must be a finite number >= 1; got 0.5, expected e.g. 1.2.",
    ),
    ("rougeL", "stemmer", 1, "rougeL: stemmer must be True or False; got 1, expected a bool."),
    (
        "rougeL",
        "tokenizer",
        "x",
        "rougeL: unknown tokenizer; got 'x', expected one of 'default', "
        "'unicode', 'none' or a callable.",
    ),
    (
        "rougeL",
        "split_sentences",
        1,
        "rougeL: split_sentences must be a bool or a callable; got 1, "
        "expected False (newlines), True (newlines and . ! ?) or a function str -> list[str].",
    ),
    (
        "rouge",
        "types",
        "x",
        "rouge: unknown ROUGE type; got 'x', expected one of 'rouge1', "
        "'rouge2', 'rouge3', 'rouge4', 'rouge5', 'rouge6', 'rouge7', 'rouge8', 'rouge9', 'rougeL', "
        "'rougeLsum', 'rougeW', 'rougeS<d>', 'rougeSU<d>'.",
    ),
    ("perplexity", "ignore_index", 0.5, "perplexity: ignore_index must be an integer; got 0.5."),
    ("perplexity", "base", "x", "perplexity: unknown base; got 'x', expected one of 'e', 2."),
    (
        "f1",
        "average",
        "x",
        "f1: unknown average; got 'x', expected one of 'binary', 'micro', "
        "'macro', 'weighted', 'samples', None.",
    ),
    (
        "f1",
        "pos_label",
        [1, 2],
        "f1: pos_label must be a single label; got [1, 2], expected e.g. 1 or 'spam'.",
    ),
    ("f1", "zero_division", 2, "f1: invalid zero_division; got 2, expected 'warn', 0, 1 or nan."),
    ("f1", "labels", [], "f1: labels is empty; got [], expected at least one label, or None."),
    ("fbeta", "beta", -1, "fbeta: beta must be a number >= 0; got -1, expected beta >= 0."),
    ("roc_auc", "max_fpr", 2, "roc_auc: invalid max_fpr; got 2, expected 0 < max_fpr <= 1."),
    (
        "roc_auc_ovo",
        "max_fpr",
        2,
        "roc_auc_ovo: partial AUC (max_fpr) is not available for "
        "one-vs-one; got 2, expected max_fpr=None.",
    ),
    ("roc_auc", "labels", (2, 1), "roc_auc: labels must be sorted; got [2, 1], expected [1, 2]."),
    (
        "roc_auc",
        "multi_class",
        "x",
        "roc_auc: unknown multi_class; got 'x', expected one of 'raise', 'ovr', 'ovo'.",
    ),
    (
        "average_precision",
        "interpolation",
        "x",
        "average_precision: unknown interpolation; "
        "got 'x', expected one of None, '11point', 'all'.",
    ),
    (
        "top_k_accuracy",
        "k",
        0,
        "top_k_accuracy: k must be an integer >= 1; got 0, expected k >= 1.",
    ),
    (
        "top_k_accuracy",
        "labels",
        (2, 1),
        "top_k_accuracy: labels must be sorted; got [2, 1], expected increasing labels.",
    ),
    (
        "best_threshold",
        "cost_fp",
        -1,
        "best_threshold: invalid cost_fp; got -1, expected a finite number >= 0.",
    ),
    (
        "best_threshold",
        "objective",
        "x",
        "best_threshold: unknown objective; got 'x', expected one of 'f1', 'youden', 'cost'.",
    ),
    (
        "expected_calibration_error",
        "n_bins",
        0,
        "expected_calibration_error: invalid n_bins; got 0, expected an integer in [1, 1048576].",
    ),
    (
        "expected_calibration_error",
        "strategy",
        "x",
        "expected_calibration_error: invalid "
        "strategy; got 'x', expected one of 'uniform', 'quantile'.",
    ),
    (
        "expected_calibration_error",
        "method",
        "x",
        "expected_calibration_error: invalid method; "
        "got 'x', expected one of 'binary', 'top_label', 'class_wise'.",
    ),
    (
        "expected_calibration_error",
        "labels",
        (1,),
        "expected_calibration_error: invalid labels; "
        "got [1], expected two or more distinct classes.",
    ),
    (
        "confusion_matrix",
        "normalize",
        "x",
        "confusion_matrix: unknown normalize; got 'x', "
        "expected one of None, 'true', 'pred', 'all'.",
    ),
    (
        "cohen_kappa",
        "weights",
        "x",
        "cohen_kappa: unknown weights; got 'x', expected one of None, 'linear', 'quadratic'.",
    ),
    (
        "brier",
        "scale_by_half",
        "x",
        "brier: invalid scale_by_half; got 'x', expected True, False or 'auto'.",
    ),
    (
        "class_likelihood_ratios",
        "labels",
        (1,),
        "class_likelihood_ratios: labels must name two "
        "classes; got [1], expected (negative, positive).",
    ),
    (
        "class_likelihood_ratios",
        "replace_undefined_by",
        2,
        "class_likelihood_ratios: invalid "
        "replace_undefined_by; got 2, expected nan, 1.0 or {'LR+': v in [1, inf] or nan, "
        "'LR-': v in [0, 1] or nan}.",
    ),
    (
        "fpr",
        "average",
        "x",
        "fpr: unknown average; got 'x', expected one of 'binary', 'micro', "
        "'macro', 'weighted', None.",
    ),
    (
        "jaccard",
        "labels",
        [],
        "jaccard: labels must be distinct column indices; got [], "
        "expected integers >= 0, at least one.",
    ),
    (
        "one_error",
        "ties",
        "x",
        "one_error: unknown ties; got 'x', expected one of 'pessimistic', 'average'.",
    ),
    ("r2", "force_finite", 1, "r2: invalid force_finite; got 1, expected True or False."),
    (
        "mae",
        "multioutput",
        "x",
        "mae: unknown multioutput; got 'x', expected one of 'raw_values', 'uniform_average'.",
    ),
    ("mape", "eps", 0, "mape: invalid eps; got 0, expected a finite number > 0."),
    (
        "medae",
        "relative_accuracy",
        2,
        "medae: invalid relative_accuracy; got 2, expected a number in (0, 1), e.g. 0.01.",
    ),
    (
        "prediction_sample",
        "size",
        0,
        "prediction_sample: size out of range; got 0, expected an integer in [1, 1,000,000].",
    ),
    (
        "prediction_sample",
        "seed",
        2**63,
        "prediction_sample: seed is not a 64-bit integer; "
        "got 9223372036854775808, expected an integer.",
    ),
    ("ndcg", "log_base", 1, "ndcg: invalid log_base; got 1, expected a number > 1."),
    ("ndcg", "gain", "x", "ndcg: unknown gain; got 'x', expected one of 'linear', 'exp'."),
    (
        "ndcg",
        "gains",
        "x",
        "ndcg: malformed gains; got 'x', expected a {grade: gain} mapping "
        "or 'grade=gain;...' such as '0=0;1=1;2=3'.",
    ),
    ("rbp", "p", 1, "rbp: persistence p outside (0, 1); got 1, expected 0 < p < 1."),
    ("rbp", "graded", "x", "rbp: invalid graded; got 'x', expected True, False or 'trec_eval'."),
    ("ndcg", "relevance_level", 0, "ndcg: invalid relevance_level; got 0, expected a number > 0."),
    ("ndcg", "max_docs", 0, "ndcg: invalid max_docs; got 0, expected an integer >= 1 or None."),
    ("ndcg", "judged_only", "x", "ndcg: invalid judged_only; got 'x', expected a bool."),
    ("ndcg", "missing", "x", "ndcg: unknown missing; got 'x', expected one of 'skip', 'zero'."),
    ("ndcg", "k", 0, "ndcg: invalid cutoff k; got 0, expected an integer >= 1."),
    ("f", "k", None, "f: needs a cutoff; expected k >= 1, e.g. 'f@10'."),
    ("err", "max_grade", 0, "err: invalid max_grade; got 0, expected a number > 0 or None."),
    ("f", "beta", 0, "f: invalid beta; got 0, expected a number > 0."),
    (
        "kendall_tau",
        "variant",
        "x",
        "kendall_tau: unknown variant; got 'x', expected one of 'b', 'a', 'c'.",
    ),
    ("entropy", "base", 1, "entropy: invalid logarithm base; got 1, expected a finite number > 1."),
    (
        "information_gain",
        "feature",
        "x",
        "information_gain: unknown feature kind; got 'x', "
        "expected one of 'categorical', 'numeric'.",
    ),
    (
        "exact_match",
        "version",
        "x",
        "exact_match: unknown SQuAD version; got 'x', expected one of '1.1', '2.0'.",
    ),
    (
        "ttft",
        "statistic",
        "x",
        "ttft: unknown statistic; got 'x', expected one of 'mean', "
        "'median', 'p90', 'p99', 'min', 'max', 'std' or pN ('p' and a number in [0, 100], "
        "e.g. 'p95' or 'p99.9').",
    ),
]


@pytest.mark.parametrize(("metric", "option", "value", "expected"), MESSAGES)
def test_messages_of_real_metrics_are_unchanged(
    metric: str, option: str, value: Any, expected: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        get(metric).cls(**{option: value})
    assert str(caught.value) == expected


@pytest.mark.parametrize(
    ("metric", "option", "given", "kept", "kind"),
    [
        ("bleu", "max_order", np.int64(3), 3, int),
        ("bleu", "lowercase", np.True_, True, bool),
        ("chrf", "beta", 2.0, 2, int),
        ("chrf", "beta", np.float64(1.5), 1.5, float),
        ("ndcg", "log_base", 10, 10.0, float),
        ("ndcg", "relevance_level", np.int64(2), 2.0, float),
        ("ndcg", "max_docs", np.int64(5), 5, int),
        ("ndcg", "judged_only", np.True_, True, bool),
        ("rbp", "p", np.float32(0.5), 0.5, float),
        ("rbp", "graded", np.True_, True, bool),
        ("top_k_accuracy", "k", np.int64(3), 3, int),
        ("prediction_sample", "seed", np.int64(-1), -1, int),
        ("mape", "eps", 1, 1.0, float),
        ("rougeL", "weight", 2, 2.0, float),
        ("f1", "labels", np.array([0, 1]), (0, 1), tuple),
        ("rouge", "types", "rouge1", ("rouge1",), tuple),
        ("ndcg", "gains", "0=0,1=2", ((0.0, 0.0), (1.0, 2.0)), tuple),
        ("r2", "multioutput", None, "uniform_average", str),
    ],
)
def test_values_of_real_metrics_are_normalized(
    metric: str, option: str, given: Any, kept: Any, kind: type
) -> None:
    value = getattr(get(metric).cls(**{option: given}), option)
    assert value == kept
    assert type(value) is kind


def test_one_vs_one_roc_auc_refuses_partial_auc_and_names_an_unknown_average() -> None:
    cls = get("roc_auc").cls
    with pytest.raises(ConfigError) as caught:
        cls(multi_class="ovo", average="x")
    assert str(caught.value) == (
        "roc_auc: unknown average; got 'x', expected one of 'micro', 'macro', 'weighted', "
        "'samples', None."
    )
    with pytest.raises(ConfigError) as caught:
        cls(multi_class="ovo", max_fpr="x")
    assert str(caught.value) == (
        "roc_auc: partial AUC (max_fpr) is not available for one-vs-one; got 'x', "
        "expected max_fpr=None."
    )
