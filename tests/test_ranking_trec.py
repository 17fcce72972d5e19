"""Ranking against trec_eval's own test outputs, and TREC files as input and as errors.

The qrels, runs and outputs of trec_eval's test suite live in
``tests/data/trec_eval`` (see its README for the command behind each
output). Every measure scorekit has is compared per query and over ``all`` at
trec_eval's printed precision (``%6.4f``).
"""

from __future__ import annotations

import dataclasses
import fnmatch
import gzip
import re
import warnings
from functools import cache
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pytest

from conftest import DATA
from scorekit import ranking
from scorekit.cli import main
from scorekit.errors import InputError

TESTDATA = DATA / "trec_eval"

# trec_eval measure -> scorekit metric string ------------------------------------------------

SCALAR = {
    "map": "map",
    "Rprec": "r_precision",
    "recip_rank": "mrr",
    "bpref": "bpref",
    "ndcg": "ndcg",
    "infAP": "infap",
    "gm_map": "gm_map",
    "rbp": "rbp",
    "rbp_resid": "rbp_resid",
    "ndcg_1=3,2=9,4=4.5": "ndcg:gains=1=3;2=9;4=4.5",
    "num_q": "num_q",
    "num_ret": "num_ret",
    "num_rel": "num_rel",
    "num_rel_ret": "num_rel_ret",
    "num_nonrel_judged_ret": "num_nonrel_judged_ret",
    "gm_bpref": "gm_bpref",
    "utility": "utility",
    "utility_2,-1,0,0": "utility:coefficients=2;-1;0;0",
    "11pt_avg": "eleven_pt_avg",
    "11pt_avg_.25,.5,.75": "eleven_pt_avg:recalls=0.25;0.5;0.75",
    "binG": "bin_g",
    "G": "g",
    "ndcg_rel": "ndcg_rel",
    "Rndcg": "rndcg",
    "set_P": "set_p",
    "set_recall": "set_recall",
    "set_F": "set_f",
    "set_map": "set_map",
    "set_relative_P": "set_relative_p",
}
AT_K = {
    "P": "p",
    "recall": "recall",
    "map_cut": "map",
    "ndcg_cut": "ndcg",
    "success": "hit_rate",
    "relative_P": "relative_p",
    "unj": "unjudged",
}
AT_REAL = {"iprec_at_recall": "iprec_at_recall:recall=", "Rprec_mult": "rprec_mult:mult="}
NOT_IN_SCOREKIT = (
    # labels, not measures: the run's tag and a string of grades per query
    "runid",
    "relstring*",
)
COUNTS = {"num_q", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"}
"""Measures trec_eval prints as integers (and sums over the queries)."""

CASES = {
    "out.test.aq": ("qrels.test", "results.test", {}),
    "out.test.aqc": ("qrels.test", "results.trunc", {"missing": "zero"}),
    "out.test.aql": ("qrels.rel_level", "results.test", {"relevance_level": 2}),
    "out.test.meas_params": ("qrels.test", "results.test", {}),
}
# every line but runid and relstring: 95 measures x (3 queries + "all") in the all_trec outputs
# and 22 in meas_params, and num_q, gm_map and gm_bpref, which trec_eval prints for "all" only
# (out.test.aql less its rbp, see GRADED_DIFFERENCES)
EXPECTED_COUNT = {
    "out.test.aq": 383,
    "out.test.aqc": 383,
    "out.test.aql": 379,
    "out.test.meas_params": 88,
}


# trec_eval's rbp weighs a document of grade g by g / (the query's top grade), whatever -l says;
# scorekit's rbp is binary at relevance_level (ir_measures) or weighs by g (ranx), so the two
# agree on binary qrels only (qrels.rel_level is graded)
GRADED_DIFFERENCES = {"out.test.aql": {"rbp"}}


def scorekit_name(measure: str) -> str | None:
    """The scorekit metric string of a trec_eval measure, or None if scorekit lacks it."""
    if measure in SCALAR:
        return SCALAR[measure]
    match = re.fullmatch(r"([A-Za-z_]+?)_(\d+)", measure)
    if match and match[1] in AT_K:
        return f"{AT_K[match[1]]}@{match[2]}"
    match = re.fullmatch(r"([A-Za-z_]+?)_(\d+\.\d+)", measure)
    if match and match[1] in AT_REAL:
        return f"{AT_REAL[match[1]]}{float(match[2])!r}"
    if any(fnmatch.fnmatchcase(measure, pattern) for pattern in NOT_IN_SCOREKIT):
        return None
    raise KeyError(f"trec_eval measure {measure!r} is neither mapped nor listed as absent")


@cache
def trec_output(name: str) -> tuple[tuple[str, str, str], ...]:
    """(measure, query or 'all', value text) per line of a trec_eval output file."""
    rows = []
    for line in (TESTDATA / name).read_text().splitlines():
        measure, query, value = line.split("\t")
        rows.append((measure.strip(), query.strip(), value.strip()))
    return tuple(rows)


@cache
def evaluated(name: str) -> tuple[ranking.RankingResult, dict[str, str]]:
    """scorekit's result for one output file's inputs, and measure -> metric string."""
    qrels, run, options = CASES[name]
    names = {}
    for measure, _, _ in trec_output(name):
        spec = scorekit_name(measure)
        if spec is not None and measure not in GRADED_DIFFERENCES.get(name, set()):
            names[measure] = spec
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = ranking.evaluate(
            str(TESTDATA / qrels),
            str(TESTDATA / run),
            sorted(set(names.values())),
            per_query=True,
            **options,
        )
    return result, names


def test_every_trec_eval_measure_is_mapped_or_listed_as_absent() -> None:
    measures = {m for name in CASES for m, _, _ in trec_output(name)}
    mapped = {m for m in measures if scorekit_name(m) is not None}
    assert {"map", "ndcg", "bpref", "Rprec", "recip_rank", "P_5", "success_20"} <= mapped
    assert scorekit_name("ndcg_cut_23") == "ndcg@23"
    assert scorekit_name("map_cut_1000") == "map@1000"
    assert scorekit_name("iprec_at_recall_0.10") == "iprec_at_recall:recall=0.1"
    assert scorekit_name("relstring") is None
    with pytest.raises(KeyError, match="neither mapped"):
        scorekit_name("newly_added_measure")


@pytest.mark.parametrize("output", sorted(CASES))
def test_trec_eval_output_to_four_decimals(output: str) -> None:
    result, names = evaluated(output)
    assert result.per_query is not None
    compared = 0
    wrong = []
    for measure, query, text in trec_output(output):
        if measure not in names:
            continue
        spec = names[measure]
        got = result[spec] if query == "all" else result.per_query[query][spec]
        compared += 1
        if _printed(measure, got) != text:
            wrong.append(f"{measure} {query}: trec_eval {text}, scorekit {got!r}")
    assert wrong == []
    assert compared == EXPECTED_COUNT[output]


def _printed(measure: str, value: float) -> str:
    """``value`` as trec_eval prints ``measure``: an integer count, or ``%6.4f``."""
    return str(round(value)) if measure in COUNTS else f"{value:6.4f}".strip()


@pytest.mark.parametrize("output", sorted(CASES))
def test_trec_eval_queries_are_the_evaluated_queries(output: str) -> None:
    result, _ = evaluated(output)
    assert result.per_query is not None
    expected = {q for _, q, _ in trec_output(output) if q != "all"}
    assert set(result.per_query) == expected
    num_q = [v for m, q, v in trec_output(output) if m == "num_q" and q == "all"]
    if num_q:
        assert len(result.per_query) == int(num_q[0])


def test_trunc_run_evaluates_missing_query_as_zero_only_with_missing_zero() -> None:
    """results.trunc has no line of query 302: -c counts it as 0, plain trec_eval leaves it out."""
    qrels, run = TESTDATA / "qrels.test", TESTDATA / "results.trunc"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        skip = ranking.evaluate(qrels, run, ["map", "p@10"], per_query=True)
        zero = ranking.evaluate(qrels, run, ["map", "p@10"], per_query=True, missing="zero")
    assert skip.per_query is not None and zero.per_query is not None
    assert sorted(skip.per_query) == ["301", "303"]
    assert zero.per_query["302"] == {"map": 0.0, "p@10": 0.0}
    assert zero["map"] == pytest.approx(skip["map"] * 2 / 3, rel=1e-12)


LEVELS = {
    "out.test.aq": ("qrels.test", "results.test", {}),
    "out.test.aqc": ("qrels.test", "results.trunc", {"missing": "zero"}),
    "out.test.aql": ("qrels.rel_level", "results.test", {"relevance_level": 2}),
}
CLASSES: list[tuple[str, Any]] = [
    ("map", ranking.MAP()),
    ("map_cut_100", ranking.MAP(k=100)),
    ("P_10", ranking.Precision(k=10)),
    ("recall_100", ranking.Recall(k=100)),
    ("ndcg", ranking.NDCG()),
    ("ndcg_cut_10", ranking.NDCG(k=10)),
    ("recip_rank", ranking.MRR()),
    ("Rprec", ranking.RPrecision()),
    ("bpref", ranking.BPref()),
    ("success_5", ranking.HitRate(k=5)),
    ("num_q", ranking.NumQ()),
    ("num_ret", ranking.NumRet()),
    ("num_rel", ranking.NumRel()),
    ("num_rel_ret", ranking.NumRelRet()),
    ("num_nonrel_judged_ret", ranking.NumNonrelJudgedRet()),
    ("iprec_at_recall_0.30", ranking.IPrecAtRecall(recall=0.3)),
    ("11pt_avg", ranking.ElevenPointAverage()),
    ("Rprec_mult_1.40", ranking.RPrecMult(mult=1.4)),
    ("relative_P_100", ranking.RelativeP(k=100)),
    ("unj_20", ranking.Unjudged(k=20)),
    ("set_P", ranking.SetP()),
    ("set_recall", ranking.SetRecall()),
    ("set_F", ranking.SetF()),
    ("set_map", ranking.SetMAP()),
    ("set_relative_P", ranking.SetRelativeP()),
    ("gm_bpref", ranking.GMBPref()),
    ("utility", ranking.Utility()),
    ("binG", ranking.BinG()),
    ("G", ranking.G()),
    ("ndcg_rel", ranking.NDCGRel()),
    ("Rndcg", ranking.RNDCG()),
]


@pytest.mark.parametrize("output", sorted(LEVELS))
@pytest.mark.parametrize(("measure", "metric"), CLASSES, ids=[m for m, _ in CLASSES])
def test_metric_classes_on_trec_files(output: str, measure: str, metric: Any) -> None:
    """Each class's own summarize/compute reproduces trec_eval's mean over queries."""
    qrels, run, options = LEVELS[output]
    configured = type(metric)(**{**_fields(metric), **options})
    expected = next(v for m, q, v in trec_output(output) if m == measure and q == "all")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = configured.score(TESTDATA / qrels, TESTDATA / run)
    assert _printed(measure, value) == expected


def _fields(metric: Any) -> dict[str, Any]:
    """The settings of ``metric`` other than the shared ones each case sets."""
    shared = {"relevance_level", "missing"}
    return {
        f.name: getattr(metric, f.name)
        for f in dataclasses.fields(metric)
        if f.init and f.name not in shared
    }


# scorekit rank --format trec against trec_eval's outputs ----------------------------------------

RANK_CASES = {
    "out.test.a": ("qrels.test", "results.test", []),
    "out.test.aq": ("qrels.test", "results.test", ["-q"]),
    "out.test.aqc": ("qrels.test", "results.trunc", ["-q", "-c"]),
    "out.test.aql": ("qrels.rel_level", "results.test", ["-m", "relstring.20", "-q", "-l", "2"]),
}


def _rank_lines(capsys: Any, *argv: str) -> list[str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = main(["rank", *argv, "--format", "trec"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return captured.out.splitlines()


@pytest.mark.parametrize("output", sorted(RANK_CASES))
def test_rank_all_trec_prints_trec_eval_line_for_line(capsys: Any, output: str) -> None:
    """``scorekit rank -m all_trec`` prints every line trec_eval prints, in its order."""
    qrels, run, flags = RANK_CASES[output]
    got = _rank_lines(capsys, str(TESTDATA / qrels), str(TESTDATA / run), "-m", "all_trec", *flags)
    assert got == (TESTDATA / output).read_text().splitlines()


def test_rank_trec_eval_parameters(capsys: Any) -> None:
    """out.test.meas_params's command: every line whose measure scorekit names as trec_eval."""
    measures = [
        *("iprec_at_recall..10,.20,.25,.75,.50", "P.5,7,3", "recall.20,2000"),
        *("Rprec_mult.5.0,0.2,0.35", "utility.2,-1,0,0", "11pt_avg..25,.5,.75"),
        *("ndcg.1=3,2=9,4=4.5", "ndcg_cut.10,20,23.4", "success.2,5,20"),
    ]
    argv = [str(TESTDATA / "qrels.test"), str(TESTDATA / "results.test"), "-q"]
    for measure in measures:
        argv += ["-m", measure]
    got = {tuple(line.split("\t")[:2]): line for line in _rank_lines(capsys, *argv)}
    expected = (TESTDATA / "out.test.meas_params").read_text().splitlines()
    same = [line for line in expected if tuple(line.split("\t")[:2]) in got]
    assert all(got[tuple(line.split("\t")[:2])] == line for line in same)
    # 11pt_avg's parameters print as scorekit reads them (0.25,0.5,0.75), not as typed
    assert len(same) == len(expected) - 4
    assert got[("11pt_avg_0.25,0.5,0.75", "all")].endswith("\t0.1838")


def test_rank_runid_and_counts(capsys: Any) -> None:
    qrels, run = str(TESTDATA / "qrels.test"), str(TESTDATA / "results.trunc")
    lines = _rank_lines(capsys, qrels, run, "-m", "runid", "num_ret", "num_q", "-c")
    assert lines == [
        "runid                 \tall\tSTANDARD",
        "num_ret               \tall\t584",
        "num_q                 \tall\t3",
    ]
    official = _rank_lines(capsys, qrels, run, "-m", "official")
    assert [line.split("\t")[0].strip() for line in official][:6] == [
        *("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map"),
    ]
    assert len(official) == 1 + 1 + 3 + 5 + 11 + 9


# the same judgments from every source ---------------------------------------------------------


@cache
def plain_lines(name: str) -> tuple[tuple[str, ...], ...]:
    """A TREC file split on whitespace by plain Python (independent of the reader)."""
    return tuple(tuple(line.split()) for line in (TESTDATA / name).read_text().splitlines())


def _dicts() -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    qrels: dict[str, dict[str, int]] = {}
    for q, _, d, rel in plain_lines("qrels.test"):
        qrels.setdefault(q, {})[d] = int(rel)
    run: dict[str, dict[str, float]] = {}
    for q, _, d, _, score, *_ in plain_lines("results.test"):
        run.setdefault(q, {})[d] = float(score)
    return qrels, run


SOURCE_METRICS = ["map", "ndcg", "ndcg@10", "p@5", "recall@100", "mrr", "bpref", "r_precision"]


def _evaluate(qrels: Any, run: Any) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    result = ranking.evaluate(qrels, run, SOURCE_METRICS, per_query=True)
    assert result.per_query is not None
    return dict(result), result.per_query


def test_dicts_tables_and_files_agree(tmp_path: Path) -> None:
    reference = _evaluate(TESTDATA / "qrels.test", TESTDATA / "results.test")
    qrels, run = _dicts()
    q_rows = [(q, d, g) for q, docs in qrels.items() for d, g in docs.items()]
    r_rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    q_frame = pd.DataFrame(q_rows, columns=["query", "doc", "relevance"])
    r_frame = pd.DataFrame(r_rows, columns=["query", "doc", "score"])
    int_ids = q_frame.assign(query=q_frame["query"].astype(int))
    (tmp_path / "qrels.gz").write_bytes(gzip.compress((TESTDATA / "qrels.test").read_bytes()))
    (tmp_path / "run.gz").write_bytes(gzip.compress((TESTDATA / "results.test").read_bytes()))
    sources = {
        "str paths": (str(TESTDATA / "qrels.test"), str(TESTDATA / "results.test")),
        "dicts": (qrels, run),
        "pandas": (q_frame, r_frame),
        "pandas, integer query ids": (int_ids, r_frame),
        "pyarrow": (pa.Table.from_pandas(q_frame), pa.Table.from_pandas(r_frame)),
        "Qrels and Run": (ranking.Qrels.from_dict(qrels), ranking.Run.from_table(r_frame)),
        "gzip": (tmp_path / "qrels.gz", tmp_path / "run.gz"),
        "gzip str": (str(tmp_path / "qrels.gz"), str(tmp_path / "run.gz")),
    }
    for label, (q, r) in sources.items():
        assert _evaluate(q, r) == reference, label


def test_run_lines_beyond_six_fields_are_ignored() -> None:
    """results.trunc has text after the tag on a few lines (trec_eval's own test of it)."""
    assert sum(len(fields) > 6 for fields in plain_lines("results.trunc")) == 5
    run = ranking.read_run(TESTDATA / "results.trunc")
    assert len(run) == len(plain_lines("results.trunc"))
    expected = {(q, d): float(s) for q, _, d, _, s, *_ in plain_lines("results.trunc")}
    got = run.to_dict()
    assert {(q, d): v for q, docs in got.items() for d, v in docs.items()} == expected


def _quirky(text: str, variant: str) -> bytes:
    """``text`` (one record per line, single spaces) rewritten with one formatting quirk."""
    lines = text.splitlines()
    if variant == "tabs":
        out = "\n".join(line.replace(" ", "\t") for line in lines) + "\n"
    elif variant == "tabs and spaces mixed":
        out = "".join(
            re.sub(" ", lambda m, i=i: ["\t", "  ", " \t "][i % 3], line) + "\n"  # type: ignore[misc]
            for i, line in enumerate(lines)
        )
    elif variant == "windows line endings":
        out = "\r\n".join(lines) + "\r\n"
    elif variant == "trailing whitespace":
        out = "".join(line + (" \t " if i % 2 else "  ") + "\n" for i, line in enumerate(lines))
    elif variant == "leading whitespace":
        out = "".join((" " if i % 2 else "\t") + line + "\n" for i, line in enumerate(lines))
    elif variant == "blank lines":
        out = "\n" + "".join(
            line + ("\n\n" if i % 50 == 0 else "\n") for i, line in enumerate(lines)
        )
        out += "   \n\t\n"
    elif variant == "no final newline":
        out = "\n".join(lines)
    elif variant == "utf-8 bom":
        return b"\xef\xbb\xbf" + ("\n".join(lines) + "\n").encode()
    elif variant == "bom, crlf and tabs":
        body = "\r\n".join(line.replace(" ", "\t") for line in lines) + "\r\n"
        return b"\xef\xbb\xbf" + body.encode()
    else:
        raise KeyError(variant)
    return out.encode()


VARIANTS = [
    "tabs",
    "tabs and spaces mixed",
    "windows line endings",
    "trailing whitespace",
    "leading whitespace",
    "blank lines",
    "no final newline",
    "utf-8 bom",
    "bom, crlf and tabs",
]


@pytest.mark.parametrize("variant", VARIANTS)
def test_file_formatting_quirks(tmp_path: Path, variant: str) -> None:
    reference = _evaluate(TESTDATA / "qrels.test", TESTDATA / "results.test")
    qrels_text = "\n".join(" ".join(f) for f in plain_lines("qrels.test"))
    run_text = "\n".join(" ".join(f) for f in plain_lines("results.test"))
    (tmp_path / "qrels").write_bytes(_quirky(qrels_text, variant))
    (tmp_path / "run").write_bytes(_quirky(run_text, variant))
    assert _evaluate(tmp_path / "qrels", tmp_path / "run") == reference
    gz = tmp_path / "run.gz"
    gz.write_bytes(gzip.compress(_quirky(run_text, variant)))
    assert _evaluate(tmp_path / "qrels", gz) == reference


# bad files ------------------------------------------------------------------------------------

QRELS = "q1 0 d1 2\nq1 0 d2 0\nq1 0 d3 1\nq2 0 d5 1\n"
RUN = "q1 Q0 d1 1 0.9 t\nq1 Q0 d2 2 0.8 t\nq1 Q0 d3 3 0.1 t\nq2 Q0 d4 1 0.7 t\nq2 Q0 d5 2 0.6 t\n"


def _file_error(tmp_path: Path, qrels: str | bytes, run: str | bytes) -> tuple[str, Path, Path]:
    q, r = tmp_path / "judgments.qrels", tmp_path / "system.run"
    q.write_bytes(qrels.encode() if isinstance(qrels, str) else qrels)
    r.write_bytes(run.encode() if isinstance(run, str) else run)
    with pytest.raises(InputError) as info:
        ranking.evaluate(q, r, ["map"])
    return str(info.value), q, r


def test_good_files_evaluate(tmp_path: Path) -> None:
    (tmp_path / "q").write_text(QRELS)
    (tmp_path / "r").write_text(RUN)
    assert ranking.evaluate(tmp_path / "q", tmp_path / "r", ["p@2"])["p@2"] == 0.5


BAD_FILES = {
    # name: (qrels, run, which file is named, line, words the message must contain)
    "non-numeric score": (QRELS, RUN.replace("0.8", "high"), "run", 2, ["score", "'high'"]),
    "non-numeric score, tabs": (
        QRELS,
        RUN.replace(" ", "\t").replace("0.6", "high"),
        "run",
        5,
        ["score", "'high'"],
    ),
    "non-numeric grade": (QRELS.replace("d3 1", "d3 yes"), RUN, "qrels", 3, ["relevance", "yes"]),
    "nan score": (QRELS, RUN.replace("0.7", "nan"), "run", 4, ["score", "finite"]),
    "inf score": (QRELS, RUN.replace("0.7", "-inf"), "run", 4, ["score", "finite"]),
    "run line with five fields": (
        QRELS,
        RUN.replace("q1 Q0 d2 2 0.8 t", "q1 Q0 d2 2 0.8"),
        "run",
        2,
        ["malformed run line", "5 fields", "at least 6"],
    ),
    "run line with one field": (QRELS, RUN + "q3\n", "run", 6, ["malformed run line", "1 field"]),
    "qrels line with three fields": (
        QRELS.replace("q1 0 d2 0", "q1 d2 0"),
        RUN,
        "qrels",
        2,
        ["malformed qrels line", "3 fields", "4 fields"],
    ),
    "qrels line with five fields": (
        QRELS.replace("q2 0 d5 1", "q2 0 d5 1 x"),
        RUN,
        "qrels",
        4,
        ["malformed qrels line", "5 fields"],
    ),
    "qrels in run format": (RUN, RUN, "qrels", 1, ["malformed qrels line", "6 fields"]),
    "duplicate document in run": (
        QRELS,
        RUN + "q1 Q0 d1 9 0.3 t\n",
        "run",
        6,
        ["duplicate", "'d1'", "'q1'"],
    ),
    "duplicate document in qrels": (
        QRELS + "q2 0 d5 0\n",
        RUN,
        "qrels",
        5,
        ["duplicate", "'d5'", "'q2'"],
    ),
    "blank lines before the error count": (
        QRELS,
        "\n\n" + RUN.replace("0.9", "x"),
        "run",
        3,
        ["score"],
    ),
    "windows line endings": (
        QRELS,
        RUN.replace("\n", "\r\n").replace("0.1", "?"),
        "run",
        3,
        ["score", "'?'"],
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_bad_file_names_path_line_and_problem(tmp_path: Path, case: str) -> None:
    qrels, run, which, line, words = BAD_FILES[case]
    text, q, r = _file_error(tmp_path, qrels, run)
    path = q if which == "qrels" else r
    assert f"{path}, line {line}:" in text
    for word in words:
        assert word in text


@pytest.mark.parametrize("which", ["qrels", "run"])
@pytest.mark.parametrize("content", ["", "\n  \n\t\n", "\xef\xbb\xbf"])
def test_empty_file(tmp_path: Path, which: str, content: str) -> None:
    data = content.encode("latin-1")
    text, q, r = _file_error(
        tmp_path, data if which == "qrels" else QRELS, data if which == "run" else RUN
    )
    path = q if which == "qrels" else r
    assert str(path) in text
    assert "empty" in text


def test_missing_file_and_directory(tmp_path: Path) -> None:
    (tmp_path / "r").write_text(RUN)
    with pytest.raises(InputError, match="no such file") as info:
        ranking.evaluate(tmp_path / "absent.qrels", tmp_path / "r", ["map"])
    assert "absent.qrels" in str(info.value)
    with pytest.raises(InputError, match="directory"):
        ranking.read_run(tmp_path)
