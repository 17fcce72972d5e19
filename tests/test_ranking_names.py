"""trec_eval's and ir_measures' measure names read by the metric-name parser, and written back."""

from __future__ import annotations

import warnings

import ir_measures
import pytest
import pytrec_eval

from scorekit import parse_metric, ranking
from scorekit.errors import ConfigError

TREC = {
    "P_5": "p@5",
    "P.5": "p@5",
    "ndcg_cut.10": "ndcg@10",
    "ndcg_cut_10": "ndcg@10",
    "recip_rank": "mrr",
    "Rprec": "r_precision",
    "map_cut.100": "map@100",
    "recall.100": "recall_at@100",
    "recall_100": "recall_at@100",
    "bpref": "bpref",
    "infAP": "infap",
    "gm_map": "gm_map",
    "success.10": "hit_rate@10",
    "map": "map",
    "ndcg": "ndcg",
    "rbp": "rbp",
}
IR_MEASURES = {
    "nDCG@10": "ndcg@10",
    "AP": "map",
    "AP@100": "map@100",
    "RR@10": "mrr@10",
    "RR": "mrr",
    "P@5": "p@5",
    "R@100": "recall_at@100",
    "Judged@10": "judged@10",
    "RBP(p=0.8)": "rbp:p=0.8",
    "RBP": "rbp:p=0.8",
    "Success@10": "hit_rate@10",
    "AP(rel=2)": "map:relevance_level=2",
    "nDCG(judged_only=True)@10": "ndcg@10:judged_only=true",
}


@pytest.mark.parametrize(("name", "spec"), [*TREC.items(), *IR_MEASURES.items()])
def test_each_spelling_is_one_scorekit_metric(name: str, spec: str) -> None:
    assert parse_metric(name) == parse_metric(spec)


def test_the_same_values_as_the_tools_under_their_own_names() -> None:
    qrels = {"q1": {"a": 2, "b": 0, "c": 1, "d": 1}, "q2": {"a": 1, "e": 1}}
    run = {"q1": {"a": 0.9, "b": 0.8, "x": 0.7, "c": 0.5}, "q2": {"e": 0.4, "a": 0.3, "z": 0.9}}
    trec_names = [
        "P.5",
        "ndcg_cut.10",
        "recip_rank",
        "Rprec",
        "map_cut.100",
        "recall.100",
        "bpref",
        "infAP",
        "success.10",
        "map",
        "ndcg",
    ]
    ref = pytrec_eval.RelevanceEvaluator(qrels, set(trec_names)).evaluate(run)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = ranking.evaluate(qrels, run, trec_names, per_query=True).per_query
    assert got is not None
    for name in trec_names:
        for q in ref:
            assert got[q][name] == pytest.approx(ref[q][name.replace(".", "_")], rel=1e-12)
    ir_names = ["nDCG@10", "AP", "AP@100", "RR@10", "P@5", "R@100", "Judged@10", "Success@10"]
    measures = [ir_measures.parse_measure(n) for n in ir_names]
    expected = ir_measures.calc_aggregate(measures, qrels, run)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        values = ranking.evaluate(qrels, run, ir_names)
    for name, measure in zip(ir_names, measures, strict=True):
        assert values[name] == pytest.approx(expected[measure], rel=1e-12)


@pytest.mark.parametrize(
    ("spec", "trec", "ir"),
    [
        ("ndcg@10", "ndcg_cut_10", "nDCG@10"),
        ("p@5", "P_5", "P@5"),
        ("mrr", "recip_rank", "RR"),
        ("map@100", "map_cut_100", "AP@100"),
        ("recall@100", "recall_100", "R@100"),
        ("r_precision", "Rprec", "Rprec"),
        ("infap", "infAP", "infAP"),
        ("gm_map", "gm_map", "gm_map"),
        ("hit_rate@10", "success_10", "Success@10"),
        ("judged@10", "judged@10", "Judged@10"),
        ("rbp", "rbp", "RBP(p=0.9)"),
        ("ndcg:gains=1=3;2=9;4=4.5", "ndcg_1=3,2=9,4=4.5", "nDCG(gains={1: 3, 2: 9, 4: 4.5})"),
        ("map:relevance_level=2", "map", "AP(rel=2)"),
    ],
)
def test_names_written_back_as_the_tools_print_them(spec: str, trec: str, ir: str) -> None:
    assert ranking.foreign_name(spec, "trec") == trec
    assert ranking.foreign_name(spec, "ir_measures") == ir
    if ir != "gm_map" and "4.5" not in ir:
        assert str(ir_measures.parse_measure(ir)) == ir


@pytest.mark.parametrize(
    ("name", "close"),
    [
        ("ndcg_cutt.10", "ndcg_cut"),
        ("recip_rnk", "recip_rank"),
        ("nDGC@10", "nDCG"),
        ("Succes@10", "Success"),
        ("infAp", "(infap|infAP)"),  # one name per metric: either spelling
    ],
)
def test_unknown_names_list_close_matches(name: str, close: str) -> None:
    with pytest.raises(ConfigError, match=rf"unknown metric; got .*close: .*\b{close}\b"):
        parse_metric(name)


def test_malformed_foreign_names() -> None:
    with pytest.raises(ConfigError, match="persistence p outside"):
        parse_metric("RBP(p=2)")
    with pytest.raises(ConfigError):
        parse_metric("nDCG(cutoff_typo=3)@10")
    with pytest.raises(ConfigError, match="unknown tool"):
        ranking.foreign_name("map", "trec_eval")  # type: ignore[arg-type]


def _rank(*args: str) -> tuple[int, str, str]:
    import contextlib
    import io

    from scorekit.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(["rank", *args])
    return status, out.getvalue(), err.getvalue()


def test_rank_format_trec_prints_trec_eval_lines() -> None:
    from conftest import DATA

    data = DATA / "trec_eval"
    status, out, _ = _rank(
        str(data / "qrels.test"),
        str(data / "results.test"),
        "-m",
        "nDCG@10",
        "P_5",
        "mrr",
        "infAP",
        "gm_map",
        "rbp",
        "ndcg.1=3,2=9,4=4.5",
        "--format",
        "trec",
    )
    assert status == 0
    expected = {}
    for name in ("out.test.a", "out.test.meas_params"):
        for line in (data / name).read_text().splitlines():
            measure, query, value = (part.strip() for part in line.split("\t"))
            if query == "all":
                expected[measure] = value
    lines = [[part.strip() for part in line.split("\t")] for line in out.splitlines()]
    assert [m for m, _, _ in lines] == [
        "num_q",
        "ndcg_cut_10",
        "P_5",
        "recip_rank",
        "infAP",
        "gm_map",
        "rbp",
        "ndcg_1=3,2=9,4=4.5",
    ]
    for measure, query, value in lines:
        assert query == "all" and value == expected[measure], measure


def test_rank_format_ir_measures_prints_ir_measures_lines() -> None:
    from conftest import DATA

    data = DATA / "trec_eval"
    names = ["nDCG@10", "P@5", "RR", "AP@100", "R@100", "Judged@10", "Success@10"]
    qrels, run = str(data / "qrels.test"), str(data / "results.test")
    measures = [ir_measures.parse_measure(n) for n in names]
    expected = ir_measures.calc_aggregate(
        measures, ir_measures.read_trec_qrels(qrels), ir_measures.read_trec_run(run)
    )
    status, out, _ = _rank(qrels, run, "-m", *names, "--format", "ir_measures")
    assert status == 0
    assert out.splitlines() == [f"{m}\t{expected[m]:.4f}" for m in measures]
    status, out, _ = _rank(
        qrels, run, "-m", "ndcg@10", "map", "--format", "ir_measures", "--per-query"
    )
    assert status == 0
    lines = out.splitlines()
    assert lines[0].split("\t")[:2] == ["301", "nDCG@10"]
    assert lines[-2:] == [f"all\tnDCG@10\t{expected[measures[0]]:.4f}", lines[-1]]
    assert lines[-1].startswith("all\tAP\t")
