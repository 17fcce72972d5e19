"""``docs/extending.md`` runs: each recipe built into a plug-in package, registered and used.

The page shows four extensions of scorekit (a metric, a file format, an engine
and a command), each one new file plus one registry line, as the files of a
package ``my_package``. Each test here writes the files of one recipe, taken
from the page's code blocks, into a fresh ``my_package`` in a temporary
directory, imports it (which runs the registry line), runs the page's examples
of that recipe as doctests, and checks the extension further: the metric
through the generic property checks every registered metric passes, the format
against the same data as CSV, the engine against the in-memory state and value
of every configuration of the registry, the command through ``scorekit.cli.main``.

The registries are copied before each test and restored after it, and the
plug-in's modules are forgotten, so no other test sees the plug-in.
"""

from __future__ import annotations

import doctest
import importlib
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import scorekit
import scorekit.cli._commands as command_registry
import scorekit.engines as engine_registry
import test_engine_properties as engine_checks
import test_properties as property_checks
from conftest import ROOT
from scorekit.api import load_states, save_states
from scorekit.cli import main
from scorekit.core import Metric, _providers, _registry, _state, parse_metric
from scorekit.errors import ConfigError, InputError, StateMismatchError
from scorekit.io import _formats
from strategies import batches
from tables import to_table, write
from test_properties import CONFIGS

DOC = ROOT / "docs" / "extending.md"
PACKAGE = "my_package"
EXAMPLES = 2
"""Hypothesis examples per metric configuration on the example engine, as many as the
stream engine's test of every metric (``test_engine_properties.py``) runs."""

_BLOCK = re.compile(r'^```(\w+)(?: title="([^"]+)")?\n(.*?)^```$', re.S | re.M)

Block = tuple[str, str | None, str]


def _recipes() -> dict[str, list[Block]]:
    """Section heading -> its fenced code blocks as ``(language, title, code)``."""
    text = DOC.read_text(encoding="utf-8")
    out: dict[str, list[Block]] = {}
    for section in re.split(r"^## ", text, flags=re.M)[1:]:
        heading, _, body = section.partition("\n")
        out[heading.strip()] = [(m[1], m[2], m[3]) for m in _BLOCK.finditer(body)]
    return out


RECIPES = _recipes()
METRIC, FORMAT, ENGINE, COMMAND = "A metric", "A file format", "An engine", "A command"


@pytest.fixture
def plugin(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Callable[[str], Path]]:
    """Install one recipe as ``my_package`` in a temporary directory, the working directory.

    Every family is loaded first, so the registries are complete when copied;
    the copies are dropped after the test, with the plug-in's modules.
    """
    scorekit.available()
    for module, name in [
        (_registry, "_REGISTRY"),
        (_registry, "_ALIASES"),
        (_registry, "_AT_ALIASES"),
        (_state, "_STATE_TYPES"),
        (_formats, "_FORMATS"),
        (engine_registry, "_ENGINES"),
        (command_registry, "_COMMANDS"),
    ]:
        monkeypatch.setattr(module, name, dict(getattr(module, name)))
    monkeypatch.setattr(_providers, "_PROVIDERS", list(_providers._PROVIDERS))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)

    def install(recipe: str) -> Path:
        titled = [(title, code) for _, title, code in RECIPES[recipe] if title is not None]
        assert any(title == f"{PACKAGE}/__init__.py" for title, _ in titled), recipe
        for title, code in titled:
            path = tmp_path / title
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(code, encoding="utf-8")
        importlib.invalidate_caches()
        importlib.import_module(PACKAGE)
        return tmp_path

    yield install
    for name in [n for n in sys.modules if n == PACKAGE or n.startswith(PACKAGE + ".")]:
        del sys.modules[name]


def _module(name: str) -> ModuleType:
    return importlib.import_module(f"{PACKAGE}.{name}")


def _run_examples(recipe: str) -> None:
    """Run the recipe's ``pycon`` blocks as one doctest."""
    text = "\n".join(code for language, _, code in RECIPES[recipe] if language == "pycon")
    test = doctest.DocTestParser().get_doctest(text, {}, f"extending.md, {recipe}", str(DOC), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report: list[str] = []
    runner.run(test, out=report.append)
    assert runner.tries > 0, recipe
    assert runner.failures == 0, "".join(report)


def test_the_page_has_the_four_recipes() -> None:
    for recipe in (METRIC, FORMAT, ENGINE, COMMAND):
        titles = [title for _, title, _ in RECIPES[recipe] if title and title.endswith(".py")]
        # the new file and the registry line in the package's __init__.py
        assert len(titles) == 2 and titles[1] == f"{PACKAGE}/__init__.py", (recipe, titles)
        assert any(language == "pycon" for language, _, _ in RECIPES[recipe]), recipe


@pytest.mark.parametrize("recipe", [METRIC, FORMAT, ENGINE, COMMAND])
def test_the_examples_of_the_page_run(recipe: str, plugin: Callable[[str], Path]) -> None:
    plugin(recipe)
    _run_examples(recipe)


# a metric -----------------------------------------------------------------------------------


def _regression_data(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = np.round(rng.normal(size=n), 2)
    return y, y + np.round(rng.normal(scale=0.5, size=n), 2), rng.random(n) * 3


def test_the_metric_scores_by_name_and_by_function(plugin: Callable[[str], Path]) -> None:
    plugin(METRIC)
    y, p, w = _regression_data(500, 1)
    metric = parse_metric("within_tolerance:tol=0.25")
    expected = float(np.average(np.abs(y - p) <= 0.25, weights=w))
    assert metric.score(y, p, sample_weight=w) == pytest.approx(expected, rel=1e-12)
    function = _module("tolerance").within_tolerance
    assert function(y, p, tol=0.25, sample_weight=w) == metric.score(y, p, sample_weight=w)
    assert scorekit.get("within_tolerance").cls is type(metric)
    assert "within_tolerance" in {info.name for info in scorekit.available()}


def test_the_metric_streams_in_chunks_as_in_memory(plugin: Callable[[str], Path]) -> None:
    plugin(METRIC)
    y, p, w = _regression_data(300, 2)
    metric = parse_metric("within_tolerance:tol=0.5")
    state = metric.summarize(y, p, sample_weight=w)
    table = pa.table({"truth": y, "guess": p, "w": w})
    columns = {"y_true": "truth", "y_pred": "guess", "sample_weight": "w"}
    for chunk_size in (1, 7, 64, 1_000):
        result = scorekit.evaluate(
            table, "within_tolerance:tol=0.5", columns=columns, chunk_size=chunk_size
        )
        got = result.states["within_tolerance:tol=0.5"]
        assert got.count == state.count == 300 and got.tol == 0.5
        assert got.weight == pytest.approx(state.weight, rel=1e-12)
        assert got.hits == pytest.approx(state.hits, rel=1e-12)
        value = result.values["within_tolerance:tol=0.5"]
        assert value == pytest.approx(metric.compute(state), rel=1e-12)
    csv = write(table, Path("preds.csv"))
    on_file = scorekit.evaluate(csv, "within_tolerance:tol=0.5", columns=columns, chunk_size=50)
    assert on_file.values == pytest.approx(result.values, rel=1e-12)


def test_the_metric_state_round_trips_through_state_files(plugin: Callable[[str], Path]) -> None:
    plugin(METRIC)
    y, p, _ = _regression_data(100, 3)
    result = scorekit.evaluate({"y_true": y, "y_pred": p}, "within_tolerance:tol=0.3")
    path = save_states(Path("tolerance.json.gz"), result)
    metrics, states, meta = load_states(path)
    key = "within_tolerance:tol=0.3"
    assert meta["rows"] == 100
    assert metrics[key].tol == 0.3
    assert states[key].equals(result.states[key])
    assert metrics[key].compute(states[key]) == result.values[key]


def test_the_metric_refuses_bad_options_inputs_and_merges(plugin: Callable[[str], Path]) -> None:
    plugin(METRIC)
    with pytest.raises(ConfigError, match=r"^within_tolerance: invalid tol; got -1"):
        parse_metric("within_tolerance:tol=-1")
    metric = parse_metric("within_tolerance")
    with pytest.raises(InputError, match="inputs differ; got shapes"):
        metric.score([1.0, 2.0], [1.0])
    with pytest.raises(InputError, match="NaN or infinite value"):
        metric.score([1.0, np.nan], [1.0, 2.0])
    with pytest.raises(InputError, match="no data; got 0 samples of total weight 0"):
        metric.score([], [])
    other = parse_metric("within_tolerance:tol=2")
    with pytest.raises(StateMismatchError, match="different 'tol'"):
        metric.merge(metric.summarize([1.0], [1.0]), other.summarize([1.0], [1.0]))


def test_the_metric_passes_the_checks_of_every_registered_metric(
    plugin: Callable[[str], Path], tmp_path: Path
) -> None:
    plugin(METRIC)
    for spec in ("within_tolerance", "within_tolerance:tol=0"):
        metric: Metric[Any] = parse_metric(spec)
        property_checks.test_metric_metadata(metric)
        property_checks.test_merge_laws(metric)
        property_checks.test_state_round_trip_and_bounds(metric)
        folder = tmp_path / f"files-{metric.tol}"
        folder.mkdir()
        engine_checks.test_in_memory_equals_streamed_tables_and_files(metric, folder)


def test_the_metric_is_explained_and_listed(
    plugin: Callable[[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    plugin(METRIC)
    assert main(["explain", "within_tolerance"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("within_tolerance: Fraction of predictions within ``tol``")
    assert "sum(w * (|y_true - y_pred| <= tol)) / sum(w)" in out
    assert main(["list"]) == 0
    assert "within_tolerance" in capsys.readouterr().out


# a file format ------------------------------------------------------------------------------


def _labels_table(n: int, seed: int) -> pa.Table:
    rng = np.random.default_rng(seed)
    label = rng.integers(0, 2, n)
    return pa.table(
        {
            "label": label,
            "pred": np.where(rng.random(n) < 0.8, label, 1 - label),
            "score": np.round(rng.random(n), 3),
        }
    )


def _write_psv(table: pa.Table, path: Path) -> Path:
    rows = ["|".join(table.column_names)]
    rows += ["|".join(str(v) for v in row.values()) for row in table.to_pylist()]
    text = "\n".join(rows) + "\n"
    if path.name.endswith(".gz"):
        import gzip

        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text, encoding="utf-8")
    return path


METRICS = ["accuracy", "f1", "roc_auc", "mse"]
COLUMNS = {"y_true": "label", "y_pred": "pred", "y_score": "score"}


def _same(a: Any, b: Any) -> None:
    assert a.values == b.values and a.rows == b.rows
    for key in a.states:
        assert a.states[key].equals(b.states[key]), key


def test_a_psv_file_reads_as_the_same_csv(plugin: Callable[[str], Path]) -> None:
    folder = plugin(FORMAT)
    table = _labels_table(200, 4)
    csv = write(table, folder / "preds.csv")
    for name in ("preds.psv", "preds.psv.gz"):
        psv = _write_psv(table, folder / name)
        for chunk_size in (1, 9, 64, 65_536):
            expected = scorekit.evaluate(csv, METRICS, columns=COLUMNS, chunk_size=chunk_size)
            got = scorekit.evaluate(psv, METRICS, columns=COLUMNS, chunk_size=chunk_size)
            _same(got, expected)


def test_psv_files_in_a_directory_and_a_glob(plugin: Callable[[str], Path]) -> None:
    folder = plugin(FORMAT)
    table = _labels_table(90, 5)
    parts = folder / "parts"
    parts.mkdir()
    _write_psv(table.slice(0, 40), parts / "a.psv")
    _write_psv(table.slice(40), parts / "b.psv")
    expected = scorekit.evaluate(table, METRICS, columns=COLUMNS)
    _same(scorekit.evaluate(parts, METRICS, columns=COLUMNS, chunk_size=16), expected)
    _same(scorekit.evaluate(str(parts / "*.psv"), METRICS, columns=COLUMNS), expected)


def test_psv_errors_name_the_file(plugin: Callable[[str], Path]) -> None:
    folder = plugin(FORMAT)
    psv = _write_psv(_labels_table(5, 6), folder / "preds.psv")
    with pytest.raises(InputError, match="present: 'label', 'pred', 'score'"):
        scorekit.evaluate(psv, "accuracy", columns={"y_true": "truth", "y_pred": "pred"})
    ragged = folder / "ragged.psv"
    ragged.write_text("y_true|y_pred\n1|1\n0\n")
    with pytest.raises(InputError, match=r"ragged\.psv: cannot read as PSV; got .*columns"):
        scorekit.evaluate(ragged, "accuracy")
    empty = folder / "empty.psv"
    empty.write_text("")
    with pytest.raises(InputError, match=r"empty\.psv: file is empty"):
        scorekit.evaluate(empty, "accuracy")


# an engine ----------------------------------------------------------------------------------


def test_the_engine_takes_no_option_of_its_own(plugin: Callable[[str], Path]) -> None:
    plugin(ENGINE)
    assert "reverse" in engine_registry.engine_names()
    run = _module("reverse").run
    with pytest.raises(ConfigError, match="pieces is not an option of the reverse engine"):
        run({"y_true": [1], "y_pred": [1]}, [parse_metric("accuracy")], pieces=3)


def test_the_engine_keeps_the_rows_of_a_query_together(plugin: Callable[[str], Path]) -> None:
    plugin(ENGINE)
    queries = [f"q{i // 7}" for i in range(60)]
    rng = np.random.default_rng(7)
    run = {"query": queries, "doc": [f"d{i}" for i in range(60)], "score": rng.random(60)}
    qrels = {q: {f"d{i}": int(rng.integers(0, 3)) for i in range(60)} for q in set(queries)}
    metrics = ["ndcg@5", "map", "mrr"]
    expected = scorekit.evaluate(run, metrics, qrels=qrels)
    for chunk_size in (1, 3, 8, 100):
        got = scorekit.evaluate(run, metrics, qrels=qrels, engine="reverse", chunk_size=chunk_size)
        _same(got, expected)


@pytest.mark.parametrize("metric", CONFIGS)
def test_every_metric_on_the_engine_equals_in_memory(
    metric: Metric[Any], plugin: Callable[[str], Path]
) -> None:
    plugin(ENGINE)

    @settings(max_examples=EXAMPLES, deadline=None)
    @given(
        data=batches(metric.inputs),
        parts=st.integers(1, 8),
        layout=st.sampled_from(["columns", "list"]),
    )
    def check(data: dict[str, Any], parts: int, layout: str) -> None:
        args, weights = data["args"], data["weights"]
        expected = engine_checks._memory(metric, args, weights)
        table, columns, extra = to_table(
            metric.inputs, args, metric=metric, weights=weights, matrix=layout
        )
        chunk_size = max(1, -(-table.num_rows // parts))
        got = engine_checks._streamed(
            metric, table, engine="reverse", chunk_size=chunk_size, columns=columns, **extra
        )
        engine_checks._check(expected, got, f"reverse engine, chunks of {chunk_size} rows")

    check()


# a command ----------------------------------------------------------------------------------


def test_the_command_counts_rows_of_every_format(
    plugin: Callable[[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    folder = plugin(COMMAND)
    table = _labels_table(123, 8)
    for name in ("t.csv", "t.tsv.gz", "t.parquet", "t.jsonl"):
        path = write(table, folder / name)
        assert main(["count", str(path)]) == 0
        assert capsys.readouterr().out == "123 rows; columns: label, pred, score\n"


def test_the_command_is_in_the_help_and_reports_errors(
    plugin: Callable[[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    plugin(COMMAND)
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^\s+count\s+count the rows of a file$", out, flags=re.M), out
    assert main(["count", "missing.csv"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        "scorekit: missing.csv: no such file; expected an existing file, directory or glob.\n"
    )
    assert main(["count"]) == 2
    assert "the following arguments are required: FILE" in capsys.readouterr().err
    with pytest.raises(ConfigError, match="a command of that name exists"):
        command_registry.register_command("count", f"{PACKAGE}.count")


def test_no_recipe_outlives_its_test() -> None:
    assert "within_tolerance" not in {info.name for info in scorekit.available()}
    assert "psv" not in {fmt.name for fmt in _formats.formats()}
    assert "reverse" not in engine_registry.engine_names()
    assert "count" not in command_registry.command_names()
    assert not any(n == PACKAGE or n.startswith(PACKAGE + ".") for n in sys.modules)
