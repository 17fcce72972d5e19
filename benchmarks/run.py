"""Run the benchmarks, print a Markdown table of speed-ups and record them in results.json.

Usage: ``python benchmarks/run.py [--small] [bench_x ...]``. Without module names every
benchmark runs; with them, only those. The rows of a run replace the rows the same
modules wrote before in ``benchmarks/results.json`` (with the machine line), and the
README's speed table is rendered again from that file (``benchmarks/results.py``).
Each row records the machine it ran on; a run of every benchmark also sets the file's
machine line. ``--small`` uses 1/10 of the data for a quick look and records nothing.
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_bleu
import bench_bounded
import bench_calibration
import bench_chunked_auc
import bench_ci_scale
import bench_classification
import bench_compat
import bench_dask
import bench_groups
import bench_information
import bench_loadtest
import bench_qa
import bench_ranking
import bench_regression
import bench_rouge
import bench_spark
import bench_state_files
import bench_stats
import bench_stream_ranges
import bench_text_errors
import results
from _timing import HEADER, machine

MODULES = (
    bench_classification,
    bench_bounded,
    bench_chunked_auc,
    bench_stream_ranges,
    bench_dask,
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
    bench_ci_scale,
    bench_state_files,
    bench_spark,
    bench_groups,
    bench_compat,
)


def main() -> None:
    warnings.simplefilter("ignore")
    small = "--small" in sys.argv
    scale = 10 if small else 1
    names = [a for a in sys.argv[1:] if not a.startswith("--")]
    known = {m.__name__: m for m in MODULES}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise SystemExit(f"run.py: unknown benchmark {unknown[0]!r}; one of {', '.join(known)}")
    chosen = [known[n] for n in names] if names else list(MODULES)
    data = results.load() if results.RESULTS.exists() else {"rows": []}
    here = machine()
    if not names or "machine" not in data:
        data["machine"] = here
    print(f"Machine: {here}\n")
    print(HEADER)
    for module in chosen:
        rows = []
        for row in module.run(module.N // scale):
            print(row.markdown(), flush=True)
            rows.append(row.record())
        if not small:
            data = results.update(data, module.__name__, rows, machine=here)
            results.RESULTS.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    if not small:
        text = results.README.read_text(encoding="utf-8")
        results.README.write_text(results.with_table(text, results.render(data)), encoding="utf-8")


if __name__ == "__main__":
    main()
