"""What reaches the wire: the checked URL, the request's headers, and the URL as shown.

Every string a user gives that reaches the head of a request (the URL's host, path
and query, the API key) is checked before the first request is sent: a carriage
return, a line feed, a NUL or any other control character would end a header line
and start one of the user's making. The URL as written in records, reports and
messages (:func:`redact_url`) hides its password and the values of query parameters
whose name says they are secret; the keys added to every request body are recorded
with the values of secret-looking names hidden as well. Text a user gives that is
printed (the model's name) is shown with its control characters escaped
(:func:`printable`), as sent otherwise.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote, unquote, urlsplit, urlunsplit

from scorekit.errors import ConfigError, message, printable, raw
from scorekit.loadtest._prompts import NAME

__all__ = [
    "SECRET_WORDS",
    "auth_headers",
    "check_api_key",
    "check_url",
    "endpoint_url",
    "printable",
    "redact_url",
]

REDACTED = "***"
"""What stands for a secret in a URL shown."""

SECRET_WORDS: tuple[str, ...] = (
    "key",
    "token",
    "secret",
    "sig",
    "pass",
    "pwd",
    "auth",
    "credential",
    "session",
    "cookie",
)
"""A query parameter whose name holds one of these (any case, ``-`` and ``_`` ignored) has
its value hidden by :func:`redact_url`: ``api_key``, ``key``, ``token``, ``access_token``,
``sig``, ``X-Amz-Signature``, ``password``, ..."""

_URL_EXPECTED = "http://HOST:PORT/v1 or https://..."
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_NAMES = {0: "NUL", 9: "tab", 10: "line feed (LF)", 13: "carriage return (CR)", 127: "DEL"}


def _character(char: str) -> str:
    code = ord(char)
    return _NAMES.get(code, f"control character U+{code:04X}")


def _is_secret(name: str) -> bool:
    plain = unquote(name).lower().replace("-", "").replace("_", "")
    return any(word in plain for word in SECRET_WORDS)


def redact_body(value: Any) -> Any:
    """``value`` (keys added to a request body) with the string values of secret-looking
    keys hidden, in nested objects and lists too.

    A key is secret-looking when its name holds one of :data:`SECRET_WORDS`, as in
    :func:`redact_url`. Under such a key every string is hidden, also inside the
    objects and lists it holds; numbers, booleans and null are kept: they are counts
    and switches (``max_tokens``, ``skip_special_tokens``), not secrets. The request
    itself is sent with the values as given.

    Examples
    --------
    >>> redact_body({"api_key": "sk-1", "max_tokens": 5, "vendor": {"auth": {"token": "t"}}})
    {'api_key': '***', 'max_tokens': 5, 'vendor': {'auth': {'token': '***'}}}
    """
    return _redacted(value, secret=False)


def _redacted(value: Any, *, secret: bool) -> Any:
    if isinstance(value, Mapping):
        return {
            key: _redacted(item, secret=secret or _is_secret(str(key)))
            for key, item in value.items()
        }
    if isinstance(value, list | tuple):
        return [_redacted(item, secret=secret) for item in value]
    if secret and isinstance(value, str):
        return REDACTED
    return value


def _redact_pairs(text: str) -> str:
    pairs = []
    for pair in text.split("&"):
        name, equals, value = pair.partition("=")
        pairs.append(f"{name}={REDACTED}" if equals and value and _is_secret(name) else pair)
    return "&".join(pairs)


def redact_url(url: str) -> str:
    """``url`` with its secrets hidden: the userinfo's password (or a user name given alone,
    often a token) and the value of every query parameter whose name looks secret.

    Parameters
    ----------
    url : str
        A URL, as given.

    Returns
    -------
    str
        The URL to write in records, reports and messages; unchanged when it holds no
        secret.

    Examples
    --------
    >>> redact_url("http://user:pa55@h:8000/v1?api_key=abc&n=1")
    'http://user:***@h:8000/v1?api_key=***&n=1'
    >>> redact_url("https://TOKEN@h/v1?sig=x&access_token=y")
    'https://***@h/v1?sig=***&access_token=***'
    >>> redact_url("http://127.0.0.1:8000/v1")
    'http://127.0.0.1:8000/v1'
    """
    if not isinstance(url, str):
        return url
    try:
        parts = urlsplit(url)
    except ValueError:
        return REDACTED if "@" in url or "?" in url else url
    netloc = parts.netloc
    userinfo, at, place = netloc.rpartition("@")
    if at:
        user, colon, password = userinfo.partition(":")
        if colon and password:
            userinfo = f"{user}:{REDACTED}"
        elif userinfo:
            userinfo = REDACTED
        netloc = f"{userinfo}@{place}"
    query, fragment = _redact_pairs(parts.query), _redact_pairs(parts.fragment)
    if (netloc, query, fragment) == (parts.netloc, parts.query, parts.fragment):
        return url
    return urlunsplit((parts.scheme, netloc, parts.path, query, fragment))


def check_url(url: object) -> str:
    """``url`` once checked: an ``http`` or ``https`` URL with a host, a valid port, and no
    space or control character (each would break the request line or add a header).

    Parameters
    ----------
    url : str
        The API base (``--url``).

    Returns
    -------
    str
        ``url`` itself.

    Raises
    ------
    ConfigError
        The URL is not a string, not http or https, holds a space or a control
        character (CR, LF, NUL, tab, ...), cannot be parsed, has no host, a bad port,
        or a host that is not a valid (international) domain name, such as one with an
        empty label. The URL is shown with its secrets hidden.

    Examples
    --------
    >>> check_url("http://127.0.0.1:8000/v1")
    'http://127.0.0.1:8000/v1'
    >>> check_url("http://h/v1\\r\\nX-Injected: 1")
    Traceback (most recent call last):
    ...
    scorekit.errors.ConfigError: loadtest: the url (--url) holds a carriage return (CR) ...
    """
    if not isinstance(url, str) or not url.lower().startswith(("http://", "https://")):
        shown = redact_url(url) if isinstance(url, str) else url
        raise ConfigError(message(NAME, "bad url (--url)", shown, _URL_EXPECTED))
    bad = _CONTROL.search(url) or re.search(r"\s", url)
    if bad is not None:
        char = bad.group()
        if _CONTROL.match(char):
            what = f"a {_character(char)}"
        else:
            what = "a space" if char == " " else f"the space character U+{ord(char):04X}"
        raise ConfigError(
            message(
                NAME,
                f"the url (--url) holds {what} at character {bad.start() + 1}",
                redact_url(url),
                "a URL without spaces or control characters (percent-encode them: %20)",
            )
        )
    try:
        parts = urlsplit(url)
    except ValueError as exc:  # an unclosed IPv6 bracket
        raise ConfigError(
            message(NAME, f"bad url (--url): {exc}", redact_url(url), _URL_EXPECTED)
        ) from None
    try:
        port = parts.port
    except ValueError:
        raise ConfigError(
            message(NAME, "bad port in the url (--url)", redact_url(url), "a port from 0 to 65535")
        ) from None
    host = parts.hostname or ""
    if not host or (port == 0):
        raise ConfigError(message(NAME, "bad url (--url)", redact_url(url), _URL_EXPECTED))
    if ":" not in host:  # a name or an IPv4 address, encoded as name lookups encode it
        try:
            host.encode("idna")
        except UnicodeError:
            raise ConfigError(
                message(
                    NAME,
                    "bad host in the url (--url)",
                    redact_url(url),
                    "a host name, an IP address, or an international domain name",
                )
            ) from None
    return url


def check_api_key(api_key: object) -> str | None:
    """``api_key`` once checked: printable ASCII, as a header value must be.

    Parameters
    ----------
    api_key : str or None
        The bearer token (``--api-key``, ``$OPENAI_API_KEY``).

    Returns
    -------
    str or None
        ``api_key`` itself.

    Raises
    ------
    ConfigError
        The key is not a string, or holds a control character (CR, LF, NUL, tab,
        ...) or a character outside ASCII. The message gives the character and its
        place, never the key.

    Examples
    --------
    >>> check_api_key("sk-abc")
    'sk-abc'
    >>> check_api_key("abc\\r\\nX-Injected: 1")
    Traceback (most recent call last):
    ...
    scorekit.errors.ConfigError: loadtest: the api_key (--api-key, $OPENAI_API_KEY) holds ...
    """
    if api_key is None:
        return None
    where = "the api_key (--api-key, $OPENAI_API_KEY)"
    expected = "printable ASCII characters (a header value holds no control character)"
    if not isinstance(api_key, str):
        raise ConfigError(message(NAME, f"bad type of {where}", raw(type(api_key).__name__), "str"))
    for index, char in enumerate(api_key):
        if _CONTROL.match(char):
            what = f"a {_character(char)}"
        elif not char.isascii():
            what = f"the character U+{ord(char):04X}, not ASCII"
        else:
            continue
        raise ConfigError(
            message(NAME, f"{where} holds {what} at character {index + 1}", raw("a key"), expected)
        )
    return api_key


def endpoint_url(url: str, endpoint: str) -> str:
    """The URL requests of ``endpoint`` are posted to: ``/chat/completions`` or
    ``/completions`` added to the path of ``url``, its query kept, its userinfo and
    fragment left out (the userinfo is sent as a header by :func:`auth_headers`).

    Examples
    --------
    >>> endpoint_url("http://u:p@h:1/v1/?key=k#top", "chat")
    'http://h:1/v1/chat/completions?key=k'
    """
    parts = urlsplit(url)
    place = parts.netloc.rpartition("@")[2]
    path = parts.path.rstrip("/") + ("/chat/completions" if endpoint == "chat" else "/completions")
    return urlunsplit((parts.scheme, place, _ascii(path), _ascii(parts.query), ""))


def _ascii(text: str) -> str:
    """Characters outside ASCII percent-encoded (as UTF-8), the rest kept as written."""
    if text.isascii():
        return text
    return "".join(c if c.isascii() else quote(c, safe="") for c in text)


def auth_headers(url: str, api_key: str | None) -> dict[str, str]:
    """The ``Authorization`` header: ``Bearer`` with ``api_key``, else ``Basic`` with the
    user and password of ``url`` (``http://user:password@host/v1``), else none.

    Examples
    --------
    >>> auth_headers("http://h/v1", "sk-1")
    {'Authorization': 'Bearer sk-1'}
    >>> auth_headers("http://me:p%40ss@h/v1", None)
    {'Authorization': 'Basic bWU6cEBzcw=='}
    >>> auth_headers("http://h/v1", None)
    {}
    """
    if api_key:
        return {"Authorization": f"Bearer {api_key}"}
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return {}
    pair = f"{unquote(parts.username or '')}:{unquote(parts.password or '')}"
    return {"Authorization": "Basic " + base64.b64encode(pair.encode("utf-8")).decode("ascii")}
