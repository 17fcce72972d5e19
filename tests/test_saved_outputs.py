"""Saved outputs of the ``scorekit`` commands: what each command prints, byte for byte.

Each case of :data:`CASES` runs ``scorekit.cli.main(argv)`` in this process, from
the repository's root, with ``COLUMNS=120`` and no plug-ins, and compares its
exit status, standard output and standard error, exactly, with the file
``tests/data/outputs/<case id>.txt``. Values are compared as printed: nothing is
rounded or normalised, except the temporary directory of a case, written
``{tmp}`` (in the arguments and in the outputs).

A saved file shows the command (after the commands that write the state files a
``merge`` reads), the exit status, then the standard output and the standard
error, each under a ``---`` line that counts its lines, and the run a ``fuse``
writes. A stream that does not end with a newline is followed by the line
``\\ no newline at end``.

A change that alters an output on purpose rewrites the files::

    SCOREKIT_SAVE_OUTPUTS=1 pytest tests/test_saved_outputs.py

Each case then writes its file and is skipped with a message naming it; the diff
of ``tests/data/outputs/`` shows the change in review. A case removed from
:data:`CASES` leaves a file that ``test_every_saved_output_has_a_case`` names:
delete it. The files under ``tests/data/outputs/inputs/`` are small inputs the
bundled examples do not provide (several systems, groups, shards, runs to fuse).

:data:`SAME_STDOUT` lists cases whose standard output must be equal: a chunked
read and the whole read, a merged state file and the run that wrote it, shards
merged and the whole file.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import Any

import pytest

from scorekit.cli import main

ROOT = Path(__file__).resolve().parent.parent
OUTPUTS = ROOT / "tests" / "data" / "outputs"
SAVE = os.environ.get("SCOREKIT_SAVE_OUTPUTS", "") not in ("", "0")

ENVIRONMENT = {"COLUMNS": "120", "SCOREKIT_NO_PLUGINS": "1"}
"""Set for every case."""
UNSET = ("SCOREKIT_MAX_FILE_SIZE", "SCOREKIT_STATE_WARNING_SIZE", "SCOREKIT_STATE_FORMAT", "LINES")
"""Unset for every case (and restored after it: some flags set them in the process)."""

D = "examples/data/"
IN = "tests/data/outputs/inputs/"

CI = "--ci --n-resamples 50 --seed 7"
RESAMPLES = "--n-resamples 50 --seed 7"
TEST = "--test paired_bootstrap"
CHUNK = "--chunk-size 7 --quiet"

BINARY = f"eval {D}binary.csv --task binary --true label"
MULTICLASS = f"eval {D}multiclass.parquet --task multiclass --true label"
MC_SCORES = "--score p_bird p_cat p_dog"
MULTILABEL = (
    f"eval {D}multilabel.jsonl --task multilabel --true y_sports y_politics y_tech y_science"
)
ML_PRED = "--pred pred_sports pred_politics pred_tech pred_science"
ML_SCORE = "--score score_sports score_politics score_tech score_science"
REGRESSION = f"eval {D}regression.csv --task regression --true price --pred pred_price"
SYS_BINARY = f"eval {IN}systems.csv --task binary --true label"
SYS_REGRESSION = f"eval {IN}systems.csv --task regression --true target"
SHARD = "--task binary --true label --pred pred_a --score score_a --key id"
FEATURES = f"features {D}play_tennis.csv --target play"
RANK = f"rank {D}qrels.txt {D}run.txt"
RANK_RUNS = f"rank {D}qrels.txt {D}run.txt {IN}run_b.txt {IN}run_c.txt"
RANK_METRICS = "-m map ndcg@10 mrr p@5 recall@20 bpref"
TOPICS = f"--query-attributes {IN}topics.csv"
FUSE = f"fuse {IN}fuse_a.txt {IN}fuse_b.txt {IN}fuse_c.txt -o {{tmp}}/written.txt"
TEXT = f"text --refs {D}refs_a.txt {D}refs_b.txt --hyps {D}hyps.txt"
TEXT_SYSTEMS = f"{TEXT} {IN}hyps_b.txt"
GROUPS = f"--by topic --groups {IN}groups.txt"
QA = f"qa {D}squad_dev.json {D}squad_preds.json"
NA_PROBS = f"--na-probs {D}squad_na_probs.json"
THROUGHPUT = f"throughput {D}requests.jsonl"
SLO = "--slo ttft=500ms tpot=30ms"
MODELS = f"throughput {IN}requests_models.jsonl"


def _argv(command: str) -> list[str]:
    return shlex.split(command)


STATES: dict[str, list[str]] = {
    name: _argv(command)
    for name, command in {
        "binary": f"{BINARY} --pred pred --score score",
        "binary_pred": f"{BINARY} --pred pred",
        "binary_ci": f"{BINARY} --pred pred {CI}",
        "binary_ci_seed": f"{BINARY} --pred pred --ci --n-resamples 50 --seed 8",
        "multiclass": f"{MULTICLASS} --pred pred {MC_SCORES}",
        "multilabel": f"{MULTILABEL} {ML_PRED}",
        "regression": REGRESSION,
        "regression_by": f"{REGRESSION} --by rooms --metric mae rmse",
        "part1": f"eval {IN}systems_part1.csv {SHARD} {CI}",
        "part2": f"eval {IN}systems_part2.csv {SHARD} {CI}",
        "rank": f"{RANK} {RANK_METRICS}",
        "rank_chunked": f"{RANK} {RANK_METRICS} {CHUNK}",
        "text": TEXT,
        "text_percent": f"{TEXT} -m bleu chrf ter --percent",
        "throughput": f"{THROUGHPUT} {SLO}",
    }.items()
}
"""Commands writing ``{tmp}/NAME.json``, run before a ``merge`` case reading ``{state:NAME}``."""


def _saving(name: str, file: str) -> str:
    return shlex.join(STATES[name]) + f" --save-state {{tmp}}/{file}"


COMMANDS: list[tuple[str, str]] = [
    # eval: binary
    ("eval-binary-pred", f"{BINARY} --pred pred"),
    ("eval-binary-pred-json", f"{BINARY} --pred pred --format json"),
    ("eval-binary-pred-csv", f"{BINARY} --pred pred --format csv"),
    ("eval-binary-score", f"{BINARY} --score score"),
    ("eval-binary-pred-score-json", f"{BINARY} --pred pred --score score --format json"),
    (
        "eval-binary-metrics",
        f"{BINARY} --pred pred --metric accuracy balanced_accuracy specificity npv f1"
        " fbeta:beta=2 confusion_matrix",
    ),
    (
        "eval-binary-score-metrics",
        f"{BINARY} --score score --metric roc_auc average_precision brier log_loss"
        " break_even_point",
    ),
    ("eval-binary-threshold", f"{BINARY} --score score --threshold 0.3"),
    (
        "eval-binary-threshold-metrics-csv",
        f"{BINARY} --score score --threshold 0.6 --metric accuracy f1 roc_auc --format csv",
    ),
    ("eval-binary-pos-label", f"{BINARY} --pred pred --pos-label 0"),
    (
        "eval-binary-pos-label-score-json",
        f"{BINARY} --pred pred --score score --pos-label 0 --format json",
    ),
    ("eval-binary-best-threshold-f1", f"{BINARY} --score score --best-threshold f1"),
    (
        "eval-binary-best-threshold-youden-json",
        f"{BINARY} --score score --best-threshold youden --format json",
    ),
    ("eval-binary-ci", f"{BINARY} --pred pred {CI}"),
    ("eval-binary-ci-json", f"{BINARY} --pred pred --score score {CI} --format json"),
    ("eval-binary-ci-csv", f"{BINARY} --pred pred {CI} --format csv"),
    ("eval-binary-ci-basic", f"{BINARY} --score score {CI} --ci-method basic --confidence 0.9"),
    ("eval-binary-ci-bca", f"{BINARY} --pred pred {CI} --ci-method bca"),
    ("eval-binary-ci-chunked", f"{BINARY} --pred pred {CI} {CHUNK}"),
    ("eval-binary-ci-key", f"{BINARY} --pred pred {CI} --key id"),
    ("eval-binary-chunked-json", f"{BINARY} --pred pred --format json {CHUNK}"),
    ("eval-binary-pred-score", f"{BINARY} --pred pred --score score"),
    ("eval-binary-pred-score-chunked", f"{BINARY} --pred pred --score score {CHUNK}"),
    (
        "eval-binary-score-chunked-json",
        f"{BINARY} --pred pred --score score --format json {CHUNK}",
    ),
    ("eval-binary-save-state", _saving("binary", "binary.json")),
    # eval: multiclass
    ("eval-multiclass", f"{MULTICLASS} --pred pred {MC_SCORES}"),
    ("eval-multiclass-json", f"{MULTICLASS} --pred pred {MC_SCORES} --format json"),
    (
        "eval-multiclass-metrics",
        f"{MULTICLASS} --pred pred --metric f1:macro f1:micro precision:weighted recall:macro"
        " confusion_matrix",
    ),
    (
        "eval-multiclass-classes",
        f"{MULTICLASS} {MC_SCORES} --classes bird cat dog"
        " --metric roc_auc log_loss top_k_accuracy:k=2",
    ),
    ("eval-multiclass-ci", f"{MULTICLASS} --pred pred {MC_SCORES} {CI}"),
    (
        "eval-multiclass-chunked-json",
        f"{MULTICLASS} --pred pred {MC_SCORES} --format json {CHUNK}",
    ),
    # eval: multilabel
    ("eval-multilabel", f"{MULTILABEL} {ML_PRED}"),
    ("eval-multilabel-json", f"{MULTILABEL} {ML_PRED} --format json"),
    ("eval-multilabel-csv", f"{MULTILABEL} {ML_PRED} --format csv"),
    ("eval-multilabel-score", f"{MULTILABEL} {ML_SCORE}"),
    (
        "eval-multilabel-metrics",
        f"{MULTILABEL} {ML_PRED} --metric f1:micro f1:macro hamming_loss jaccard:samples"
        " subset_accuracy",
    ),
    ("eval-multilabel-ci", f"{MULTILABEL} {ML_PRED} {CI}"),
    ("eval-multilabel-chunked-json", f"{MULTILABEL} {ML_PRED} --format json {CHUNK}"),
    # eval: regression
    ("eval-regression", REGRESSION),
    ("eval-regression-json", f"{REGRESSION} --format json"),
    ("eval-regression-metrics", f"{REGRESSION} --metric mae rmse r2 mape"),
    ("eval-regression-weight", f"{REGRESSION} --weight rooms --metric mae mse r2"),
    (
        "eval-regression-multioutput",
        f"eval {D}regression.csv --task regression --true price days"
        " --pred pred_price pred_days --metric mae r2",
    ),
    ("eval-regression-by", f"{REGRESSION} --by rooms"),
    ("eval-regression-by-json", f"{REGRESSION} --by rooms --metric mae --format json"),
    ("eval-regression-by-csv", f"{REGRESSION} --by rooms --metric mae --format csv"),
    ("eval-regression-by-ci", f"{REGRESSION} --by rooms --metric mae rmse {CI}"),
    ("eval-regression-ci", f"{REGRESSION} --metric mae r2 {CI}"),
    ("eval-regression-chunked", f"{REGRESSION} {CHUNK}"),
    ("eval-regression-chunked-json", f"{REGRESSION} --format json {CHUNK}"),
    ("eval-regression-by-chunked", f"{REGRESSION} --by rooms {CHUNK}"),
    ("eval-regression-by-save-state", _saving("regression_by", "regression_by.json")),
    # eval: groups and several systems
    ("eval-systems-by-region", f"{SYS_BINARY} --pred pred_a --by region"),
    (
        "eval-systems-by-region-score-json",
        f"{SYS_BINARY} --score score_a --by region --metric roc_auc --format json",
    ),
    ("eval-systems-test", f"{SYS_BINARY} --pred pred_a pred_b pred_c {TEST} {RESAMPLES}"),
    (
        "eval-systems-test-json",
        f"{SYS_BINARY} --pred pred_a pred_b {TEST} {RESAMPLES} --format json",
    ),
    ("eval-systems-test-csv", f"{SYS_BINARY} --pred pred_a pred_b {TEST} {RESAMPLES} --format csv"),
    (
        "eval-systems-mcnemar-holm",
        f"{SYS_BINARY} --pred pred_a pred_b pred_c --test mcnemar --correction holm"
        " --metric accuracy",
    ),
    (
        "eval-systems-randomization",
        f"{SYS_BINARY} --pred pred_a pred_c --test randomization {RESAMPLES} --metric accuracy f1",
    ),
    (
        "eval-systems-delong",
        f"{SYS_BINARY} --score score_a score_b --test delong --metric roc_auc",
    ),
    (
        "eval-systems-scores-bootstrap",
        f"{SYS_BINARY} --score score_a score_b {TEST} {RESAMPLES}"
        " --metric roc_auc average_precision --correction bonferroni",
    ),
    (
        "eval-systems-regression-t",
        f"{SYS_REGRESSION} --pred est_a est_b --test t --metric mae rmse",
    ),
    (
        "eval-systems-regression-wilcoxon",
        f"{SYS_REGRESSION} --pred est_a est_b --test wilcoxon --metric mae",
    ),
    ("eval-systems-shard-save-state", _saving("part1", "part1.json")),
    ("eval-systems-whole-ci-key", f"eval {IN}systems.csv {SHARD} {CI}"),
    # eval: user errors
    ("eval-error-unknown-metric", f"{BINARY} --pred pred --metric acuracy"),
    ("eval-error-missing-column", f"{BINARY} --pred prediction"),
    ("eval-error-missing-by-column", f"{BINARY} --pred pred --by region"),
    ("eval-error-ci-and-test", f"{SYS_BINARY} --pred pred_a pred_b --test mcnemar --ci"),
    ("eval-error-systems-without-test", f"{SYS_BINARY} --pred pred_a pred_b"),
    ("eval-error-resamples-without-ci", f"{BINARY} --pred pred --n-resamples 50"),
    ("eval-error-multilabel-metric", f"{BINARY} --pred pred --metric jaccard"),
    ("eval-error-key-without-ci", f"{BINARY} --pred pred --key id"),
    ("eval-error-metric-of-other-task", f"{REGRESSION} --metric roc_auc"),
    ("eval-error-score-metric-without-score", f"{BINARY} --pred pred --metric roc_auc"),
    ("eval-error-bad-task", f"eval {D}binary.csv --task ranking --true label"),
    ("eval-error-no-such-file", f"eval {D}absent.csv --task binary --true label --pred pred"),
    # features
    ("features", FEATURES),
    ("features-json", f"{FEATURES} --criterion gain_ratio --format json"),
    ("features-csv", f"{FEATURES} --criterion gini_gain --format csv"),
    ("features-split-information", f"{FEATURES} --criterion split_information"),
    ("features-top", f"{FEATURES} --top 2 --base 10"),
    ("features-categorical", f"{FEATURES} --categorical humidity --exclude windy"),
    ("features-error-missing-target", f"features {D}play_tennis.csv --target label"),
    # rank
    ("rank", RANK),
    ("rank-json", f"{RANK} {RANK_METRICS} --format json"),
    ("rank-csv", f"{RANK} {RANK_METRICS} --format csv"),
    ("rank-trec", f"{RANK} {RANK_METRICS} --format trec"),
    ("rank-ir-measures", f"{RANK} {RANK_METRICS} --format ir_measures"),
    ("rank-per-query", f"{RANK} -m map ndcg@10 p@5 --per-query"),
    ("rank-per-query-json", f"{RANK} -m map p@5 --per-query --format json"),
    ("rank-per-query-trec", f"{RANK} -m map p@5 --per-query --format trec"),
    ("rank-options", f"{RANK} {RANK_METRICS} --missing zero -l 2 --gain exp -J -M 20"),
    ("rank-by", f"{RANK} -m map ndcg@10 --by kind {TOPICS}"),
    ("rank-by-two-json", f"{RANK} -m map --by kind lang {TOPICS} --format json"),
    ("rank-by-csv", f"{RANK} -m map p@5 --by lang {TOPICS} --format csv"),
    ("rank-ci", f"{RANK} {RANK_METRICS} {CI}"),
    ("rank-ci-json", f"{RANK} -m map ndcg@10 {CI} --format json"),
    ("rank-ci-chunked", f"{RANK} {RANK_METRICS} {CI} {CHUNK}"),
    ("rank-test", f"{RANK_RUNS} -m map ndcg@10 {RESAMPLES}"),
    ("rank-test-t-holm-json", f"{RANK_RUNS} -m map p@5 --test t --correction holm --format json"),
    (
        "rank-test-randomization-csv",
        f"{RANK} {IN}run_b.txt -m map --test randomization {RESAMPLES} --format csv",
    ),
    ("rank-test-wilcoxon", f"{RANK_RUNS} -m map mrr --test wilcoxon"),
    ("rank-chunked-json", f"{RANK} {RANK_METRICS} --format json {CHUNK}"),
    ("rank-save-state", _saving("rank", "rank.json")),
    ("rank-error-unknown-metric", f"{RANK} -m map ndcg@x"),
    ("rank-error-by-without-attributes", f"{RANK} -m map --by kind"),
    ("rank-error-ci-with-runs", f"{RANK} {IN}run_b.txt -m map --ci"),
    ("rank-error-no-such-run", f"rank {D}qrels.txt {D}absent.txt"),
    # fuse
    ("fuse-rrf", FUSE),
    ("fuse-combsum-zmuv", f"{FUSE} --method combsum --norm zmuv --tag sum"),
    ("fuse-wsum", f"{FUSE} --method wsum --weights 0.5 0.3 0.2"),
    ("fuse-rbc", f"{FUSE} --method rbc --phi 0.8"),
    ("fuse-condorcet", f"{FUSE} --method condorcet"),
    ("fuse-error-one-run", f"fuse {IN}fuse_a.txt -o {{tmp}}/written.txt"),
    ("fuse-error-rbc-without-phi", f"{FUSE} --method rbc"),
    ("fuse-error-weights-count", f"{FUSE} --method wsum --weights 1 2"),
    # text
    ("text", TEXT),
    ("text-json", f"{TEXT} --format json"),
    ("text-csv", f"{TEXT} --format csv"),
    ("text-metrics", f"{TEXT} -m bleu chrf chrf++ ter wer cer rougeLsum"),
    ("text-percent", f"{TEXT} -m bleu chrf ter --percent"),
    (
        "text-options",
        f"{TEXT} -m bleu chrf:beta=1 rougeL --tokenize intl --lowercase --stemmer",
    ),
    ("text-sentence-level", f"{TEXT} -m bleu chrf wer --sentence-level"),
    ("text-sentence-level-json", f"{TEXT} -m bleu rouge1 --sentence-level --format json"),
    ("text-sentence-level-csv", f"{TEXT} -m bleu ter --sentence-level --format csv"),
    (
        "text-sentence-level-chunked",
        f"{TEXT} -m bleu chrf wer --sentence-level --chunk-size 3 --quiet",
    ),
    ("text-by", f"{TEXT} -m bleu rouge1 {GROUPS}"),
    ("text-by-json", f"{TEXT} -m chrf {GROUPS} --format json"),
    ("text-ci", f"{TEXT} -m bleu chrf rougeL {CI}"),
    ("text-ci-percent-csv", f"{TEXT} -m bleu {CI} --percent --format csv"),
    ("text-test", f"{TEXT_SYSTEMS} -m bleu chrf rouge1 {RESAMPLES}"),
    ("text-test-t-json", f"{TEXT_SYSTEMS} -m bleu ter --test t --format json"),
    ("text-paired-bs", f"{TEXT_SYSTEMS} -m bleu chrf --paired-bs {RESAMPLES}"),
    ("text-paired-ar", f"{TEXT_SYSTEMS} -m bleu --paired-ar {RESAMPLES}"),
    ("text-chunked", f"{TEXT} --chunk-size 3 --quiet"),
    ("text-save-state", _saving("text", "text.json")),
    ("text-error-unknown-metric", f"{TEXT} -m bleu blue"),
    ("text-error-by-without-groups", f"{TEXT} --by topic"),
    ("text-error-flag-no-metric-takes", f"{TEXT} -m bleu --stemmer"),
    ("text-error-lengths", f"text --refs {IN}topics.csv --hyps {D}hyps.txt"),
    # qa
    ("qa", QA),
    ("qa-na-probs", f"{QA} {NA_PROBS}"),
    ("qa-na-probs-json", f"{QA} {NA_PROBS} --format json"),
    ("qa-na-probs-csv", f"{QA} {NA_PROBS} --format csv --na-prob-thresh 0.5"),
    ("qa-by-title", f"{QA} --by title"),
    ("qa-ci", f"{QA} {NA_PROBS} {CI}"),
    ("qa-error-version", f"{QA} --version 1.1"),
    # throughput
    ("throughput", THROUGHPUT),
    ("throughput-slo", f"{THROUGHPUT} {SLO}"),
    ("throughput-json", f"{THROUGHPUT} {SLO} --format json"),
    ("throughput-error-csv-without-by", f"{THROUGHPUT} --format csv"),
    ("throughput-percentiles", f"{THROUGHPUT} --percentiles 50,95,99.9"),
    ("throughput-by-success", f"{THROUGHPUT} --by success"),
    ("throughput-by-model", f"{MODELS} --by model {SLO}"),
    ("throughput-by-model-json", f"{MODELS} --by model --format json"),
    ("throughput-by-model-csv", f"{MODELS} --by model --format csv"),
    ("throughput-ci", f"{THROUGHPUT} {SLO} {CI}"),
    ("throughput-ci-key-json", f"{MODELS} {CI} --key id --format json"),
    ("throughput-chunked", f"{THROUGHPUT} {SLO} {CHUNK}"),
    ("throughput-save-state", _saving("throughput", "throughput.json")),
    ("throughput-error-slo", f"{THROUGHPUT} --slo ttft=fast"),
    ("throughput-error-percentiles", f"{THROUGHPUT} --percentiles 50,101"),
    # merge
    ("merge-binary", "merge {state:binary}"),
    ("merge-binary-json", "merge {state:binary} --format json"),
    ("merge-binary-ci", "merge {state:binary_ci}"),
    ("merge-multiclass", "merge {state:multiclass}"),
    ("merge-multilabel-csv", "merge {state:multilabel} --format csv"),
    ("merge-regression", "merge {state:regression}"),
    ("merge-regression-by", "merge {state:regression_by}"),
    ("merge-shards", "merge {state:part1} {state:part2}"),
    ("merge-rank", "merge {state:rank}"),
    ("merge-rank-chunked", "merge {state:rank_chunked}"),
    ("merge-text", "merge {state:text}"),
    ("merge-text-percent", "merge {state:text_percent}"),
    ("merge-throughput", "merge {state:throughput}"),
    ("merge-save-state", "merge {state:part1} {state:part2} --save-state {tmp}/merged.json"),
    ("merge-error-twice", "merge {state:binary} {state:binary}"),
    ("merge-error-commands", "merge {state:binary} {state:rank}"),
    ("merge-error-metrics", "merge {state:binary} {state:binary_pred}"),
    ("merge-error-ci-and-not", "merge {state:binary_pred} {state:binary_ci}"),
    ("merge-error-seeds", "merge {state:binary_ci} {state:binary_ci_seed}"),
    ("merge-error-no-such-file", "merge {tmp}/absent.json"),
    # list, explain, demo
    ("list-ranking", "list --family ranking"),
    ("list-regression", "list --family regression"),
    ("list-text-json", "list --family text --format json"),
    ("list-error-family", "list --family vision"),
    ("explain-ndcg", "explain ndcg@10"),
    ("explain-f1-macro", "explain f1:macro"),
    ("explain-bleu", "explain bleu"),
    ("explain-ttft", "explain ttft"),
    ("explain-error-unknown", "explain ndgc"),
    ("demo", f"demo --no-report --data {D.rstrip('/')}"),
]
"""Each case: its id (the saved file's name) and its command line after ``scorekit``."""

CASES: list[tuple[str, list[str]]] = [(case_id, _argv(line)) for case_id, line in COMMANDS]

SAME_STDOUT: list[tuple[str, str]] = [
    ("eval-binary-pred-json", "eval-binary-chunked-json"),
    ("eval-binary-pred-score", "eval-binary-pred-score-chunked"),
    ("eval-binary-ci", "eval-binary-ci-chunked"),
    ("eval-multiclass-json", "eval-multiclass-chunked-json"),
    ("eval-multilabel-json", "eval-multilabel-chunked-json"),
    ("eval-regression", "eval-regression-chunked"),
    ("eval-regression-by", "eval-regression-by-chunked"),
    ("rank-json", "rank-chunked-json"),
    ("rank-ci", "rank-ci-chunked"),
    ("text", "text-chunked"),
    ("text-sentence-level", "text-sentence-level-chunked"),
    ("throughput-slo", "throughput-chunked"),
    ("eval-binary-save-state", "merge-binary"),
    ("eval-binary-ci", "merge-binary-ci"),
    ("eval-multiclass", "merge-multiclass"),
    ("eval-multilabel-csv", "merge-multilabel-csv"),
    ("eval-regression", "merge-regression"),
    ("eval-regression-by-save-state", "merge-regression-by"),
    ("eval-systems-whole-ci-key", "merge-shards"),
    ("rank-save-state", "merge-rank"),
    ("rank-save-state", "merge-rank-chunked"),
    ("text-save-state", "merge-text"),
    ("throughput-save-state", "merge-throughput"),
]
"""Pairs of cases whose standard output is the same."""

_STATE = "{state:"


def _case_ids() -> list[str]:
    return [case_id for case_id, _ in CASES]


def _states(argv: list[str]) -> list[str]:
    return [arg[len(_STATE) : -1] for arg in argv if arg.startswith(_STATE)]


def _state_file(arg: str) -> str:
    return f"{{tmp}}/{arg[len(_STATE) : -1]}.json" if arg.startswith(_STATE) else arg


def _run(argv: list[str], tmp_path: Path, capsys: Any) -> tuple[list[list[str]], int, str, str]:
    """Run a case, after the commands writing the states it reads: the steps and its outputs."""

    def run(step: list[str]) -> tuple[int, str, str]:
        status = main([arg.replace("{tmp}", str(tmp_path)) for arg in step])
        out, err = capsys.readouterr()
        return status, out, err

    steps = []
    for name in dict.fromkeys(_states(argv)):
        steps.append([*STATES[name], "--save-state", f"{{tmp}}/{name}.json"])
        status, _, err = run(steps[-1])
        assert status == 0, err
    steps.append([_state_file(arg) for arg in argv])
    return (steps, *run(steps[-1]))


def _stream(title: str, text: str) -> str:
    lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    block = f"--- {title} ({lines} line{'' if lines == 1 else 's'})\n{text}"
    if text and not text.endswith("\n"):
        block += "\n\\ no newline at end\n"
    return block


def _rendered(steps: list[list[str]], status: int, out: str, err: str, tmp_path: Path) -> str:
    """The saved form of a case's outputs."""

    def placed(text: str) -> str:
        for directory in dict.fromkeys((str(tmp_path.resolve()), str(tmp_path))):
            text = text.replace(directory, "{tmp}")
        return text

    parts = [f"$ scorekit {shlex.join(step)}\n" for step in steps]
    parts.append(f"exit: {status}\n")
    parts.append(_stream("stdout", placed(out)))
    parts.append(_stream("stderr", placed(err)))
    for path in sorted(tmp_path.glob("written*")):
        parts.append(_stream(f"{{tmp}}/{path.name}", placed(path.read_text(encoding="utf-8"))))
    return "".join(parts)


@pytest.fixture
def environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """The repository's root as working directory, a fixed width and no plug-ins."""
    monkeypatch.chdir(ROOT)
    for name, value in ENVIRONMENT.items():
        monkeypatch.setenv(name, value)
    for name in UNSET:
        monkeypatch.delenv(name, raising=False)


STDOUT: dict[str, tuple[int, str, str]] = {}
"""The status, standard output and error of each case run in this test process."""


def _outputs(case_id: str, argv: list[str], tmp_path: Path, capsys: Any) -> Any:
    """:func:`_run` of a case, its status and outputs kept for :func:`test_same_stdout`."""
    steps, status, out, err = _run(argv, tmp_path, capsys)
    STDOUT.setdefault(case_id, (status, out, err))
    return steps, status, out, err


@pytest.mark.usefixtures("environment")
@pytest.mark.parametrize(("case_id", "argv"), CASES, ids=_case_ids())
def test_saved_output(case_id: str, argv: list[str], tmp_path: Path, capsys: Any) -> None:
    rendered = _rendered(*_outputs(case_id, argv, tmp_path, capsys), tmp_path)
    saved = OUTPUTS / f"{case_id}.txt"
    if SAVE:
        with saved.open("w", encoding="utf-8", newline="") as file:
            file.write(rendered)
        pytest.skip(f"wrote {saved.relative_to(ROOT)}")
    assert saved.is_file(), f"no saved output: SCOREKIT_SAVE_OUTPUTS=1 writes {saved}"
    with saved.open(encoding="utf-8", newline="") as file:
        assert rendered == file.read()


@pytest.mark.usefixtures("environment")
@pytest.mark.parametrize(("first", "second"), SAME_STDOUT, ids=[f"{a}={b}" for a, b in SAME_STDOUT])
def test_same_stdout(first: str, second: str, tmp_path: Path, capsys: Any) -> None:
    # each case runs once per test process: its saved-output test or this one runs it
    cases = dict(CASES)
    outputs = []
    for case_id in (first, second):
        if case_id not in STDOUT:
            directory = tmp_path / case_id
            directory.mkdir()
            _outputs(case_id, cases[case_id], directory, capsys)
        status, out, err = STDOUT[case_id]
        assert status == 0, err
        outputs.append(out)
    assert outputs[0] == outputs[1]


def test_cases_are_unique_and_their_states_known() -> None:
    ids = _case_ids()
    assert len(ids) == len(set(ids))
    assert all(name in STATES for _, argv in CASES for name in _states(argv))
    assert all(a in ids and b in ids for a, b in SAME_STDOUT)


def test_every_saved_output_has_a_case() -> None:
    if SAVE:
        pytest.skip("writing the saved outputs")
    stale = sorted({path.stem for path in OUTPUTS.glob("*.txt")} - set(_case_ids()))
    assert not stale, f"saved outputs of no case (delete them): {stale}"
