"""Tercom's translation edit rate of one segment, as sacrebleu computes it, on word-id strings.

A segment's words are integer ids written as the code points of a string, so
comparing, slicing and shifting words are string operations. The algorithm is
sacrebleu's (after Tercom): repeatedly apply the block shift that lowers the
edit distance most (ties: the longest block, then the earliest start, then
the earliest target), at most 1,000 candidate shifts per segment, then add
the number of shifts to the remaining edit distance.

sacrebleu's edit distance fills only a band of the table around its
pseudo-diagonal ("beam"). Its result equals the plain Levenshtein distance
whenever every path as cheap as that distance stays inside the band; that
holds for any distance up to a bound fixed by the two lengths
(:func:`_exact_bound`), and then the distance comes from rapidfuzz's compiled
kernel, and the alignment (trace) from the whole table, built bit-parallel.
Above the bound the band is filled here exactly as sacrebleu fills it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache

__all__ = ["edit_count"]

_MAX_SHIFT_SIZE = 10
_MAX_SHIFT_DIST = 50
_BEAM_WIDTH = 25
_MAX_SHIFT_CANDIDATES = 1000
_INF = 10**16

_NOP, _SUB, _INS, _DEL = " ", "s", "i", "d"
_FLIP = str.maketrans("id", "di")


def _beam(n: int, m: int) -> tuple[float, int]:
    """The length ratio and the band half-width of ``m`` prediction, ``n`` reference words."""
    ratio = n / m if m else 1
    width = math.ceil(ratio / 2 + _BEAM_WIDTH) if ratio / 2 > _BEAM_WIDTH else _BEAM_WIDTH
    return ratio, width


def _band_distance(hyp: str, ref: str, trace: bool) -> tuple[int, str]:
    """sacrebleu's banded edit distance of ``hyp`` to ``ref``, and its trace when asked.

    The forward pass keeps only costs; the trace is read back from them
    (:func:`_trace_of`).
    """
    n, m = len(ref), len(hyp)
    ratio, width = _beam(n, m)
    cost = list(range(n + 1))
    rows = [cost]
    for i in range(1, m + 1):
        diag = math.floor(i * ratio)
        lo = max(0, diag - width)
        hi = n + 1 if i == m else min(n + 1, diag + width)
        new = [_INF] * (n + 1)
        word = hyp[i - 1]
        if lo == 0:
            new[0] = cost[0] + 1
            lo = 1
        left = new[lo - 1]
        for j in range(lo, hi):
            best = cost[j - 1] + (ref[j - 1] != word)
            down = cost[j] + 1
            if down < best:
                best = down
            if left + 1 < best:
                best = left + 1
            new[j] = left = best
        cost = new
        if trace:
            rows.append(new)
    if not trace:
        return cost[n], ""
    return cost[n], _trace_of(hyp, ref, lambda a, b: rows[a][b])


def _trace_of(hyp: str, ref: str, cell: Callable[[int, int], int]) -> str:
    """The trace read back from the table ``cell(i, j)``, in sacrebleu's order of preference.

    At each cell the first of substitution (or match), deletion and insertion
    that gives the lowest cost wins, the order in which sacrebleu's forward
    pass keeps a strictly lower cost.
    """
    path = []
    i, j = len(hyp), len(ref)
    while i > 0 or j > 0:
        if i == 0:
            op = _INS
        elif j == 0:
            op = _DEL
        else:
            same = hyp[i - 1] == ref[j - 1]
            best = cell(i - 1, j - 1) + (not same)
            op = _NOP if same else _SUB
            down = cell(i - 1, j) + 1
            if down < best:
                best, op = down, _DEL
            if cell(i, j - 1) + 1 < best:
                op = _INS
        path.append(op)
        if op in (_SUB, _NOP):
            i -= 1
            j -= 1
        elif op == _INS:
            j -= 1
        else:
            i -= 1
    return "".join(reversed(path))


def _full_table(hyp: str, ref: str, peq: dict[str, int]) -> Callable[[int, int], int]:
    """The whole edit-distance table of ``hyp`` (rows) and ``ref`` (columns), bit-parallel.

    Each row is kept as the bit vectors of its +1 and -1 steps along the
    reference (Myers 1999, Hyyrö 2001), so building it costs a few integer
    operations per prediction word and reading a cell two bit counts.
    """
    n = len(ref)
    full = (1 << n) - 1
    vp, vn = full, 0
    rows = [(vp, vn)]
    for c in hyp:
        eq = peq.get(c, 0)
        xv = eq | vn
        xh = ((((eq & vp) + vp) & full) ^ vp) | eq
        hp = vn | (~(xh | vp) & full)
        hn = vp & xh
        hp = ((hp << 1) | 1) & full
        hn = (hn << 1) & full
        vp = hn | (~(xv | hp) & full)
        vn = hp & xv
        rows.append((vp, vn))

    def cell(i: int, j: int) -> int:
        up, down = rows[i]
        mask = (1 << j) - 1
        return i + (up & mask).bit_count() - (down & mask).bit_count()

    return cell


@lru_cache(maxsize=4096)
def _exact_bound(m: int, n: int) -> int:
    """The largest distance at which the banded distance of lengths ``m``, ``n`` is exact.

    A path of cost ``d`` only visits cells ``(i, j)`` with ``|i - j| +
    |(m - i) - (n - j)| <= d``: in row ``i`` the columns from ``min(i, i + n -
    m) - t`` to ``max(i, i + n - m) + t``, ``t = (d - |n - m|) // 2``. The
    bound is the largest ``d`` whose columns lie inside every row's band.
    """
    if m == 0:
        return _INF
    ratio, width = _beam(n, m)
    slack = _INF
    for i in range(1, m):
        diag = math.floor(i * ratio)
        lo = max(0, diag - width)
        hi = min(n + 1, diag + width)
        left, right = min(i, i + n - m), max(i, i + n - m)
        if lo > 0:
            slack = min(slack, left - lo)
        if hi - 1 < n:
            slack = min(slack, hi - 1 - right)
    if slack < 0:
        return -1
    return abs(n - m) + 2 * slack + 1 if slack < _INF else _INF


def _alignment(trace: str) -> tuple[dict[int, int], list[int], list[int]]:
    """The alignment of reference to prediction positions and the error flags of each side."""
    pos_hyp = pos_ref = -1
    align: dict[int, int] = {}
    ref_err: list[int] = []
    hyp_err: list[int] = []
    for op in trace:
        if op in (_NOP, _SUB):
            pos_hyp += 1
            pos_ref += 1
            align[pos_ref] = pos_hyp
            flag = 0 if op == _NOP else 1
            hyp_err.append(flag)
            ref_err.append(flag)
        elif op == _INS:
            pos_hyp += 1
            hyp_err.append(1)
        else:
            pos_ref += 1
            align[pos_ref] = pos_hyp
            ref_err.append(1)
    return align, ref_err, hyp_err


def _shifted(words: str, start: int, length: int, target: int) -> str:
    if target < start:
        return (
            words[:target]
            + words[start : start + length]
            + words[target:start]
            + words[start + length :]
        )
    if target > start + length:
        return (
            words[:start]
            + words[start + length : target]
            + words[start : start + length]
            + words[target:]
        )
    return (
        words[:start]
        + words[start + length : length + target]
        + words[start : start + length]
        + words[length + target :]
    )


class _Segment:
    """One prediction's shifts against one reference."""

    def __init__(self, ref: str, m: int) -> None:
        from rapidfuzz.distance import Levenshtein

        self.ref = ref
        self.bound = _exact_bound(m, len(ref))
        self.levenshtein = Levenshtein.distance
        self.cache: dict[str, int] = {}
        self.peq: dict[str, int] = {}
        for k, word in enumerate(ref):
            self.peq[word] = self.peq.get(word, 0) | (1 << k)

    def traced(self, hyp: str) -> tuple[int, str]:
        """sacrebleu's banded distance and trace of ``hyp``.

        Within the exact bound no cheapest path leaves the band, so the band's
        trace is the whole table's, read from the bit-parallel table.
        """
        cell = _full_table(hyp, self.ref, self.peq)
        d = cell(len(hyp), len(self.ref))
        if d > self.bound:
            return _band_distance(hyp, self.ref, trace=True)
        return d, _trace_of(hyp, self.ref, cell)

    def distance(self, hyp: str) -> int:
        """sacrebleu's banded distance: rapidfuzz's when provably equal, else the band filled."""
        known = self.cache.get(hyp)
        if known is not None:
            return known
        d = self.levenshtein(hyp, self.ref)
        if d > self.bound:
            d = _band_distance(hyp, self.ref, trace=False)[0]
        self.cache[hyp] = d
        return d


def _best_shift(words: str, ref: str, seg: _Segment, checked: int) -> tuple[int, str, int]:
    """The shift that lowers the distance most: (gain, shifted words, candidates checked)."""
    pre, inverse = seg.traced(words)
    align, ref_err, hyp_err = _alignment(inverse.translate(_FLIP))
    best: tuple[int, int, int, int, str] | None = None
    m, n = len(words), len(ref)
    # only reference positions holding the word a block starts with can start a match
    where: dict[str, list[int]] = {}
    for k, word in enumerate(ref):
        where.setdefault(word, []).append(k)
    for start_h in range(m):
        for start_r in where.get(words[start_h], ()):
            if abs(start_r - start_h) > _MAX_SHIFT_DIST:
                continue
            length = 0
            while words[start_h + length] == ref[start_r + length] and length < _MAX_SHIFT_SIZE:
                length += 1
                if (
                    sum(hyp_err[start_h : start_h + length])
                    and sum(ref_err[start_r : start_r + length])
                    and not start_h <= align[start_r] < start_h + length
                ):
                    prev = -1
                    for offset in range(-1, length):
                        if start_r + offset == -1:
                            idx = 0
                        elif start_r + offset in align:
                            idx = align[start_r + offset] + 1
                        else:
                            break
                        if idx == prev:
                            continue
                        prev = idx
                        shifted = _shifted(words, start_h, length, idx)
                        candidate = (pre - seg.distance(shifted), length, -start_h, -idx, shifted)
                        checked += 1
                        if best is None or candidate > best:
                            best = candidate
                    if checked >= _MAX_SHIFT_CANDIDATES:
                        break
                if m == start_h + length or n == start_r + length:
                    break
            if checked >= _MAX_SHIFT_CANDIDATES:
                break
        if checked >= _MAX_SHIFT_CANDIDATES:
            break
    if best is None:
        return 0, words, checked
    return best[0], best[4], checked


def edit_count(hyp: str, ref: str) -> int:
    """Tercom's edit count (shifts plus edits) of ``hyp`` against ``ref``, word-id strings.

    Examples
    --------
    >>> edit_count("abcd", "cdab")  # one shift of "ab"
    1
    >>> edit_count("ab", "")
    2
    """
    if not ref:
        return len(hyp)
    seg = _Segment(ref, len(hyp))
    shifts = 0
    checked = 0
    words = hyp
    while True:
        gain, shifted, checked = _best_shift(words, ref, seg, checked)
        if checked >= _MAX_SHIFT_CANDIDATES or gain <= 0:
            break
        shifts += 1
        words = shifted
    return shifts + seg.distance(words)
