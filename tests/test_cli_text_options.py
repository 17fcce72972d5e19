"""``scorekit text`` options: every text metric by name, --tokenizer, --percent, JSON details,
--sentence-level, and the metric-name grammar's refusal of options after a comma."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
import sacrebleu

from conftest import ROOT
from scorekit import parse_metric
from scorekit.cli import main
from scorekit.errors import ConfigError
from scorekit.text import CHRF, WER, rouge, sentence_bleu

DATA = ROOT / "examples" / "data"
HYPS, REFS = DATA / "hyps.txt", [DATA / "refs_a.txt", DATA / "refs_b.txt"]


def _run(capsys: Any, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def _base(*extra: str) -> list[str]:
    return ["text", "--refs", *map(str, REFS), "--hyps", str(HYPS), *extra]


def test_every_listed_text_metric_is_accepted(capsys: Any) -> None:
    names = ["bleu", "chrf", "chrf++", "wer", "cer", "mer", "wil", "wip", "rougeW", "rougeSU4"]
    code, out, err = _run(capsys, *_base("-m", *names, "--format", "json"))
    assert code == 0, err
    got = json.loads(out)
    hyps = _lines(HYPS)
    refs = [_lines(r) for r in REFS]
    assert 100 * got["chrf++"] == pytest.approx(
        sacrebleu.corpus_chrf(hyps, refs, word_order=2).score, rel=1e-12
    )
    per_item = [list(r) for r in zip(*refs, strict=True)]
    assert got["wer"] == WER().score(per_item, hyps)
    assert {"rougeW:fmeasure", "rougeSU4:recall"} <= set(got)


def test_json_keeps_bleu_statistics_and_signatures(capsys: Any) -> None:
    code, out, err = _run(capsys, *_base("-m", "bleu", "chrf", "--format", "json"))
    assert code == 0, err
    got = json.loads(out)
    ref = sacrebleu.corpus_bleu(_lines(HYPS), [_lines(r) for r in REFS])
    assert got["bleu:precisions"] == pytest.approx([p / 100 for p in ref.precisions], rel=1e-12)
    assert (got["bleu:hyp_len"], got["bleu:ref_len"]) == (ref.sys_len, ref.ref_len)
    assert got["bleu:bp"] == pytest.approx(ref.bp, rel=1e-12)
    assert got["bleu:signature"].startswith("nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|")
    assert got["chrf:signature"].startswith("nrefs:2|case:mixed|eff:yes|nc:6|nw:0|space:no|")


def test_percent_is_sacrebleus_scale_and_labelled(capsys: Any) -> None:
    _, plain_out, _ = _run(capsys, *_base("-m", "bleu", "chrf", "wer", "--format", "json"))
    code, out, _ = _run(
        capsys, *_base("-m", "bleu", "chrf", "wer", "--format", "json", "--percent")
    )
    plain, percent = json.loads(plain_out), json.loads(out)
    assert code == 0
    assert percent["bleu (%)"] == pytest.approx(100 * plain["bleu"], rel=1e-12)
    assert percent["chrf (%)"] == pytest.approx(100 * plain["chrf"], rel=1e-12)
    assert percent["bleu:precisions (%)"][0] == pytest.approx(100 * plain["bleu:precisions"][0])
    assert percent["wer"] == plain["wer"] and "bleu:signature" in percent
    _, table, _ = _run(capsys, *_base("-m", "bleu", "--percent"))
    assert "bleu (%)" in table


def test_tokenizer_flag_and_its_old_spelling(capsys: Any, tmp_path: Path) -> None:
    hyp, ref = tmp_path / "h.txt", tmp_path / "r.txt"
    hyp.write_text("我们 今天 去 公园\n", encoding="utf-8")
    ref.write_text("我们 明天 去 公园\n", encoding="utf-8")
    args = ["text", "--refs", str(ref), "--hyps", str(hyp), "-m", "rouge1", "--format", "json"]
    code, out, err = _run(capsys, *args)
    assert code == 0 and json.loads(out)["rouge1:fmeasure"] == 0.0
    assert "--tokenizer unicode" in err and "drops 100% of" in err
    for flag in ("--tokenizer", "--rouge-tokenizer"):
        code, out, err = _run(capsys, *args, flag, "unicode")
        assert code == 0 and err == ""
        assert json.loads(out)["rouge1:fmeasure"] == pytest.approx(6 / 7)  # one token a character
    code, out, _ = _run(capsys, *args, "--tokenizer", "whitespace")
    assert json.loads(out)["rouge1:fmeasure"] == pytest.approx(0.75)
    code, _, err = _run(capsys, *args, "--tokenizer", "13a")
    assert code == 2 and "--tokenizer" in err


def test_sentence_level_writes_one_line_per_segment(capsys: Any) -> None:
    names = ["bleu", "chrf", "wer", "rouge1"]
    code, out, err = _run(capsys, *_base("-m", *names, "--sentence-level", "--format", "csv"))
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    hyps = _lines(HYPS)
    refs = [list(r) for r in zip(*[_lines(r) for r in REFS], strict=True)]
    assert [int(r["line"]) for r in rows] == list(range(1, len(hyps) + 1))
    chrf = CHRF().segment_scores(refs, hyps)
    wer = WER().segment_values(refs, hyps)
    r1 = rouge(refs, hyps, types=("rouge1",), per_sample=True)["rouge1"].per_sample
    assert r1 is not None
    for i, row in enumerate(rows):
        assert float(row["bleu"]) == sentence_bleu(refs[i], hyps[i]).score
        expected = sacrebleu.sentence_bleu(hyps[i], refs[i]).score / 100
        assert float(row["bleu"]) == pytest.approx(expected, rel=1e-9, abs=1e-12)
        assert float(row["chrf"]) == chrf[i] and float(row["wer"]) == wer[i]
        assert float(row["rouge1:fmeasure"]) == r1[i, 2]
    code, out, _ = _run(capsys, *_base("-m", "chrf", "--sentence-level", "--format", "json",
                                       "--percent", "--chunk-size", "2"))  # fmt: skip
    lines = [json.loads(line) for line in out.splitlines()]
    assert len(lines) == len(hyps) and lines[0]["chrf (%)"] == pytest.approx(100 * chrf[0])
    code, out, _ = _run(capsys, *_base("-m", "wer", "--sentence-level"))
    assert out.splitlines()[0].split() == ["line", "wer"] and len(out.splitlines()) == len(hyps) + 1


@pytest.mark.parametrize(
    ("extra", "problem"),
    [
        (("-m", "accuracy"), "unknown metric"),
        (("-m", "rougeX"), "unknown metric"),
        (("-m", "chrf:nope=1"), "unknown option"),
        (("--sentence-level", "--save-state", "x.json"), "--save-state"),
        (("--sentence-level", "--engine", "stream"), "--engine"),
    ],
)
def test_text_option_errors(capsys: Any, extra: tuple[str, ...], problem: str) -> None:
    code, out, err = _run(capsys, *_base(*extra))
    assert code == 2 and out == "" and err.startswith("scorekit: ") and problem in err


def test_grammar_refuses_options_after_a_comma() -> None:
    assert parse_metric("ndcg@10:gain=exp").gain == "exp"
    with pytest.raises(ConfigError, match=r"follow a colon.*'ndcg@10:gain=exp'"):
        parse_metric("ndcg@10,gain=exp")
