"""infAP, gm_map, RBP, Judged@k, nDCG gains and log_base, -J and -M, against their references.

References: pytrec_eval (trec_eval's infAP, gm_map, ndcg with a gain per grade,
``-J``), ranx (RBP), ir_measures (Judged@k, RBP(rel=...)) and scikit-learn
(``dcg_score(log_base=...)``). Random qrels mix relevant, non-relevant, pooled
but unjudged (negative grades) and unlisted documents.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import ir_measures
import numpy as np
import pytest
import pytrec_eval
from hypothesis import given, settings
from hypothesis import strategies as st
from ranx import Qrels as RanxQrels
from ranx import Run as RanxRun
from ranx import evaluate as ranx_evaluate
from sklearn.metrics import dcg_score, ndcg_score

from scorekit import parse_metric, ranking
from scorekit.errors import ConfigError, InputError, UndefinedMetricWarning

Data = tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]


def random_data(seed: int, queries: int, docs: int, ties: bool, negative: bool = True) -> Data:
    """Qrels and a run; scores distinct unless ``ties``, grades in -1..3 (or 0..3)."""
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    low = -1 if negative else 0
    for q in range(queries):
        names = [f"d{d}" for d in rng.permutation(docs + 4)]
        retrieved = names[: rng.integers(1, docs + 1)]
        scores = rng.integers(0, 4, len(retrieved)) if ties else rng.permutation(len(retrieved))
        run[f"q{q}"] = {n: float(s) for n, s in zip(retrieved, scores, strict=True)}
        judged = [n for n in names if rng.random() < 0.6] or names[:1]
        qrels[f"q{q}"] = {n: int(rng.integers(low, 4)) for n in judged}
    return qrels, run


def ours(qrels: Any, run: Any, spec: str, **options: Any) -> dict[str, float]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = ranking.evaluate(qrels, run, [spec], per_query=True, **options)
    table = result.per_query or {}
    return {q: row[spec] for q, row in table.items()}


def trec(
    qrels: Any, run: Any, measure: str, level: int = 1, judged_only: bool = False
) -> dict[str, float]:
    evaluator = pytrec_eval._RelevanceEvaluator(
        query_relevance={q: d for q, d in qrels.items() if d},
        measures={measure},
        relevance_level=level,
        judged_docs_only_flag=judged_only,
    )
    key = measure.split(".")[0] if "=" in measure else measure.replace(".", "_")
    return {q: row[key] for q, row in evaluator.evaluate(run).items()}


def close(a: float, b: float) -> bool:
    return a == pytest.approx(b, rel=1e-12, abs=1e-15)


data = st.builds(
    random_data,
    seed=st.integers(0, 2**32 - 1),
    queries=st.integers(1, 6),
    docs=st.integers(1, 25),
    ties=st.booleans(),
)


@settings(max_examples=40, deadline=None)
@given(data=data, level=st.sampled_from([1, 2]))
def test_infap_and_gm_map_equal_trec_eval(data: Data, level: int) -> None:
    qrels, run = data
    ref = trec(qrels, run, "infAP", level)
    got = ours(qrels, run, "infap", relevance_level=level)
    assert set(got) == set(ref)
    assert all(close(got[q], ref[q]) for q in ref)
    logs = trec(qrels, run, "gm_map", level)
    # pytrec_eval's gm_map of a query with no relevant document depends on what is asked
    # with it (0.0 asked alone when its grades are all negative, log(1e-5) with map
    # beside it): scorekit takes log(1e-5), AP 0
    for q in logs:
        if not any(g >= level for g in qrels.get(q, {}).values()):
            logs[q] = math.log(1e-5)
    expected = float(np.exp(np.mean(list(logs.values()))))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = ranking.evaluate(qrels, run, ["gm_map"], relevance_level=level)["gm_map"]
    assert close(value, expected)


@settings(max_examples=40, deadline=None)
@given(
    data=data,
    gains=st.dictionaries(st.integers(0, 3), st.integers(-1, 9), min_size=1, max_size=4),
    k=st.sampled_from([None, 3, 10]),
)
def test_ndcg_gains_equal_trec_eval(data: Data, gains: dict[int, int], k: int | None) -> None:
    qrels, run = data
    text = ",".join(f"{g}={v}" for g, v in sorted(gains.items()))
    if k is None:
        ref = trec(qrels, run, f"ndcg.{text}")
        got = ours(qrels, run, f"ndcg.{text}")
        assert all(close(got[q], ref[q]) for q in ref)
    # the same gains given as a mapping, with a cutoff: the definition with those gains
    spec = "ndcg" if k is None else f"ndcg@{k}"
    metric = parse_metric(spec, gains=gains)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = metric.score(qrels, run)
    assert metric.gains == tuple((float(g), float(v)) for g, v in gains.items())
    assert np.isfinite(value)


# fixed examples: some gain tables keep trec_eval itself (the reference) busy for many minutes
@settings(max_examples=30, deadline=None, derandomize=True)
@given(
    data=st.builds(
        random_data,
        seed=st.integers(0, 2**32 - 1),
        queries=st.integers(1, 5),
        docs=st.integers(1, 15),
        ties=st.booleans(),
    ),
    pairs=st.lists(
        st.tuples(
            st.integers(0, 4), st.sampled_from([-0.5, 0.0, 0.2, 0.5, 0.7, 0.9, 1.2, 1.5, 2.3])
        ),
        min_size=1,
        max_size=5,
        unique_by=lambda pair: pair[0],
    ),
)
def test_ndcg_gains_less_than_one_apart_equal_trec_eval(
    data: Data, pairs: list[tuple[int, float]]
) -> None:
    # trec_eval orders the gain table with a comparison that truncates differences to integers,
    # so its ideal ordering (and the value) depends on the order the gains are given in
    qrels, run = data
    text = ",".join(f"{g}={v}" for g, v in pairs)
    ref = trec(qrels, run, f"ndcg.{text}")
    got = ours(qrels, run, f"ndcg.{text}")
    assert set(got) == set(ref)
    assert all(close(got[q], ref[q]) for q in ref)


def test_ndcg_ideal_order_of_close_gains_by_hand() -> None:
    qrels = {"q": {"a": 1, "b": 2}}
    run = {"q": {"a": 2.0, "b": 1.0}}
    # table (1: 0.7, 2: 0.5, 0: 0): the sort keeps it, the walk from the end meets grade 0's
    # gain 0 first, so the ideal ordering is empty and nDCG is 0, as trec_eval prints
    with pytest.warns(UndefinedMetricWarning):
        assert ranking.NDCG(gains="1=0.7;2=0.5").score(qrels, run) == 0.0
    # given with grade 0 first, the last gain is grade 2's 0.5: ideal (0.5, 0.7) is not sorted
    value = ranking.NDCG(gains="0=0;1=0.7;2=0.5").score(qrels, run)
    ideal = 0.5 + 0.7 / np.log2(3)
    assert close(value, (0.7 + 0.5 / np.log2(3)) / ideal)
    assert value > 1
    assert close(value, trec(qrels, run, "ndcg.0=0,1=0.7,2=0.5")["q"])


@pytest.mark.parametrize("gains", ["1=3,2=9,4=4.5", "0=1,1=3", "2=-1"])
def test_ndcg_gain_examples_equal_trec_eval(gains: str) -> None:
    qrels = {"q": {"a": 0, "b": 1, "c": 2, "d": 3, "e": 4}}
    run = {"q": {"a": 5.0, "b": 4.0, "c": 3.0, "d": 2.0, "x": 1.0}}
    assert close(ours(qrels, run, f"ndcg.{gains}")["q"], trec(qrels, run, f"ndcg.{gains}")["q"])


@settings(max_examples=30, deadline=None)
@given(data=data)
def test_judged_only_equals_trec_eval_j(data: Data) -> None:
    qrels, run = data
    for measure, spec in [
        ("map", "map"),
        ("P.5", "p@5"),
        ("ndcg_cut.10", "ndcg@10"),
        ("recip_rank", "mrr"),
        ("bpref", "bpref"),
        ("infAP", "infap"),
    ]:
        ref = trec(qrels, run, measure, judged_only=True)
        got = ours(qrels, run, spec, judged_only=True)
        for q in ref:
            # trec_eval -J drops a query left with no judged document; scorekit keeps it at 0
            assert close(got.get(q, 0.0), ref[q]), (measure, q)


@settings(max_examples=30, deadline=None)
@given(data=data, depth=st.integers(1, 8))
def test_max_docs_is_the_run_cut_to_its_first_documents(data: Data, depth: int) -> None:
    qrels, run = data
    cut = {q: dict(list(Run_ranked(run, q))[:depth]) for q in run}
    for measure, spec in [("map", "map"), ("P.5", "p@5"), ("ndcg", "ndcg"), ("bpref", "bpref")]:
        ref = trec(qrels, cut, measure)
        got = ours(qrels, run, spec, max_docs=depth)
        assert all(close(got[q], ref[q]) for q in ref), measure


def Run_ranked(run: dict[str, dict[str, float]], query: str) -> list[tuple[str, float]]:
    order = ranking.Run.from_dict({query: run[query]}).ranking(query)
    return [(d, run[query][d]) for d in order]


@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    queries=st.integers(1, 6),
    docs=st.integers(1, 25),
    p=st.sampled_from(["5", "8", "95"]),
    graded=st.booleans(),
)
def test_rbp_equals_ranx(seed: int, queries: int, docs: int, p: str, graded: bool) -> None:
    qrels, run = random_data(seed, queries, docs, ties=False, negative=False)
    if not graded:
        qrels = {q: {d: min(g, 1) for d, g in row.items()} for q, row in qrels.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = ranx_evaluate(RanxQrels(qrels), RanxRun(run), f"rbp.{p}", return_mean=False)
    persistence = float(f"0.{p}")
    got = ours(qrels, run, f"rbp:p={persistence},graded={graded}")
    for q, value in zip(sorted(run), np.atleast_1d(ref).tolist(), strict=True):
        assert close(got[q], value), q


@settings(max_examples=40, deadline=None)
@given(
    data=st.builds(
        random_data,
        st.integers(0, 2**32 - 1),
        st.integers(1, 6),
        st.integers(1, 25),
        st.just(False),
    ),
    k=st.sampled_from([None, 1, 5, 50]),
)
def test_judged_equals_ir_measures(data: Data, k: int | None) -> None:
    qrels, run = data
    spec = "Judged" if k is None else f"Judged@{k}"
    ref = {
        m.query_id: m.value
        for m in ir_measures.iter_calc([ir_measures.parse_measure(spec)], qrels, run)
    }
    got = ours(qrels, run, spec)
    assert all(close(got[q], ref[q]) for q in ref)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(2, 12),
    base=st.sampled_from([1.5, 2, np.e, 10]),
    k=st.sampled_from([None, 3]),
)
def test_dcg_log_base_equals_scikit_learn(seed: int, n: int, base: float, k: int | None) -> None:
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, 4, (3, n)).astype(float)
    y_score = rng.permutation(3 * n).reshape(3, n).astype(float)
    expected = dcg_score(y_true, y_score, k=k, log_base=base)
    qrels = {f"q{i}": {f"d{j}": int(y_true[i, j]) for j in range(n)} for i in range(3)}
    run = {f"q{i}": {f"d{j}": float(y_score[i, j]) for j in range(n)} for i in range(3)}
    spec = f"dcg:log_base={base}" if k is None else f"dcg@{k}:log_base={base}"
    assert close(parse_metric(spec).score(qrels, run), expected)
    normalized = "ndcg" if k is None else f"ndcg@{k}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = parse_metric(normalized, log_base=base).score(qrels, run)
        assert close(got, ndcg_score(y_true, y_score, k=k))


def test_trec_eval_rbp_is_p_09_binary() -> None:
    qrels = {"q": {"a": 1, "b": 0, "c": 2}}
    run = {"q": {"a": 3.0, "u": 2.0, "c": 1.0}}
    value = ours(qrels, run, "rbp")["q"]
    assert close(value, 0.1 * (1 + 0.81))
    assert close(ours(qrels, run, "RBP(rel=2)")["q"], 0.2 * 0.8**2)
    resid = ours(qrels, run, "rbp_resid")["q"]
    assert close(resid, 0.1 * 0.9 + 0.9**3)


def test_missing_zero_with_no_shared_query_is_zero() -> None:
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    run = {"q9": {"a": 1.0}}
    result = ranking.evaluate(
        qrels, run, ["map", "ndcg@10", "gm_map"], missing="zero", per_query=True
    )
    assert result["map"] == 0.0 and result["ndcg@10"] == 0.0
    assert result["gm_map"] == pytest.approx(1e-5)
    assert result.per_query == {
        "q1": {"map": 0.0, "ndcg@10": 0.0, "gm_map": 0.0},
        "q2": {"map": 0.0, "ndcg@10": 0.0, "gm_map": 0.0},
    }
    metric = ranking.MAP(missing="zero")
    state = metric.summarize(qrels, run)
    assert metric.compute_replicates(state, np.array([[1, 2]])).tolist() == [0.0]
    with pytest.raises(InputError, match="no query to evaluate"):
        ranking.evaluate(qrels, run, ["map"])


def test_missing_zero_with_no_shared_query_on_the_command_line(tmp_path: Any) -> None:
    from scorekit.cli import main

    (tmp_path / "qrels").write_text("q1 0 a 1\nq2 0 b 1\n")
    (tmp_path / "run").write_text("q9 Q0 a 1 1.0 x\n")
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main(
            [
                "rank",
                str(tmp_path / "qrels"),
                str(tmp_path / "run"),
                "-m",
                "map",
                "--missing",
                "zero",
                "--format",
                "json",
            ]
        )
    assert status == 0
    assert '"map": 0.0' in out.getvalue()


def test_gm_map_replicates_are_geometric_means() -> None:
    qrels = {"a": {"x": 1}, "b": {"y": 1}, "c": {"z": 1}}
    run = {"a": {"x": 1.0}, "b": {"w": 2.0, "y": 1.0}, "c": {"w": 1.0}}
    metric = ranking.GMMAP()
    state = metric.summarize(qrels, run)
    weights = np.array([[1, 1, 1], [2, 1, 0], [0, 0, 0]])
    got = metric.compute_replicates(state, weights)
    logs = np.log([1.0, 0.5, 1e-5])
    assert close(got[0], float(np.exp(logs.mean())))
    assert close(got[1], float(np.exp((2 * logs[0] + logs[1]) / 3)))
    assert np.isnan(got[2])


def test_bad_options() -> None:
    for p in (0, 1, 1.5, -0.2, float("nan"), True):
        with pytest.raises(ConfigError, match="persistence p outside"):
            ranking.RBP(p=p)
        with pytest.raises(ConfigError, match="persistence p outside"):
            ranking.RBPResidual(p=p)
    with pytest.raises(ConfigError, match=r"persistence p outside \(0, 1\); got 1.5"):
        parse_metric("RBP(p=1.5)")
    with pytest.raises(ConfigError, match="invalid log_base"):
        ranking.NDCG(log_base=1)
    with pytest.raises(ConfigError, match="malformed gains"):
        ranking.NDCG(gains="1:3")
    with pytest.raises(ConfigError, match="a grade given two gains"):
        ranking.NDCG(gains="1=3,1=4")
    with pytest.raises(ConfigError, match="gains per grade replace the gain function"):
        ranking.NDCG(gains="1=3", gain="exp")
    with pytest.raises(ConfigError, match="invalid max_docs"):
        ranking.MAP(max_docs=0)
    with pytest.raises(ConfigError, match="invalid judged_only"):
        ranking.MAP(judged_only="yes")  # type: ignore[arg-type]


def test_settings_keep_states_of_other_options_apart() -> None:
    qrels, run = random_data(3, 4, 10, ties=False)
    a = ranking.MAP(judged_only=True).summarize(qrels, run)
    b = ranking.MAP().summarize({}, {})
    assert ranking.MAP(judged_only=True).merge(a, b).setting == a.setting
    from scorekit.errors import StateMismatchError

    other = ranking.MAP().summarize(qrels, run)
    with pytest.raises((StateMismatchError, InputError)):
        ranking.MAP().merge(a, other)


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 30),
    groups=st.integers(1, 4),
    k=st.sampled_from([None, 1, 5]),
    level=st.sampled_from([1, 2]),
)
def test_array_forms_equal_trec_eval(
    seed: int, n: int, groups: int, k: int | None, level: int
) -> None:
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, 4, n)
    y_score = rng.permutation(n).astype(float)
    group = rng.integers(0, groups, n)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for i in range(n):
        qrels.setdefault(str(group[i]), {})[f"d{i:03d}"] = int(y_true[i])
        run.setdefault(str(group[i]), {})[f"d{i:03d}"] = float(y_score[i])
    cases = [
        (ranking.map, "map" if k is None else f"map_cut.{k}", {}),
        (ranking.mrr, "recip_rank", {}),
        (ranking.precision_at, f"P.{k or 10}", {"k": k or 10}),
    ]
    for function, measure, extra in cases:
        options = {"k": k, **extra} if function is not ranking.mrr else {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            values = function(
                y_true, y_score, group=group, relevance_level=level, per_group=True, **options
            )
        ref = trec(qrels, run, measure, level)
        expected = [ref[str(g)] for g in sorted(set(group.tolist()))]
        assert np.allclose(values, expected, rtol=1e-12, atol=1e-15), measure


def test_rank_judged_only_and_max_docs_flags(tmp_path: Any) -> None:
    import contextlib
    import io

    from scorekit.cli import main

    qrels, run = random_data(5, 4, 20, ties=False)
    (tmp_path / "qrels").write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, row in qrels.items() for d, g in row.items())
    )
    ranking.write_run(run, tmp_path / "run")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main(
            [
                "rank",
                str(tmp_path / "qrels"),
                str(tmp_path / "run"),
                "-m",
                "map",
                "ndcg",
                "-J",
                "-M",
                "5",
                "--format",
                "json",
            ]
        )
    assert status == 0
    import json

    values = json.loads(out.getvalue())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = ranking.evaluate(qrels, run, ["map", "ndcg"], judged_only=True, max_docs=5)
    assert values["map"] == pytest.approx(expected["map"], rel=1e-12)
    assert values["ndcg"] == pytest.approx(expected["ndcg"], rel=1e-12)
