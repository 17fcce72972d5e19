"""trec_eval's graded ``rbp``: ``rbp:graded=trec_eval`` against trec_eval's own test outputs."""

from __future__ import annotations

import warnings

import pytest

from conftest import DATA
from scorekit import ranking
from scorekit.core import parse_metric
from scorekit.errors import ConfigError

TESTDATA = DATA / "trec_eval"
CASES = [
    ("out.test.aq", "qrels.test", "results.test", {}),
    ("out.test.aqc", "qrels.test", "results.trunc", {"missing": "zero"}),
    ("out.test.aql", "qrels.rel_level", "results.test", {"relevance_level": 2}),
]


def _trec_rbp(name: str) -> dict[str, str]:
    out = {}
    for line in (TESTDATA / name).read_text().splitlines():
        measure, query, value = (part.strip() for part in line.split("\t"))
        if measure == "rbp":
            out[query] = value
    return out


@pytest.mark.parametrize(("output", "qrels", "run", "options"), CASES, ids=[c[0] for c in CASES])
def test_trec_eval_graded_rbp_to_four_decimals(
    output: str, qrels: str, run: str, options: dict[str, object]
) -> None:
    want = _trec_rbp(output)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = ranking.evaluate(
            str(TESTDATA / qrels),
            str(TESTDATA / run),
            ["rbp:graded=trec_eval"],
            per_query=True,
            **options,
        )
    assert f"{result['rbp:graded=trec_eval']:.4f}" == want.pop("all")
    got = {q: f"{values['rbp:graded=trec_eval']:.4f}" for q, values in result.per_query.items()}
    assert want and got == want


def test_graded_rbp_by_hand_and_gain_parameters() -> None:
    qrels = {"q": {"a": 3, "b": 0, "c": 1, "d": -1, "e": 2}}
    run = {"q": {"a": 5.0, "b": 4.0, "x": 3.0, "c": 2.0, "d": 1.5, "e": 1.0}}
    p = 0.5
    # gains 0..3 scaled by the top grade 3; x (unjudged) and d (negative grade) gain 0
    by_hand = (1 - p) * (1.0 * p**0 + (1 / 3) * p**3 + (2 / 3) * p**5)
    got = ranking.RBP(p=p, graded="trec_eval").score(qrels, run)
    assert got == pytest.approx(by_hand, rel=1e-12)
    # relevance_level does not change the gains, as in trec_eval
    assert ranking.RBP(p=p, graded="trec_eval", relevance_level=3).score(qrels, run) == got
    # gains: 1=0.5, 3=0.9 stay within [0, 1] but grade 2 gains 2, so the table (0, 0.5, 2, 0.9)
    # scales by its range 0..2
    spec = "rbp:p=0.5,graded=trec_eval,gains=1=0.5;3=0.9"
    scaled = (1 - p) * ((0.9 / 2) * p**0 + (0.5 / 2) * p**3 + (2 / 2) * p**5)
    assert parse_metric(spec).score(qrels, run) == pytest.approx(scaled, rel=1e-12)
    # a negative gain shifts the table (-1, 1, 2, 3) to (g + 1) / 4: grade 0 gains 0, grade 1 2/4
    shifted = ranking.RBP(p=p, graded="trec_eval", gains={0: -1}).score(qrels, run)
    want = (1 - p) * (1.0 * p**0 + 0.5 * p**3 + 0.75 * p**5)
    assert shifted == pytest.approx(want, rel=1e-12)
    # binary qrels: the trec_eval gains are the binary RBP
    binary = {"q": {"a": 1, "c": 1, "b": 0}}
    assert ranking.RBP(graded="trec_eval").score(binary, run) == pytest.approx(
        ranking.RBP().score(binary, run), rel=1e-12
    )


def test_graded_rbp_options_errors() -> None:
    with pytest.raises(ConfigError, match="rbp: invalid graded; got 'trec'"):
        ranking.RBP(graded="trec")
    with pytest.raises(ConfigError, match="gains scale trec_eval's graded RBP only"):
        ranking.RBP(gains="1=3")
    with pytest.raises(ConfigError, match=r"rbp: invalid grade in gains; got '1\.5=3'"):
        ranking.RBP(graded="trec_eval", gains="1.5=3")
    with pytest.raises(ConfigError, match="malformed gains"):
        parse_metric("rbp:graded=trec_eval,gains=3")
