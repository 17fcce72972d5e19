"""Poisson(1) unit weights from a counter-based generator: the same weight wherever a unit is read.

The weight of unit ``key`` in replicate ``b`` under ``seed`` is a function of
those three numbers only (the key mixed with the seed by SplitMix64's finaliser
into a 32-bit stream start, a 32-bit integer hash of that start plus the replicate
number, then the inverse Poisson(1) distribution function, by a table of the top
16 bits), so a bootstrap gives
the same replicates in memory, in chunks of any size, from shards merged later and
on any number of Dask partitions.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorekit._check import mix64
from scorekit.errors import ConfigError, InputError, message

__all__ = [
    "LeaveOut",
    "PoissonWeights",
    "hash_keys",
    "poisson_weights",
    "replicate_progress",
    "replicate_weights",
    "unit_bases",
]

_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)

_TABLE_BITS = 16
_AMBIGUOUS = 255


def _poisson_cdf() -> NDArray[np.float64]:
    """P(K <= k) of Poisson(1) for k = 0, 1, ... until it rounds to 1."""
    terms = []
    total = 0.0
    k = 0
    while True:
        total += math.exp(-1.0) / math.factorial(k)
        if total >= 1.0:
            break
        terms.append(total)
        k += 1
    return np.array(terms)


_CDF = _poisson_cdf()


def _table() -> NDArray[np.uint8]:
    """The weight of each cell of the top 16 bits, or _AMBIGUOUS where a cell straddles a step."""
    cells = 1 << _TABLE_BITS
    low = np.arange(cells, dtype=np.float64) / cells
    high = np.arange(1, cells + 1, dtype=np.float64) / cells
    k_low = np.searchsorted(_CDF, low, side="right")
    k_high = np.searchsorted(_CDF, np.nextafter(high, 0.0), side="right")
    table = k_low.astype(np.uint8)
    table[k_low != k_high] = _AMBIGUOUS
    return table


_WEIGHT_OF_CELL = _table()


def hash_keys(keys: Any, where: str) -> NDArray[np.uint64]:
    """64-bit hashes of unit keys (FNV-1a over the UTF-8 text of each key).

    Integers hash as their decimal text, so a key column read as numbers from
    one shard and as text from another gives the same weights.

    Examples
    --------
    >>> hash_keys(["q1", "q2"], "bootstrap").tolist() == hash_keys(["q1", "q2"], "x").tolist()
    True
    >>> int(hash_keys([7], "bootstrap")[0]) == int(hash_keys(["7"], "bootstrap")[0])
    True
    """
    array = np.asarray(keys)
    if array.ndim != 1:
        raise InputError(message(where, "key column must be one value per row", array.shape, "1-D"))
    if array.dtype.kind == "f":
        raise InputError(
            message(where, "key column holds floats", array[:3].tolist(), "integers or text")
        )
    if array.dtype.kind == "O":
        if any(k is None for k in array.tolist()):
            raise InputError(message(where, "key column has a missing value", None, "a key"))
        array = np.array([str(k) for k in array.tolist()])
    text = np.char.encode(array.astype(np.str_), "utf-8")
    width = text.dtype.itemsize
    lengths = np.char.str_len(text)
    data = np.frombuffer(text.tobytes(), dtype=np.uint8).reshape(len(text), max(width, 1))
    h = np.full(len(text), _FNV_OFFSET, dtype=np.uint64)
    for j in range(width):
        live = lengths > j
        step = (h ^ data[:, j].astype(np.uint64)) * _FNV_PRIME
        h = np.where(live, step, h)
    return h


_C1 = np.uint32(0x7FEB352D)
_C2 = np.uint32(0x846CA68B)


def unit_bases(seed: int, keys: NDArray[np.uint64]) -> NDArray[np.uint32]:
    """Each unit's 32-bit stream start under ``seed``: the mix of its key and the seed."""
    mixed_seed = mix64(np.array([seed & 0xFFFFFFFFFFFFFFFF], dtype=np.uint64))[0]
    mixed = mix64(np.asarray(keys, dtype=np.uint64) ^ mixed_seed) >> np.uint64(32)
    out: NDArray[np.uint32] = mixed.astype(np.uint32)
    return out


def _hash(z: NDArray[np.uint32]) -> None:
    """A 32-bit integer hash (two multiply-xorshift rounds), in place."""
    tmp = np.empty_like(z)
    np.right_shift(z, 16, out=tmp)
    np.bitwise_xor(z, tmp, out=z)
    np.multiply(z, _C1, out=z)
    np.right_shift(z, 15, out=tmp)
    np.bitwise_xor(z, tmp, out=z)
    np.multiply(z, _C2, out=z)
    np.right_shift(z, 16, out=tmp)
    np.bitwise_xor(z, tmp, out=z)


def _weights(z: NDArray[np.uint32]) -> NDArray[np.uint8]:
    """Poisson(1) draws from uniform 32-bit integers: a table of the top bits, exact at steps."""
    if np.little_endian and z.flags.c_contiguous:
        high = z.view(np.uint16)[..., 1::2]  # the top 16 bits, without a shift
    else:
        high = z >> np.uint32(32 - _TABLE_BITS)
    weights: NDArray[np.uint8] = np.take(_WEIGHT_OF_CELL, high)
    unsure = np.flatnonzero(weights == _AMBIGUOUS)
    if len(unsure):
        flat = weights.reshape(-1)
        u = z.reshape(-1)[unsure].astype(np.float64) * 2.0**-32
        flat[unsure] = np.searchsorted(_CDF, u, side="right")
    return weights


def poisson_weights(
    seed: int, keys: NDArray[np.uint64], start: int, stop: int
) -> NDArray[np.uint8]:
    """Poisson(1) weights of replicates ``start`` to ``stop - 1``: shape (replicates, units).

    Examples
    --------
    >>> import numpy as np
    >>> w = poisson_weights(7, np.arange(100_000, dtype=np.uint64), 0, 4)
    >>> w.shape, round(float(w.mean()), 1), round(float(w.var()), 1)
    ((4, 100000), 1.0, 1.0)
    >>> bool((poisson_weights(7, np.arange(5, dtype=np.uint64), 2, 4) == w[2:4, :5]).all())
    True
    """
    if not 0 <= start <= stop:
        raise ConfigError(
            message("bootstrap", "invalid replicate range", (start, stop), "0 <= start <= stop")
        )
    return replicate_weights(unit_bases(seed, keys), start, stop)


def replicate_weights(
    bases: NDArray[np.uint32], start: int, stop: int, *, cells: int = 1 << 20
) -> NDArray[np.uint8]:
    """:func:`poisson_weights` from the units' stream starts (:func:`unit_bases`).

    Replicate ``b`` of a unit hashes its stream start plus ``(b + 1)`` times the
    32-bit golden ratio; several replicates are hashed at once, about ``cells``
    values at a time.
    """
    out = np.empty((stop - start, len(bases)), dtype=np.uint8)
    step = max(1, cells // max(len(bases), 1))
    for first in range(start, stop, step):
        last = min(first + step, stop)
        offsets = ((np.arange(first, last, dtype=np.uint64) + 1) * 0x9E3779B9) & 0xFFFFFFFF
        z = bases[None, :] + offsets.astype(np.uint32)[:, None]
        _hash(z)
        out[first - start : last - start] = _weights(z)
    return out


_BLOCK_CELLS = 1 << 20
"""Weights handed out per block by :class:`PoissonWeights` and :class:`LeaveOut` (about)."""


_PROGRESS: contextvars.ContextVar[Callable[[int], None] | None] = contextvars.ContextVar(
    "scorekit_replicate_progress", default=None
)


@contextlib.contextmanager
def replicate_progress(report: Callable[[int], None]) -> Iterator[None]:
    """Within the block, ``report(n)`` is called as each ``n`` replicates' weights are used.

    The weights are drawn a block of replicates at a time (:class:`PoissonWeights`),
    however the metric computes its replicates, so a caller can show their progress.

    Examples
    --------
    >>> import numpy as np
    >>> done = []
    >>> with replicate_progress(done.append):
    ...     _ = list(PoissonWeights(unit_bases(0, np.arange(3, dtype=np.uint64)), 5).blocks())
    >>> sum(done)
    5
    """
    token = _PROGRESS.set(report)
    try:
        yield
    finally:
        _PROGRESS.reset(token)


class PoissonWeights:
    """The Poisson weights of a bootstrap's replicates, in blocks, units in any order.

    Parameters
    ----------
    bases : ndarray of uint32
        The units' stream starts (:func:`unit_bases`).
    replicates : int
        The number of replicates.

    Examples
    --------
    >>> import numpy as np
    >>> keys = np.arange(6, dtype=np.uint64)
    >>> weights = PoissonWeights(unit_bases(3, keys), 4)
    >>> block = np.concatenate(list(weights.blocks(np.array([5, 4, 3, 2, 1, 0]))))
    >>> bool((block == poisson_weights(3, keys, 0, 4)[:, ::-1]).all())
    True
    """

    def __init__(self, bases: NDArray[np.uint32], replicates: int) -> None:
        self.bases = bases
        self.count = replicates

    @property
    def replicates(self) -> int:
        """The number of replicates."""
        return self.count

    def blocks(self, order: NDArray[np.intp] | None = None) -> Iterator[NDArray[np.uint8]]:
        """Blocks of replicates, shape (replicates in the block, units), units in ``order``."""
        bases = self.bases if order is None else self.bases[order]
        step = max(1, _BLOCK_CELLS // max(len(bases), 1))
        report = _PROGRESS.get()
        for start in range(0, self.count, step):
            yield replicate_weights(bases, start, min(start + step, self.count))
            if report is not None:
                report(min(step, self.count - start))


class LeaveOut:
    """The 0/1 weights of a grouped jackknife: every group of units left out in turn.

    Parameters
    ----------
    groups : ndarray of int64
        The group of each unit, in ``[0, count)``.
    count : int
        The number of groups (a group without units leaves out nothing).

    Examples
    --------
    >>> import numpy as np
    >>> np.concatenate(list(LeaveOut(np.array([0, 1, 0]), 2).blocks())).tolist()
    [[0, 1, 0], [1, 0, 1]]
    """

    def __init__(self, groups: NDArray[np.int64], count: int) -> None:
        self.groups = groups
        self.count = count

    @property
    def replicates(self) -> int:
        """The number of groups, one replicate each."""
        return self.count

    def blocks(self, order: NDArray[np.intp] | None = None) -> Iterator[NDArray[np.uint8]]:
        """Blocks of groups left out, shape (groups in the block, units), units in ``order``."""
        groups = self.groups if order is None else self.groups[order]
        step = max(1, _BLOCK_CELLS // max(len(groups), 1))
        for start in range(0, self.count, step):
            left_out = np.arange(start, min(start + step, self.count))[:, None]
            yield (groups[None, :] != left_out).astype(np.uint8)
