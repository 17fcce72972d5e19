"""A process that has imported scorekit and forks one child per ``python -m scorekit`` run.

Started by :func:`hostile.scorekit` once per test process. Each request arrives on
the Unix socket given as the first argument: a JSON object (``args``, ``cwd``,
``memory``) with the child's stdin, stdout and stderr as passed file descriptors.
The child takes them as fds 0, 1 and 2, moves to ``cwd``, limits its address
space and runs the ``scorekit`` module as ``__main__``, as ``python -m scorekit``
does; it then ends as that interpreter would (``SystemExit`` and uncaught
exceptions propagate to the top level, and the interpreter shuts down as usual).
The server answers the child's pid when it starts and its exit status when it ends.

Only the imports are shared: a child starts from the state the server had before
any command ran, in a process of its own.
"""

from __future__ import annotations

import gc
import json
import os
import resource
import runpy
import socket
import sys


def _warm_up() -> None:
    """Import what the commands import, so that a child does not pay for it.

    Every scorekit module but the Dask engine's (Dask and distributed stay out of
    the server: a child that needs them imports them, as a fresh process does),
    and the libraries the commands load lazily to read files.
    """
    import importlib
    import pkgutil

    import scorekit

    for module in pkgutil.walk_packages(scorekit.__path__, "scorekit."):
        if "dask" not in module.name:
            importlib.import_module(module.name)
    scorekit.available()
    for name in ("pandas", "pyarrow.csv", "pyarrow.json", "pyarrow.parquet"):
        importlib.import_module(name)


def _child(request: dict[str, object], fds: list[int]) -> None:
    """Become ``python -m scorekit ARGS``; never returns."""
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
    for fd in fds:
        if fd > 2:
            os.close(fd)
    cwd = request["cwd"]
    if isinstance(cwd, str):
        os.chdir(cwd)
    memory = request["memory"]
    if isinstance(memory, int):
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    args = request["args"]
    assert isinstance(args, list)
    sys.argv = ["-m", *map(str, args)]
    sys.path.insert(0, os.getcwd())
    runpy.run_module("scorekit", run_name="__main__", alter_sys=True)
    raise SystemExit(0)


def serve(control: socket.socket) -> None:
    """Answer requests until the test process closes its end of the socket."""
    while True:
        message, fds, _, _ = socket.recv_fds(control, 1 << 16, 3)
        if not message:
            return
        request = json.loads(message)
        pid = os.fork()
        if pid == 0:
            control.close()
            _child(request, fds)
        for fd in fds:
            os.close(fd)
        control.send(str(pid).encode())
        _, status = os.waitpid(pid, 0)
        control.send(str(os.waitstatus_to_exitcode(status)).encode())


if __name__ == "__main__":
    # the module search path of ``python -m``: no entry for this file's directory
    del sys.path[0]
    control = socket.socket(fileno=int(sys.argv[1]))
    _warm_up()
    # the imported objects to the permanent generation: a child's collections and its
    # exit skip them (and do not copy their pages), as in any server that forks workers
    gc.freeze()
    control.send(b"ready")
    serve(control)
