"""Hostile cases: fusion options that do not apply, and scores at the edge of the floats."""

from __future__ import annotations

from pathlib import Path

import pytest

from hostile import assert_clean_error, scorekit, write


def _runs(tmp_path: Path, first: str, second: str) -> tuple[Path, Path]:
    a = write(tmp_path / "a.txt", [f"q1 Q0 d1 1 {first} a", f"q1 Q0 d2 2 -{first} a"])
    b = write(tmp_path / "b.txt", [f"q1 Q0 d1 1 {second} b", "q1 Q0 d2 2 0.5 b"])
    return a, b


def test_phi_without_rbc_is_refused(tmp_path: Path) -> None:
    """[silent] ``fuse --phi 0.5`` with another method than rbc was ignored."""
    a, b = _runs(tmp_path, "1", "1")
    out = tmp_path / "fused.txt"
    done = scorekit("fuse", a, b, "-o", out, "--method", "rrf", "--phi", "0.5")
    assert_clean_error(done, "fuse (rrf)", "takes no phi", "phi with rbc only")
    assert not out.exists()


@pytest.mark.parametrize("norm", ["minmax", "sum"])
def test_a_normalization_that_overflows_names_itself_and_the_query(
    tmp_path: Path, norm: str
) -> None:
    """[silent] Scores near 1e308 overflowed when normalized; the error blamed the output."""
    a, b = _runs(tmp_path, "1e308", "1")
    done = scorekit("fuse", a, b, "-o", tmp_path / "f.txt", "--method", "combsum", "--norm", norm)
    assert_clean_error(done, f"fuse (combsum, norm {norm})", "overflow", "query 'q1'")
    assert "fused, line" not in done.stderr


def test_fused_scores_that_overflow_name_the_document(tmp_path: Path) -> None:
    """[silent] Two runs at 1e308 added to inf; the error blamed "fused, line 1"."""
    a, _ = _runs(tmp_path, "1e308", "1")
    b = write(tmp_path / "b.txt", ["q1 Q0 d1 1 1e308 b", "q1 Q0 d2 2 -1e308 b"])
    done = scorekit("fuse", a, b, "-o", tmp_path / "f.txt", "--method", "combsum", "--norm", "none")
    assert_clean_error(done, "fuse (combsum)", "overflows", "query 'q1', document 'd1'")


def test_ratio_of_groups_all_zero_warns() -> None:
    """[silent] ``ByGroup.ratio`` of groups whose values are all 0 was nan without a word."""
    from scorekit.core import ByGroup
    from scorekit.errors import UndefinedMetricWarning

    found = ByGroup(0.0, {"de": 0.0, "fr": 0.0}, {"de": 2, "fr": 2}, ("country",))
    with pytest.warns(UndefinedMetricWarning, match="every group's value is 0"):
        assert found.ratio() != found.ratio()
    mixed = ByGroup(-1.0, {"de": -2.0, "fr": 0.0}, {"de": 2, "fr": 2}, ("country",))
    with pytest.warns(UndefinedMetricWarning, match="the ratio is -inf"):
        assert mixed.ratio() == float("-inf")


def test_a_fused_run_that_cannot_be_written_is_a_clear_error(tmp_path: Path) -> None:
    """[crash] A write error of ``fuse -o`` (here a file of /proc) was a traceback."""
    a, b = _runs(tmp_path, "1", "1")
    done = scorekit("fuse", a, b, "-o", "/proc/version")
    assert_clean_error(done, "/proc/version: cannot write the run")
