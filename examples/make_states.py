"""Write the shard state files that the README merges with ``scorekit merge``.

Run ``python examples/make_states.py`` to rebuild ``examples/states/``. It cuts
``examples/data/binary.csv`` into three shards of rows (as three machines would
each hold a part of the data), evaluates each with ``scorekit eval ...
--save-state``, and keeps the three state files. Merging them prints the values
of the whole file::

    scorekit merge examples/states/binary-1.json examples/states/binary-2.json \\
        examples/states/binary-3.json
"""

from __future__ import annotations

import contextlib
import io
import tempfile
from pathlib import Path

import pyarrow.csv as pacsv

from scorekit.cli import main

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "data" / "binary.csv"
OUT = HERE / "states"
COLUMNS = ["--task", "binary", "--true", "label", "--pred", "pred", "--score", "score"]


def build() -> list[Path]:
    """Evaluate three shards of ``binary.csv`` and write their state files."""
    table = pacsv.read_csv(SOURCE)
    cuts = [0, 150, 260, table.num_rows]
    OUT.mkdir(exist_ok=True)
    written = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(3):
            shard = Path(tmp) / f"binary-{i + 1}.csv"
            pacsv.write_csv(table.slice(cuts[i], cuts[i + 1] - cuts[i]), shard)
            state = OUT / f"binary-{i + 1}.json"
            argv = ["eval", str(shard), *COLUMNS, "--quiet", "--save-state", str(state)]
            with contextlib.redirect_stdout(io.StringIO()):
                status = main(argv)
            if status != 0:
                raise SystemExit(f"scorekit eval failed on {shard}")
            written.append(state)
    return written


if __name__ == "__main__":
    for path in build():
        print(f"wrote {path.relative_to(HERE.parent)}")
