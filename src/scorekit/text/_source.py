"""Line-aligned text files as a source of :func:`scorekit.evaluate`: hypotheses and references."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from scorekit.errors import InputError, message
from scorekit.io import Progress, ReadPlan, Source, with_meta
from scorekit.text._lines import read_line_blocks

__all__ = ["PREDICTIONS", "REFERENCES", "GroupedLines", "LineFiles"]

PREDICTIONS = "predictions"
"""The column of the hypotheses (one line of the hypothesis file a row)."""

REFERENCES = "references"
"""The column of the references (the same line of every reference file, as a list)."""


class LineFiles(Source):
    """A file of hypotheses and line-aligned reference files, read a block of lines at a time.

    Row ``i`` holds line ``i`` of the hypothesis file in the ``predictions``
    column and line ``i`` of every reference file, as a list, in
    ``references``: the inputs of BLEU and ROUGE. The files are UTF-8 (a BOM is
    dropped), optionally gzip-compressed; they are read as
    :func:`scorekit.text.read_parallel` reads them, with its errors (a file
    missing, not UTF-8 at a line, or of another line count).

    Parameters
    ----------
    hypotheses : str or Path
        The hypothesis file, one sentence a line.
    references : sequence of str or Path
        One or more reference files of the same line count.

    Examples
    --------
    >>> import os, tempfile, scorekit
    >>> folder = tempfile.mkdtemp()
    >>> hyp, ref = os.path.join(folder, "hyp.txt"), os.path.join(folder, "ref.txt")
    >>> with open(hyp, "w") as f:
    ...     _ = f.write("the cat sat\\non the mat\\n")
    >>> with open(ref, "w") as f:
    ...     _ = f.write("the cat sat\\non a mat\\n")
    >>> result = scorekit.evaluate(LineFiles(hyp, [ref]), "rouge1", chunk_size=1)
    >>> round(result.values["rouge1"], 4), result.rows
    (0.8333, 2)
    """

    def __init__(self, hypotheses: str | Path, references: Sequence[str | Path]) -> None:
        self.hypotheses = hypotheses
        self.references = list(references)
        self.name = str(hypotheses)
        paths = [Path(hypotheses), *(Path(r) for r in self.references)]
        if all(p.is_file() for p in paths):
            self.total_bytes = sum(p.stat().st_size for p in paths)

    def columns(self) -> list[str]:
        """``predictions`` and ``references``."""
        return [PREDICTIONS, REFERENCES]

    def chunks(
        self,
        wanted: Sequence[str],
        chunk_size: int,
        progress: Progress,
        plan: ReadPlan,
    ) -> Iterator[Any]:
        """Tables of ``chunk_size`` lines of every file, with the ``wanted`` columns."""
        import pyarrow as pa

        start = 0
        for hyps, refs in read_line_blocks(self.hypotheses, self.references, chunk_size):
            table = pa.table(
                {
                    PREDICTIONS: pa.array(hyps, pa.string()),
                    REFERENCES: pa.array(refs, pa.list_(pa.string())),
                }
            )
            progress.update(rows=table.num_rows)
            yield with_meta(table.select(list(wanted)), self.name, None, start)
            start += table.num_rows


def _labels(path: str, labels: list[str], start: int) -> list[str]:
    """The group labels of lines ``start...``; an empty one is an error naming its line."""
    for i, label in enumerate(labels):
        if not label.strip():
            raise InputError(
                message(
                    f"{path}, line {start + i + 1}",
                    "missing group label",
                    label,
                    "one group label per line",
                )
            )
    return labels


class GroupedLines(Source):
    """Line-aligned hypothesis and reference files with a file of group labels, in blocks.

    Row ``i`` holds line ``i`` of the hypotheses (``predictions``), of every
    reference file (``references``) and of the groups file (the column
    ``by``). The files must have the same number of lines.

    Examples
    --------
    >>> import os, tempfile, scorekit
    >>> from scorekit.core import Grouped
    >>> folder = tempfile.mkdtemp()
    >>> paths = [os.path.join(folder, n) for n in ("hyp.txt", "ref.txt", "domain.txt")]
    >>> for path, text in zip(paths, ["a cat\\na dog\\n", "a cat\\nthe dog\\n", "x\\ny\\n"]):
    ...     with open(path, "w") as f:
    ...         _ = f.write(text)
    >>> source = GroupedLines(paths[0], [paths[1]], paths[2], "domain")
    >>> found = scorekit.evaluate(source, Grouped("wer", by="domain"), chunk_size=1)["wer"]
    >>> found.by_group
    {'x': 0.0, 'y': 0.5}
    """

    def __init__(self, hypotheses: str, references: Sequence[str], groups: str, by: str) -> None:
        self.hypotheses = hypotheses
        self.references = list(references)
        self.groups = groups
        self.by = by
        self.name = str(hypotheses)

    def columns(self) -> list[str]:
        """``predictions``, ``references`` and the group column."""
        return ["predictions", "references", self.by]

    def chunks(
        self, wanted: Sequence[str], chunk_size: int, progress: Any, plan: Any
    ) -> Iterator[Any]:
        """Tables of ``chunk_size`` lines of every file, with the ``wanted`` columns."""
        import pyarrow as pa

        start = 0
        files = [*self.references, self.groups]
        for hyps, refs in read_line_blocks(self.hypotheses, files, chunk_size):
            labels = _labels(self.groups, [r[-1] for r in refs], start)
            table = pa.table(
                {
                    "predictions": pa.array(hyps, pa.string()),
                    "references": pa.array([r[:-1] for r in refs], pa.list_(pa.string())),
                    self.by: pa.array(labels, pa.string()),
                }
            )
            progress.update(rows=table.num_rows)
            yield with_meta(table.select(list(wanted)), self.name, None, start)
            start += table.num_rows
