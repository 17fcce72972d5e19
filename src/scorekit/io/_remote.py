"""Remote inputs: URLs (``s3://``, ``gs://``, ``https://``, ``memory://``...) read through fsspec.

Wherever a path is accepted, a URL of a filesystem that fsspec knows is read as
well: :func:`local_path` copies the remote file once per process into a private
temporary folder (removed at exit) and the readers read the copy, with every
check and error they give a local file; the copy keeps the file's name, so its
format is the one the URL says. A URL that holds a glob pattern, or names a
folder, stands for the files it matches (:func:`remote_files`), as a local glob or
folder does. The Dask engine hands the URLs to Dask's own readers instead, which
read them on the workers (:func:`remote_files`, :func:`remote_head`).

fsspec is imported only when a URL is read; without it (the ``remote`` extra:
``pip install "scorekit[remote]"``) a URL is refused with an error naming the
extra. A filesystem whose package is missing (s3fs for ``s3://``, gcsfs for
``gs://``) is refused naming that package.

A path turned into a :class:`~pathlib.Path` loses the second slash of its
scheme (``memory:/bucket/a.csv``); such a path is taken as the URL it was.
"""

from __future__ import annotations

import glob as _glob
import os
import re
import threading
from pathlib import Path, PurePosixPath
from typing import Any, TypeVar

from scorekit.errors import ConfigError, InputError, message, raw

__all__ = ["REMOTE_SCHEMES", "as_url", "is_url", "local_path", "remote_files", "remote_head"]

P = TypeVar("P")

REMOTE_SCHEMES = frozenset(
    {
        "abfs",
        "abfss",
        "adl",
        "az",
        "dbfs",
        "ftp",
        "gcs",
        "gs",
        "hdfs",
        "hf",
        "http",
        "https",
        "memory",
        "oci",
        "oss",
        "s3",
        "s3a",
        "sftp",
        "ssh",
        "webhdfs",
    }
)
"""The URL schemes read through fsspec (``file://`` and plain paths are local files)."""

_URL = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):/+(.*)$", re.DOTALL)
_EXTRA = 'pip install "scorekit[remote]"'
_HEAD = 1 << 20

_lock = threading.Lock()
_copies: dict[str, Path] = {}
_folder: list[Path] = []


def as_url(path: Any) -> str | None:
    """The URL that ``path`` names, or None for a local path.

    Examples
    --------
    >>> as_url("s3://bucket/runs/a.parquet")
    's3://bucket/runs/a.parquet'
    >>> from pathlib import Path
    >>> as_url(Path("memory://data/a.csv"))
    'memory://data/a.csv'
    >>> as_url("data/a.csv") is None, as_url("C:/data/a.csv") is None
    (True, True)
    """
    if not isinstance(path, str | os.PathLike):
        return None
    text = os.fspath(path)
    if not isinstance(text, str):
        return None
    found = _URL.match(text)
    if found is None or found.group(1).lower() not in REMOTE_SCHEMES:
        return None
    return f"{found.group(1).lower()}://{found.group(2).lstrip('/')}"


def is_url(path: Any) -> bool:
    """Whether ``path`` is a URL read through fsspec.

    Examples
    --------
    >>> is_url("https://example.org/a.csv"), is_url("a.csv")
    (True, False)
    """
    return as_url(path) is not None


def _fsspec() -> Any:
    try:
        import fsspec  # type: ignore[import-untyped]
    except ImportError:
        raise ConfigError(
            message(
                "scorekit",
                "reading a URL needs fsspec, the remote extra",
                raw("fsspec is not installed"),
                _EXTRA,
            )
        ) from None
    return fsspec


def _filesystem(url: str) -> tuple[Any, str]:
    """The fsspec filesystem of ``url`` and the path in it."""
    fsspec = _fsspec()
    try:
        return fsspec.core.url_to_fs(url)  # type: ignore[no-any-return]
    except ImportError as exc:
        raise ConfigError(
            message(
                url,
                "the filesystem of this URL needs a package that is not installed",
                raw(_first_line(exc)),
                f"that package installed beside fsspec ({_EXTRA})",
            )
        ) from None
    except (ValueError, OSError) as exc:
        raise InputError(
            message(url, "cannot open", raw(_first_line(exc)), "a readable URL")
        ) from None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


_FAILURES: tuple[type[BaseException], ...] = (OSError, ValueError, TimeoutError)


def _failed(exc: BaseException) -> bool:
    """Whether ``exc`` is a filesystem's failure to read (an HTTP status, a lost connection)."""
    module = type(exc).__module__ or ""
    return isinstance(exc, _FAILURES) or module.startswith(
        ("aiohttp", "botocore", "google", "azure", "fsspec", "requests", "urllib3")
    )


def _unreadable(url: str, exc: BaseException) -> InputError:
    if isinstance(exc, FileNotFoundError):
        return InputError(message(url, "no such file", None, "an existing file"))
    return InputError(message(url, "cannot read", raw(_first_line(exc)), "a readable file"))


def _url(fs: Any, path: str) -> str:
    out: str = fs.unstrip_protocol(path)
    return out


def remote_files(url: str, listed: Any = None) -> list[str]:
    """The URLs of the files that ``url`` names: itself, the matches of its glob, or the
    files of the folder it names (those ``listed`` accepts, default every file).

    Examples
    --------
    >>> import fsspec
    >>> fs = fsspec.filesystem("memory")
    >>> fs.pipe({"/docs/a.csv": b"y\\n1\\n", "/docs/b.csv": b"y\\n0\\n"})
    >>> remote_files("memory://docs/*.csv")
    ['memory:///docs/a.csv', 'memory:///docs/b.csv']
    >>> remote_files("memory://docs")
    ['memory:///docs/a.csv', 'memory:///docs/b.csv']
    """
    fs, path = _filesystem(url)
    try:
        if _glob.has_magic(path):
            found = sorted(p for p in fs.glob(path) if fs.isfile(p))
            if not found:
                raise InputError(
                    message(url, "the pattern matches no file", None, "a glob of files")
                )
            return [_url(fs, p) for p in found]
        if fs.isfile(path):
            return [url]
        if fs.isdir(path):
            names = sorted(
                p
                for p in fs.ls(path, detail=False)
                if not PurePosixPath(p).name.startswith((".", "_")) and fs.isfile(p)
            )
            files = [p for p in names if listed is None or listed(Path(PurePosixPath(p).name))]
            if not files:
                raise InputError(message(url, "no readable file in the folder", None, "files"))
            return [_url(fs, p) for p in files]
    except InputError:
        raise
    except Exception as exc:
        if not _failed(exc):
            raise
        raise _unreadable(url, exc) from None
    raise InputError(message(url, "no such file", None, "an existing file, folder or glob"))


def _cache() -> Path:
    # imported here: reading scorekit.io costs nothing for the URLs it may never see
    import atexit
    import shutil
    import tempfile

    if not _folder:
        folder = Path(tempfile.mkdtemp(prefix="scorekit-remote-"))
        atexit.register(shutil.rmtree, folder, True)
        _folder.append(folder)
    return _folder[0]


def _place(url: str) -> PurePosixPath:
    """Where the copy of ``url`` goes in the cache: the URL's scheme, host and path, so that
    an error naming the copy says which URL it came from (a query string adds its hash).

    Examples
    --------
    >>> str(_place("s3://bucket/preds/part-0.csv"))
    's3/bucket/preds/part-0.csv'
    >>> str(_place("https://host:8080/../a.csv?v=2")).startswith("https/host_8080/a.csv-")
    True
    """
    import hashlib

    scheme, rest = url.split("://", 1)
    path, _, query = rest.split("#", 1)[0].partition("?")
    parts = [p.replace(":", "_") for p in path.split("/") if p not in ("", ".", "..")]
    if not parts:
        parts = ["index"]
    if query:
        parts[-1] += "-" + hashlib.sha256(query.encode()).hexdigest()[:12]
    return PurePosixPath(scheme, *parts)


def local_path(path: P) -> P | Path:
    """A local file holding what ``path`` names: ``path`` itself, or the copy of a URL.

    A URL is copied once per process through fsspec; the copy is named like the
    remote file, under its scheme, host and folders, in a private temporary folder
    removed at exit.

    Examples
    --------
    >>> import fsspec
    >>> fsspec.filesystem("memory").pipe("/copied/c.csv", b"y\\n1\\n")
    >>> copy = local_path("memory://copied/c.csv")
    >>> copy.name, copy.read_text()
    ('c.csv', 'y\\n1\\n')
    >>> local_path("data/a.csv")
    'data/a.csv'
    """
    url = as_url(path)
    if url is None:
        return path
    with _lock:
        if url in _copies and _copies[url].exists():
            return _copies[url]
        fs, remote = _filesystem(url)
        target = _cache() / _place(url)
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            if fs.isdir(remote):
                raise InputError(message(url, "is a folder", None, "a file"))
            fs.get_file(remote, str(target))
        except InputError:
            raise
        except Exception as exc:
            target.unlink(missing_ok=True)
            if not _failed(exc):
                raise
            raise _unreadable(url, exc) from None
        _copies[url] = target
        return target


def remote_head(url: str, size: int = _HEAD) -> bytes:
    """The first ``size`` bytes of a remote file (its raw bytes, compressed or not)."""
    fs, path = _filesystem(url)
    try:
        with fs.open(path, "rb") as handle:
            data: bytes = handle.read(size)
    except Exception as exc:
        if not _failed(exc):
            raise
        raise _unreadable(url, exc) from None
    return data
