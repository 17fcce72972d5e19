"""A TCP server on 127.0.0.1 for tests that see, or shape, the raw bytes of HTTP/1.1.

It reads each request (its head, and a body of ``Content-Length`` bytes), keeps its
bytes, and writes what ``answer(request)`` returns before closing the connection.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable

__all__ = ["RawServer"]


class RawServer:
    """Serve ``answer(request bytes) -> response bytes`` on a free port of 127.0.0.1."""

    def __init__(self, answer: Callable[[bytes], bytes]) -> None:
        self.answer = answer
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self.received: list[bytes] = []
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        """The API base on this server."""
        return f"http://127.0.0.1:{self.port}/v1"

    def heads(self) -> list[list[bytes]]:
        """The lines of every request's head (request line first)."""
        return [data.split(b"\r\n\r\n", 1)[0].split(b"\r\n") for data in self.received]

    def close(self) -> None:
        """Stop accepting connections."""
        self.sock.close()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with self.lock:
                self.connections += 1
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        conn.settimeout(10)
        data = b""
        try:
            while b"\r\n\r\n" not in data:
                piece = conn.recv(65536)
                if not piece:
                    return
                data += piece
            head = data.split(b"\r\n\r\n", 1)[0]
            length = 0
            for line in head.split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length" and value.strip().isdigit():
                    length = int(value)
            while len(data) - len(head) - 4 < length:
                piece = conn.recv(65536)
                if not piece:
                    break
                data += piece
            with self.lock:
                self.received.append(data)
            conn.sendall(self.answer(data))
        except OSError:
            pass
        finally:
            conn.close()
