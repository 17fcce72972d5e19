"""The tests :func:`scorekit.stats.compare` runs, and how a test and its options are written."""

from __future__ import annotations

from typing import Any

from scorekit.errors import ConfigError, choices, message
from scorekit.stats._signed_rank import WILCOXON_METHODS, ZERO_METHODS

__all__ = ["ONE_SIDED", "TESTS", "TEST_OPTIONS", "parse_test"]

TESTS = (
    "paired_bootstrap",
    "randomization",
    "t",
    "wilcoxon",
    "fisher",
    "mcnemar",
    "delong",
    "tukey",
)
"""The tests :func:`compare` runs."""

ONE_SIDED = ("paired_bootstrap", "randomization", "t", "wilcoxon", "fisher")
"""The tests of :data:`TESTS` that take a one-sided ``alternative``."""

TEST_OPTIONS: dict[str, dict[str, tuple[Any, ...]]] = {
    "wilcoxon": {
        "zero_method": ZERO_METHODS,
        "method": WILCOXON_METHODS,
        "correction": (False, True),
    },
}
"""The options a test takes after its name (``wilcoxon:zero_method=pratt``), with their values."""


def _option_value(text: str) -> Any:
    word = text.strip()
    return {"true": True, "false": False}.get(word.lower(), word)


def parse_test(spec: Any, where: str = "compare") -> tuple[str, dict[str, Any]]:
    """A test's name and options from ``name[:option=value,...]`` (``wilcoxon:zero_method=pratt``).

    The options are those of :data:`TEST_OPTIONS` (``true``/``false`` for a
    bool); a test without options is its bare name.

    Examples
    --------
    >>> parse_test("wilcoxon:zero_method=pratt,correction=true")
    ('wilcoxon', {'zero_method': 'pratt', 'correction': True})
    >>> parse_test("t")
    ('t', {})
    >>> parse_test("t:method=exact")
    Traceback (most recent call last):
    ...
    scorekit.errors.ConfigError: compare: the test 't' takes no options; got 'method=exact', ...
    """
    if not isinstance(spec, str):
        raise ConfigError(message(where, "a test is named by a string", spec, choices(TESTS)))
    name, _, rest = spec.partition(":")
    name = name.strip()
    if name not in TESTS:
        raise ConfigError(message(where, "unknown test", name, choices(TESTS)))
    options: dict[str, Any] = {}
    if not rest.strip():
        return name, options
    known = TEST_OPTIONS.get(name)
    if not known:
        with_options = ", ".join(f"{t}:{o}=..." for t, opts in TEST_OPTIONS.items() for o in opts)
        raise ConfigError(message(where, f"the test {name!r} takes no options", rest, with_options))
    for item in rest.split(","):
        key, equals, value = item.partition("=")
        key = key.strip()
        if key not in known or not equals:
            raise ConfigError(
                message(
                    where,
                    f"unknown option of the test {name!r}",
                    item.strip(),
                    "option=value with option " + choices(known),
                )
            )
        found = _option_value(value)
        allowed = known[key]
        if found not in allowed or type(found) is not type(allowed[0]):
            shown = [str(v).lower() if isinstance(v, bool) else v for v in allowed]
            raise ConfigError(
                message(where, f"unknown {key} of the test {name!r}", value.strip(), choices(shown))
            )
        options[key] = found
    return name, options
