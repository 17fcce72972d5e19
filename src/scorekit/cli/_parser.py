"""The argument parser of the ``scorekit`` command: its commands, options and help texts."""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from typing import Any

from scorekit._evaluate import TASKS
from scorekit._version import __version__
from scorekit.cli._demo import _DEMO_HINT, _cmd_demo
from scorekit.cli._eval import _cmd_eval, _cmd_features
from scorekit.cli._merge import _cmd_merge
from scorekit.cli._rank import _RANK_DEFAULTS, _cmd_rank
from scorekit.cli._registry import _cmd_explain, _cmd_list
from scorekit.cli._text import _TEXT_DEFAULTS, _cmd_qa, _cmd_text
from scorekit.cli._throughput import _cmd_loadtest, _cmd_throughput
from scorekit.information._tables import CRITERIA
from scorekit.ranking._state import GAINS, MISSING
from scorekit.text._tokenize import TOKENIZERS as BLEU_TOKENIZERS


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors read ``scorekit: ...`` like the others."""

    def error(self, text: str) -> Any:
        self.print_usage(sys.stderr)
        sys.stderr.write(f"scorekit: {text}\n")
        raise SystemExit(2)


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}")
    return value


def _number_above(bound: float) -> Callable[[str], float]:
    """An argparse type: a finite number greater than ``bound``."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and value > bound):
            raise argparse.ArgumentTypeError(f"expected a finite number > {bound:g}, got {text!r}")
        return value

    return parse


def _scale_flags(parser: argparse.ArgumentParser, unit: str) -> None:
    from scorekit._scale import add_scale_flags

    add_scale_flags(parser, unit=unit)


def _data_arg(parser: argparse.ArgumentParser) -> None:
    """The positional data file of the commands that read a table."""
    parser.add_argument("data", metavar="DATA", help="the file (.csv, .tsv, .parquet, .jsonl, ...)")


def _metric_flag(parser: argparse.ArgumentParser, help: str, *, short: bool = False) -> None:
    """``--metric NAME [NAME ...]`` (also ``-m`` when ``short``), repeatable."""
    flags = ("-m", "--metric") if short else ("--metric",)
    parser.add_argument(*flags, nargs="+", action="extend", metavar="NAME", help=help)


def _slo_flag(parser: argparse.ArgumentParser, help: str) -> None:
    """``--slo KEY=TIME [KEY=TIME ...]``: the goodput objectives, repeatable."""
    parser.add_argument("--slo", nargs="+", action="extend", metavar="KEY=TIME", help=help)


def _format_flag(parser: argparse.ArgumentParser, *choices: str) -> None:
    """``--format`` with the output formats a command prints, the first (table) the default."""
    parser.add_argument("--format", choices=choices, default="table")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``scorekit`` command."""
    parser = _Parser(
        prog="scorekit",
        description="Evaluation metrics for machine learning, from the command line.",
    )
    parser.add_argument("--version", action="version", version=f"scorekit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    ev = sub.add_parser(
        "eval",
        help="evaluate predictions in a CSV, TSV, Parquet or JSON Lines file",
        description=(
            "Evaluate labels, scores or predicted values stored in a file. Multi-label "
            "truth and predictions are several 0/1 columns; multiclass scores are one "
            "column per class, in the sorted order of the classes; multi-output "
            "regression names one --pred column per --true column."
        ),
    )
    _data_arg(ev)
    ev.add_argument("--task", required=True, choices=TASKS)
    ev.add_argument(
        "--true", required=True, nargs="+", metavar="COL", help="true labels or target values"
    )
    ev.add_argument("--pred", nargs="+", metavar="COL", help="predicted labels or values")
    ev.add_argument("--score", nargs="+", metavar="COL", help="scores or probabilities")
    ev.add_argument("--weight", metavar="COL", help="sample weights")
    _metric_flag(ev, "metric names such as accuracy, f1:macro, roc_auc (default: the task's set)")
    ev.add_argument("--pos-label", metavar="LABEL", help="the positive class (binary task)")
    _format_flag(ev, "table", "json", "csv")
    _scale_flags(ev, "rows")
    ev.set_defaults(handler=_cmd_eval)

    ft = sub.add_parser(
        "features",
        help="rank the columns of a file as decision-tree splits of a target",
        description=(
            "Score every feature column as a split of the target column, as ID3 (information "
            "gain), C4.5 (gain ratio) or CART (Gini gain) would at the root, best first. "
            "Numeric columns split in two at the best threshold; text and boolean columns "
            "(and those named by --categorical) split multiway."
        ),
    )
    _data_arg(ft)
    ft.add_argument("--target", required=True, metavar="COL", help="the class label column")
    ft.add_argument("--criterion", choices=CRITERIA, default="information_gain")
    ft.add_argument(
        "--features", nargs="+", metavar="COL", help="the columns to rank (default: all others)"
    )
    ft.add_argument("--exclude", nargs="+", metavar="COL", help="columns not to rank (ids, ...)")
    ft.add_argument(
        "--categorical", nargs="+", metavar="COL", help="numeric columns to split multiway"
    )
    ft.add_argument("--weight", metavar="COL", help="sample weights")
    ft.add_argument(
        "--base", type=_number_above(1), default=2.0, help="logarithm base (default 2: bits)"
    )
    ft.add_argument("--top", type=_positive_int, metavar="N", help="show the best N only")
    _format_flag(ft, "table", "json", "csv")
    ft.set_defaults(handler=_cmd_features)

    rk = sub.add_parser(
        "rank",
        help="evaluate a TREC run against its qrels (ranking metrics, like trec_eval)",
        description=(
            "Evaluate a run (qid Q0 docid rank score tag) against qrels (qid iter docid "
            "relevance) with ranking metrics, as trec_eval does: ties in score are broken by "
            "descending doc id and the rank column is ignored. The files may be gzip-compressed."
        ),
    )
    rk.add_argument("qrels", metavar="QRELS", help="the qrels file")
    rk.add_argument("run", metavar="RUN", help="the run file")
    _metric_flag(
        rk,
        f"metrics such as ndcg@10, map, mrr@10, p@5 (default: {' '.join(_RANK_DEFAULTS)})",
        short=True,
    )
    rk.add_argument("--per-query", action="store_true", help="also show every query's values")
    rk.add_argument(
        "--missing",
        choices=MISSING,
        default="skip",
        help="qrels queries absent from the run: skip them, or count them as 0 (trec_eval -c)",
    )
    rk.add_argument(
        "-l",
        "--relevance-level",
        type=_number_above(0),
        metavar="L",
        help="the smallest grade that counts as relevant (default 1, trec_eval -l)",
    )
    rk.add_argument("--gain", choices=GAINS, default="linear", help="gain of a grade g: g or 2^g-1")
    _format_flag(rk, "table", "json", "csv", "trec")
    _scale_flags(rk, "run rows")
    rk.set_defaults(handler=_cmd_rank)

    tx = sub.add_parser(
        "text",
        help="BLEU and ROUGE of line-aligned hypothesis and reference files",
        description=(
            "Score a file of hypotheses (one sentence a line, UTF-8) against one or more "
            "reference files of the same length, like sacrebleu. BLEU is a fraction in [0, 1]; "
            "its signature goes to stderr. ROUGE prints precision, recall and F-measure."
        ),
    )
    tx.add_argument(
        "--refs", required=True, nargs="+", action="extend", metavar="FILE", help="references"
    )
    tx.add_argument("--hyps", required=True, metavar="FILE", help="hypotheses")
    _metric_flag(
        tx,
        f"bleu, rouge1..rouge9, rougeL, rougeLsum (default: {' '.join(_TEXT_DEFAULTS)})",
        short=True,
    )
    tx.add_argument("--tokenize", choices=BLEU_TOKENIZERS, default="13a", help="BLEU tokenizer")
    tx.add_argument("--lowercase", action="store_true", help="case-insensitive BLEU")
    tx.add_argument("--stemmer", action="store_true", help="Porter stemming for ROUGE")
    _format_flag(tx, "table", "json", "csv")
    _scale_flags(tx, "lines")
    tx.set_defaults(handler=_cmd_text)

    qa_parser = sub.add_parser(
        "qa",
        help="SQuAD exact match and F1, like the official evaluation scripts",
        description=(
            "Evaluate SQuAD predictions (a JSON object: question id -> answer) against the "
            "official dataset JSON. Scores are fractions (the official scripts print them "
            "times 100)."
        ),
    )
    qa_parser.add_argument("dataset", metavar="DATASET.json")
    qa_parser.add_argument("predictions", metavar="PREDICTIONS.json")
    qa_parser.add_argument("--na-probs", metavar="FILE", help="no-answer probabilities (v2.0)")
    qa_parser.add_argument(
        "--na-prob-thresh", type=float, default=1.0, help="no-answer threshold (v2.0)"
    )
    qa_parser.add_argument("--version", choices=("2.0", "1.1"), default="2.0")
    _format_flag(qa_parser, "table", "json", "csv")
    qa_parser.set_defaults(handler=_cmd_qa)

    tp = sub.add_parser(
        "throughput",
        help="LLM serving throughput, latency and goodput of request records",
        description=(
            "Report the throughputs (output, prompt and total tokens, requests per second of "
            "wall time), failed requests by reason, goodput under SLOs, and TTFT, TPOT, ITL "
            "and end-to-end latency (mean, median, p90, p99, max; milliseconds in the table, "
            "seconds in JSON) of one record per request: prompt_tokens, output_tokens, start, "
            "end, and optional first_token, token_times, success, error."
        ),
    )
    tp.add_argument("records", metavar="RECORDS", help="the records (.jsonl, .csv, .parquet)")
    _slo_flag(
        tp,
        "objectives for goodput: ttft, tpot, itl or e2e with a unit (s, ms, us), "
        "e.g. --slo ttft=200ms tpot=50ms",
    )
    _format_flag(tp, "table", "json")
    _scale_flags(tp, "records")
    tp.set_defaults(handler=_cmd_throughput)

    mg = sub.add_parser(
        "merge",
        help="merge the state files of shards (--save-state) and print the values of the whole",
        description=(
            "Merge state files written by --save-state on shards of the data (on one machine "
            "or many) and print the metrics of all the data, as the command that wrote them "
            "prints them. The files must hold the same metrics with the same settings, from "
            "the same command and columns, in a state format this scorekit reads."
        ),
    )
    mg.add_argument("states", nargs="+", metavar="STATE", help="state files (.json, .json.gz)")
    _format_flag(mg, "table", "json", "csv")
    mg.add_argument("--save-state", metavar="FILE", help="also write the merged states to FILE")
    mg.set_defaults(handler=_cmd_merge)

    lt = sub.add_parser(
        "loadtest",
        help="load-test an OpenAI-compatible LLM server and report its throughput and latency",
        description=(
            "Send streamed chat or completion requests to an OpenAI-compatible server (vLLM, "
            "TGI, llama.cpp, Ollama, ...), time every streamed chunk, and print the report of "
            "'scorekit throughput'. --concurrency N keeps N requests in flight (closed loop, "
            "the default with N = 1); --rate R starts requests at Poisson arrival times, R a "
            "second (open loop). The run stops after --num-requests or --duration, whichever "
            "comes first (default: one request per prompt); requests in flight then run to "
            "their end. Failed requests (timeout, HTTP error, broken stream) are counted with "
            "their reason. Ctrl-C cancels the requests in flight, writes and reports what was "
            "collected, and exits with status 130. Needs httpx: pip install 'scorekit[serve]'."
        ),
    )
    lt.add_argument("--url", required=True, help="the API base, e.g. http://127.0.0.1:8000/v1")
    lt.add_argument("--model", required=True, metavar="NAME", help="the model to ask for")
    lt.add_argument(
        "--prompts",
        required=True,
        metavar="FILE.jsonl",
        help='one {"prompt": ...} or {"messages": [...]} a line, optionally "max_tokens"',
    )
    loop = lt.add_mutually_exclusive_group()
    loop.add_argument(
        "--concurrency", type=_positive_int, metavar="N", help="closed loop: N requests in flight"
    )
    loop.add_argument(
        "--rate",
        type=_number_above(0),
        metavar="R",
        help="open loop: Poisson arrivals, R per second",
    )
    lt.add_argument(
        "--max-tokens",
        type=_positive_int,
        default=128,
        metavar="N",
        help="tokens to generate when the prompt line sets none (default 128)",
    )
    lt.add_argument(
        "--duration", type=_number_above(0), metavar="S", help="start no request after S seconds"
    )
    lt.add_argument(
        "--num-requests", type=_positive_int, metavar="N", help="start N requests in all"
    )
    lt.add_argument("--endpoint", choices=("chat", "completions"), default="chat")
    lt.add_argument(
        "--timeout",
        type=_number_above(0),
        default=300.0,
        metavar="S",
        help="longest request, and longest wait for a byte of its stream (default 300)",
    )
    lt.add_argument("--seed", type=int, default=0, help="seed of the Poisson arrivals (default 0)")
    lt.add_argument("--out", metavar="FILE", help="write one record per request (JSON Lines)")
    _slo_flag(lt, "objectives for goodput, e.g. --slo ttft=200ms tpot=50ms")
    _format_flag(lt, "table", "json")
    lt.add_argument("--api-key", metavar="KEY", help="bearer token (default: $OPENAI_API_KEY)")
    lt.add_argument("--quiet", action="store_true", help="no progress line on stderr")
    lt.set_defaults(handler=_cmd_loadtest)

    ls = sub.add_parser("list", help="list the registered metrics")
    _format_flag(ls, "table", "json")
    ls.set_defaults(handler=_cmd_list)

    ex = sub.add_parser("explain", help="definition, formula and a worked example of a metric")
    ex.add_argument("name", metavar="NAME")
    ex.set_defaults(handler=_cmd_explain)

    demo = sub.add_parser("demo", help="evaluate the bundled example files")
    demo.add_argument("--data", metavar="DIR", help=_DEMO_HINT)
    demo.set_defaults(handler=_cmd_demo)
    return parser
