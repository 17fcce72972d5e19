"""The registry of the ``scorekit`` commands and the parser built from it.

A command is a module with ``NAME``, ``add_parser(sub)`` (adds its parser to
the subparsers ``sub`` and returns it) and ``run(args, out, err)`` (returns the
exit status). :func:`register_command` adds one; :func:`build_parser` builds
the ``scorekit`` parser from every registered command, in registration order.

A command's module is imported only when its parser is needed: a command
registered with its one-line help (every command of scorekit's own, in
:data:`_HELP`) is listed by ``scorekit --help`` from the registry, and its
module is imported when the arguments name it.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Sequence
from types import ModuleType

from scorekit import __version__
from scorekit.cli._flags import Parser
from scorekit.errors import ConfigError, message, raw

__all__ = [
    "build_parser",
    "command_module",
    "command_names",
    "command_word",
    "register_command",
]

_COMMANDS: dict[str, str | ModuleType] = {
    "eval": "scorekit.cli._eval",
    "features": "scorekit.cli._features",
    "rank": "scorekit.cli._rank",
    "fuse": "scorekit.cli._fuse",
    "text": "scorekit.cli._text",
    "qa": "scorekit.cli._qa",
    "throughput": "scorekit.cli._throughput",
    "merge": "scorekit.cli._merge",
    "loadtest": "scorekit.cli._loadtest",
    "list": "scorekit.cli._list",
    "explain": "scorekit.cli._explain",
    "demo": "scorekit.cli._demo",
}

_HELP: dict[str, str] = {
    "eval": "evaluate predictions in a CSV, TSV, Parquet or JSON Lines file",
    "features": "rank the columns of a file as decision-tree splits of a target",
    "rank": "evaluate a TREC run against its qrels (ranking metrics, like trec_eval)",
    "fuse": "fuse several TREC runs into one (RRF, CombSUM, CombMNZ...)",
    "text": "BLEU, chrF, TER, WER and ROUGE of line-aligned hypothesis and reference files",
    "qa": "SQuAD exact match and F1, like the official evaluation scripts",
    "throughput": "LLM serving throughput, latency and goodput of request records",
    "merge": "merge the state files of shards (--save-state) and print the values of the whole",
    "loadtest": "load-test an OpenAI-compatible LLM server and report its throughput and latency",
    "list": "list the registered metrics",
    "explain": "definition, formula and a worked example of a metric",
    "demo": "evaluate the bundled example files",
}
"""The one-line help of the commands ``scorekit --help`` lists without importing their module.

Each is the ``help`` its module's ``add_parser`` gives.
"""


def register_command(name: str, module: str | ModuleType, help: str | None = None) -> None:
    """Add the command ``name``, run by ``module`` (a module or its import path).

    Parameters
    ----------
    name : str
        The command's name; a name already registered is an error.
    module : str or module
        The module that defines ``add_parser(sub)`` and ``run(args, out, err)``,
        or its import path.
    help : str, optional
        The command's one-line help, as its ``add_parser`` gives it. Given, the
        module is imported only when the arguments name the command, and
        ``scorekit --help`` lists this line; without it, the module is imported
        whenever the parser is built.

    Examples
    --------
    >>> "eval" in command_names()
    True
    """
    if name in _COMMANDS:
        raise ConfigError(
            message("register_command", "a command of that name exists", name, "a new name")
        )
    if not isinstance(module, str | ModuleType):
        raise ConfigError(
            message(
                "register_command",
                "not a module",
                raw(type(module).__name__),
                "a module or its import path",
            )
        )
    if help is not None and not isinstance(help, str):
        raise ConfigError(
            message("register_command", "the help is not text", raw(type(help).__name__), "a str")
        )
    _COMMANDS[name] = module
    if help is None:
        _HELP.pop(name, None)
    else:
        _HELP[name] = help


def command_names() -> list[str]:
    """The registered commands, in the order ``scorekit --help`` lists them."""
    return list(_COMMANDS)


def command_module(name: str) -> ModuleType | None:
    """The module of the registered command ``name`` (imported now), or None."""
    return _module(name) if name in _COMMANDS else None


def _module(name: str) -> ModuleType:
    module = _COMMANDS[name]
    if isinstance(module, str):
        module = importlib.import_module(module)
    return module


def command_word(argv: Sequence[str]) -> str | None:
    """The command the arguments name: the first one that is not an option.

    The ``scorekit`` parser's own options (``--help``, ``--version``) take no
    value, so the first argument not starting with ``-`` is the command word;
    None when there is none.

    Examples
    --------
    >>> command_word(["--version"]), command_word(["-h", "eval", "--help"])
    (None, 'eval')
    """
    return next((arg for arg in argv if not arg.startswith("-")), None)


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The argument parser of the ``scorekit`` command, one subparser per registered command.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments the parser is for. Only the command they name (see
        :func:`command_word`) and the commands registered without a help line
        have their parsers built in full, their modules imported; every other
        command is listed by name and help line, which is all ``scorekit
        --help`` shows and all an unknown command's error names. Without
        ``argv``, every command's parser is built in full.

    Returns
    -------
    argparse.ArgumentParser
        The parser; the subparser of a command sets ``handler`` to its ``run``.

    Examples
    --------
    >>> args = build_parser(["list"]).parse_args(["list", "--format", "json"])
    >>> args.command, args.format
    ('list', 'json')
    """
    parser = Parser(
        prog="scorekit",
        description="Evaluation metrics for machine learning, from the command line.",
    )
    parser.add_argument("--version", action="version", version=f"scorekit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    sub.required = True
    wanted = None if argv is None else command_word(argv)
    for name in _COMMANDS:
        if argv is not None and name != wanted and name in _HELP:
            sub.add_parser(name, help=_HELP[name], add_help=False)
            continue
        module = _module(name)
        module.add_parser(sub).set_defaults(handler=module.run)
    return parser
