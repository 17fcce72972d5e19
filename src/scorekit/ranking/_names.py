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

import dataclasses
import re
from typing import Any, Literal

from scorekit.core import Metric, parse_metric, register_spelling
from scorekit.errors import ConfigError, choices, message
from scorekit.ranking._gains import format_gains

__all__ = ["TOOLS", "TREC_DEFAULTS", "TREC_NICKNAMES", "foreign_name", "translate", "trec_measures"]

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
    "num_q": "num_q",
    "num_ret": "num_ret",
    "num_rel": "num_rel",
    "num_rel_ret": "num_rel_ret",
    "num_nonrel_judged_ret": "num_nonrel_judged_ret",
    "gm_bpref": "gm_bpref",
    "utility": "utility",
    "11pt_avg": "eleven_pt_avg",
    "binG": "bin_g",
    "G": "g",
    "ndcg_rel": "ndcg_rel",
    "Rndcg": "rndcg",
    "set_P": "set_p",
    "set_recall": "set_recall",
    "set_F": "set_f",
    "set_map": "set_map",
    "set_relative_P": "set_relative_p",
}
"""trec_eval measures without a parameter -> scorekit metric strings."""

_TREC_CUT = {
    "P": "p",
    "recall": "recall_at",
    "map_cut": "map",
    "ndcg_cut": "ndcg",
    "success": "hit_rate",
    "relative_P": "relative_p",
    "unj": "unjudged",
}
"""trec_eval measures whose parameter is a cutoff -> scorekit metric names."""

_TREC_REAL = {
    "iprec_at_recall": ("iprec_at_recall", "recall"),
    "Rprec_mult": ("rprec_mult", "mult"),
}
"""trec_eval measures whose parameter is one real number -> scorekit name and option."""

_TREC_LIST = {
    "11pt_avg": ("eleven_pt_avg", "recalls"),
    "utility": ("utility", "coefficients"),
    "set_F": ("set_f", "weight"),
}
"""trec_eval measures whose parameters are a list of numbers -> scorekit name and option."""

_TREC_GAINS = {"ndcg": "ndcg", "G": "g", "ndcg_rel": "ndcg_rel", "Rndcg": "rndcg"}
"""trec_eval measures whose parameters are gains ``grade=gain`` -> scorekit names."""

_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
TREC_DEFAULTS: dict[str, tuple[float, ...]] = {
    "P": _CUTOFFS,
    "recall": _CUTOFFS,
    "map_cut": _CUTOFFS,
    "ndcg_cut": _CUTOFFS,
    "relative_P": _CUTOFFS,
    "success": (1, 5, 10),
    "unj": (5, 10, 20),
    "iprec_at_recall": (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0),
    "Rprec_mult": (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0),
}
"""trec_eval's measures that print one value per parameter, and their default parameters."""

TREC_NICKNAMES: dict[str, tuple[str, ...]] = {
    "official": (
        *("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec"),
        *("bpref", "recip_rank", "iprec_at_recall", "P"),
    ),
    "set": (
        *("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P"),
        *("set_recall", "set_relative_P", "set_map", "set_F"),
    ),
    "all_trec": (
        *("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec"),
        *("bpref", "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP"),
        *("gm_bpref", "Rprec_mult", "utility", "11pt_avg", "binG", "G", "ndcg", "ndcg_rel"),
        *("Rndcg", "ndcg_cut", "map_cut", "relative_P", "success", "set_P", "set_relative_P"),
        *("set_recall", "set_map", "set_F", "num_nonrel_judged_ret", "rbp", "rbp_resid", "unj"),
    ),
}
"""trec_eval's measure sets (``-m official``, ``-m all_trec``), in the order it prints them
(trec_eval 10's, with ``rbp``, ``rbp_resid`` and ``unj``)."""

_NOT_METRICS = ("runid", "relstring")
"""Names in trec_eval's sets that are labels, not measures: the run's tag, a string per query."""

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


_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)"


def _from_trec(spec: str) -> str | None:
    if spec in _TREC_SCALAR:
        return _TREC_SCALAR[spec]
    for base in sorted({*_TREC_REAL, *_TREC_LIST, *_TREC_GAINS}, key=len, reverse=True):
        if not spec.startswith((base + ".", base + "_")):
            continue
        params = spec[len(base) + 1 :]
        if base in _TREC_REAL and re.fullmatch(_NUMBER, params):
            name, option = _TREC_REAL[base]
            return f"{name}:{option}={float(params)!r}"
        items = params.split(",")
        if base in _TREC_LIST and all(re.fullmatch(_NUMBER, x) for x in items):
            name, option = _TREC_LIST[base]
            return f"{name}:{option}=" + ";".join(repr(float(x)) for x in items)
        if base in _TREC_GAINS and base != "ndcg" and "=" in params:
            return f"{_TREC_GAINS[base]}:gains=" + params.replace(",", ";")
        break
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


def trec_measures(spec: str) -> list[str] | None:
    """The scorekit metric strings of a trec_eval measure set or family, in trec_eval's order.

    A set (``official``, ``set``, ``all_trec``), a measure printed once per
    parameter named without parameters (``iprec_at_recall``, ``Rprec_mult``,
    ``ndcg_cut``, ``map_cut``, ``relative_P``, ``unj``; ``recall`` too, where
    it names no ranking metric of its own), or with several (``P.5,10``,
    ``iprec_at_recall.0.1,0.5``). None for anything else. ``runid`` and
    ``relstring`` are left out; ``rbp`` in a set is trec_eval's graded one.

    Examples
    --------
    >>> trec_measures("P.5,10")
    ['p@5', 'p@10']
    >>> trec_measures("ndcg_cut.10,23.4")
    ['ndcg@10', 'ndcg@23']
    >>> trec_measures("Rprec_mult")[:2]
    ['rprec_mult:mult=0.2', 'rprec_mult:mult=0.4']
    >>> trec_measures("official")[:4]
    ['num_q', 'num_ret', 'num_rel', 'num_rel_ret']
    >>> trec_measures("map") is None
    True
    """
    if spec in TREC_NICKNAMES:
        out: list[str] = []
        for name in TREC_NICKNAMES[spec]:
            if name in _NOT_METRICS:
                continue
            if name in TREC_DEFAULTS and name not in ("P", "success"):
                out.extend(trec_measures(name) or [])
            elif name in ("P", "success"):
                out.extend(_family(name, TREC_DEFAULTS[name]))
            elif name == "rbp":
                out.append("rbp:graded=trec_eval")
            else:
                out.append(_TREC_SCALAR[name])
        return out
    if spec in TREC_DEFAULTS and spec not in ("P", "success"):
        return _family(spec, TREC_DEFAULTS[spec])
    base, sep, params = spec.partition(".")
    if sep and base in TREC_DEFAULTS and "," in params:
        # trec_eval reads a cutoff as an integer: 23.4 is 23
        cut = base in _TREC_CUT and all(re.fullmatch(_NUMBER, p) for p in params.split(","))
        items = [str(int(float(p))) if cut else p for p in params.split(",")]
        return [_from_trec(f"{base}.{p}") or spec for p in items]
    return None


def _family(base: str, params: tuple[float, ...]) -> list[str]:
    out = []
    for value in params:
        text = f"{value:g}" if base in _TREC_REAL else str(int(value))
        out.append(_from_trec(f"{base}.{text}") or base)
    return [name.replace("recall_at@", "recall@") for name in out]


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
    back_gains = {v: t for t, v in _TREC_GAINS.items()}
    if kind in back_gains and getattr(metric, "gains", None) is not None:
        text = format_gains(metric.gains).replace(";", ",")  # type: ignore[attr-defined]
        return None if k is not None else f"{back_gains[kind]}_{text}"
    if getattr(metric, "gain", "linear") != "linear":
        return None
    if kind == "iprec_at_recall":
        return f"iprec_at_recall_{metric.recall:.2f}"  # type: ignore[attr-defined]
    if kind == "rprec_mult":
        return f"Rprec_mult_{metric.mult:.2f}"  # type: ignore[attr-defined]
    listed = {name: (trec, option) for trec, (name, option) in _TREC_LIST.items()}
    if kind in listed:
        trec, option = listed[kind]
        value = getattr(metric, option)
        default = {f.name: f.default for f in dataclasses.fields(metric)}[option]  # type: ignore[arg-type]
        if value == default:
            return trec
        if kind == "set_f":
            return None
        return f"{trec}_" + ",".join(_number_text(x) for x in value)
    if kind in ("rbp", "rbp_resid"):
        return kind if getattr(metric, "p", None) == 0.9 and k is None else None
    if k is None:
        back = {v: t for t, v in _TREC_SCALAR.items()}
        return back.get(kind)
    cut = {v: t for t, v in _TREC_CUT.items()}
    return f"{cut[kind]}_{k}" if kind in cut else None


def _number_text(x: float) -> str:
    return str(int(x)) if x == int(x) else repr(x)


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
    names=[*_TREC_SCALAR, *_TREC_CUT, *_TREC_REAL, *_TREC_LIST, *_TREC_GAINS, *_IR_MEASURES],
)
