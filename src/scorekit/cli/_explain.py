"""``scorekit explain``: the definition, formula and a worked example of one metric."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from scorekit.explain import explain

NAME = "explain"


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """The ``explain`` command's parser."""
    ex: argparse.ArgumentParser = sub.add_parser(
        NAME, help="definition, formula and a worked example of a metric"
    )
    ex.add_argument("name", metavar="NAME")
    return ex


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Print :func:`scorekit.explain.explain` of the metric named."""
    out.write(explain(args.name) + "\n")
    return 0
