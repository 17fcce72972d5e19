"""The commands' cross-cutting flags, alone and in pairs: each pair composes or is refused.

The features are ``--by`` (values per group), ``--ci`` (bootstrap intervals),
``--test`` (systems compared), ``--report`` (an HTML report), ``--chunk-size``,
``--save-state`` (then ``scorekit merge``) and ``--engine dask``. Each case runs
``scorekit.cli.main`` in this process on small bundled inputs, with ``--format
json``, and its outcome must be the one :data:`EXPECTED` gives:

* it composes (exit 0), and no feature was dropped on the way: ``--ci`` gives
  intervals (in every group too with ``--by``, in the report with ``--report``),
  ``--by`` gives per-group values, ``--test`` a comparison, ``--report`` a file
  naming the metric (and the systems compared), ``--save-state`` a file that
  ``merge`` turns into the same values, and ``--chunk-size``, ``--engine dask``
  and ``--save-state`` the values of the whole read (floats to 1e-12 relative)
  and the report's figures and tables;
* or it is refused (exit 2) with a message on stderr that starts with
  ``scorekit:``, names one of the two flags, says why (the phrase in
  :data:`EXPECTED`), and writes neither a report nor a state file.

A combination that exits 0 without one of its features, or a refusal without
a usable message, is a bug: its case is in :data:`KNOWN` (strict xfail).
"""

from __future__ import annotations

import itertools
import json
import math
import re
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from scorekit.cli import main

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "examples" / "data"
INPUTS = ROOT / "tests" / "data" / "outputs" / "inputs"

FEATURES = ("by", "ci", "test", "report", "chunk", "state", "dask")
COMMAND_FEATURES: dict[str, tuple[str, ...]] = {
    "eval": FEATURES,
    "rank": FEATURES,
    "text": FEATURES,
    "throughput": ("by", "ci", "report", "chunk", "state", "dask"),
    "qa": ("by", "ci", "report"),
}
"""The features each command has (throughput compares no systems; qa reads in memory only)."""

FLAG = {
    "by": "--by",
    "ci": "--ci",
    "test": "--test",
    "report": "--report",
    "chunk": "--chunk-size",
    "state": "--save-state",
    "dask": "--engine",
}
"""The flag of each feature, which a refusal names."""

SCALE = frozenset({"chunk", "state", "dask"})
"""Features that must leave the values (and the report) as the whole read in memory gives them."""

HEAD: dict[str, list[Any]] = {
    "eval": [
        "eval",
        INPUTS / "systems.csv",
        "--task",
        "binary",
        "--true",
        "label",
        "--pred",
        "pred_a",
    ],
    "rank": ["rank", DATA / "qrels.txt", DATA / "run.txt"],
    "text": [
        "text",
        "--refs",
        DATA / "refs_a.txt",
        DATA / "refs_b.txt",
        "--hyps",
        DATA / "hyps.txt",
    ],
    "throughput": ["throughput", INPUTS / "requests_models.jsonl"],
    "qa": [
        "qa",
        DATA / "squad_dev.json",
        DATA / "squad_preds.json",
        "--na-probs",
        DATA / "squad_na_probs.json",
    ],
}
"""Each command up to its list of systems, which ``--test`` extends."""

SECOND: dict[str, list[Any]] = {
    "eval": ["pred_b"],
    "rank": [INPUTS / "run_b.txt"],
    "text": [INPUTS / "hyps_b.txt"],
}
"""The system compared with the first under ``--test``."""

TAIL: dict[str, list[str]] = {
    "eval": [],
    "rank": ["-m", "map", "ndcg@10"],
    "text": ["-m", "bleu", "chrf"],
    "throughput": [],
    "qa": [],
}

BY: dict[str, list[Any]] = {
    "eval": ["--by", "region"],
    "rank": ["--by", "kind", "--query-attributes", INPUTS / "topics.csv"],
    "text": ["--by", "topic", "--groups", INPUTS / "groups.txt"],
    "throughput": ["--by", "model"],
    "qa": ["--by", "title"],
}

KEY: dict[str, list[str]] = {"eval": ["--key", "id"], "throughput": ["--key", "id"]}
"""``--key`` where the command has it."""

CHUNK = {"eval": "7", "rank": "7", "text": "3", "throughput": "7"}
RESAMPLES = ["--n-resamples", "30", "--seed", "1"]

METRIC = {
    "eval": "accuracy",
    "rank": "ndcg@10",
    "text": "bleu",
    "throughput": "request_throughput",
    "qa": "exact",
}
"""A metric each command reports, which its HTML report names."""


class Refused(NamedTuple):
    """A refused combination: a phrase of its message, the reason given."""

    reason: str


COMPOSES = "composes"
COMPARISON = Refused("does not apply to a comparison of systems (read in memory)")
CI_AND_TEST = Refused("--ci is for one system; a comparison shows the interval of each difference")
BY_AND_REPORT = Refused("--by and --report are not taken together")

EXPECTED: dict[str, dict[str, str | Refused]] = {
    "eval": {
        "by": COMPOSES,
        "ci": COMPOSES,
        "test": COMPOSES,
        "report": COMPOSES,
        "chunk": COMPOSES,
        "state": COMPOSES,
        "dask": COMPOSES,
        "by+ci": COMPOSES,
        "by+test": COMPARISON,
        "by+report": Refused("--report does not show values per group"),
        "by+chunk": COMPOSES,
        "by+state": COMPOSES,
        "by+dask": COMPOSES,
        "ci+test": CI_AND_TEST,
        "ci+report": COMPOSES,
        "ci+chunk": COMPOSES,
        "ci+state": COMPOSES,
        "ci+dask": COMPOSES,
        "test+report": COMPOSES,
        "test+chunk": COMPARISON,
        "test+state": COMPARISON,
        "test+dask": COMPARISON,
        "report+chunk": COMPOSES,
        "report+state": COMPOSES,
        "report+dask": COMPOSES,
        "chunk+state": COMPOSES,
        "chunk+dask": COMPOSES,
        "state+dask": COMPOSES,
    },
    "rank": {
        "by": COMPOSES,
        "ci": COMPOSES,
        "test": COMPOSES,
        "report": COMPOSES,
        "chunk": COMPOSES,
        "state": COMPOSES,
        "dask": COMPOSES,
        "by+ci": COMPOSES,
        "by+test": COMPARISON,
        "by+report": BY_AND_REPORT,
        "by+chunk": COMPOSES,
        "by+state": COMPOSES,
        "by+dask": COMPOSES,
        "ci+test": CI_AND_TEST,
        "ci+report": COMPOSES,
        "ci+chunk": COMPOSES,
        "ci+state": COMPOSES,
        "ci+dask": COMPOSES,
        "test+report": COMPOSES,
        "test+chunk": COMPARISON,
        "test+state": COMPARISON,
        "test+dask": COMPARISON,
        "report+chunk": COMPOSES,
        "report+state": COMPOSES,
        "report+dask": COMPOSES,
        "chunk+state": COMPOSES,
        "chunk+dask": COMPOSES,
        "state+dask": COMPOSES,
    },
    "text": {
        "by": COMPOSES,
        "ci": COMPOSES,
        "test": COMPOSES,
        "report": COMPOSES,
        "chunk": COMPOSES,
        "state": COMPOSES,
        "dask": COMPOSES,
        "by+ci": COMPOSES,
        "by+test": COMPARISON,
        "by+report": BY_AND_REPORT,
        "by+chunk": COMPOSES,
        "by+state": COMPOSES,
        "by+dask": COMPOSES,
        "ci+test": CI_AND_TEST,
        "ci+report": COMPOSES,
        "ci+chunk": COMPOSES,
        "ci+state": COMPOSES,
        "ci+dask": Refused("its partitions do not know the positions of their rows"),
        "test+report": COMPOSES,
        "test+chunk": COMPARISON,
        "test+state": COMPARISON,
        "test+dask": COMPARISON,
        "report+chunk": COMPOSES,
        "report+state": COMPOSES,
        "report+dask": COMPOSES,
        "chunk+state": COMPOSES,
        "chunk+dask": COMPOSES,
        "state+dask": COMPOSES,
    },
    "throughput": {
        "by": COMPOSES,
        "ci": COMPOSES,
        "report": COMPOSES,
        "chunk": COMPOSES,
        "state": COMPOSES,
        "dask": COMPOSES,
        "by+ci": Refused("--by and --ci are not taken together"),
        "by+report": BY_AND_REPORT,
        "by+chunk": COMPOSES,
        "by+state": COMPOSES,
        "by+dask": COMPOSES,
        "ci+report": COMPOSES,
        "ci+chunk": COMPOSES,
        "ci+state": Refused("--save-state saves the report's states, not the bootstraps"),
        "ci+dask": COMPOSES,
        "report+chunk": COMPOSES,
        "report+state": COMPOSES,
        "report+dask": COMPOSES,
        "chunk+state": COMPOSES,
        "chunk+dask": COMPOSES,
        "state+dask": COMPOSES,
    },
    "qa": {
        "by": COMPOSES,
        "ci": COMPOSES,
        "report": COMPOSES,
        "by+ci": COMPOSES,
        "by+report": BY_AND_REPORT,
        "ci+report": COMPOSES,
    },
}
"""Each command's outcome for each feature and pair of features."""

KNOWN: dict[str, str] = {}
"""Cases failing on a dropped feature or an unusable refusal (strict xfail, with the reason)."""


def _combinations(features: tuple[str, ...]) -> list[tuple[str, ...]]:
    return [(f,) for f in features] + list(itertools.combinations(features, 2))


def _case_id(command: str, combination: tuple[str, ...]) -> str:
    return f"{command}-{'+'.join(combination)}"


CASES = [
    pytest.param(
        command,
        combination,
        id=_case_id(command, combination),
        marks=(
            [pytest.mark.xfail(strict=True, reason=KNOWN[_case_id(command, combination)])]
            if _case_id(command, combination) in KNOWN
            else []
        ),
    )
    for command, features in COMMAND_FEATURES.items()
    for combination in _combinations(features)
]


@pytest.fixture(autouse=True)
def environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCOREKIT_NO_PLUGINS", "1")
    for name in ("SCOREKIT_MAX_FILE_SIZE", "SCOREKIT_STATE_WARNING_SIZE"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    """A local Dask cluster in this process, shared by the module's Dask cases."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, processes=False, dashboard_address=":0") as cluster:
        yield cluster.scheduler_address


def _argv(
    command: str,
    combination: tuple[str, ...],
    folder: Path,
    scheduler: str | None = None,
    report: str = "report.html",
) -> list[str]:
    """The command line of a combination, writing its report and state under ``folder``."""
    argv = [*HEAD[command]]
    if "test" in combination:
        argv += [*SECOND[command], "--test", "paired_bootstrap"]
    argv += TAIL[command]
    if "by" in combination:
        argv += BY[command]
    if "ci" in combination:
        argv += ["--ci", *KEY.get(command, [])]
    if "ci" in combination or "test" in combination:
        argv += RESAMPLES
    if "report" in combination:
        argv += ["--report", folder / report]
    if "chunk" in combination:
        argv += ["--chunk-size", CHUNK[command]]
    if "state" in combination:
        argv += ["--save-state", folder / "state.json"]
    if "dask" in combination:
        assert scheduler is not None
        argv += ["--engine", "dask", "--scheduler", scheduler]
    argv += ["--format", "json"]
    if command != "qa":
        argv.append("--quiet")
    return [str(arg) for arg in argv]


def _run(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str, str]:
    try:
        status = main(argv)
    except BaseException:
        capsys.readouterr()
        pytest.fail(f"crashed: scorekit {' '.join(argv)}\n{traceback.format_exc()}")
    out, err = capsys.readouterr()
    assert "Traceback" not in err, err
    return status, out, err


def _dicts(data: Any) -> Iterator[dict[str, Any]]:
    if isinstance(data, dict):
        yield data
        for value in data.values():
            yield from _dicts(value)
    elif isinstance(data, list):
        for value in data:
            yield from _dicts(value)


def _is_interval(value: Any) -> bool:
    return isinstance(value, dict) and {"value", "low", "high", "confidence"} <= value.keys()


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _same(actual: Any, expected: Any, where: str = "") -> None:
    """Equal JSON values, floats to 1e-12 relative (NaN equal to NaN)."""
    if _number(actual) and _number(expected):
        if math.isnan(expected):
            assert math.isnan(actual), f"{where}: {actual} != {expected}"
        else:
            assert math.isclose(actual, expected, rel_tol=1e-12), f"{where}: {actual} != {expected}"
    elif isinstance(expected, dict):
        assert isinstance(actual, dict), f"{where}: {actual!r} != {expected!r}"
        assert actual.keys() == expected.keys(), f"{where}: {list(actual)} != {list(expected)}"
        for key, value in expected.items():
            _same(actual[key], value, f"{where}/{key}")
    elif isinstance(expected, list):
        assert isinstance(actual, list), f"{where}: {actual!r} != {expected!r}"
        assert len(actual) == len(expected), f"{where}: {len(actual)} != {len(expected)} items"
        for i, (a, e) in enumerate(zip(actual, expected, strict=True)):
            _same(a, e, f"{where}[{i}]")
    else:
        assert actual == expected, f"{where}: {actual!r} != {expected!r}"


def _outline(html: str) -> list[str]:
    """A report's headings, figure captions and table headers, in order."""
    return re.findall(r"<(?:h[1-6]|figcaption|th)[^>]*>([^<]*)<", html)


def _check_refusal(
    combination: tuple[str, ...], expected: Refused, out: str, err: str, folder: Path
) -> None:
    assert out == "", out
    lines = err.splitlines()
    assert lines, "refused with nothing on stderr"
    refusal = lines[-1]
    assert refusal.startswith("scorekit:"), err
    assert expected.reason in refusal, err
    flags = [FLAG[feature] for feature in combination]
    assert any(re.search(rf"{re.escape(flag)}\b", refusal) for flag in flags), (
        f"the refusal names none of {flags}: {refusal}"
    )
    written = sorted(p.name for p in folder.iterdir())
    assert written == [], f"a refused command wrote {written}"


WHOLE: dict[tuple[str, tuple[str, ...]], tuple[Any, list[str]]] = {}
"""The output and report outline of each command's whole read in memory, by its features."""


def _whole(
    command: str, combination: tuple[str, ...], folder: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[Any, list[str]]:
    """The output and report outline of ``combination`` without its scale features.

    The whole read is the reference of every combination that adds ``--chunk-size``,
    ``--save-state`` or ``--engine dask`` to the same features: it is run once per
    test process (by the case of those features alone, or here in a folder of its
    own) and kept.
    """
    whole = tuple(f for f in combination if f not in SCALE)
    if (command, whole) not in WHOLE:
        own = folder.parent / "whole"
        own.mkdir()
        status, out, err = _run(capsys, _argv(command, whole, own, report="whole.html"))
        assert status == 0, err
        page = own / "whole.html"
        outline = _outline(page.read_text(encoding="utf-8")) if "report" in whole else []
        WHOLE[command, whole] = (json.loads(out), outline)
    return WHOLE[command, whole]


def _check_composes(
    command: str,
    combination: tuple[str, ...],
    out: str,
    folder: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    data = json.loads(out)
    dicts = list(_dicts(data))
    grouped = [d for d in dicts if isinstance(d.get("groups"), list) and "by" in d]
    intervals = [d for d in dicts if _is_interval(d)]
    if "by" in combination:
        assert grouped, "--by dropped: no per-group values"
        assert all(d["groups"] and all("value" in g for g in d["groups"]) for d in grouped)
    else:
        assert not grouped
    if "ci" in combination:
        assert intervals, "--ci dropped: no intervals"
        for interval in intervals:
            low, value, high = interval["low"], interval["value"], interval["high"]
            if all(_number(x) and not math.isnan(x) for x in (low, value, high)):
                assert low <= value <= high, interval
        if "by" in combination:
            for d in grouped:
                assert _is_interval(d["overall"]), f"--ci dropped from the overall value: {d}"
                for group in d["groups"]:
                    assert _is_interval(group["value"]), f"--ci dropped in a group: {group}"
    else:
        assert not intervals
    if "test" in combination:
        comparisons = data.get("comparisons") if isinstance(data, dict) else None
        assert comparisons, "--test dropped: no comparison"
        assert all("pvalue" in c and "difference" in c for c in comparisons)
    else:
        assert not (isinstance(data, dict) and "comparisons" in data)
    report = folder / "report.html"
    if "report" in combination:
        assert report.is_file(), "--report dropped: no report written"
        html = report.read_text(encoding="utf-8")
        assert METRIC[command] in html, f"the report does not name {METRIC[command]}"
        if "ci" in combination:
            columns = "<th>low</th>" in html and "<th>high</th>" in html
            assert columns, "--ci dropped from the report: no interval columns"
        if "test" in combination:
            assert Path(str(SECOND[command][0])).name in html, "the report misses a system"
    else:
        assert not report.exists()
    if not SCALE & set(combination):
        # a whole read in memory: the reference of the same features at scale
        outline = _outline(report.read_text(encoding="utf-8")) if report.exists() else []
        WHOLE.setdefault((command, combination), (data, outline))
    else:
        # the same values, and the same report, as the whole read in memory
        whole_data, whole_outline = _whole(command, combination, folder, capsys)
        _same(data, whole_data)
        if "report" in combination:
            outline = _outline(report.read_text(encoding="utf-8"))
            missing = [item for item in whole_outline if item not in outline]
            assert outline == whole_outline, f"the report leaves out {missing}"
    state = folder / "state.json"
    if "state" in combination:
        assert state.is_file(), "--save-state dropped: no state written"
        status, merged, err = _run(capsys, ["merge", str(state), "--format", "json"])
        assert status == 0, err
        _same(json.loads(merged), data)
    else:
        assert not state.exists()


@pytest.mark.parametrize(("command", "combination"), CASES)
def test_combination(
    command: str,
    combination: tuple[str, ...],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    request: pytest.FixtureRequest,
) -> None:
    scheduler = request.getfixturevalue("scheduler") if "dask" in combination else None
    expected = EXPECTED[command]["+".join(combination)]
    folder = tmp_path / "out"
    folder.mkdir()
    argv = _argv(command, combination, folder, scheduler)
    status, out, err = _run(capsys, argv)
    assert status in (0, 2), f"exit {status}: {err}"
    if status == 2:
        assert isinstance(expected, Refused), f"refused, expected to compose: {err}"
        _check_refusal(combination, expected, out, err, folder)
    else:
        assert expected == COMPOSES, f"composes, expected {expected}"
        _check_composes(command, combination, out, folder, capsys)


def test_the_table_has_every_case() -> None:
    for command, features in COMMAND_FEATURES.items():
        assert list(EXPECTED[command]) == ["+".join(c) for c in _combinations(features)]
    ids = {_case_id(c, comb) for c, f in COMMAND_FEATURES.items() for comb in _combinations(f)}
    assert set(KNOWN) <= ids
