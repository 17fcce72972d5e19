"""``scorekit list``: the variant forms (``ttft:pN``) in the JSON and under the table."""

from __future__ import annotations

import json
from typing import Any

import pytest

from scorekit.cli import _list, main
from scorekit.core import available, parse_metric


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
        assert any(" ".join(info.summary.split()) in s for s in flat), info.name


def test_list_off_a_terminal_keeps_one_line_per_metric(capsys: Any, monkeypatch: Any) -> None:
    monkeypatch.setattr(_list, "_on_terminal", lambda: False)
    monkeypatch.setenv("COLUMNS", "60")
    assert main(["list"]) == 0
    lines = capsys.readouterr().out.split("\n\n")[0].splitlines()
    assert len(lines) == 1 + len(available())
    assert all(info.summary in line for info, line in zip(available(), lines[1:], strict=True))
