"""``scorekit text`` and ``scorekit qa`` against sacrebleu, rouge-score and hand-checked SQuAD."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import sacrebleu
from rouge_score import rouge_scorer

from conftest import ROOT
from scorekit.cli import main

DATA = ROOT / "examples" / "data"
HYPS, REFS = DATA / "hyps.txt", [DATA / "refs_a.txt", DATA / "refs_b.txt"]


def _run(capsys: Any, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def test_text_agrees_with_sacrebleu_and_rouge_score(capsys: Any) -> None:
    args = ["text", "--refs", *map(str, REFS), "--hyps", str(HYPS), "--format", "json"]
    code, out, err = _run(capsys, *args, "-m", "bleu", "rouge1", "rougeL")
    assert code == 0, err
    got = json.loads(out)
    hyps, refs = _lines(HYPS), [_lines(r) for r in REFS]
    assert got["bleu"] == pytest.approx(sacrebleu.corpus_bleu(hyps, refs).score / 100, rel=1e-12)
    assert "tok:13a" in err
    scorer = rouge_scorer.RougeScorer(["rouge1", "rougeL"])
    for kind in ("rouge1", "rougeL"):
        best = [
            max((scorer.score(r, h)[kind] for r in rs), key=lambda s: s.fmeasure)
            for h, rs in zip(hyps, zip(*refs, strict=True), strict=True)
        ]
        for part in ("precision", "recall", "fmeasure"):
            expected = sum(getattr(b, part) for b in best) / len(best)
            assert got[f"{kind}:{part}"] == pytest.approx(expected, rel=1e-12)


def test_text_tokenizer_and_lowercase_options(capsys: Any, tmp_path: Path) -> None:
    hyp, ref = tmp_path / "h.txt", tmp_path / "r.txt"
    hyp.write_text("The Cat sat.\nHello, world!\n", encoding="utf-8")
    ref.write_text("the cat sat .\nhello world\n", encoding="utf-8")
    base = ["text", "--refs", str(ref), "--hyps", str(hyp), "-m", "bleu", "--format", "json"]
    for extra, kwargs in (
        (["--lowercase"], {"lowercase": True}),
        (["--tokenize", "char"], {"tokenize": "char"}),
    ):
        got = json.loads(_run(capsys, *base, *extra)[1])["bleu"]
        expected = sacrebleu.corpus_bleu(_lines(hyp), [_lines(ref)], **kwargs).score / 100
        assert got == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(
    ("refs", "hyps", "extra", "pattern"),
    [
        ("a\nb\n", "a\n", [], "differ in line count; got 2 lines in"),
        ("a\n", "a\n", ["-m", "meteor"], "unknown metric; got 'meteor'"),
        (b"a\xff\n", "a\n", [], "line 1: not valid UTF-8"),
    ],
)
def test_text_errors(
    capsys: Any, tmp_path: Path, refs: str | bytes, hyps: str, extra: list[str], pattern: str
) -> None:
    ref, hyp = tmp_path / "r.txt", tmp_path / "h.txt"
    if isinstance(refs, bytes):
        ref.write_bytes(refs)
    else:
        ref.write_text(refs, encoding="utf-8")
    hyp.write_text(hyps, encoding="utf-8")
    code, out, err = _run(capsys, "text", "--refs", str(ref), "--hyps", str(hyp), *extra)
    assert code == 2 and out == ""
    assert pattern in err and "Traceback" not in err


def test_qa_on_the_bundled_files(capsys: Any) -> None:
    args = ["qa", str(DATA / "squad_dev.json"), str(DATA / "squad_preds.json"), "--format", "json"]
    code, out, err = _run(capsys, *args, "--na-probs", str(DATA / "squad_na_probs.json"))
    assert code == 0, err
    got = json.loads(out)
    # q1 exact; q2 "at 9" vs "at nine" F1 0.5; q3 "bread" vs "bread and milk" F1 0.5;
    # q4 unanswerable and answered "" (1); q5 "book every night" vs "book" F1 0.5; q6 wrong
    assert got["exact"] == pytest.approx(2 / 6)
    assert got["f1"] == pytest.approx(3.5 / 6)
    assert got["total"] == 6 and got["HasAns_total"] == 4 and got["NoAns_total"] == 2
    assert got["NoAns_exact"] == pytest.approx(0.5)
    assert "best_f1_thresh" in got


def test_qa_errors(capsys: Any, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"q1": "x",\n "q2" }\n', encoding="utf-8")
    code, out, err = _run(capsys, "qa", str(DATA / "squad_dev.json"), str(bad))
    assert code == 2 and out == "" and "bad.json, line 2" in err and "invalid JSON" in err
    code, out, err = _run(capsys, "qa", str(tmp_path / "none.json"), str(bad))
    assert code == 2 and out == "" and "no such file" in err


def test_demo_covers_text_and_qa(capsys: Any) -> None:
    code, out, err = _run(capsys, "demo", "--no-report")
    assert code == 0, err
    assert "scorekit text --refs refs_a.txt refs_b.txt --hyps hyps.txt" in out
    assert "scorekit qa squad_dev.json squad_preds.json" in out
    assert any(line.split()[:1] == ["bleu"] for line in out.splitlines())
