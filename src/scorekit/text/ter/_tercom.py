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
kernel, and the alignment of the trace from the whole table, built bit-parallel
and read back from its step bits (:func:`_aligned`). Above the bound the band
is filled here exactly as sacrebleu fills it. The shift search skips, in a few
comparisons, the block starts that allow no candidate (:func:`_best_shift`).
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


def _full_rows(hyp: str, ref: str, peq: dict[str, int]) -> tuple[list[int], ...]:
    """The whole edit-distance table of ``hyp`` (rows) and ``ref`` (columns), bit-parallel.

    Row ``i`` is kept as bit vectors of its steps (Myers 1999, Hyyrö 2001): bit
    ``j - 1`` of ``across_up[i]`` / ``across_down[i]`` is set when cell ``(i, j)``
    is one more / one less than cell ``(i, j - 1)``, and of ``down_up[i]`` /
    ``down_down[i]`` when it is one more / one less than cell ``(i - 1, j)``.
    Building it costs a few integer operations per prediction word.
    """
    n = len(ref)
    full = (1 << n) - 1
    vp, vn = full, 0
    across_up, across_down = [vp], [vn]
    down_up, down_down = [0], [0]
    add_au, add_ad, add_du, add_dd = (
        across_up.append,
        across_down.append,
        down_up.append,
        down_down.append,
    )
    get = peq.get
    for c in hyp:
        eq = get(c, 0)
        xv = eq | vn
        xh = ((((eq & vp) + vp) & full) ^ vp) | eq
        hp = vn | (~(xh | vp) & full)
        hn = vp & xh
        add_du(hp)
        add_dd(hn)
        hp = ((hp << 1) | 1) & full
        hn = (hn << 1) & full
        vp = hn | (~(xv | hp) & full)
        vn = hp & xv
        add_au(vp)
        add_ad(vn)
    return across_up, across_down, down_up, down_down


def _distance_of(rows: tuple[list[int], ...], m: int) -> int:
    """The last cell of the table ``rows`` of ``m`` prediction words."""
    return m + rows[0][m].bit_count() - rows[1][m].bit_count()


def _aligned(
    hyp: str, ref: str, rows: tuple[list[int], ...]
) -> tuple[list[int], list[int], list[int]]:
    """The alignment of the trace :func:`_trace_of` reads from the whole table, read directly.

    Walking back from the last cell: equal words align; otherwise the first of
    substitution, deletion and insertion that keeps the cell's cost, decided
    from the step bits of two rows (:func:`_full_rows`). Returns, per reference
    position, the prediction position aligned to it (the one before, for a
    reference word with no prediction word); and, per prediction and reference
    position, the first position from there on with an edit (the length when
    there is none).
    """
    across_up, across_down, down_up, down_down = rows
    m, n = len(hyp), len(ref)
    align = [0] * n
    hyp_next = [m] * (m + 1)
    ref_next = [n] * (n + 1)
    next_h, next_r = m, n
    i, j = m, n
    while i and j:
        i1 = i - 1
        j1 = j - 1
        if hyp[i1] == ref[j1]:
            i = i1
            j = j1
            align[j] = i
            hyp_next[i] = next_h
            ref_next[j] = next_r
            continue
        bit = 1 << j1
        # cell (i, j) less cell (i - 1, j), and cell (i - 1, j) less cell (i - 1, j - 1)
        down = (down_up[i] & bit != 0) - (down_down[i] & bit != 0)
        if down + (across_up[i1] & bit != 0) - (across_down[i1] & bit != 0) == 1:
            i = i1
            j = j1
            align[j] = i
            hyp_next[i] = next_h = i
            ref_next[j] = next_r = j
        elif down == 1:
            i = i1
            hyp_next[i] = next_h = i
        else:
            j = j1
            align[j] = i1
            ref_next[j] = next_r = j
    while j:
        j -= 1
        align[j] = -1
        ref_next[j] = next_r = j
    while i:
        i -= 1
        hyp_next[i] = next_h = i
    return align, hyp_next, ref_next


def _alignment_of_trace(trace: str) -> tuple[list[int], list[int], list[int]]:
    """What :func:`_aligned` gives, from a trace (of the reference against the prediction)."""
    pos_hyp = pos_ref = -1
    align: list[int] = []
    ref_err: list[int] = []
    hyp_err: list[int] = []
    for op in trace:
        if op in (_NOP, _SUB):
            pos_hyp += 1
            pos_ref += 1
            align.append(pos_hyp)
            flag = 0 if op == _NOP else 1
            hyp_err.append(flag)
            ref_err.append(flag)
        elif op == _INS:
            pos_hyp += 1
            hyp_err.append(1)
        else:
            pos_ref += 1
            align.append(pos_hyp)
            ref_err.append(1)
    return align, _next_edits(hyp_err), _next_edits(ref_err)


def _next_edits(flags: list[int]) -> list[int]:
    """Per position, the first position from there on whose flag is set (else the length)."""
    out = [len(flags)] * (len(flags) + 1)
    nxt = len(flags)
    for k in range(len(flags) - 1, -1, -1):
        if flags[k]:
            nxt = k
        out[k] = nxt
    return out


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
        self.where: dict[str, list[int]] = {}
        for k, word in enumerate(ref):
            self.peq[word] = self.peq.get(word, 0) | (1 << k)
            self.where.setdefault(word, []).append(k)

    def aligned(self, hyp: str) -> tuple[int, list[int], list[int], list[int]]:
        """sacrebleu's banded distance of ``hyp`` and the alignment of its trace.

        Within the exact bound no cheapest path leaves the band, so the band's
        trace is the whole table's, read from the bit-parallel table
        (:func:`_aligned`); above it the band is filled as sacrebleu fills it.
        """
        rows = _full_rows(hyp, self.ref, self.peq)
        d = _distance_of(rows, len(hyp))
        if d > self.bound:
            d, trace = _band_distance(hyp, self.ref, trace=True)
            align, hyp_next, ref_next = _alignment_of_trace(trace.translate(_FLIP))
        else:
            align, hyp_next, ref_next = _aligned(hyp, self.ref, rows)
        return d, align, hyp_next, ref_next

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
    """The shift that lowers the distance most: (gain, shifted words, candidates checked).

    sacrebleu tries, for every pair of a prediction and a reference position
    that start a run of equal words, each length of the run up to 10 whose
    words hold an edit on both sides and that does not cover the prediction
    position aligned to the run's reference start. Here the lengths a pair
    allows are an interval found from the positions of the next edits, so pairs
    that allow none cost a few comparisons; the candidates are the same and
    are counted in the same order.
    """
    pre, align, hyp_next, ref_next = seg.aligned(words)
    best: tuple[int, int, int, int, str] | None = None
    m, n = len(words), len(ref)
    where = seg.where
    for start_h in range(m):
        starts = where.get(words[start_h])
        if starts is None:
            continue
        # the shortest block holding an edit of the prediction
        low_h = hyp_next[start_h] - start_h + 1
        if low_h > _MAX_SHIFT_SIZE:
            continue
        for start_r in starts:
            target = align[start_r] - start_h
            if target == 0 or abs(start_r - start_h) > _MAX_SHIFT_DIST:
                continue
            high = _MAX_SHIFT_SIZE
            if 0 < target < high:
                # blocks from ``target + 1`` words on would hold the aligned position
                high = target
            low = ref_next[start_r] - start_r + 1
            if low < low_h:
                low = low_h
            if (
                low > high
                or start_h + low > m
                or start_r + low > n
                or words[start_h : start_h + low] != ref[start_r : start_r + low]
            ):
                continue
            length = low
            while True:
                prev = -1
                for offset in range(-1, length):
                    idx = 0 if start_r + offset == -1 else align[start_r + offset] + 1
                    if idx == prev:
                        continue
                    prev = idx
                    shifted = _shifted(words, start_h, length, idx)
                    candidate = (pre - seg.distance(shifted), length, -start_h, -idx, shifted)
                    checked += 1
                    if best is None or candidate > best:
                        best = candidate
                if checked >= _MAX_SHIFT_CANDIDATES:
                    return (0, words, checked) if best is None else (best[0], best[4], checked)
                if (
                    length == high
                    or start_h + length == m
                    or start_r + length == n
                    or words[start_h + length] != ref[start_r + length]
                ):
                    break
                length += 1
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
