"""Running the ``scorekit`` program on hostile inputs, with a time and a memory limit.

Every case of this directory states its kind (``silent``, ``lost``, ``crash``,
``hang``, ``memory``) and checks that scorekit answers with a clear error (exit
status 2, one ``scorekit:`` line, no traceback) or with the honest answer.

Each case runs in a process of its own, forked from a server that has already
imported scorekit (``forkserver.py``): the child runs ``python -m scorekit ARGS``
from there, with the same pipes, working directory, limits and exit as a fresh
interpreter, without paying a second of imports per case. ``SCOREKIT_HOSTILE_FRESH=1``
starts a fresh ``python -m scorekit`` for every case instead; so does a server whose
imports print anything (a fresh process would print it in every case).
"""

from __future__ import annotations

import atexit
import json
import locale
import os
import resource
import selectors
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path

__all__ = ["MEMORY_LIMIT", "TIME_LIMIT", "Run", "assert_clean_error", "scorekit"]

TIME_LIMIT = 60.0
"""Seconds a case may take before it counts as a hang."""

MEMORY_LIMIT = 3 * 2**30
"""Bytes of address space a case may use (pyarrow and numpy reserve some at start)."""

SERVER = Path(__file__).with_name("forkserver.py")


class Run(subprocess.CompletedProcess[str]):
    """A finished ``scorekit`` process: ``returncode``, ``stdout``, ``stderr``."""


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def _environment() -> dict[str, str]:
    return dict(os.environ, PYTHONWARNINGS="default", NO_COLOR="1")


def _text(data: bytes) -> str:
    """Output decoded as ``subprocess.run(text=True)`` decodes it (universal newlines)."""
    text = data.decode(locale.getpreferredencoding(False))
    return text.replace("\r\n", "\n").replace("\r", "\n")


class _ForkServer:
    """The server process and our end of its control socket."""

    def __init__(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        with tempfile.TemporaryFile() as log:
            self.process = subprocess.Popen(
                [sys.executable, str(SERVER), str(theirs.fileno())],
                pass_fds=[theirs.fileno()],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                env=_environment(),
            )
            theirs.close()
            self.control = ours
            ours.settimeout(TIME_LIMIT)
            try:
                ready = ours.recv(64)
            except TimeoutError:
                ready = b""
                self.process.kill()
            ours.settimeout(None)
            log.seek(0)
            printed = log.read()
        self.usable = ready == b"ready" and not printed
        self.lock = threading.Lock()
        if not self.usable:
            self.close()

    def close(self) -> None:
        self.control.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def run(
        self, command: list[str], cwd: Path | None, timeout: float, stdin: str | None
    ) -> subprocess.CompletedProcess[str]:
        with self.lock:
            return self._run(command, cwd, timeout, stdin)

    def _run(
        self, command: list[str], cwd: Path | None, timeout: float, stdin: str | None
    ) -> subprocess.CompletedProcess[str]:
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        in_r, in_w = os.pipe() if stdin is not None else (0, -1)
        request = {
            "args": command[3:],
            "cwd": None if cwd is None else str(cwd),
            "memory": MEMORY_LIMIT,
        }
        socket.send_fds(self.control, [json.dumps(request).encode()], [in_r, out_w, err_w])
        for fd in (out_w, err_w, *((in_r,) if stdin is not None else ())):
            os.close(fd)
        pid = int(self.control.recv(64))
        deadline = time.monotonic() + timeout
        pending = b"" if stdin is None else stdin.encode(locale.getpreferredencoding(False))
        chunks: dict[int, list[bytes]] = {out_r: [], err_r: []}
        timed_out = False
        with selectors.DefaultSelector() as selector:
            selector.register(out_r, selectors.EVENT_READ)
            selector.register(err_r, selectors.EVENT_READ)
            if stdin is not None:
                os.set_blocking(in_w, False)
                selector.register(in_w, selectors.EVENT_WRITE)
            while selector.get_map():
                left = deadline - time.monotonic()
                if left <= 0 and not timed_out:
                    timed_out = True
                    os.kill(pid, signal.SIGKILL)
                for key, _ in selector.select(None if timed_out else left):
                    fd = key.fd
                    if fd == in_w:
                        try:
                            pending = pending[os.write(in_w, pending[: 1 << 16]) :]
                        except BrokenPipeError:
                            pending = b""
                        if not pending:
                            selector.unregister(in_w)
                            os.close(in_w)
                        continue
                    data = os.read(fd, 1 << 16)
                    if data:
                        chunks[fd].append(data)
                    else:
                        selector.unregister(fd)
                        os.close(fd)
        self.control.settimeout(None if timed_out else max(deadline - time.monotonic(), 1e-3))
        try:
            code = int(self.control.recv(64))
        except TimeoutError:
            timed_out = True
            os.kill(pid, signal.SIGKILL)
            self.control.settimeout(None)
            code = int(self.control.recv(64))
        finally:
            self.control.settimeout(None)
        out, err = b"".join(chunks[out_r]), b"".join(chunks[err_r])
        if timed_out:
            raise subprocess.TimeoutExpired(command, timeout, output=out, stderr=err)
        return subprocess.CompletedProcess(command, code, _text(out), _text(err))


_server: _ForkServer | None = None
_server_lock = threading.Lock()


def _fork_server() -> _ForkServer | None:
    """The server of this test process, started on first use; None to run fresh processes."""
    global _server
    if os.environ.get("SCOREKIT_HOSTILE_FRESH") == "1":
        return None
    with _server_lock:
        if _server is None:
            _server = _ForkServer()
            if _server.usable:
                atexit.register(_server.close)
        return _server if _server.usable else None


def scorekit(
    *args: str | os.PathLike[str],
    cwd: Path | None = None,
    timeout: float = TIME_LIMIT,
    stdin: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m scorekit ARGS`` in a child process under the limits.

    A case that runs past ``timeout`` fails the test (as a hang) instead of
    blocking the suite.
    """
    command = [sys.executable, "-m", "scorekit", *map(str, args)]
    server = _fork_server()
    if server is not None:
        return server.run(command, cwd, timeout, stdin)
    return subprocess.run(
        command,
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=_environment(),
        preexec_fn=_limit_memory,
        check=False,
    )


def assert_clean_error(proc: subprocess.CompletedProcess[str], *fragments: str) -> None:
    """Assert a user error: status 2, no traceback, and a message holding each fragment."""
    detail = f"status {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    assert proc.returncode == 2, detail
    assert "Traceback" not in proc.stderr, detail
    assert any(line.startswith("scorekit: ") for line in proc.stderr.splitlines()), detail
    for fragment in fragments:
        assert fragment in proc.stderr, f"{fragment!r} not in the message\n{detail}"


def write(path: Path, lines: Sequence[str]) -> Path:
    """Write ``lines`` (each ended by a newline) to ``path`` and return it."""
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path
