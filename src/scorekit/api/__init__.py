"""The library's façade: evaluate metrics over any source on any engine, and state files.

- :func:`evaluate` runs metrics over a table, files of any size or a cluster's
  data, on a registered engine, and returns an :class:`EvaluationResult`, the
  one result type every function here returns.
- :func:`configure` builds the metrics of an evaluation from strings and options.
- :func:`save_states`, :func:`load_states`, :func:`merge_files`: the states of
  shards saved to portable JSON files, loaded, and merged into the whole.
- One function per kind of file the command line reads:
  :func:`evaluate_table` (a task's columns: ``scorekit eval``),
  :func:`rank_file` (feature columns as splits: ``scorekit features``),
  :func:`evaluate_run` (a TREC run and qrels: ``scorekit rank``),
  :func:`evaluate_text` (line-aligned texts: ``scorekit text``),
  :func:`evaluate_squad` (SQuAD files: ``scorekit qa``) and
  :func:`evaluate_records` (request records: ``scorekit throughput``).

The evaluating ones take ``ci=`` (a :class:`CI`): every value then comes with
its bootstrap confidence interval (:class:`scorekit.stats.Interval`).
:func:`compare_table`, :func:`compare_runs` and :func:`compare_text` compare
several systems against a baseline (``--test`` on the commands).

The command line translates its flags into one call of these functions per
command.
"""

from __future__ import annotations

from scorekit.api._ci import CI, CI_METHODS
from scorekit.api._compare import (
    Paired,
    compare_runs,
    compare_table,
    compare_text,
    paired_text,
)
from scorekit.api._eval import evaluate_table
from scorekit.api._evaluate import configure, evaluate
from scorekit.api._merge import merge_files, merge_with_header
from scorekit.api._qa import evaluate_squad
from scorekit.api._rank import evaluate_run, query_groups
from scorekit.api._text import (
    ROUGE_TOKENIZERS,
    TEXT_DEFAULTS,
    evaluate_text,
    text_metric_names,
    text_segments,
)
from scorekit.api._throughput import evaluate_records
from scorekit.classification import TASKS, default_metrics
from scorekit.core import EvaluationResult
from scorekit.information import FeatureRanking, rank_file
from scorekit.statefiles import FILE_FORMAT, StateFile, load_states, save_states

__all__ = [
    "CI",
    "CI_METHODS",
    "FILE_FORMAT",
    "ROUGE_TOKENIZERS",
    "TASKS",
    "TEXT_DEFAULTS",
    "EvaluationResult",
    "FeatureRanking",
    "Paired",
    "StateFile",
    "compare_runs",
    "compare_table",
    "compare_text",
    "configure",
    "default_metrics",
    "evaluate",
    "evaluate_records",
    "evaluate_run",
    "evaluate_squad",
    "evaluate_table",
    "evaluate_text",
    "load_states",
    "merge_files",
    "merge_with_header",
    "paired_text",
    "query_groups",
    "rank_file",
    "save_states",
    "text_metric_names",
    "text_segments",
]
