"""``scorekit demo``: every command on the bundled example files."""

from __future__ import annotations

import argparse
import io
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

from scorekit import __version__
from scorekit.api import evaluate_table, rank_file
from scorekit.cli._features import write_ranking
from scorekit.cli._output import write_table
from scorekit.cli._rank import RANK_DEFAULTS
from scorekit.errors import InputError, choices, message, raw
from scorekit.io import read_json

_DEMO_HINT = "the directory with manifest.json made by examples/make_data.py"


def _demo_dir(given: str | None) -> Path:
    if given is not None:
        candidates = [Path(given)]
    else:
        here = Path(__file__).resolve().parents[1]
        candidates = [here / "_demo_data", here.parents[1] / "examples" / "data"]
    for directory in candidates:
        if (directory / "manifest.json").is_file():
            return directory
    raise InputError(
        message(
            "scorekit demo",
            "example data not found",
            raw(", ".join(str(c) for c in candidates)),
            _DEMO_HINT + " (pass it with --data)",
        )
    )


_PATH_FIELDS = ("file", "qrels", "dataset", "na_probs")
_REQUIRED = {
    "features": ("file", "target"),
    "rank": ("file", "qrels"),
    "text": ("file", "refs", "metrics"),
    "qa": ("file", "dataset", "na_probs"),
    "throughput": ("file",),
    None: ("file", "task", "true"),
}


def _demo_entries(directory: Path) -> list[dict[str, Any]]:
    manifest = directory / "manifest.json"
    entries = read_json(manifest, "the demo manifest")
    if not isinstance(entries, list):
        raise InputError(message(str(manifest), "not a list of files", None, "a JSON list"))
    return [_checked(entry, number, directory) for number, entry in enumerate(entries, start=1)]


def _checked(entry: Any, number: int, directory: Path) -> dict[str, Any]:
    """A manifest entry whose keys are present and whose files all lie inside ``directory``."""
    where = f"{directory / 'manifest.json'}, entry {number}"
    if not isinstance(entry, dict):
        raise InputError(
            message(where, "not an object", raw(type(entry).__name__), "a JSON object")
        )
    command = entry.get("command")
    needed = _REQUIRED.get(command)
    if needed is None:
        raise InputError(message(where, "unknown command", command, choices(_REQUIRED)))
    missing = [key for key in needed if key not in entry]
    if missing:
        raise InputError(message(where, "missing keys", raw(", ".join(missing)), str(needed)))
    root = directory.resolve()
    names = [entry[key] for key in _PATH_FIELDS if key in entry]
    names += list(entry.get("refs") or [])
    for name in names:
        if not isinstance(name, str) or not (root / name).resolve().is_relative_to(root):
            raise InputError(
                message(where, "a file outside the demo directory", name, f"a file inside {root}")
            )
    return entry


def _demo_features(entry: dict[str, Any], path: Path, out: TextIO) -> None:
    criterion = str(entry.get("criterion", "information_gain"))
    ranking = rank_file(str(path), target=str(entry["target"]), criterion=criterion)
    title = f"{entry.get('title', entry['file'])} ({entry['file']}, {ranking.rows} rows)"
    out.write(f"\n{title}\n{'=' * len(title)}\n")
    command = ["scorekit features", str(entry["file"]), "--target", str(entry["target"])]
    out.write("$ " + " ".join([*command, "--criterion", criterion]) + "\n\n")
    write_ranking(ranking, ranking.splits, "table", out)


def _demo_rank(entry: dict[str, Any], directory: Path, out: TextIO) -> Any:
    from scorekit import ranking

    metrics = list(entry.get("metrics") or RANK_DEFAULTS)
    qrels = directory / str(entry["qrels"])
    run = ranking.read_run(directory / str(entry["file"]))
    result = ranking.evaluate(qrels, run, metrics, per_query=True)
    queries = len(run.queries())
    title = f"{entry.get('title', entry['file'])} ({entry['file']}, {len(run)} rows)"
    out.write(f"\n{title}\n{'=' * len(title)}\n")
    command = ["scorekit rank", str(entry["qrels"]), str(entry["file"]), "-m", *metrics]
    out.write("$ " + " ".join(command) + "\n\n")
    write_table(dict(result), out)
    out.write(f"({queries} queries)\n")
    return result


def _demo_text_or_qa(entry: dict[str, Any], directory: Path, out: TextIO) -> None:
    from scorekit.cli import _qa, _text
    from scorekit.cli._flags import Parser

    parser = Parser(prog="scorekit")
    sub = parser.add_subparsers(dest="command", parser_class=Parser)
    for command in (_text, _qa):
        command.add_parser(sub).set_defaults(handler=command.run)
    if entry["command"] == "text":
        refs = [str(directory / r) for r in entry["refs"]]
        argv = ["text", "--refs", *refs, "--hyps", str(directory / entry["file"])]
        argv += ["-m", *entry["metrics"]]
        shown = ["scorekit text --refs", *entry["refs"], "--hyps", entry["file"]]
        shown += ["-m", *entry["metrics"]]
    else:
        argv = ["qa", str(directory / entry["dataset"]), str(directory / entry["file"])]
        argv += ["--na-probs", str(directory / entry["na_probs"])]
        shown = ["scorekit qa", entry["dataset"], entry["file"], "--na-probs", entry["na_probs"]]
    title = f"{entry.get('title', entry['file'])} ({entry['file']})"
    out.write(f"\n{title}\n{'=' * len(title)}\n")
    out.write("$ " + " ".join(shown) + "\n\n")
    args = parser.parse_args(argv)
    args.handler(args, out, io.StringIO())


def _demo_throughput(entry: dict[str, Any], directory: Path, out: TextIO) -> Any:
    from scorekit import throughput

    slo = [str(s) for s in entry.get("slo") or []]
    records = throughput.read_records(directory / str(entry["file"]))
    result = throughput.report(records, slo=slo)
    title = f"{entry.get('title', entry['file'])} ({entry['file']}, {result.requests} requests)"
    out.write(f"\n{title}\n{'=' * len(title)}\n")
    shown = ["scorekit throughput", str(entry["file"]), *(["--slo", *slo] if slo else [])]
    out.write("$ " + " ".join(shown) + "\n\n")
    out.write(throughput.format_report(result, "table"))
    return result, records


NAME = "demo"


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """The ``demo`` command's parser."""
    demo: argparse.ArgumentParser = sub.add_parser(NAME, help="evaluate the bundled example files")
    demo.add_argument("--data", metavar="DIR", help=_DEMO_HINT)
    demo.add_argument(
        "--report",
        metavar="FILE.html",
        help="where to write the HTML report of the examples (default: a new temporary "
        "folder, when scorekit[report] is installed)",
    )
    demo.add_argument("--no-report", action="store_true", help="write no HTML report")
    return demo


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run every command on the bundled example files."""
    directory = _demo_dir(args.data)
    entries = _demo_entries(directory)
    out.write(f"scorekit {__version__} demo: the files in {directory}\n")
    shown = _Shown()
    for entry in entries:
        path = directory / str(entry["file"])
        if entry.get("command") == "features":
            _demo_features(entry, path, out)
            continue
        if entry.get("command") == "rank":
            shown.add(str(entry["file"]), _demo_rank(entry, directory, out))
            continue
        if entry.get("command") in ("text", "qa"):
            _demo_text_or_qa(entry, directory, out)
            continue
        if entry.get("command") == "throughput":
            shown.records = _demo_throughput(entry, directory, out)[1]
            continue
        result = evaluate_table(
            str(path),
            task=str(entry["task"]),
            true=list(entry["true"]),
            pred=entry.get("pred"),
            score=entry.get("score"),
        )
        title = f"{entry.get('title', entry['file'])} ({entry['file']}, {result.rows} rows)"
        out.write(f"\n{title}\n{'=' * len(title)}\n")
        command = ["scorekit eval", str(entry["file"]), "--task", str(entry["task"])]
        for flag in ("true", "pred", "score"):
            if entry.get(flag):
                command += [f"--{flag}", *entry[flag]]
        out.write("$ " + " ".join(command) + "\n\n")
        write_table(result.values, out)
        shown.add(str(entry["file"]), result)
        for text in result.skipped:
            out.write(f"skipped: {text}\n")
    out.write("\nScores in [0, 1] are fractions (0.85 means 85%).\n")
    if not args.no_report:
        _write_demo_report(args.report, shown, directory, out)
    return 0


def _report_hint(missing: list[str]) -> str:
    """Why the demo wrote no report, and how to get one."""
    from scorekit.plot import INSTALL

    return (
        f"\nreport: not written: the HTML report needs {' and '.join(missing)}, which "
        f"{'is' if len(missing) == 1 else 'are'} not installed; {INSTALL} adds it\n"
    )


class _Shown:
    """The results of the demo's evaluations, gathered for one report."""

    def __init__(self) -> None:
        self.values: dict[str, Any] = {}
        self.states: dict[str, Any] = {}
        self.metrics: dict[str, Any] = {}
        self.rows = 0
        self.records: Any = None

    def add(self, name: str, result: Any) -> None:
        states = dict(getattr(result, "states", {}) or {})
        metrics = dict(getattr(result, "metrics", {}) or {})
        values = dict(result) if isinstance(result, dict | Mapping) else dict(result.values)
        for key, value in values.items():
            self.values[f"{name}: {key}"] = value
            if key in states:
                self.states[f"{name}: {key}"] = states[key]
            if key in metrics:
                self.metrics[f"{name}: {key}"] = metrics[key]
        self.rows += int(getattr(result, "rows", 0) or 0)


def _write_demo_report(path: str | None, shown: _Shown, directory: Path, out: TextIO) -> None:
    """One HTML report of the evaluations and of the serving records; its path on ``out``.

    Without the report's packages, the default report is a line saying how to get
    them; a report asked for by path is then an error naming the missing package.
    """
    from scorekit.core import EvaluationResult
    from scorekit.report import missing_packages, report

    missing = missing_packages()
    if missing and path is None:
        out.write(_report_hint(missing))
        return

    target = Path(path) if path else Path(tempfile.mkdtemp(prefix="scorekit-demo-")) / "demo.html"
    result = EvaluationResult(shown.values, shown.states, shown.metrics, shown.rows)
    written = report(
        result, target, title="scorekit demo", inputs=[str(directory)], records=shown.records
    )
    out.write(f"\nreport: {written}\n")
