"""Run every benchmark and print a Markdown table of speed-ups (reference time / scorekit time).

Usage: ``python benchmarks/run.py [--small]`` (``--small`` uses 1/10 of the data for a
quick look; the README table is made from a full run).
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_bleu
import bench_bounded
import bench_calibration
import bench_chunked_auc
import bench_classification
import bench_groups
import bench_information
import bench_loadtest
import bench_qa
import bench_ranking
import bench_regression
import bench_rouge
import bench_stats
import bench_text_errors
from _timing import HEADER, machine


def main() -> None:
    warnings.simplefilter("ignore")
    scale = 10 if "--small" in sys.argv else 1
    print(f"Machine: {machine()}\n")
    print(HEADER)
    for module in (
        bench_classification,
        bench_bounded,
        bench_chunked_auc,
        bench_calibration,
        bench_regression,
        bench_information,
        bench_ranking,
        bench_bleu,
        bench_rouge,
        bench_text_errors,
        bench_qa,
        bench_loadtest,
        bench_stats,
        bench_groups,
    ):
        for row in module.run(module.N // scale):
            print(row.markdown(), flush=True)


if __name__ == "__main__":
    main()
