"""Ranking and information-retrieval metrics, with TREC run and qrels files.

A run (retrieved documents with scores) is judged against qrels (relevance
grades) query by query; each metric's value is the mean over queries. The
definitions, the ranking order (score descending, ties by doc id descending)
and the handling of unjudged documents follow trec_eval, through pytrec_eval.

Examples
--------
>>> from scorekit import ranking
>>> qrels = {"q1": {"d1": 2, "d2": 0, "d3": 1}, "q2": {"d5": 1}}
>>> run = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.1}, "q2": {"d4": 0.7, "d5": 0.6}}
>>> dict(ranking.evaluate(qrels, run, ["ndcg@10", "map", "mrr"]))
{'ndcg@10': 0.79..., 'map': 0.666..., 'mrr': 0.75}
"""

from scorekit.ranking import _inputs, _names, _trec_format  # noqa: F401  (registrations)
from scorekit.ranking._array_binary import map, mrr, precision_at
from scorekit.ranking._arrays import dcg, ndcg
from scorekit.ranking._binary import (
    MAP,
    MRR,
    BPref,
    FAtK,
    HitRate,
    Precision,
    Recall,
    RPrecision,
)
from scorekit.ranking._data import Qrels, Run, as_qrels, as_run, read_qrels, read_run
from scorekit.ranking._evaluate import (
    RankingResult,
    evaluate,
    per_query_values,
    ranking_metrics,
)
from scorekit.ranking._fusion import FUSION_METHODS, FUSION_NORMS, fuse, train_fusion, write_run
from scorekit.ranking._graded import CG, DCG, ERR, NDCG
from scorekit.ranking._kendall import KendallTau, kendall_tau
from scorekit.ranking._measures import GMMAP, RBP, InfAP, JudgedAtK, RBPResidual
from scorekit.ranking._names import (
    TOOLS,
    TREC_DEFAULTS,
    TREC_NICKNAMES,
    foreign_name,
    translate,
    trec_measures,
)
from scorekit.ranking._state import GAINS, MISSING, QueryValues
from scorekit.ranking._trec import read_run_file, read_run_tag
from scorekit.ranking._trec_counts import (
    NumNonrelJudgedRet,
    NumQ,
    NumRel,
    NumRelRet,
    NumRet,
    Utility,
    relstrings,
)
from scorekit.ranking._trec_gains import RNDCG, BinG, G, NDCGRel
from scorekit.ranking._trec_measures import (
    ElevenPointAverage,
    IPrecAtRecall,
    RelativeP,
    RPrecMult,
    Unjudged,
)
from scorekit.ranking._trec_sets import GMBPref, SetF, SetMAP, SetP, SetRecall, SetRelativeP

__all__ = [
    "CG",
    "DCG",
    "ERR",
    "FUSION_METHODS",
    "FUSION_NORMS",
    "GAINS",
    "GMMAP",
    "MAP",
    "MISSING",
    "MRR",
    "NDCG",
    "RBP",
    "RNDCG",
    "TOOLS",
    "TREC_DEFAULTS",
    "TREC_NICKNAMES",
    "BPref",
    "BinG",
    "ElevenPointAverage",
    "FAtK",
    "G",
    "GMBPref",
    "HitRate",
    "IPrecAtRecall",
    "InfAP",
    "JudgedAtK",
    "KendallTau",
    "NDCGRel",
    "NumNonrelJudgedRet",
    "NumQ",
    "NumRel",
    "NumRelRet",
    "NumRet",
    "Precision",
    "Qrels",
    "QueryValues",
    "RBPResidual",
    "RPrecMult",
    "RPrecision",
    "RankingResult",
    "Recall",
    "RelativeP",
    "Run",
    "SetF",
    "SetMAP",
    "SetP",
    "SetRecall",
    "SetRelativeP",
    "Unjudged",
    "Utility",
    "as_qrels",
    "as_run",
    "dcg",
    "evaluate",
    "foreign_name",
    "fuse",
    "kendall_tau",
    "map",
    "mrr",
    "ndcg",
    "per_query_values",
    "precision_at",
    "ranking_metrics",
    "read_qrels",
    "read_run",
    "read_run_file",
    "read_run_tag",
    "relstrings",
    "train_fusion",
    "translate",
    "trec_measures",
    "write_run",
]
