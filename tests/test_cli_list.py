"""``scorekit list``: the variant forms (``ttft:pN``) in the JSON and under the table."""

from __future__ import annotations

import json
from typing import Any

from scorekit.cli import main
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
    out = capsys.readouterr().out
    forms = sorted(f"{i.name}:{i.variant_form}" for i in available() if i.variant_form)
    assert forms and f"Variant forms: {', '.join(forms)}" in out
    assert f"(for example {forms[0].replace('N', '95')})" in out
