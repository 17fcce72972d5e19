"""``scorekit text``'s option flags are defaults for every requested metric that has the option.

``--stemmer``, ``--tokenizer``, ``--tokenize`` and ``--lowercase`` reach every metric that
takes them, named bare or with options; an option written in the metric's name wins; a
flag that no requested metric takes is an error naming it. Each case compares the
command's value with the Python API's and with the reference library's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import sacrebleu
from rouge_score import rouge_scorer

from scorekit.cli import main
from scorekit.text import rouge

HYPS = [
    "The cats were running quickly. They jumped over fences.",
    "A dog barks loudly at strangers.",
    "Stemming changes the scores of these sentences.",
]
REFS = [
    "The cat runs quick. It jumps over the fence.",
    "The dogs barked loudly at the stranger.",
    "Stemmed words change the score of this sentence.",
]
CHINESE_HYPS = ["猫坐在垫子上。狗在跑。", "今天下雨了。"]
CHINESE_REFS = ["猫坐在垫子上了。狗在快跑。", "今天在下雨。"]


def _files(tmp_path: Path, hyps: list[str], refs: list[str]) -> tuple[str, str]:
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("\n".join(hyps) + "\n", encoding="utf-8")
    ref.write_text("\n".join(refs) + "\n", encoding="utf-8")
    return str(hyp), str(ref)


def _values(capsys: Any, hyp: str, ref: str, *argv: str) -> dict[str, Any]:
    code = main(["text", "--refs", ref, "--hyps", hyp, *argv, "--format", "json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    values: dict[str, Any] = json.loads(captured.out)
    return values


def _both(capsys: Any, hyp: str, ref: str, *argv: str) -> dict[str, Any]:
    """The values read whole, after checking that one line at a time gives the same."""
    whole = _values(capsys, hyp, ref, *argv)
    assert _values(capsys, hyp, ref, *argv, "--chunk-size", "1") == whole
    return whole


def _rouge_score(kind: str, stemmer: bool, split: bool = False) -> float:
    """rouge-score's mean F-measure; sentences split as newline-separated text when ``split``."""
    scorer = rouge_scorer.RougeScorer([kind], use_stemmer=stemmer)
    scores = [
        scorer.score(
            r.replace(". ", ".\n") if split else r, h.replace(". ", ".\n") if split else h
        )[kind].fmeasure
        for r, h in zip(REFS, HYPS, strict=True)
    ]
    return sum(scores) / len(scores)


def test_stemmer_reaches_a_rouge_type_written_with_options(tmp_path: Path, capsys: Any) -> None:
    hyp, ref = _files(tmp_path, HYPS, REFS)
    name = "rougeLsum:split_sentences=true"
    got = _both(capsys, hyp, ref, "-m", name, "--stemmer")[name]
    api = rouge(REFS, HYPS, types=["rougeLsum"], stemmer=True, split_sentences=True)
    assert got == pytest.approx(api["rougeLsum"].fmeasure, rel=1e-12)
    assert got == pytest.approx(_rouge_score("rougeLsum", True, split=True), rel=1e-12)
    assert got != pytest.approx(_rouge_score("rougeLsum", False, split=True), rel=1e-6)


def test_stemmer_beside_another_option_of_the_name(tmp_path: Path, capsys: Any) -> None:
    hyp, ref = _files(tmp_path, HYPS, REFS)
    got = _both(capsys, hyp, ref, "-m", "rouge1:tokenizer=default", "--stemmer")
    assert got["rouge1:tokenizer=default"] == pytest.approx(_rouge_score("rouge1", True), 1e-12)
    assert got["rouge1:tokenizer=default"] != pytest.approx(_rouge_score("rouge1", False), 1e-6)


def test_an_option_written_in_the_name_wins_over_the_flag(tmp_path: Path, capsys: Any) -> None:
    hyp, ref = _files(tmp_path, HYPS, REFS)
    got = _both(capsys, hyp, ref, "-m", "rougeL:stemmer=false", "rouge2", "--stemmer")
    assert got["rougeL:stemmer=false"] == pytest.approx(_rouge_score("rougeL", False), 1e-12)
    assert got["rouge2:fmeasure"] == pytest.approx(_rouge_score("rouge2", True), rel=1e-12)


def test_unicode_tokenizer_reaches_a_rouge_type_written_with_options(
    tmp_path: Path, capsys: Any
) -> None:
    hyp, ref = _files(tmp_path, CHINESE_HYPS, CHINESE_REFS)
    name = "rougeL:split_sentences=true"
    code = main(["text", "--refs", ref, "--hyps", hyp, "-m", name, "--tokenizer", "unicode"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "--tokenizer unicode" not in captured.err  # no advice to use what was given
    got = _both(capsys, hyp, ref, "-m", name, "--tokenizer", "unicode")[name]
    api = rouge(
        CHINESE_REFS, CHINESE_HYPS, types=["rougeL"], tokenizer="unicode", split_sentences=True
    )
    assert got == pytest.approx(api["rougeL"].fmeasure, rel=1e-12)
    assert got > 0.5


@pytest.mark.parametrize(
    ("argv", "options"),
    [
        (["--tokenize", "zh"], {"tokenize": "zh"}),
        (["--lowercase"], {"lowercase": True}),
        (["--tokenize", "char", "--lowercase"], {"tokenize": "char", "lowercase": True}),
    ],
    ids=["tokenize", "lowercase", "both"],
)
def test_bleu_flags_reach_bleu_written_with_options(
    tmp_path: Path, capsys: Any, argv: list[str], options: dict[str, Any]
) -> None:
    hyps, refs = [*CHINESE_HYPS, *HYPS], [*CHINESE_REFS, *(r.upper() for r in REFS)]
    hyp, ref = _files(tmp_path, hyps, refs)
    got = _both(capsys, hyp, ref, "-m", "bleu:smooth=floor", "bleu", *argv)
    expected = sacrebleu.corpus_bleu(hyps, [refs], smooth_method="floor", **options)
    assert 100 * got["bleu:smooth=floor"] == pytest.approx(expected.score, rel=1e-12)
    bare = sacrebleu.corpus_bleu(hyps, [refs], **options)
    assert 100 * got["bleu"] == pytest.approx(bare.score, rel=1e-12)


def test_lowercase_reaches_chrf_written_with_options(tmp_path: Path, capsys: Any) -> None:
    refs = [r.upper() for r in REFS]
    hyp, ref = _files(tmp_path, HYPS, refs)
    got = _both(capsys, hyp, ref, "-m", "chrf:beta=1", "chrf++", "--lowercase")
    chrf = sacrebleu.CHRF(beta=1, lowercase=True).corpus_score(HYPS, [refs]).score
    plus = sacrebleu.CHRF(word_order=2, lowercase=True).corpus_score(HYPS, [refs]).score
    assert 100 * got["chrf:beta=1"] == pytest.approx(chrf, rel=1e-12)
    assert 100 * got["chrf++"] == pytest.approx(plus, rel=1e-12)


def test_sentence_level_rows_take_the_flags(tmp_path: Path, capsys: Any) -> None:
    hyp, ref = _files(tmp_path, HYPS, REFS)
    argv = ["-m", "rouge1:tokenizer=default", "--stemmer", "--sentence-level"]
    code = main(["text", "--refs", ref, "--hyps", hyp, *argv, "--format", "json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    rows = [json.loads(line) for line in captured.out.splitlines()]
    scorer = rouge_scorer.RougeScorer(["rouge1"], use_stemmer=True)
    expected = [scorer.score(r, h)["rouge1"].fmeasure for r, h in zip(REFS, HYPS, strict=True)]
    got = [next(v for k, v in row.items() if k != "line") for row in rows]
    assert got == pytest.approx(expected, rel=1e-12)


def test_compared_systems_take_the_flags(tmp_path: Path, capsys: Any) -> None:
    hyp, ref = _files(tmp_path, HYPS, REFS)
    other = tmp_path / "other.txt"
    other.write_text("\n".join(REFS) + "\n", encoding="utf-8")
    argv = ["--hyps", hyp, str(other), "-m", "rouge1:tokenizer=default", "--stemmer"]
    code = main(["text", "--refs", ref, *argv, "--test", "t", "--format", "json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert f"{_rouge_score('rouge1', True):.6f}"[:6] in captured.out


@pytest.mark.parametrize(
    ("metrics", "flag"),
    [
        (["wer", "chrf"], ["--stemmer"]),
        (["bleu"], ["--tokenizer", "unicode"]),
        (["rouge1", "chrf"], ["--tokenize", "zh"]),
        (["ter"], ["--lowercase"]),
    ],
)
def test_a_flag_no_requested_metric_takes_is_an_error(
    tmp_path: Path, capsys: Any, metrics: list[str], flag: list[str]
) -> None:
    hyp, ref = _files(tmp_path, HYPS, REFS)
    code = main(["text", "--refs", ref, "--hyps", hyp, "-m", *metrics, *flag])
    err = capsys.readouterr().err
    assert code == 2
    assert "no requested metric takes the option" in err and flag[0] in err
    assert "Traceback" not in err


def test_sacrebleus_paired_test_takes_the_flags_by_the_same_rule(
    tmp_path: Path, capsys: Any
) -> None:
    hyp, ref = _files(tmp_path, HYPS, REFS)
    upper = tmp_path / "upper.txt"
    upper.write_text("\n".join(h.upper() for h in HYPS) + "\n", encoding="utf-8")
    argv = ["text", "--refs", ref, "--hyps", hyp, str(upper), "--paired-bs", "-m", "bleu"]
    assert main([*argv, "--n-resamples", "20", "--lowercase", "--format", "json"]) == 0
    found = json.loads(capsys.readouterr().out)
    scores = [row["score"] for row in found["results"]["BLEU"]]
    assert scores[0] == scores[1]  # case-insensitive: the upper-case system scores the same
    assert main([*argv, "--stemmer"]) == 2
    err = capsys.readouterr().err
    assert "no requested metric takes the option" in err and "--stemmer" in err
