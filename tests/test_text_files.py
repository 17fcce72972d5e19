"""Line-aligned text files for ``scorekit text``: encodings, endings and count mismatches."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from scorekit.errors import InputError
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
