"""Line-aligned text files as a source of :func:`scorekit.evaluate`: hypotheses and references."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from scorekit.io import Progress, ReadPlan, Source, with_meta
from scorekit.text._lines import read_line_blocks

__all__ = ["PREDICTIONS", "REFERENCES", "LineFiles"]

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
