"""Installed plug-ins: packages that name a module in the ``scorekit.plugins`` entry-point group."""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
import warnings

from scorekit.errors import PluginWarning

__all__ = ["DISABLE", "GROUP", "load_plugins", "plugins_loaded"]

GROUP = "scorekit.plugins"
"""The entry-point group a plug-in's package names its registering module in."""

DISABLE = "SCOREKIT_NO_PLUGINS"
"""An environment variable; set to anything but ``""`` or ``"0"``, no plug-in is loaded."""

_LOADED: dict[str, str] | None = None


def load_plugins() -> dict[str, str]:
    """Import every installed plug-in once; return ``{entry point name: module}`` of those loaded.

    A package becomes a plug-in by naming, in the entry-point group
    ``scorekit.plugins``, a module whose import registers its metrics, file
    formats, engines or commands (``add_provider``, ``io.register_format``,
    ``register_engine``, ``register_command``). The ``scorekit`` program loads
    plug-ins before it reads its arguments; in Python they are loaded the first
    time a metric name is not found (or by calling this function), so
    ``import scorekit`` imports none. A plug-in that fails to import is a
    :class:`PluginWarning` naming it and its error, and the others still load.
    Setting the environment variable ``SCOREKIT_NO_PLUGINS=1`` turns loading
    off.

    Returns
    -------
    dict of str to str
        The plug-ins loaded by this call or an earlier one.

    Examples
    --------
    >>> from scorekit.core import load_plugins
    >>> isinstance(load_plugins(), dict)
    True
    """
    global _LOADED
    if _LOADED is not None:
        return dict(_LOADED)
    _LOADED = {}
    if os.environ.get(DISABLE, "") not in ("", "0"):
        return {}
    if not _maybe_declared(GROUP):
        return {}
    from importlib.metadata import entry_points

    for entry in sorted(entry_points(group=GROUP), key=lambda e: e.name):
        try:
            # what a plug-in prints while loading goes to stderr: stdout is the command's
            with contextlib.redirect_stdout(sys.stderr):
                importlib.import_module(entry.module)
        except (Exception, SystemExit, KeyboardInterrupt) as exc:
            # a broken plug-in must not stop scorekit or the others, even by exiting
            warnings.warn(
                f"scorekit: plug-in {entry.name!r} (module {entry.module!r}) failed to load: "
                f"{type(exc).__name__}: {exc}; the other plug-ins are loaded "
                f"(set {DISABLE}=1 to load none)",
                PluginWarning,
                stacklevel=2,
            )
            continue
        _LOADED[entry.name] = entry.module
    return dict(_LOADED)


def _maybe_declared(group: str) -> bool:
    """Whether an installed distribution may name an entry point of ``group``.

    False only when none can: every distribution :mod:`importlib.metadata`
    would find is a ``*.dist-info`` or ``*.egg-info`` folder in a directory of
    ``sys.path`` (the only place the standard finder looks), and none of their
    ``entry_points.txt`` files contains the group's name. Reading those files
    takes a millisecond or two, where importing :mod:`importlib.metadata` takes
    tens of milliseconds, so a program with no plug-in installed does not
    import it. Anything else (another finder of distributions, a zip file or
    an egg on ``sys.path``) is True, and :func:`load_plugins` asks
    :mod:`importlib.metadata`.

    Examples
    --------
    >>> _maybe_declared("console_scripts")
    True
    """
    from importlib.machinery import PathFinder

    for finder in sys.meta_path:
        if finder is not PathFinder and hasattr(finder, "find_distributions"):
            return True
    needle = group.encode()
    for entry in sys.path:
        if not isinstance(entry, str) or entry.lower().endswith(".egg"):
            return True
        path = entry or "."
        try:
            children = list(os.scandir(path))
        except (FileNotFoundError, NotADirectoryError):
            if os.path.exists(path):
                return True  # a zip file: ask importlib.metadata
            continue
        except OSError:
            continue
        for child in children:
            if not child.name.lower().endswith((".dist-info", ".egg-info")):
                continue
            try:
                with open(os.path.join(child.path, "entry_points.txt"), "rb") as file:
                    if needle in file.read():
                        return True
            except OSError:
                continue
    return False


def plugins_loaded() -> bool:
    """Whether :func:`load_plugins` has run (or been turned off) in this process."""
    return _LOADED is not None
