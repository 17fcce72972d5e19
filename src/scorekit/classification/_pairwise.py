"""numpy's sum of a float64 array, computed from its pieces in order: :class:`PairwiseSum`.

``np.add.reduce`` (and ``np.sum``, ``np.trapezoid``) adds a contiguous
float64 array by pairwise summation: an array of at most 128 elements is
added in one block (eight running sums, then the rest one by one), a longer
one is split after ``n // 2`` elements rounded down to a multiple of 8 and its
halves are summed the same way, and the reduction adds the whole to ``0.0``.
The tree of additions depends only on the length, so a sum fed its elements
in pieces reproduces numpy's result bit for bit once the length is known in
advance: each subtree is summed by numpy itself as soon as all its elements
have arrived, and only the partial sums of the subtrees still open (one per
level) and the elements of the one block not yet complete are kept.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["PairwiseSum", "carried_cumsum"]

Float = NDArray[np.float64]

# numpy's block: a run of at most this many elements is added without splitting
_BLOCK = 128
# a pending addition of the two subtrees on top of the value stack
_ADD = (-1, -1)


class PairwiseSum:
    """The sum of ``n`` float64 values fed in order, equal to ``np.add.reduce`` of them all.

    Parameters
    ----------
    n : int
        How many values will be fed in all.
    reverse : bool, default False
        The values come last first: the sum is that of the array they make
        once reversed (the order of a walk down the scores whose sum numpy
        takes up them).

    Notes
    -----
    Memory is ``O(log n)`` partial sums plus fewer than 128 values, whatever
    the pieces. Feeding more than ``n`` values, or reading the result before
    all have been fed, is a ``ValueError``.

    Examples
    --------
    >>> import numpy as np
    >>> values = np.random.default_rng(0).standard_normal(1000) * 1e6
    >>> total = PairwiseSum(values.size)
    >>> for piece in np.array_split(values, 7):
    ...     total.add(piece)
    >>> total.result() == float(np.sum(values))
    True
    """

    def __init__(self, n: int, *, reverse: bool = False) -> None:
        if n < 0:
            raise ValueError(f"PairwiseSum: negative length; got {n}, expected n >= 0.")
        self._n = int(n)
        self._reverse = reverse
        self._seen = 0
        self._buffer: Float = np.empty(0, dtype=np.float64)
        self._buffer_start = 0
        # nodes still to sum, as (start, length), and _ADD markers: the last is next
        self._todo: list[tuple[int, int]] = [(0, self._n)] if self._n else []
        self._values: list[Any] = []

    @property
    def fed(self) -> int:
        """How many values have been fed so far."""
        return self._seen

    def add(self, values: Any) -> None:
        """Feed the next values (anything ``np.asarray`` turns into a 1-D float64 array)."""
        piece = np.asarray(values, dtype=np.float64).reshape(-1)
        if piece.size == 0:
            return
        if self._seen + piece.size > self._n:
            raise ValueError(
                f"PairwiseSum: more values than announced; got {self._seen + piece.size}, "
                f"expected {self._n}."
            )
        kept = self._buffer
        self._buffer = np.concatenate([kept, piece]) if kept.size else piece
        self._seen += piece.size
        self._reduce()

    def _fed_range(self, start: int, length: int) -> tuple[int, int]:
        """Where the node of elements ``[start, start + length)`` lies among the values fed."""
        if self._reverse:
            return self._n - start - length, self._n - start
        return start, start + length

    def _reduce(self) -> None:
        todo, values, buffer, at = self._todo, self._values, self._buffer, self._buffer_start
        while todo:
            start, length = todo[-1]
            if (start, length) == _ADD:
                todo.pop()
                right = values.pop()
                values.append(values.pop() + right)
                continue
            a, b = self._fed_range(start, length)
            if b <= self._seen:
                todo.pop()
                view = buffer[a - at : b - at]
                if self._reverse:
                    view = np.ascontiguousarray(view[::-1])
                values.append(np.add.reduce(view, initial=-0.0))
            elif length > _BLOCK:
                todo.pop()
                half = length // 2
                half -= half % 8
                left, right_node = (start, half), (start + half, length - half)
                # the node fed first is summed first; the sum of two is the same either way
                first, second = (right_node, left) if self._reverse else (left, right_node)
                todo.extend([_ADD, second, first])
            else:
                break
        # keep the values of the first node not yet summed: less than one block
        keep_from = self._fed_range(*todo[-1])[0] if todo else self._seen
        if keep_from > at or buffer.base is not None:
            # a copy: no view keeps the array of the values fed (a range's counts) alive
            self._buffer = buffer[keep_from - at :].copy()
            self._buffer_start = keep_from

    def result(self) -> float:
        """The sum, once all ``n`` values have been fed: ``np.add.reduce`` of them."""
        if self._seen != self._n:
            raise ValueError(
                f"PairwiseSum: the sum is read before all values were fed; got {self._seen}, "
                f"expected {self._n}."
            )
        if not self._values:
            return 0.0
        return float(np.float64(0.0) + self._values[0])


def carried_cumsum(carry: Any, values: NDArray[Any]) -> NDArray[Any]:
    """``np.cumsum`` of ``values`` continued from the running total ``carry``.

    Equal, element by element, to the tail of ``np.cumsum`` of the whole array
    whose running total before ``values`` is ``carry`` (a cumulative sum adds
    one element at a time, in order).

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([0.1, 0.2, 0.3, 0.4])
    >>> bool((carried_cumsum(np.cumsum(x[:2])[-1], x[2:]) == np.cumsum(x)[2:]).all())
    True
    """
    dtype = np.result_type(np.asarray(carry).dtype, values.dtype)
    out = np.empty(values.size + 1, dtype=dtype)
    out[0] = carry
    out[1:] = values
    np.cumsum(out, out=out)
    return out[1:]
