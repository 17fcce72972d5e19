"""``scorekit fuse RUN RUN... -o FUSED``: several TREC runs fused into one, as ranx fuses them."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from scorekit.cli._flags import positive_int, whole_number_from
from scorekit.ranking import FUSION_METHODS, FUSION_NORMS, fuse, write_run

NAME = "fuse"


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """The ``fuse`` command's parser."""
    fu: argparse.ArgumentParser = sub.add_parser(
        NAME,
        help="fuse several TREC runs into one (RRF, CombSUM, CombMNZ...)",
        description=(
            "Fuse runs (qid Q0 docid rank score tag) into one run with the scores ranx's fusion "
            "gives: each run's scores normalized per query (--norm), then combined per "
            "document (--method). Queries missing from some runs are fused over the runs that "
            "have them. The fused run is ranked as trec_eval ranks (ties by doc id, descending). "
            "The trained methods (bayesfuse, mapfuse, posfuse, probfuse, segfuse, slidefuse) "
            "first learn from the runs' rankings of the queries judged in --qrels (or of "
            "--train-runs), then fuse every query of the runs."
        ),
    )
    fu.add_argument("runs", metavar="RUN", nargs="+", help="two or more TREC run files")
    fu.add_argument("-o", "--output", metavar="FUSED", required=True, help="the fused run file")
    fu.add_argument("--method", choices=FUSION_METHODS, default="rrf", help="default: rrf")
    fu.add_argument(
        "--norm",
        choices=[*FUSION_NORMS, "none"],
        default="minmax",
        help="per-query normalization of each run's scores (default: minmax)",
    )
    fu.add_argument(
        "--weights",
        metavar="W",
        type=float,
        nargs="+",
        help="one weight per run (wsum, wmnz, mixed, weighted_bordafuse, weighted_condorcet; "
        "combsum, combmnz, bordafuse and condorcet become their weighted forms)",
    )
    fu.add_argument("--rrf-k", type=positive_int, default=60, help="RRF's rank offset (60)")
    fu.add_argument(
        "--phi", type=float, default=None, help="RBC's persistence in (0, 1) (required by rbc)"
    )
    fu.add_argument(
        "--qrels",
        metavar="FILE",
        help="TREC qrels of the training queries (required by the trained methods)",
    )
    fu.add_argument(
        "--train-runs",
        metavar="RUN",
        nargs="+",
        help="one training run per run, in the same order (default: the runs themselves)",
    )
    fu.add_argument(
        "--segments",
        metavar="N",
        type=positive_int,
        default=None,
        help="ProbFuse's number of segments per ranking (required by probfuse)",
    )
    fu.add_argument(
        "--window",
        metavar="W",
        type=whole_number_from(0),
        default=None,
        help="SlideFuse's half window: positions p-W to p+W (required by slidefuse)",
    )
    fu.add_argument("--tag", default="fused", help="the run tag written (default: fused)")
    return fu


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Fuse the runs with :func:`scorekit.ranking.fuse` and write the result."""
    fused = fuse(
        args.runs,
        args.method,
        norm=None if args.norm == "none" else args.norm,
        weights=args.weights,
        k=args.rrf_k,
        phi=args.phi,
        qrels=args.qrels,
        train_runs=args.train_runs,
        n_segments=args.segments,
        window=args.window,
    )
    path = write_run(fused, args.output, tag=args.tag)
    queries = len(fused.queries())
    out.write(f"wrote {len(fused)} documents of {queries} queries to {path}\n")
    return 0
