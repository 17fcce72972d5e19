"""``scorekit text`` (BLEU and ROUGE of line-aligned files) and ``scorekit qa`` (SQuAD)."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any, TextIO

from scorekit.cli._output import _save_state, _Saved, _write_values
from scorekit.errors import ConfigError, InputError, message, raw

_TEXT_DEFAULTS = ("bleu", "rouge1", "rouge2", "rougeL")
_ROUGE_TYPE = re.compile(r"^rouge([1-9]|L|Lsum)$")


def _cmd_text(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from scorekit import _scale
    from scorekit.text import BLEU, ROUGE
    from scorekit.text._lines import read_parallel

    _scale.check_scale_flags(args, "text")
    scaled = _scale.scaled(args)
    hyps, refs = ([], []) if scaled else read_parallel(args.hyps, args.refs)
    names = list(dict.fromkeys(args.metric or _TEXT_DEFAULTS))
    unknown = [m for m in names if m != "bleu" and not _ROUGE_TYPE.match(m)]
    if unknown:
        raise ConfigError(
            message(
                "scorekit text",
                "unknown metric",
                unknown[0],
                "bleu, rouge1 ... rouge9, rougeL or rougeLsum",
            )
        )
    metrics: dict[str, Any] = {}
    if "bleu" in names:
        metrics["bleu"] = BLEU(tokenize=args.tokenize, lowercase=args.lowercase)
    types = [m for m in names if m != "bleu"]
    if types:
        metrics["rouge"] = ROUGE(types=types, stemmer=args.stemmer)
    if scaled:
        states, rows = _scale.text_states(args, metrics)
    else:
        states = {key: metric.summarize(refs, hyps) for key, metric in metrics.items()}
        rows = len(hyps)
    values = {key: metric.compute(states[key]) for key, metric in metrics.items()}
    shown, notes = _scale.display_values("text", values, metrics, states)
    if args.save_state:
        saved = _Saved(metrics, states, rows)
        _save_state(args.save_state, "text", "references_predictions", saved, columns=None)
    _write_values(shown, args.format, out)
    for note in notes:
        err.write(f"scorekit: {note}\n")
    return 0


def _read_json(path: str) -> Any:
    try:
        raw_text = Path(path).read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise InputError(message(path, "no such file", None, "an existing file")) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(message(path, "cannot read", raw(str(exc)), "a UTF-8 JSON file")) from None
    try:
        return json.loads(raw_text)
    except json.JSONDecodeError as exc:
        raise InputError(
            message(
                f"{path}, line {exc.lineno}, column {exc.colno}",
                "invalid JSON",
                raw(exc.msg),
                "a JSON document",
            )
        ) from None


def _cmd_qa(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    import warnings

    from scorekit import qa

    dataset = _read_json(args.dataset)
    predictions = _read_json(args.predictions)
    na_probs = _read_json(args.na_probs) if args.na_probs else None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = qa.squad(
            dataset,
            predictions,
            version=args.version,
            na_probs=na_probs,
            na_prob_thresh=args.na_prob_thresh,
        )
    for text in dict.fromkeys(str(w.message) for w in caught):
        err.write(f"scorekit: warning: {text}\n")
    _write_values(dict(result), args.format, out)
    return 0
