"""Line-aligned text files for ``scorekit text``: encodings, endings and count mismatches."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

import scorekit
from scorekit.core import equal_values
from scorekit.errors import InputError
from scorekit.io import as_table
from scorekit.text import BLEU, ROUGE, LineFiles
from scorekit.text._lines import read_lines, read_parallel


def test_endings_bom_gzip_and_blank_lines(tmp_path: Path) -> None:
    plain = tmp_path / "a.txt"
    plain.write_bytes("\ufeffcafé au lait\r\n\r\nthe end".encode())
    assert read_lines(plain) == ["café au lait", "", "the end"]
    packed = tmp_path / "a.txt.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    assert read_lines(packed) == read_lines(plain)
    empty = tmp_path / "e.txt"
    empty.write_bytes(b"")
    assert read_lines(empty) == []


def test_invalid_utf8_names_the_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "bad.txt"
    path.write_bytes(b"fine\nab\xffcd\n")
    with pytest.raises(
        InputError, match=r"bad.txt, line 2: not valid UTF-8; got byte 0xff at column 3"
    ):
        read_lines(path)


def test_parallel_files_and_a_count_mismatch(tmp_path: Path) -> None:
    hyps, ref1, ref2 = tmp_path / "h.txt", tmp_path / "r1.txt", tmp_path / "r2.txt"
    hyps.write_text("a b\nc d\n", encoding="utf-8")
    ref1.write_text("a b\nc e\n", encoding="utf-8")
    ref2.write_text("x\ny\n", encoding="utf-8")
    got_hyps, refs = read_parallel(hyps, [ref1, ref2])
    assert got_hyps == ["a b", "c d"]
    assert refs == [["a b", "x"], ["c e", "y"]]
    ref2.write_text("x\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"1 lines in .*r2.txt, 2 in .*h.txt"):
        read_parallel(hyps, [ref1, ref2])
    with pytest.raises(InputError, match="no such file"):
        read_lines(tmp_path / "missing.txt")


def _aligned(tmp_path: Path) -> tuple[Path, list[Path]]:
    hyps = ["the cat sat on the mat", "", "un café à Paris", "a dog", "the end of it"]
    refs_a = ["the cat is on the mat", "nothing", "un café à Paris", "the dog", "the end"]
    refs_b = ["a cat sat on a mat", "", "café Paris", "a dog barks", "end of it all"]
    paths = []
    for name, lines in (("hyp.txt", hyps), ("a.txt", refs_a), ("b.txt.gz", refs_b)):
        path = tmp_path / name
        data = ("\n".join(lines) + "\n").encode()
        path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
        paths.append(path)
    return paths[0], paths[1:]


@pytest.mark.parametrize("chunk_size", [1, 2, 4, 1000])
def test_line_files_as_a_source_equal_the_whole_files(tmp_path: Path, chunk_size: int) -> None:
    hyp, refs = _aligned(tmp_path)
    hyps, ref_lines = read_parallel(hyp, refs)
    bleu, rouge = BLEU(), ROUGE(types=["rouge1", "rougeL"])
    result = scorekit.evaluate(LineFiles(hyp, refs), [bleu, rouge], chunk_size=chunk_size)
    assert result.rows == len(hyps) == 5
    assert equal_values(result.states["bleu"], bleu.summarize(ref_lines, hyps))
    assert result.values["bleu"] == bleu.compute(bleu.summarize(ref_lines, hyps))
    whole = rouge.compute(rouge.summarize(ref_lines, hyps))
    for kind, score in whole.items():
        got = result.values["rouge"][kind]
        assert (got.precision, got.recall, got.fmeasure) == pytest.approx(
            (score.precision, score.recall, score.fmeasure), rel=1e-12
        )


def test_line_files_read_whole_and_their_errors(tmp_path: Path) -> None:
    hyp, refs = _aligned(tmp_path)
    table = as_table(LineFiles(hyp, refs))
    assert table.column_names == ["predictions", "references"]
    assert table.column("references").to_pylist()[2] == ["un café à Paris", "café Paris"]
    short = tmp_path / "short.txt"
    short.write_text("one line\n", encoding="utf-8")
    with pytest.raises(InputError, match="differ in line count"):
        scorekit.evaluate(LineFiles(hyp, [short]), "bleu", chunk_size=2)
    with pytest.raises(InputError, match="no such file"):
        scorekit.evaluate(LineFiles(tmp_path / "missing.txt", refs), "bleu")
