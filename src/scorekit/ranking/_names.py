"""The names trec_eval and ir_measures give the ranking measures, both ways.

Users paste measure names from trec_eval (``P_5``, ``P.5``, ``ndcg_cut.10``,
``recip_rank``, ``Rprec``, ``map_cut.100``, ``infAP``, ``gm_map``, ``success.10``,
``ndcg.1=3,2=9``) and from ir_measures (``nDCG@10``, ``AP@100``, ``RR@10``,
``P@5``, ``R@100``, ``Judged@10``, ``RBP(p=0.8)``, ``Success@10``). :func:`translate`
maps each onto one scorekit metric string; it is registered with the metric-name
parser, so every place that reads metric names reads these too. :func:`foreign_name`
goes back: the name the tool prints for a scorekit metric.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from scorekit.core import Metric, parse_metric, register_spelling
from scorekit.errors import ConfigError, choices, message
from scorekit.ranking._gains import format_gains

__all__ = ["TOOLS", "foreign_name", "translate"]

Tool = Literal["trec", "ir_measures"]
TOOLS: tuple[Tool, ...] = ("trec", "ir_measures")
"""The tools whose measure names :func:`foreign_name` writes."""

_TREC_SCALAR = {
    "map": "map",
    "gm_map": "gm_map",
    "Rprec": "r_precision",
    "recip_rank": "mrr",
    "bpref": "bpref",
    "infAP": "infap",
    "ndcg": "ndcg",
    "rbp": "rbp",
    "rbp_resid": "rbp_resid",
}
"""trec_eval measures without a parameter -> scorekit metric strings."""

_TREC_CUT = {
    "P": "p",
    "recall": "recall_at",
    "map_cut": "map",
    "ndcg_cut": "ndcg",
    "success": "hit_rate",
}
"""trec_eval measures whose parameter is a cutoff -> scorekit metric names."""

_IR_MEASURES = {
    "nDCG": "ndcg",
    "AP": "map",
    "RR": "mrr",
    "P": "p",
    "R": "recall_at",
    "Judged": "judged",
    "RBP": "rbp",
    "Success": "hit_rate",
    "Rprec": "r_precision",
    "Bpref": "bpref",
    "infAP": "infap",
}
"""ir_measures measures -> scorekit metric names."""

_IR_PARAMS = {"rel": "relevance_level", "p": "p", "judged_only": "judged_only", "gains": "gains"}
"""ir_measures parameters -> scorekit options."""

_IR_FORM = re.compile(r"^(?P<name>[A-Za-z]+)(?:\((?P<params>[^()]*)\))?(?:@(?P<k>\d+))?$")


def translate(spec: str) -> str | None:
    """The scorekit metric string of a trec_eval or ir_measures measure name, or None.

    Examples
    --------
    >>> [translate(s) for s in ["P_5", "ndcg_cut.10", "Rprec", "nDCG@10", "RBP", "RBP(p=0.9)"]]
    ['p@5', 'ndcg@10', 'r_precision', 'ndcg@10', 'rbp:p=0.8', 'rbp:p=0.9']
    >>> translate("ndcg.1=3,2=9")
    'ndcg:gains=1=3;2=9'
    >>> translate("no_such_measure") is None
    True
    """
    return _from_trec(spec) or _from_ir_measures(spec)


def _from_trec(spec: str) -> str | None:
    if spec in _TREC_SCALAR:
        return _TREC_SCALAR[spec]
    for base in sorted(_TREC_CUT, key=len, reverse=True):
        for sep in "._":
            prefix = base + sep
            if spec.startswith(prefix) and spec[len(prefix) :].isdigit():
                k = int(spec[len(prefix) :])
                return f"{_TREC_CUT[base]}@{k}" if k > 0 else None
    if spec.startswith(("ndcg.", "ndcg_")) and "=" in spec:
        return "ndcg:gains=" + spec[5:].replace(",", ";")
    return None


def _from_ir_measures(spec: str) -> str | None:
    match = _IR_FORM.match(spec)
    if match is None or match["name"] not in _IR_MEASURES:
        return None
    name = _IR_MEASURES[match["name"]]
    options: list[str] = ["p=0.8"] if name == "rbp" and "p=" not in (match["params"] or "") else []
    for item in _split_params(match["params"] or ""):
        key, eq, value = (part.strip() for part in item.partition("="))
        if not eq or key not in _IR_PARAMS:
            return None
        if key == "gains":
            pairs = re.findall(r"(-?[\d.]+)\s*:\s*(-?[\d.]+)", value)
            if not pairs:
                return None
            value = ";".join(f"{g}={v}" for g, v in pairs)
        options.append(f"{_IR_PARAMS[key]}={value}")
    at = f"@{match['k']}" if match["k"] else ""
    return name + at + (":" + ",".join(options) if options else "")


def _split_params(text: str) -> list[str]:
    """``a=1,gains={0:0,1:1}`` -> ``['a=1', 'gains={0:0,1:1}']`` (commas inside braces kept)."""
    items: list[str] = []
    depth = 0
    current = ""
    for ch in text:
        depth += (ch == "{") - (ch == "}")
        if ch == "," and depth == 0:
            items.append(current)
            current = ""
        else:
            current += ch
    if current.strip():
        items.append(current)
    return items


def foreign_name(spec: str | Metric[Any], tool: Tool) -> str:
    """The name ``tool`` gives the metric ``spec``; the scorekit string where it has none.

    Parameters
    ----------
    spec : str or Metric
        A metric string (any spelling :func:`scorekit.parse_metric` reads) or a metric.
    tool : {'trec', 'ir_measures'}
        trec_eval's names (``ndcg_cut_10``, ``P_5``, ``recip_rank``) or
        ir_measures' (``nDCG@10``, ``P@5``, ``RR``).

    Examples
    --------
    >>> [foreign_name(s, "trec") for s in ["ndcg@10", "p@5", "mrr", "map@100", "infap"]]
    ['ndcg_cut_10', 'P_5', 'recip_rank', 'map_cut_100', 'infAP']
    >>> [foreign_name(s, "ir_measures") for s in ["ndcg@10", "map", "recall@100", "rbp"]]
    ['nDCG@10', 'AP', 'R@100', 'RBP(p=0.9)']
    """
    if tool not in TOOLS:
        raise ConfigError(message("foreign_name", "unknown tool", tool, choices(TOOLS)))
    text = spec if isinstance(spec, str) else spec.name
    head = text.partition(":")[0].partition("@")[0]
    metric = parse_metric("map" + text[len(head) :] if head == "ap" else spec)
    name = _trec_name(metric) if tool == "trec" else _ir_measures_name(metric)
    return name or text


def _trec_name(metric: Metric[Any]) -> str | None:
    k = getattr(metric, "k", None)
    kind = metric.name
    if kind == "ndcg" and getattr(metric, "gains", None) is not None:
        return None if k is not None else "ndcg_" + format_gains(metric.gains).replace(";", ",")  # type: ignore[attr-defined]
    if kind in ("rbp", "rbp_resid"):
        return kind if getattr(metric, "p", None) == 0.9 and k is None else None
    if k is None:
        back = {v: t for t, v in _TREC_SCALAR.items()}
        return back.get(kind)
    cut = {v: t for t, v in _TREC_CUT.items()}
    return f"{cut[kind]}_{k}" if kind in cut else None


def _ir_measures_name(metric: Metric[Any]) -> str | None:
    back = {v: t for t, v in _IR_MEASURES.items()}
    kind = metric.name
    if kind not in back:
        return None
    params: list[str] = []
    level = getattr(metric, "relevance_level", 1.0)
    if level != 1 and kind not in ("ndcg", "judged"):
        params.append(f"rel={int(level) if level == int(level) else level}")
    if kind == "rbp":
        params.append(f"p={metric.p}")  # type: ignore[attr-defined]
    gains = getattr(metric, "gains", None)
    if gains is not None:
        body = ", ".join(f"{int(g)}: {int(v) if v == int(v) else v}" for g, v in gains)
        params.append(f"gains={{{body}}}")
    if getattr(metric, "judged_only", False):
        params.append("judged_only=True")
    k = getattr(metric, "k", None)
    return back[kind] + (f"({','.join(params)})" if params else "") + (f"@{k}" if k else "")


register_spelling(
    translate,
    names=[*_TREC_SCALAR, *_TREC_CUT, "ndcg_cut", *_IR_MEASURES],
)
