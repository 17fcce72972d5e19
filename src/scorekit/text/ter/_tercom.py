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
and read back from its step bits (:func:`_aligned`); the equal first and last
words of the two sides need no rows of the table. Above the bound the band is
filled here exactly as sacrebleu fills it.

A candidate shift moves a block that holds an edit of the prediction, so the
search starts from the prediction's edits whose word the reference holds
(:func:`_candidates`); most segments have none and cost one alignment. Which
shift wins does not depend on the order candidates are tried in, and a step
whose candidates reach the limit of 1,000 ends the search unapplied, so such
a step counts its candidates without scoring them (:func:`_search`).
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


def _rows_from(
    hyp: str, first: int, last: int, n: int, peq: dict[str, int]
) -> tuple[list[int], ...]:
    """Rows ``first`` to ``last`` of the table of ``hyp`` against a reference, bit-parallel.

    Row ``i`` is kept as bit vectors of its steps (Myers 1999, Hyyrö 2001): bit
    ``j - 1`` of ``across_up[i - first]`` / ``across_down[i - first]`` is set
    when cell ``(i, j)`` is one more / one less than cell ``(i, j - 1)``, and of
    ``down_up[i - first]`` / ``down_down[i - first]`` when it is one more / one
    less than cell ``(i - 1, j)``. The first ``first`` prediction words equal
    the reference's, so row ``first`` is ``|first - j|`` (falling to column
    ``first``, then rising) and needs no work; each further row costs a few
    integer operations. ``peq`` maps a word to the bits of its reference
    positions.
    """
    full = (1 << n) - 1
    vn = (1 << first) - 1
    vp = full ^ vn
    across_up, across_down = [vp], [vn]
    down_up, down_down = [0], [0]
    add_au, add_ad, add_du, add_dd = (
        across_up.append,
        across_down.append,
        down_up.append,
        down_down.append,
    )
    get = peq.get
    for c in hyp[first:last]:
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


def _aligned(
    hyp: str, ref: str, rows: tuple[list[int], ...], first: int, last_h: int, last_r: int
) -> tuple[list[int], list[int], list[int], list[int]]:
    """The alignment of the trace :func:`_trace_of` reads from the whole table, read directly.

    Walking back from the last cell: equal words align; otherwise the first of
    substitution, deletion and insertion that keeps the cell's cost. The last
    words from ``last_h`` (prediction) and ``last_r`` (reference) on are
    equal and align in order. Up to cells of row or column ``first`` the choice
    comes from the step bits of two rows (:func:`_rows_from`); in the cells
    beyond, whose cost is ``|i - j|`` since the first ``first`` words are
    equal, a substitution never keeps the cost and a deletion keeps it only
    below the diagonal.

    Returns, per reference position, the prediction position aligned to it (the
    one before, for a reference word with no prediction word); per prediction
    and reference position, the first position from there on with an edit (the
    length when there is none); and the prediction positions with an edit.
    """
    across_up, across_down, down_up, down_down = rows
    m, n = len(hyp), len(ref)
    align = [0] * n
    hyp_next = [m] * (m + 1)
    ref_next = [n] * (n + 1)
    edits: list[int] = []
    add_edit = edits.append
    for k in range(m - last_h):
        align[last_r + k] = last_h + k
    next_h, next_r = m, n
    i, j = last_h, last_r
    while i > first and j > first:
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
        row = i - first
        # cell (i, j) less cell (i - 1, j), and cell (i - 1, j) less cell (i - 1, j - 1)
        down = (down_up[row] & bit != 0) - (down_down[row] & bit != 0)
        if down + (across_up[row - 1] & bit != 0) - (across_down[row - 1] & bit != 0) == 1:
            i = i1
            j = j1
            align[j] = i
            hyp_next[i] = next_h = i
            ref_next[j] = next_r = j
            add_edit(i)
        elif down == 1:
            i = i1
            hyp_next[i] = next_h = i
            add_edit(i)
        else:
            j = j1
            align[j] = i1
            ref_next[j] = next_r = j
    while i and j:
        i1 = i - 1
        j1 = j - 1
        if hyp[i1] == ref[j1]:
            i = i1
            j = j1
            align[j] = i
            hyp_next[i] = next_h
            ref_next[j] = next_r
        elif i < j:
            j = j1
            align[j] = i1
            ref_next[j] = next_r = j
        else:
            i = i1
            hyp_next[i] = next_h = i
            add_edit(i)
    while j:
        j -= 1
        align[j] = -1
        ref_next[j] = next_r = j
    while i:
        i -= 1
        hyp_next[i] = i
        add_edit(i)
    edits.reverse()
    return align, hyp_next, ref_next, edits


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
    """One prediction's shifts against one reference.

    Parameters
    ----------
    ref : str
        The reference's word ids.
    m : int
        The number of prediction words (shifts keep it).
    """

    def __init__(self, ref: str, m: int) -> None:
        from rapidfuzz.distance import Levenshtein

        self.ref = ref
        self.bound = _exact_bound(m, len(ref))
        self.levenshtein = Levenshtein.distance
        self.cache: dict[str, int] = {}
        where: dict[str, list[int]] = {}
        peq: dict[str, int] = {}
        for k, word in enumerate(ref):
            positions = where.get(word)
            if positions is None:
                where[word] = [k]
                peq[word] = 1 << k
            else:
                positions.append(k)
                peq[word] |= 1 << k
        self.where = where
        self.peq = peq

    def alignment(self, hyp: str) -> tuple[int, list[int], list[int], list[int], list[int]]:
        """sacrebleu's banded distance of ``hyp``, the alignment of its trace and its edits.

        Within the exact bound no cheapest path leaves the band, so the band's
        trace is the whole table's: the equal first and last words are set
        aside, the table of the words between is built bit-parallel and the
        alignment read from its step bits (:func:`_aligned`). Above the bound
        the band is filled as sacrebleu fills it.
        """
        ref = self.ref
        m, n = len(hyp), len(ref)
        top = m if m < n else n
        first = 0
        while first < top and hyp[first] == ref[first]:
            first += 1
        last_h, last_r = m, n
        while last_h > first and last_r > first and hyp[last_h - 1] == ref[last_r - 1]:
            last_h -= 1
            last_r -= 1
        rows = _rows_from(hyp, first, last_h, n, self.peq)
        mask = (1 << last_r) - 1
        d = last_h + (rows[0][-1] & mask).bit_count() - (rows[1][-1] & mask).bit_count()
        if d <= self.bound:
            return d, *_aligned(hyp, ref, rows, first, last_h, last_r)
        d, trace = _band_distance(hyp, ref, trace=True)
        align, hyp_next, ref_next = _alignment_of_trace(trace.translate(_FLIP))
        return d, align, hyp_next, ref_next, [i for i in range(m) if hyp_next[i] == i]

    def aligned(self, hyp: str) -> tuple[int, list[int], list[int], list[int]]:
        """sacrebleu's banded distance of ``hyp`` and the alignment of its trace.

        The alignment is, per reference position, the prediction position
        aligned to it, and per prediction and reference position the first
        position from there on with an edit (see :meth:`alignment`).
        """
        return self.alignment(hyp)[:4]

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


def _candidates(
    words: str,
    ref: str,
    where: dict[str, list[int]],
    alignment: tuple[int, list[int], list[int], list[int], list[int]],
) -> list[tuple[int, int, int]]:
    """sacrebleu's candidate shifts of ``words``: (block start, block length, target), repeats kept.

    sacrebleu tries, for every pair of a prediction and a reference position
    that start a run of equal words, each length of the run up to 10 whose
    words hold an edit on both sides and that does not cover the prediction
    position aligned to the run's reference start; each block goes before the
    prediction position after the one aligned to each of its reference
    positions, and to the start for a run at the reference's start (a target
    equal to the one before is not tried again).

    A block holds the first prediction edit from its start on, so the pairs
    are found from the prediction edits whose word the reference holds: from
    each such edit and reference position of its word, back along the run of
    equal words through the positions that share that first edit and lie
    within 10 words of it. The same candidates come out, in another order.
    """
    _, align, _, ref_next, edits = alignment
    m, n = len(words), len(ref)
    found: list[tuple[int, int, int]] = []
    add = found.append
    floor = 0
    for edit in edits:
        positions = where.get(words[edit])
        lowest = edit - _MAX_SHIFT_SIZE + 1
        if lowest < floor:
            lowest = floor
        floor = edit + 1
        if positions is None:
            continue
        for at_r in positions:
            if abs(at_r - edit) > _MAX_SHIFT_DIST:
                continue
            # the run of equal words from the edit on
            ahead = 1
            while (
                ahead < _MAX_SHIFT_SIZE
                and edit + ahead < m
                and at_r + ahead < n
                and words[edit + ahead] == ref[at_r + ahead]
            ):
                ahead += 1
            start_h, start_r = edit, at_r
            while True:
                target = align[start_r] - start_h
                if target:
                    high = target if 0 < target < _MAX_SHIFT_SIZE else _MAX_SHIFT_SIZE
                    run = edit - start_h + ahead
                    if run < high:
                        high = run
                    low = ref_next[start_r] - start_r + 1
                    if low < edit - start_h + 1:
                        low = edit - start_h + 1
                    for length in range(low, high + 1):
                        prev = -1
                        for k in range(start_r - 1, start_r + length):
                            idx = 0 if k == -1 else align[k] + 1
                            if idx != prev:
                                prev = idx
                                add((start_h, length, idx))
                if start_h == lowest or start_r == 0 or words[start_h - 1] != ref[start_r - 1]:
                    break
                start_h -= 1
                start_r -= 1
    return found


def _search(words: str, seg: _Segment, checked: int) -> tuple[int, int, str, int]:
    """One step of the shift search: (distance, best gain, shifted words, candidates checked).

    Every candidate of ``words`` (:func:`_candidates`) is scored by the
    distance it leaves; the best has the largest gain, then the longest block,
    the earliest start and the earliest target. The result does not depend on
    the order candidates are tried in: when they bring the count to the limit
    of 1,000, sacrebleu stops the search there and keeps the words as they
    are, so they are counted without being scored.
    """
    alignment = seg.alignment(words)
    pre = alignment[0]
    found = _candidates(words, seg.ref, seg.where, alignment)
    checked += len(found)
    if not found or checked >= _MAX_SHIFT_CANDIDATES:
        return pre, 0, words, checked
    distance = seg.distance
    # a candidate found twice (from two reference positions) is scored once
    best = max(
        (pre - distance(shifted), length, -start, -idx, shifted)
        for start, length, idx in set(found)
        for shifted in (_shifted(words, start, length, idx),)
    )
    return pre, best[0], best[4], checked


def _best_shift(words: str, ref: str, seg: _Segment, checked: int) -> tuple[int, str, int]:
    """The shift that lowers the distance of ``words`` to ``ref`` most: (gain, words, checked).

    ``seg`` holds ``ref``; see :func:`_search`.
    """
    _, gain, shifted, checked = _search(words, seg, checked)
    return gain, shifted, checked


def edit_count(hyp: str, ref: str) -> int:
    """Tercom's edit count (shifts plus edits) of ``hyp`` against ``ref``, word-id strings.

    Examples
    --------
    >>> edit_count("abcd", "cdab")  # one shift of "ab"
    1
    >>> edit_count("ab", "")
    2
    """
    if hyp == ref:
        return 0
    if not ref or not hyp:
        return len(hyp) + len(ref)
    seg = _Segment(ref, len(hyp))
    shifts = 0
    checked = 0
    words = hyp
    while True:
        pre, gain, shifted, checked = _search(words, seg, checked)
        if checked >= _MAX_SHIFT_CANDIDATES or gain <= 0:
            return shifts + pre
        shifts += 1
        words = shifted
