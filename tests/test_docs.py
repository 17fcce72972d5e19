"""The documentation site: built offline, every public name in the reference, generated tables.

``make test`` builds the site (``mkdocs build --strict`` into ``build/site``) before the
tests run; run alone, the tests build it once into a temporary folder.
"""

from __future__ import annotations

import html
import importlib
import os
import re
import subprocess
import sys
import zlib
from pathlib import Path
from typing import Any

import pytest

from conftest import ROOT
from scorekit.core import available
from scorekit.explain import explain

pytest.importorskip("mkdocs")

sys.path.insert(0, str(ROOT / "docs" / "_gen"))
sys.path.insert(0, str(ROOT / "benchmarks"))

import pages

import results

BUILT = ROOT / "build" / "site"


@pytest.fixture(scope="module")
def site(tmp_path_factory: Any) -> Path:
    """The built site: ``make test``'s, or one built here when there is none."""
    if (BUILT / "index.html").exists() and (BUILT / "objects.inv").exists():
        return BUILT
    out = tmp_path_factory.mktemp("site")
    subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(out)],
        cwd=ROOT,
        check=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    return out


def _inventory(site: Path) -> set[str]:
    data = (site / "objects.inv").read_bytes()
    body = zlib.decompress(data.split(b"\n", 4)[4]).decode("utf-8")
    return {line.split(" ", 1)[0] for line in body.splitlines() if line}


def test_every_public_name_is_in_the_reference(site: Path) -> None:
    found = _inventory(site)
    names = pages.public_names()
    assert len(names) > 500
    hidden = {
        f"{package}.{name}": path
        for package in pages.PACKAGES
        for name, path in pages.hidden_names(package)
    }
    missing = [n for n in names if n not in found and hidden.get(n) not in found]
    assert missing == []


def test_every_public_function_and_class_has_a_docstring() -> None:
    assert pages.missing_docstrings() == []


def test_the_docstring_check_finds_a_function_without_one(monkeypatch: Any) -> None:
    import scorekit.qa as qa

    def undocumented(x: int) -> int:
        return x

    monkeypatch.setattr(qa, "undocumented", undocumented, raising=False)
    monkeypatch.setattr(qa, "__all__", [*qa.__all__, "undocumented"])
    assert pages.missing_docstrings(("scorekit.qa",)) == ["scorekit.qa.undocumented"]


def test_a_missing_documented_module_fails_clearly() -> None:
    with pytest.raises(pages.MissingModule, match=r"scorekit\.compat\.nothing does not exist"):
        pages.load("scorekit.compat.nothing")


_LOADS = [
    re.compile(r"<(?:script|img|iframe|source|audio|video)\b[^>]*\bsrc=[\"']?(https?:)?//", re.I),
    re.compile(r"<link\b[^>]*\bhref=[\"']?(https?:)?//", re.I),
    re.compile(r"url\(\s*[\"']?(https?:)?//", re.I),
    re.compile(r"@import\s+(url\()?[\"']?(https?:)?//", re.I),
    re.compile(r"\bimportScripts\(\s*[\"'`]https?://", re.I),
]


def test_the_site_loads_nothing_from_the_network(site: Path) -> None:
    files = [p for p in site.rglob("*") if p.suffix in {".html", ".css", ".js"}]
    assert len(files) > 40
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        for pattern in _LOADS:
            match = pattern.search(text)
            assert match is None, f"{path.relative_to(site)}: {match and match.group(0)}"
    page = (site / "index.html").read_text(encoding="utf-8")
    assert "fonts.googleapis" not in page and "unpkg.com" not in page
    assert "assets/iframe-worker.js" in page


def test_search_works_offline(site: Path) -> None:
    index = (site / "search" / "search_index.js").read_text(encoding="utf-8")
    assert index.startswith("var __index = ")
    assert "ndcg" in index and "Getting started" in index


def test_formulas_are_mathml_and_constants_borrow_no_docstring(site: Path) -> None:
    """The docstrings' ``.. math::`` are drawn as MathML; class attributes borrow no docstring."""
    pages_ = {p.name: p.read_text(encoding="utf-8") for p in (site / "reference").glob("*.html")}
    text = "".join(pages_.values())
    assert ".. math::" not in text
    assert text.count('<div class="math"><math') >= 90
    assert '<div class="math"><math' in pages_["classification.html"]
    # class attributes (dataclass fields, dunders) no longer show their type's docstring
    for page in ("classification.html", "ranking.html", "text.html"):
        assert "__dataclass_fields__" not in pages_[page]
        assert html.escape("str(object='') -> str", quote=False) not in pages_[page]
    borrowed = [(k.__doc__ or "").splitlines()[0] for k in (str, int, float, dict, tuple)]
    assert sum(text.count(html.escape(line, quote=False)) for line in borrowed) == 0


def test_the_reference_shows_only_scorekits_own_docstrings(site: Path) -> None:
    """No docstring of Python's own objects, nor their special attributes, on a reference page."""
    import enum
    import inspect
    import typing

    from scorekit.core import MetricInfo

    raw = {p.name: p.read_text(encoding="utf-8") for p in (site / "reference").glob("*.html")}
    text = {
        name: " ".join(html.unescape(re.sub(r"<[^>]+>", "", page)).split())
        for name, page in raw.items()
    }
    assert len(text) > 20
    makers = (object, type, str, bytes, int, float, complex, bool, dict, list, tuple, set)
    makers += (frozenset, BaseException, Exception, ValueError, TypeError, KeyError, Warning)
    makers += (enum.Enum, typing.Union)
    docs = [maker.__doc__ for maker in makers]
    # the methods of object (__init__, __repr__...), of tuples, dicts and exceptions
    docs += [getattr(k, n).__doc__ for k in (object, tuple, dict, BaseException) for n in dir(k)]
    firsts = {
        " ".join(inspect.cleandoc(doc).splitlines()[0].split())
        for doc in docs
        if isinstance(doc, str) and doc.strip()
    }
    firsts = {line for line in firsts if len(line) >= 12} | {"Alias for field number"}
    assert "Initialize self. See help(type(self)) for accurate signature." in firsts
    assert {"Return repr(self).", "Built-in immutable sequence.", "int([x]) -> integer"} < firsts
    shown = [(name, line) for name, page in text.items() for line in firsts if line in page]
    assert sorted(shown) == []
    specials = ("__weakref__", "__dict__", "__slots__", "__module__", "__dataclass_fields__")
    assert sorted((name, s) for name, page in raw.items() for s in specials if s in page) == []
    # a class attribute holding a scorekit object shows not that object's class docstring
    first = inspect.getdoc(MetricInfo).splitlines()[0]
    heading = re.compile(r'<h\d id="[\w.]+\.MetricInfo"')
    documented = sum(len(heading.findall(page)) for page in raw.values())
    assert 1 <= sum(page.count(first) for page in text.values()) == documented
    # scorekit's own docstrings stay: a special method's, and a constant's written in its module
    assert 'id="scorekit.core.EvaluationResult.__getitem__"' in raw["core.html"]
    assert "The UTF-8 byte-order mark some tools write" in text["io.html"]
    assert "The value of a 0/0 ratio" in text["classification.html"]


def test_a_formula_that_does_not_convert_fails_the_build() -> None:
    import formulas
    from mkdocs.exceptions import PluginError

    out = formulas.math_blocks("Mean.\n\n.. math:: \\bar x = \\frac{1}{n}\n    \\sum_i x_i\n\nEnd.")
    assert out.splitlines()[0] == "Mean." and out.splitlines()[-1] == "End."
    assert "<msub>" in out and "<mfrac>" in out and "\\sum" not in out
    with pytest.raises(PluginError, match=r"^a\.b: the formula '\\\\frac\{' does not convert"):
        formulas.math_blocks(".. math:: \\frac{", "a.b")
    with pytest.raises(PluginError, match=r"a '\.\. math::' directive without a formula"):
        formulas.math_blocks(".. math::\n\nText", "a.b")


def test_every_registered_metric_has_its_section(site: Path) -> None:
    for family in pages.FAMILIES:
        html = (site / "metrics" / f"{family}.html").read_text(encoding="utf-8")
        for info in available():
            if pages.family_of(info) == family:
                name = info.name + (f"@{info.at}" if info.at else "")
                assert f">{name}<" in html.replace("&amp;", "&"), (family, name)
    families = {pages.family_of(info) for info in available()}
    assert families <= set(pages.FAMILIES)


def test_metric_sections_are_scorekit_explain() -> None:
    page = pages.family_page("ranking")
    text = explain("ndcg")
    example = text[text.index("Worked example") :].split("\n", 1)[1]
    import textwrap

    assert textwrap.dedent(example).strip() in page
    definition = text.split("Definition\n", 1)[1].split("\n\n", 1)[0]
    assert " ".join(definition.split()) in page


def test_migration_tables_come_from_the_compat_names() -> None:
    for module in pages.COMPAT:
        names = importlib.import_module(f"scorekit.compat.{module}").NAMES
        table = pages.names_table(module)
        for theirs, ours in names.items():
            assert f"| `{theirs}` | `{ours}` |" in table
    trec = pages.names_table("trec")
    assert "| `ndcg@10` | `ndcg_cut_10` | `nDCG@10` |" in trec
    assert "| `mrr` | `recip_rank` | `RR` |" in trec


def test_migration_pages_show_the_tables(site: Path) -> None:
    html = (site / "migration" / "sklearn.html").read_text(encoding="utf-8")
    assert "<code>f1_score</code>" in html and "<code>scorekit.classification.f1</code>" in html
    html = (site / "migration" / "trec.html").read_text(encoding="utf-8")
    assert "<code>ndcg_cut_10</code>" in html and "names:" not in html


def test_guides_include_the_readme() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    included = set()
    for path in (ROOT / "docs").rglob("*.md"):
        for section in re.findall(r'--8<-- "README\.md:([\w-]+)"', path.read_text()):
            assert f"[start:{section}]" in readme and f"[end:{section}]" in readme, section
            included.add(section)
    # a README section the site does not include is no section: it lives in one place
    assert set(re.findall(r"\[start:([\w-]+)\]", readme)) == included == {"intro", "setup"}
    generated = (ROOT / "docs" / "_gen" / "pages.py").read_text(encoding="utf-8")
    assert "README.md" not in generated


def test_readme_is_a_front_page() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 250
    assert "make demo" in readme and "make test" in readme
    imports = " ".join(re.findall(r"^>>> (?:from|import) scorekit\b.*$", readme, flags=re.M))
    for family in pages.FAMILIES:
        assert re.search(rf"\b{family}\b", imports), family


def test_readme_links_to_the_guides() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\((docs/[^)#]+)", readme)
    guides = {f"docs/guides/{p.name}" for p in (ROOT / "docs" / "guides").glob("*.md")}
    expected = {"docs/getting-started.md", "docs/extending.md", "docs/spark.md"}
    assert "docs/guides/large-files.md" in guides
    assert guides | expected <= set(links)
    for link in links:
        assert (ROOT / link).exists(), link
    assert "make docs" in readme and "build/site/index.html" in readme


def test_readme_speed_table_is_the_rendering_of_the_results_file() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    data = results.load()
    assert results.readme_table(readme) == results.render(data)
    assert len(data["rows"]) > 50
    assert all(row["module"].startswith("bench_") for row in data["rows"])
    shown = results.headline_rows(data)
    assert 5 <= len(shown) <= 20
    assert [r for r in data["rows"] if r in shown] == shown
    for line in results.row_lines(data, shown):
        assert line in readme
    left_out = next(row for row in data["rows"] if row not in shown)
    assert results.row_markdown(left_out).split(" | ", 1)[1] not in readme


def test_a_headline_task_without_a_row_is_an_error() -> None:
    data = {"machine": "m", "rows": [{"task": "mse (fast)"}, {"task": "mse, weighted"}]}
    assert results.headline_rows(data, ("mse",)) == [{"task": "mse (fast)"}]
    with pytest.raises(ValueError, match=r"the headline task 'r2' has no row"):
        results.headline_rows(data, ("mse", "r2"))


def test_the_speed_page_has_every_row_and_its_notes() -> None:
    page = pages.speed_page()
    data = results.load()
    assert results.render(data, full=True) in page
    for line in results.row_lines(data, data["rows"]):
        assert line in page
    notes = (ROOT / "docs" / "_gen" / "speed.md").read_text(encoding="utf-8")
    before, after = notes.split(pages.SPEED_TABLE + "\n")
    assert page.startswith(before) and page.endswith(after)
    assert "make bench" in before and "SQuAD reference" in after


def test_the_metrics_index_has_the_families_overview() -> None:
    page = pages.metrics_index()
    overview = (ROOT / "docs" / "_gen" / "metrics.md").read_text(encoding="utf-8")
    assert page.endswith(overview)
    assert "| [Classification](classification.md) |" in page
    assert "**Bounded alternatives.**" in overview


def test_results_update_replaces_one_modules_rows() -> None:
    data = {
        "machine": "m",
        "rows": [
            {"module": "bench_a", "task": "a1"},
            {"module": "bench_b", "task": "b1"},
            {"module": "bench_b", "task": "b2"},
            {"module": "bench_c", "task": "c1"},
        ],
    }
    new = results.update(data, "bench_b", [{"task": "b3"}])
    assert [r["task"] for r in new["rows"]] == ["a1", "b3", "c1"]
    new = results.update(data, "bench_d", [{"task": "d1"}])
    assert [r["task"] for r in new["rows"]][-1] == "d1"
    row = {
        "task": "t",
        "size": "10 rows",
        "ours": 0.5,
        "reference_name": "lib 1.0",
        "reference": 1.25,
        "ratio": 2.5,
        "agree": "yes",
    }
    line = results.row_markdown(row)
    assert line == "| t | 10 rows | 0.500 s | lib 1.0 1.250 s | **2.5x** | yes |"
    assert results.parse_rows([line], "bench_x") == [{"module": "bench_x", **row}]


def test_rows_of_another_machine_are_marked_and_named() -> None:
    row = {"size": "1", "ours": 1.0, "reference_name": "lib", "reference": 2.0}
    row |= {"ratio": 2.0, "agree": "yes"}
    data = {"machine": "old box", "rows": [{"module": "bench_a", "task": "a", **row}]}
    data = results.update(data, "bench_b", [{"task": "b", **row}], machine="new box")
    assert data["rows"][-1]["machine"] == "new box"
    table = results.render(data, full=True)
    # one row each: the file's machine is the main one, its rows are not marked
    assert table.startswith("Machine: old box.\n† measured on: new box.\n")
    assert "| a | 1 |" in table and "| b† | 1 |" in table
    data = results.update(data, "bench_a", [{"task": "a", **row}], machine="new box")
    assert results.render(data, full=True).startswith("Machine: new box.\n\n")
