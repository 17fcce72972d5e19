"""``scorekit list``: the variant forms (``ttft:pN``) in the JSON and under the table; the metric
index it reads instead of importing the families, and plug-in discovery without
:mod:`importlib.metadata` when no distribution declares a plug-in."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import zipfile
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest

from scorekit.cli import _list, main
from scorekit.cli._list import plain_summary
from scorekit.core import (
    Metric,
    MetricEntry,
    MetricInfo,
    _index,
    _plugins,
    _registry,
    available,
    get,
    parse_metric,
    register,
)


def test_list_json_has_the_variant_forms_and_patterns(capsys: Any) -> None:
    assert main(["list", "--format", "json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["ttft"]["variant_forms"] == ["ttft:pN"]
    assert rows["ttft"]["variant_pattern"] == "p.*"
    assert rows["f1"]["variant_forms"] == [] and rows["f1"]["variant_pattern"] is None
    for info in available():
        row = rows[info.name]
        assert row["variant_pattern"] == info.variant_pattern
        for form in row["variant_forms"]:
            name, _, variant = form.partition(":")
            assert name == info.name and variant == info.variant_form
            assert parse_metric(f"{name}:{variant.replace('N', '99.9')}").name == info.name
    assert {"specificity:macro", "specificity:weighted"} <= set(rows["specificity"]["variants"])


def test_list_table_names_the_variant_forms(capsys: Any) -> None:
    assert main(["list"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    forms = sorted(f"{i.name}:{i.variant_form}" for i in available() if i.variant_form)
    assert forms and f"Variant forms: {', '.join(forms)}" in out
    assert f"(for example {forms[0].replace('N', '95')})" in out


def test_list_family_keeps_the_metrics_of_that_family(capsys: Any) -> None:
    assert main(["list", "--family", "ranking", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    expected = {i.name for i in available() if i.cls.__module__.startswith("scorekit.ranking.")}
    assert {r["name"] for r in rows} == expected
    assert {"ndcg", "map", "mrr"} <= expected
    assert {r["family"] for r in rows} == {"ranking"}


def _terminal(monkeypatch: Any, columns: int) -> None:
    """Output to a terminal of ``columns`` columns."""
    monkeypatch.setattr(_list, "_on_terminal", lambda: True)
    monkeypatch.setenv("COLUMNS", str(columns))


def test_list_family_table_counts_its_metrics(capsys: Any, monkeypatch: Any) -> None:
    _terminal(monkeypatch, 160)
    assert main(["list", "--family", "qa"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split() == [
        "name", "aliases", "direction", "bounds", "inputs", "grows", "summary"
    ]  # fmt: skip
    assert "exact_match" in out and "qa_f1" in out and "accuracy" not in out
    assert "2 metrics of family qa;" in out


def test_list_unknown_family_names_the_families(capsys: Any) -> None:
    assert main(["list", "--family", "rankings"]) == 2
    err = capsys.readouterr().err
    assert "unknown family" in err and "'rankings'" in err
    for name in ("classification", "multilabel", "ranking", "text", "qa", "throughput"):
        assert f"'{name}'" in err


@pytest.mark.parametrize("columns", [50, 80, 120, 200])
def test_list_table_fits_the_terminal(capsys: Any, monkeypatch: Any, columns: int) -> None:
    _terminal(monkeypatch, columns)
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= columns
    lines = out.split("\n\n")[0].splitlines()
    if lines[0].startswith("name"):
        at = lines[0].index("summary")
        summaries: list[str] = []
        for line in lines[1:]:
            if not line.startswith(" "):
                summaries.append("")
            summaries[-1] += " " + line[at:]
    else:
        summaries = [" ".join(lines)]
    flat = [" ".join(s.split()) for s in summaries]
    for info in available():
        assert any(" ".join(plain_summary(info.summary).split()) in s for s in flat), info.name


def test_list_off_a_terminal_keeps_one_line_per_metric(capsys: Any, monkeypatch: Any) -> None:
    monkeypatch.setattr(_list, "_on_terminal", lambda: False)
    monkeypatch.setenv("COLUMNS", "60")
    assert main(["list"]) == 0
    lines = capsys.readouterr().out.split("\n\n")[0].splitlines()
    assert len(lines) == 1 + len(available())
    pairs = zip(available(), lines[1:], strict=True)
    assert all(plain_summary(info.summary) in line for info, line in pairs)


# the index: what `list` reads instead of importing the families ------------------------------

ARGVS = [
    ["list"],
    ["list", "--family", "ranking"],
    ["list", "--family", "throughput"],
    ["list", "--format", "json"],
    ["list", "--family", "text", "--format", "json"],
]
"""The outputs of ``list`` compared between the index and the live registry."""


def test_the_metric_index_is_the_live_registry() -> None:
    with open(_index.PATH, encoding="utf-8") as file:
        written = file.read()
    fresh = _index.build()
    assert written == _index.render(fresh), (
        f"{_index.PATH} differs from the metric registry: run `{_index.REGENERATE}` "
        "(after adding or changing a metric) and commit the file"
    )
    assert _index.read() == fresh
    own = {i.name for i in available() if i.cls.__module__.startswith("scorekit.")}
    assert {e.name for entries in fresh.values() for e in entries} == own
    assert {"scorekit.classification", "scorekit.ranking", "scorekit.text"} <= set(fresh)


def test_an_entry_has_every_field_of_a_registry_entry() -> None:
    entry = {f.name for f in dataclasses.fields(MetricEntry)}
    info = {f.name for f in dataclasses.fields(MetricInfo)}
    assert entry == info - {"cls"} | {"module"}
    ndcg = MetricEntry.of(get("ndcg"))
    assert (ndcg.name, ndcg.at, ndcg.module) == ("ndcg", "k", get("ndcg").cls.__module__)
    assert MetricEntry.from_plain(json.loads(json.dumps(ndcg.to_plain()))) == ndcg


def _listed(argv: list[str], capsys: Any, monkeypatch: Any, *, imported: bool) -> str:
    """What ``argv`` prints, each family's metrics from the index (``imported``: the registry)."""
    monkeypatch.setattr(_index, "_imported", lambda module: imported)
    assert main(argv) == 0
    return str(capsys.readouterr().out)


@pytest.mark.parametrize("columns", [None, 120])
@pytest.mark.parametrize("argv", ARGVS, ids=" ".join)
def test_list_from_the_index_is_the_list_of_the_registry(
    capsys: Any, monkeypatch: Any, argv: list[str], columns: int | None
) -> None:
    if columns is None:
        monkeypatch.setattr(_list, "_on_terminal", lambda: False)
    else:
        _terminal(monkeypatch, columns)
    live = _listed(argv, capsys, monkeypatch, imported=True)
    assert _listed(argv, capsys, monkeypatch, imported=False) == live
    assert "ndcg" in live or "bleu" in live or "ttft" in live


def test_list_reads_the_index_for_a_family_not_imported(capsys: Any, monkeypatch: Any) -> None:
    index = _index.read()
    assert index is not None
    index["scorekit.ranking"] = [
        dataclasses.replace(e, summary="From the index.") if e.name == "ndcg" else e
        for e in index["scorekit.ranking"]
    ]
    monkeypatch.setattr(_index, "_read", lambda: index)
    argv = ["list", "--family", "ranking", "--format", "json"]
    rows = json.loads(_listed(argv, capsys, monkeypatch, imported=False))
    assert {r["name"]: r["summary"] for r in rows}["ndcg"] == "From the index."
    rows = json.loads(_listed(argv, capsys, monkeypatch, imported=True))
    assert {r["name"]: r["summary"] for r in rows}["ndcg"] == plain_summary(get("ndcg").summary)


def test_list_without_an_index_imports_the_families(capsys: Any, monkeypatch: Any) -> None:
    monkeypatch.setattr(_index, "_read", lambda: None)
    monkeypatch.setattr(_list, "_on_terminal", lambda: False)
    without = _listed(["list"], capsys, monkeypatch, imported=False)
    assert without == _listed(["list"], capsys, monkeypatch, imported=True)
    assert _index.read_text("{}") is None and _index.read_text("not json") is None
    assert _index.read(_index.PATH + ".missing") is None


def test_list_shows_a_metric_registered_at_run_time(capsys: Any, monkeypatch: Any) -> None:
    monkeypatch.setattr(_registry, "_REGISTRY", dict(_registry._REGISTRY))

    @register("list_runtime_metric", higher_is_better=False, bounds=(0, 2), inputs="regression")
    class RuntimeMetric(Metric[Any]):
        """A metric registered by a test."""

    rows = json.loads(_listed(["list", "--format", "json"], capsys, monkeypatch, imported=False))
    mine = {r["name"]: r for r in rows}["list_runtime_metric"]
    assert (mine["family"], mine["summary"]) == ("test_cli_list", "A metric registered by a test.")
    assert mine["direction"] == "lower" and mine["bounds"] == [0, 2]
    assert {r["name"] for r in rows} == {i.name for i in available()}


_CHILD = (
    "import contextlib, io, json, os, sys\n"
    "os.environ['SCOREKIT_NO_PLUGINS'] = '1'\n"
    "from scorekit.cli import main\n"
    "if sys.argv[1] == 'live':\n"
    "    from scorekit.core import available\n"
    "    available()\n"
    "outputs = []\n"
    "for argv in json.loads(sys.argv[2]):\n"
    "    with contextlib.redirect_stdout(io.StringIO()) as out:\n"
    "        assert main(argv) == 0\n"
    "    outputs.append(out.getvalue())\n"
    "families = [m for m in sys.modules if m in ('scorekit.classification', 'scorekit.text')]\n"
    "print(json.dumps([outputs, families]))\n"
)
"""A child that prints the outputs of ``list`` (each argv of ``sys.argv[2]``, a JSON list) and
the families it imported; ``sys.argv[1] == 'live'`` imports every family first."""


def test_list_in_a_new_process_prints_what_the_registry_gives() -> None:
    printed = {}
    for how in ("index", "live"):
        done = subprocess.run(
            [sys.executable, "-c", _CHILD, how, json.dumps(ARGVS)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        printed[how] = json.loads(done.stdout)
    assert printed["index"][1] == [] and printed["live"][1] != []
    assert printed["index"][0] == printed["live"][0]


# plug-ins: importlib.metadata only when a distribution may declare one --------------------------


def _declaring(site: Path, name: str, info: str, entry_points: str) -> None:
    folder = site / f"{name}-1.0.{info}"
    folder.mkdir()
    (folder / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (folder / "entry_points.txt").write_text(entry_points)


def _fresh(code: str) -> None:
    """Run ``code`` in a new interpreter, whose finders of distributions are the standard ones.

    In this process another package's finder may be installed by an earlier test
    (``importlib_metadata``'s backport adds one when imported), which makes the
    check ask :mod:`importlib.metadata` whatever the group.
    """
    prelude = "import sys, zipfile\nfrom importlib.metadata import entry_points\n"
    prelude += "from scorekit.core import _plugins\n"
    done = subprocess.run(
        [sys.executable, "-c", prelude + code], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr


def test_every_entry_point_group_installed_may_be_declared() -> None:
    _fresh(
        "groups = set(entry_points().groups)\n"
        "assert 'console_scripts' in groups\n"
        "assert all(_plugins._maybe_declared(group) for group in groups)\n"
        "assert not _plugins._maybe_declared('scorekit.no such group')\n"
        "found = bool(entry_points(group=_plugins.GROUP))\n"
        "assert _plugins._maybe_declared(_plugins.GROUP) == found\n"
    )


@pytest.mark.parametrize("info", ["dist-info", "egg-info"])
def test_a_plugin_declared_on_the_path_may_be_declared(tmp_path: Path, info: str) -> None:
    _declaring(tmp_path, "other", info, "[console_scripts]\nother = other:main\n")
    mine = tmp_path / "mine"
    mine.mkdir()
    _declaring(mine, "mine", info, "[scorekit.list_test]\nmine = mine_module\n")
    _fresh(
        f"sys.path.insert(0, {str(tmp_path)!r})\n"
        "assert not _plugins._maybe_declared('scorekit.list_test')\n"
        f"sys.path.insert(0, {str(mine)!r})\n"
        "assert _plugins._maybe_declared('scorekit.list_test')\n"
        "assert [e.name for e in entry_points(group='scorekit.list_test')] == ['mine']\n"
    )


def test_a_zip_or_another_finder_asks_importlib_metadata(tmp_path: Path) -> None:
    with zipfile.ZipFile(tmp_path / "bundle.zip", "w") as bundle:
        bundle.writestr("empty.txt", "")
    _fresh(
        "assert not _plugins._maybe_declared('scorekit.list_test')\n"
        f"sys.path.append({str(tmp_path / 'bundle.zip')!r})\n"
        "assert _plugins._maybe_declared('scorekit.list_test')\n"
        "sys.path.pop()\n"
        "class Finder:\n"
        "    @staticmethod\n"
        "    def find_distributions(*args, **kwargs):\n"
        "        return []\n"
        "sys.meta_path.append(Finder)\n"
        "assert _plugins._maybe_declared('scorekit.list_test')\n"
    )


def test_list_without_a_plugin_imports_neither_families_nor_importlib_metadata() -> None:
    if entry_points(group=_plugins.GROUP):
        pytest.skip("a scorekit plug-in is installed")
    code = (
        "import contextlib, io, json, os, sys\n"
        "os.environ.pop('SCOREKIT_NO_PLUGINS', None)\n"
        "from scorekit.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    status = main(['list'])\n"
        "print(json.dumps([status, sorted(sys.modules)]))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    status, modules = json.loads(done.stdout)
    assert status == 0
    for name in ("importlib.metadata", "email", "scorekit.classification", "scorekit.ranking"):
        assert name not in modules, name
