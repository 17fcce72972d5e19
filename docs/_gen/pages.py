"""The generated pages of the documentation site, from scorekit's registry and docstrings.

Every function here returns Markdown (or a list of problems); ``hooks.py`` adds the
pages to the MkDocs build and fails it on a problem. The metric pages render the
text of :func:`scorekit.explain.explain`, block by block, so the site and
``scorekit explain`` cannot disagree. The written text of the generated pages is in
this folder, which the site leaves out: ``metrics.md`` (the overview of the families
below the metrics index's table) and ``speed.md`` (the speed page around its table).
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import json
import sys
import textwrap
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
SPEED_TABLE = "<!-- speed-table -->"
"""The line of ``speed.md`` that the table of every benchmark row replaces."""

FAMILIES: dict[str, str] = {
    "classification": "Classification",
    "multilabel": "Multi-label",
    "regression": "Regression",
    "ranking": "Ranking",
    "text": "Text",
    "qa": "Question answering",
    "throughput": "Serving throughput",
    "information": "Information",
}
"""Family (package of ``scorekit``) -> the title of its page."""

PACKAGES: tuple[str, ...] = (
    "scorekit",
    "scorekit.classification",
    "scorekit.multilabel",
    "scorekit.regression",
    "scorekit.ranking",
    "scorekit.text",
    "scorekit.qa",
    "scorekit.throughput",
    "scorekit.information",
    "scorekit.stats",
    "scorekit.plot",
    "scorekit.report",
    "scorekit.api",
    "scorekit.engines",
    "scorekit.statefiles",
    "scorekit.io",
    "scorekit.core",
    "scorekit.errors",
    "scorekit.explain",
    "scorekit.loadtest",
    "scorekit.cli",
    "scorekit.compat.sklearn",
    "scorekit.compat.pytrec_eval",
    "scorekit.compat.sacrebleu",
    "scorekit.compat.ranx",
)
"""The public packages, one reference page each."""

COMPAT = ("sklearn", "pytrec_eval", "sacrebleu", "ranx")
"""The drop-in modules of ``scorekit.compat`` whose ``NAMES`` the migration tables show."""


class MissingModule(Exception):
    """A module the site documents does not exist."""


def page_of(package: str) -> str:
    """The reference page of a package: ``reference/classification.md``."""
    short = package.removeprefix("scorekit.") if package != "scorekit" else "scorekit"
    return f"reference/{short}.md"


def load(package: str) -> Any:
    """Import a documented module; a missing one raises :class:`MissingModule` naming it."""
    if importlib.util.find_spec(package) is None:
        raise MissingModule(
            f"{package} does not exist: the documentation site documents it "
            f"(page {page_of(package)}); create the module or drop it from docs/_gen/pages.py"
        )
    return importlib.import_module(package)


def family_of(info: Any) -> str:
    """The family of a registered metric: the scorekit package that defines its class."""
    parts = info.cls.__module__.split(".")
    return parts[1] if parts[0] == "scorekit" and len(parts) > 1 else parts[0]


# ---------------------------------------------------------------------------- checks


def _own_doc(obj: Any) -> str | None:
    if inspect.isclass(obj):
        doc = obj.__dict__.get("__doc__")
        # a dataclass without a docstring gets its signature as __doc__
        if not doc or doc.startswith(obj.__name__ + "("):
            return None
        return str(doc)
    return obj.__doc__ if isinstance(obj.__doc__, str) and obj.__doc__.strip() else None


def missing_docstrings(packages: tuple[str, ...] = PACKAGES) -> list[str]:
    """Every public function, class and public method of a public class without a docstring."""
    problems: list[str] = []
    for package in packages:
        module = load(package)
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            if not (inspect.isclass(obj) or inspect.isfunction(obj)):
                continue
            if _own_doc(obj) is None:
                problems.append(f"{package}.{name}")
            if inspect.isclass(obj):
                for attr, member in vars(obj).items():
                    if attr.startswith("_") or not inspect.isfunction(member):
                        continue
                    if _own_doc(member) is None and not _inherits_doc(obj, attr):
                        problems.append(f"{package}.{name}.{attr}")
    return problems


def _inherits_doc(cls: type, attr: str) -> bool:
    for base in cls.__mro__[1:]:
        member = base.__dict__.get(attr)
        if member is not None and getattr(member, "__doc__", None):
            return True
    return False


def public_names(packages: tuple[str, ...] = PACKAGES) -> list[str]:
    """The full dotted name of every entry of every public package's ``__all__``."""
    names = []
    for package in packages:
        module = load(package)
        names += [f"{package}.{name}" for name in getattr(module, "__all__", [])]
    return names


# ---------------------------------------------------------------------- reference


def reference_page(package: str) -> str:
    """The API reference page of one package: its docstring and every public name.

    A name the package loads lazily, or one that shadows a submodule of the same
    name (``scorekit.text.bleu`` the function over the package ``bleu``), is not
    seen by the package's directive: it gets a directive of its own, at the path
    where it is defined.
    """
    lines = [f"::: {package}", ""]
    for _, path in hidden_names(package):
        lines += [
            f"::: {path}",
            "    options:",
            "      heading_level: 2",
            "      show_root_full_path: false",
            "",
        ]
    return "\n".join(lines)


def hidden_names(package: str) -> list[tuple[str, str]]:
    """Public names of ``package`` its own directive misses, with the path defining each."""
    module = load(package)
    out = []
    for name in getattr(module, "__all__", []):
        obj = getattr(module, name)
        if inspect.ismodule(obj):
            continue
        shadows = hasattr(module, "__path__") and (
            importlib.util.find_spec(f"{package}.{name}") is not None
        )
        if shadows or name not in vars(module):
            out.append((name, f"{obj.__module__}.{obj.__qualname__}"))
    return out


def reference_index() -> str:
    """The list of the reference pages, each with the first line of its package's docstring."""
    lines = [
        "# API reference",
        "",
        "One page per public package, generated from the docstrings: every name of the",
        "package's `__all__` with its signature, parameters, returns and examples (the",
        "examples run as doctests in `make test`).",
        "",
        "| package | what it holds |",
        "| --- | --- |",
    ]
    for package in PACKAGES:
        doc = inspect.getdoc(load(package)) or ""
        first = doc.strip().splitlines()[0] if doc.strip() else ""
        link = page_of(package).removeprefix("reference/")
        lines.append(f"| [`{package}`]({link}) | {first.replace('|', '/')} |")
    return "\n".join(lines) + "\n"


# -------------------------------------------------------------------------- metrics


def explain_blocks(spec: str) -> tuple[str, dict[str, str]]:
    """The title line and the titled blocks of ``scorekit explain SPEC``'s text."""
    from scorekit.explain import explain

    text = explain(spec)
    title, _, rest = text.partition("\n")
    blocks: dict[str, str] = {}
    current: list[str] | None = None
    for line in rest.splitlines():
        if line and not line.startswith(" "):
            current = []
            blocks[line] = ""
            key = line
        elif current is not None:
            blocks[key] += line + "\n"
    return title, {k: textwrap.dedent(v).strip("\n") for k, v in blocks.items()}


def _paragraph(text: str) -> str:
    return " ".join(text.split())


def metric_section(info: Any) -> str:
    """The section of one metric: the blocks of its ``scorekit explain`` text."""
    _, blocks = explain_blocks(info.name)
    name = info.name + (f"@{info.at}" if info.at else "")
    out = [f"## {name}", "", f"{info.summary}", ""]
    for key, body in blocks.items():
        if key == "Formula":
            out += ["**Formula**", "", "```text", body, "```", ""]
        elif key == "Usage":
            out += ["**Usage**", ""]
            out += [f"- {line}" for line in body.splitlines()]
            out.append("")
        elif key.startswith("Worked example") or key.startswith("Description"):
            out += [f"**{key}**", "", "```text", body, "```", ""]
        else:
            out += [f"**{key}.** {_paragraph(body)}", ""]
    cls = info.cls
    module = cls.__module__.split(".")
    package = ".".join(module[:2])
    if cls.__name__ in getattr(importlib.import_module(package), "__all__", []):
        out += [f"Class: [`{package}.{cls.__name__}`][{package}.{cls.__name__}]", ""]
    return "\n".join(out)


def family_page(family: str) -> str:
    """The page of one family: every registered metric of it, in the registry's order."""
    from scorekit.core import available

    metrics = [info for info in available() if family_of(info) == family]
    module = importlib.import_module(f"scorekit.{family}")
    doc = inspect.getdoc(module) or ""
    lines = [
        f"# {FAMILIES[family]} metrics",
        "",
        f"`scorekit.{family}`: {doc.strip().splitlines()[0] if doc.strip() else ''}",
        "",
        f"{len(metrics)} metrics, generated from the registry and the metric classes: the",
        "same text as `scorekit explain NAME`, and `scorekit list --family "
        f"{family}` lists them. The worked examples were computed when this page was built.",
        "",
        "| metric | direction | bounds | summary |",
        "| --- | --- | --- | --- |",
    ]
    from scorekit.explain import bound_text

    for info in metrics:
        name = info.name + (f"@{info.at}" if info.at else "")
        direction = {True: "higher", False: "lower", None: "—"}[info.higher_is_better]
        bounds = f"[{bound_text(info.bounds[0])}, {bound_text(info.bounds[1])}]"
        anchor = _slug(name)
        summary = info.summary.replace("|", "/")
        lines.append(f"| [`{name}`](#{anchor}) | {direction} | {bounds} | {summary} |")
    lines.append("")
    for info in metrics:
        lines.append(metric_section(info))
    return "\n".join(lines)


def _slug(title: str) -> str:
    """The anchor Python-Markdown's toc gives a heading."""
    import re
    import unicodedata

    value = unicodedata.normalize("NFKD", title)
    value = re.sub(r"[^\w\s-]", "", value).strip().lower()
    return re.sub(r"[-\s]+", "-", value)


def metrics_index() -> str:
    """The page listing the families with their number of metrics."""
    from scorekit.core import available

    counts: dict[str, int] = {}
    for info in available():
        counts[family_of(info)] = counts.get(family_of(info), 0) + 1
    lines = [
        "# Metrics",
        "",
        "Every registered metric, one page per family, generated from the registry: its",
        "definition, formula, the convention chosen, the reference implementation it agrees",
        "with, how to name it, and a worked example computed by scorekit.",
        "",
        "| family | metrics |",
        "| --- | --- |",
    ]
    for family, title in FAMILIES.items():
        lines.append(f"| [{title}]({family}.md) | {counts.get(family, 0)} |")
    lines += ["", (HERE / "metrics.md").read_text(encoding="utf-8")]
    return "\n".join(lines)


# ------------------------------------------------------------------------ migration


def compat_names(module: str) -> dict[str, str]:
    """The ``NAMES`` of ``scorekit.compat.<module>``: reference name -> scorekit name."""
    loaded = load(f"scorekit.compat.{module}")
    names = getattr(loaded, "NAMES", None)
    if not isinstance(names, dict):
        raise MissingModule(f"scorekit.compat.{module} has no NAMES dict")
    return dict(names)


def names_table(source: str) -> str:
    """A side-by-side table of names, for the placeholder ``<!-- names:SOURCE -->``."""
    if source in COMPAT:
        titles = {
            "sklearn": ("scikit-learn (`sklearn.metrics`)", "scorekit"),
            "pytrec_eval": ("pytrec_eval", "scorekit"),
            "sacrebleu": ("sacrebleu", "scorekit"),
            "ranx": ("ranx", "scorekit"),
        }[source]
        rows = sorted(compat_names(source).items())
        head = [f"| {titles[0]} | {titles[1]} |", "| --- | --- |"]
        return "\n".join(head + [f"| `{a}` | `{b}` |" for a, b in rows]) + "\n"
    if source == "trec":
        return _trec_table()
    if source == "text":
        return _text_table()
    if source == "vllm":
        return _vllm_table()
    raise MissingModule(f"no table of names called {source!r}")


_TREC_EXAMPLES = (
    "p@5", "p@10", "recall@100", "map", "map@100", "gm_map", "r_precision", "mrr", "mrr@10",
    "bpref", "infap", "ndcg", "ndcg@10", "hit_rate@10", "judged@10", "rbp", "rbp:p=0.8",
    "rbp_resid",
)  # fmt: skip


def _trec_table() -> str:
    """scorekit's ranking metrics with trec_eval's and ir_measures' names, from the registry."""
    from scorekit.core import parse_metric
    from scorekit.ranking import foreign_name

    lines = ["| scorekit | trec_eval / pytrec_eval | ir_measures |", "| --- | --- | --- |"]
    for spec in _TREC_EXAMPLES:
        parse_metric(spec)
        trec = foreign_name(spec, "trec")
        irm = foreign_name(spec, "ir_measures")
        trec_cell = "—" if trec == spec else f"`{trec}`"
        irm_cell = "—" if irm == spec else f"`{irm}`"
        lines.append(f"| `{spec}` | {trec_cell} | {irm_cell} |")
    return "\n".join(lines) + "\n"


_TEXT_ROWS = (
    ("sacrebleu `BLEU().corpus_score(hyps, [refs]).score`", "bleu", "x 100"),
    ("sacrebleu `BLEU().sentence_score(hyp, [ref])`", "scorekit.text.sentence_bleu", "x 100"),
    ("sacrebleu `CHRF()`", "chrf", "x 100"),
    ("sacrebleu `CHRF(word_order=2)`", "chrf++", "x 100"),
    ("sacrebleu `TER()`", "ter", "x 100"),
    ("rouge-score `RougeScorer(['rouge1'])`", "rouge1", "fraction"),
    ("rouge-score `RougeScorer(['rougeL'])`", "rougeL", "fraction"),
    ("rouge-score `RougeScorer(['rougeLsum'])`", "rougeLsum", "fraction"),
    ("rouge-score `use_stemmer=True`", "rouge1:stemmer=true", "fraction"),
    ("jiwer `wer`", "wer", "fraction"),
    ("jiwer `cer`", "cer", "fraction"),
    ("jiwer `mer` / `wil` / `wip`", "mer", "fraction"),
    ("evaluate `load('bleu')` / `load('sacrebleu')`", "bleu", "fraction / x 100"),
    ("evaluate `load('rouge')`", "rougeL", "fraction"),
    ("evaluate `load('wer')` / `load('cer')`", "wer", "fraction"),
    ("evaluate `load('chrf')`", "chrf", "x 100"),
    ("evaluate `load('ter')`", "ter", "x 100"),
    ("evaluate `load('squad')` / `load('squad_v2')`", "scorekit.qa.squad", "x 100"),
    ("evaluate `load('exact_match')`", "exact_match", "fraction"),
    ("evaluate `load('perplexity')`", "perplexity", "same"),
)
"""Text metrics of other libraries -> the scorekit metric string, and their scale."""


def _text_table() -> str:
    from scorekit.core import parse_metric

    lines = ["| elsewhere | scorekit | their scale |", "| --- | --- | --- |"]
    for theirs, ours, scale in _TEXT_ROWS:
        if ours.startswith("scorekit."):
            module, _, name = ours.rpartition(".")
            doc = inspect.getdoc(getattr(importlib.import_module(module), name)) or ""
            summary = doc.splitlines()[0] if doc else ""
        else:
            summary = parse_metric(ours).info.summary
        lines.append(f"| {theirs} | `{ours}` ({summary.replace('|', '/')}) | {scale} |")
    return "\n".join(lines) + "\n"


_VLLM_ROWS = (
    ("request_throughput", "request_throughput"),
    ("output_throughput", "output_throughput"),
    ("total_token_throughput", "total_token_throughput"),
    ("request_goodput", "goodput"),
    ("mean_ttft_ms / median_ttft_ms / p99_ttft_ms", "ttft:mean / ttft:median / ttft:p99"),
    ("mean_tpot_ms / median_tpot_ms / p99_tpot_ms", "tpot:mean / tpot:median / tpot:p99"),
    ("mean_itl_ms / median_itl_ms / p99_itl_ms", "itl:mean / itl:median / itl:p99"),
    ("mean_e2el_ms / p99_e2el_ms", "e2e_latency:mean / e2e_latency:p99"),
    ("completed / failed", "failed_requests"),
)
"""vLLM's ``benchmark_serving`` result keys -> scorekit metric strings."""


def _vllm_table() -> str:
    from scorekit.core import parse_metric

    lines = ["| vLLM `benchmark_serving` | scorekit | unit |", "| --- | --- | --- |"]
    for theirs, ours in _VLLM_ROWS:
        for spec in ours.split(" / "):
            parse_metric(spec)
        unit = "seconds (vLLM: ms)" if "_ms" in theirs else "same"
        cells = " / ".join(f"`{s}`" for s in ours.split(" / "))
        lines.append(f"| `{theirs}` | {cells} | {unit} |")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------- speed


def speed_page() -> str:
    """The speed page: ``speed.md`` with the table of every row of the results file."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import results
    finally:
        sys.path.pop(0)
    data = json.loads((ROOT / "benchmarks" / "results.json").read_text(encoding="utf-8"))
    text = (HERE / "speed.md").read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    if lines.count(SPEED_TABLE + "\n") != 1:
        raise ValueError(f"docs/_gen/speed.md: the line {SPEED_TABLE} must be there, once")
    return text.replace(SPEED_TABLE + "\n", results.render(data, full=True))
