"""The range of references per segment that corpus text states carry (for the signature).

BLEU, chrF and TER states record the fewest and the most references any of
their segments had (``nrefs`` in the signature is one number when they agree).
A state of no segment has no range; merging takes the union of the ranges.
"""

from __future__ import annotations

from typing import Any, Protocol

from scorekit.errors import InputError, raw

__all__ = ["check_ref_range", "merge_ref_range", "nrefs"]


class _Ranged(Protocol):
    @property
    def segments(self) -> int: ...

    @property
    def min_refs(self) -> int: ...

    @property
    def max_refs(self) -> int: ...

    def _invalid(
        self, name: str, problem: str, got: Any = None, expected: str | None = None
    ) -> InputError: ...


def check_ref_range(state: _Ranged) -> None:
    """Refuse a decoded state whose ``min_refs`` exceeds its ``max_refs``."""
    if state.segments and state.min_refs > state.max_refs:
        raise state._invalid(
            "min_refs",
            "more than max_refs",
            raw(f"min_refs {state.min_refs}, max_refs {state.max_refs}"),
            "min_refs <= max_refs",
        )


def merge_ref_range(a: _Ranged, b: _Ranged) -> dict[str, int]:
    """The ``min_refs`` and ``max_refs`` of two merged states (a state of no segment has none).

    Examples
    --------
    >>> from types import SimpleNamespace as S
    >>> one, three = S(segments=2, min_refs=1, max_refs=1), S(segments=1, min_refs=2, max_refs=3)
    >>> merge_ref_range(one, three)
    {'min_refs': 1, 'max_refs': 3}
    >>> merge_ref_range(S(segments=0, min_refs=0, max_refs=0), three)
    {'min_refs': 2, 'max_refs': 3}
    """
    if b.segments == 0:
        return {"min_refs": a.min_refs, "max_refs": a.max_refs}
    if a.segments == 0:
        return {"min_refs": b.min_refs, "max_refs": b.max_refs}
    return {"min_refs": min(a.min_refs, b.min_refs), "max_refs": max(a.max_refs, b.max_refs)}


def nrefs(state: _Ranged | None) -> str:
    """The ``nrefs`` of a signature: ``?`` without segments, the count, or ``var``.

    Examples
    --------
    >>> from types import SimpleNamespace as S
    >>> nrefs(None), nrefs(S(segments=3, min_refs=2, max_refs=2))
    ('?', '2')
    >>> nrefs(S(segments=3, min_refs=1, max_refs=2))
    'var'
    """
    if state is None or state.segments == 0:
        return "?"
    return str(state.min_refs) if state.min_refs == state.max_refs else "var"
