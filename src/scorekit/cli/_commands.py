"""The registry of the ``scorekit`` commands and the parser built from it.

A command is a module with ``NAME``, ``add_parser(sub)`` (adds its parser to
the subparsers ``sub`` and returns it) and ``run(args, out, err)`` (returns the
exit status). :func:`register_command` adds one; :func:`build_parser` builds
the ``scorekit`` parser from every registered command, in registration order.
"""

from __future__ import annotations

import argparse
import importlib
from types import ModuleType

from scorekit import __version__
from scorekit.cli._flags import Parser
from scorekit.errors import ConfigError, message, raw

__all__ = ["build_parser", "command_names", "register_command"]

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


def register_command(name: str, module: str | ModuleType) -> None:
    """Add the command ``name``, run by ``module`` (a module or its import path).

    The module defines ``add_parser(sub)`` and ``run(args, out, err)``; it is
    imported when the parser is built. A name already registered is an error.

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
    _COMMANDS[name] = module


def command_names() -> list[str]:
    """The registered commands, in the order ``scorekit --help`` lists them."""
    return list(_COMMANDS)


def _module(name: str) -> ModuleType:
    module = _COMMANDS[name]
    if isinstance(module, str):
        module = importlib.import_module(module)
    return module


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``scorekit`` command, one subparser per registered command."""
    parser = Parser(
        prog="scorekit",
        description="Evaluation metrics for machine learning, from the command line.",
    )
    parser.add_argument("--version", action="version", version=f"scorekit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    sub.required = True
    for name in _COMMANDS:
        module = _module(name)
        module.add_parser(sub).set_defaults(handler=module.run)
    return parser
