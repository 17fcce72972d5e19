"""Qrels and runs: relevance judgments and ranked results, from dicts, tables or TREC files.

Both are columns of (query, doc, value): ``Qrels`` holds relevance grades and
``Run`` retrieval scores. They are built from

- the pytrec_eval dict form ``{query: {doc: value}}``;
- a pandas DataFrame or pyarrow Table with named columns;
- a TREC file path (``qid iter docid rel`` / ``qid Q0 docid rank score tag``).

Ids are strings (numbers in dicts and tables are converted with ``str``). A
(query, doc) pair may appear once: a duplicate is an error naming the line of a
file, or the row of a table. Values must be finite numbers.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from itertools import chain
from operator import methodcaller
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorekit.errors import InputError, message, raw
from scorekit.ranking._columns import (
    GROUPED_QUERIES,
    all_strings,
    as_ids,
    as_values,
    block_repeats,
    grouped_keys,
    hash_strings,
    query_codes,
    repeats,
)
from scorekit.ranking._order import rank_rows
from scorekit.ranking._trec import Columns, line_of, read_qrels_file, read_run_file

__all__ = ["Qrels", "Run", "as_qrels", "as_run"]

_SEP = "\x00"
_MIX = np.uint64(0x9E3779B97F4A7C15)


class _Judged:
    """Shared storage of :class:`Qrels` and :class:`Run`: query, doc and value columns."""

    _value_name = "value"
    _default_columns: tuple[str, str, str] = ("query", "doc", "value")

    def __init__(self, query: Any, doc: Any, values: Any, *, source: str = "table") -> None:
        self._start(query, doc, values, source)
        self._check_unique()

    def _start(
        self, query: Any, doc: Any, values: Any, source: str, docs: list[str] | None = None
    ) -> None:
        """Convert and check the columns (all but the uniqueness of the pairs).

        ``docs``, given instead of ``doc``, are the doc ids as a list of strings;
        the column is then built from them on first use (:attr:`doc`).
        """
        import pyarrow as pa

        what = type(self).__name__
        self.query = as_ids(what, "query", query)
        self._doc: pa.Array | None = None if docs is not None else as_ids(what, "doc", doc)
        self._docs = docs
        self.values = np.asarray(values, dtype=np.float64)
        self.source = source
        n = len(self.query)
        docs_given = len(docs) if docs is not None else len(self.doc)
        if docs_given != n or self.values.shape != (n,):
            raise InputError(
                message(
                    what,
                    "query, doc and value columns differ in length",
                    raw(f"{n}, {docs_given} and {self.values.shape}"),
                    "equal lengths",
                )
            )
        bad = ~np.isfinite(self.values)
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise InputError(
                message(
                    self._where(row),
                    f"{self._value_name} is not a finite number",
                    raw(str(self.values[row])),
                    "a finite number",
                )
            )
        self._keys: pa.Array | None = None
        self._index: tuple[NDArray[np.int64], NDArray[np.str_], pa.Array] | None = None
        self._hashes: NDArray[np.uint64] | None = None
        self._string_keys = False
        """Built from a dict whose query and doc ids were all strings already."""

    @property
    def doc(self) -> Any:
        """The doc ids, one per row (a pyarrow string array)."""
        if self._doc is None:
            import pyarrow as pa

            self._doc = pa.array(self._docs, type=pa.string())
        return self._doc

    def _doc_list(self) -> list[str] | None:
        """The doc ids as the list of strings they were given in, when built from a dict
        whose ids were all strings; None otherwise."""
        return self._docs

    # construction ------------------------------------------------------------------

    @classmethod
    def from_dict(cls, data: Mapping[Any, Mapping[Any, Any]], *, check_ids: bool = True) -> Any:
        """Build from ``{query: {doc: value}}`` (pytrec_eval's form).

        The keys and values are gathered in one pass and converted once. When
        the query ids are distinct strings and every doc id is a string (the
        usual case), the pairs are distinct by construction and the rows of each
        query are together, so neither a duplicate check nor a hash of the query
        ids is needed. ``check_ids=False`` says the caller has made sure that
        every doc id is a string (as :mod:`scorekit.compat.pytrec_eval` does), so
        they are not looked at again.
        """
        import pyarrow as pa

        what = cls.__name__
        if not isinstance(data, Mapping):
            raise InputError(
                message(what, "not a mapping", type(data).__name__, "{query: {doc: value}}")
            )
        inners = list(data.values())
        if not set(map(type, inners)) <= {dict}:
            # dicts are mappings: the other types are looked at one by one
            for q, inner in zip(data, inners, strict=True):
                if not isinstance(inner, Mapping):
                    raise InputError(
                        message(
                            what,
                            f"query {q!r} does not map docs to values",
                            type(inner).__name__,
                            "{query: {doc: value}}",
                        )
                    )
        # the keys of a dict are distinct: as strings already, they stay so
        plain = set(map(type, data)) <= {str}
        names = list(data) if plain else [str(q) for q in data]
        sizes = np.fromiter(map(len, inners), dtype=np.int64, count=len(inners))
        total = int(sizes.sum())
        docs = list(chain.from_iterable(inners))
        arr = _dict_values(what, cls._value_name, inners, total)
        rows = np.repeat(np.arange(len(names), dtype=np.int64), sizes)
        ids = pa.array(names, type=pa.string())
        queries = ids.take(pa.array(rows))
        # one join over the gathered doc ids, instead of one per query
        as_given = not check_ids or all_strings(docs)
        if not as_given or not (plain or len(set(names)) == len(names)):
            # ids made equal by ``str`` may repeat a pair: build with the checks
            return cls(queries, _doc_ids(docs), arr, source="dict")
        out = cls.__new__(cls)
        out._start(queries, None, arr, "dict", docs=docs)
        out._string_keys = plain or all(isinstance(q, str) for q in data)
        # queries with no document have no row, so they are not in the index
        present = np.flatnonzero(sizes)
        some = names if len(present) == len(names) else [names[i] for i in present.tolist()]
        listed = np.asarray(some, dtype=str)
        order = np.argsort(listed, kind="stable")
        by_name = present[order]
        rank_of = np.zeros(len(names), dtype=np.int64)
        rank_of[by_name] = np.arange(len(by_name))
        out._index = (rank_of[rows], listed[order], ids.take(pa.array(by_name)))
        return out

    @classmethod
    def from_table(
        cls,
        table: Any,
        *,
        query: str | None = None,
        doc: str | None = None,
        value: str | None = None,
    ) -> Any:
        """Build from a pandas DataFrame or pyarrow Table with named columns."""
        names = dict(zip(("query", "doc", "value"), cls._default_columns, strict=True))
        wanted = {
            "query": query or names["query"],
            "doc": doc or names["doc"],
            "value": value or names["value"],
        }
        what = cls.__name__
        names_of = getattr(table, "column_names", None)
        columns = list(names_of if names_of is not None else getattr(table, "columns", []))
        for role, name in wanted.items():
            if name not in columns:
                raise InputError(
                    message(
                        what,
                        f"no {cls._value_name if role == 'value' else role} column",
                        name,
                        f"one of the columns present: {', '.join(repr(c) for c in columns)}",
                    )
                )
        get = (lambda c: table.column(c)) if hasattr(table, "column_names") else table.__getitem__
        arr = as_values(what, cls._value_name, get(wanted["value"]))
        return cls(get(wanted["query"]), get(wanted["doc"]), arr)

    @classmethod
    def _from_columns(cls, columns: Columns) -> Any:
        return cls(columns.query, columns.doc, columns.values, source=str(columns.path))

    # access --------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.query)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({len(self)} rows, {len(self.queries())} queries)"

    def queries(self) -> NDArray[np.str_]:
        """The distinct query ids, sorted (byte order of their UTF-8 form, as trec_eval)."""
        names: NDArray[np.str_] = self._query_index()[1].copy()
        return names

    def _query_index(self) -> tuple[NDArray[np.int64], NDArray[np.str_], Any]:
        """Each row's query as an index into the sorted distinct query ids (cached).

        Returns ``(codes, names, ids)``: row ``i`` belongs to query ``names[codes[i]]``;
        ``ids`` holds the same sorted names as a pyarrow string array.
        """
        if self._index is None:
            self._index = query_codes(self.query)
        return self._index

    def _doc_hashes(self) -> NDArray[np.uint64]:
        """A 64-bit hash of each row's doc id (cached)."""
        if self._hashes is None:
            self._hashes = hash_strings(self.doc)
        return self._hashes

    def _pair_hashes(self) -> NDArray[np.uint64]:
        """A 64-bit hash of each row's (query, doc) pair.

        Equal pairs have equal hashes in every Qrels and Run; unequal pairs
        rarely do, so callers confirm a hash match on the strings themselves.
        """
        codes, _, ids = self._query_index()
        mixed: NDArray[np.uint64] = hash_strings(ids)[codes] * _MIX
        mixed ^= self._doc_hashes()
        mixed *= _MIX
        mixed ^= mixed >> np.uint64(29)
        return mixed

    def to_dict(self) -> dict[str, dict[str, float]]:
        """The pytrec_eval form ``{query: {doc: value}}``."""
        out: dict[str, dict[str, float]] = {}
        for q, d, v in zip(
            self.query.to_pylist(), self.doc.to_pylist(), self.values.tolist(), strict=True
        ):
            out.setdefault(q, {})[d] = v
        return out

    def keys(self) -> Any:
        """One string per row joining query and doc, for hash lookups (cached)."""
        import pyarrow.compute as pc

        if self._keys is None:
            self._keys = pc.binary_join_element_wise(self.query, self.doc, _SEP)
        return self._keys

    def _where(self, row: int) -> str:
        if self.source in ("table", "dict"):
            q, d = self.query[row].as_py(), self.doc[row].as_py()
            return f"{type(self).__name__} (query {q!r}, doc {d!r})"
        return f"{self.source}, line {line_of(Path(self.source), row)}"

    def _check_unique(self) -> None:
        """Reject a repeated (query, doc) pair, naming the first row that repeats one.

        Pairs with distinct hashes are distinct; only rows whose hash is shared
        are compared as strings.
        """
        import pyarrow as pa
        import pyarrow.compute as pc

        codes, names, _ = self._query_index()
        shared = None
        if len(codes):
            heads = np.flatnonzero(np.concatenate([[True], codes[1:] != codes[:-1]]))
            if len(heads) == len(names):
                # each query's rows are one block: comparing doc hashes within blocks suffices
                hashes = self._doc_hashes()
                shared = block_repeats(hashes, heads)
        if shared is None:
            if len(names) <= GROUPED_QUERIES:
                hashes = grouped_keys(self._doc_hashes(), codes)
            else:
                hashes = self._pair_hashes()
            shared = repeats(hashes)
        if len(shared) == 0:
            return
        at = np.minimum(np.searchsorted(shared, hashes), len(shared) - 1)
        rows = np.flatnonzero(shared[at] == hashes)
        picked = pa.array(rows)
        keys = pc.binary_join_element_wise(self.query.take(picked), self.doc.take(picked), _SEP)
        first = np.asarray(pc.index_in(keys, value_set=keys).to_numpy(zero_copy_only=False))
        again = np.flatnonzero(first != np.arange(len(keys)))
        if len(again) == 0:
            return
        row = int(rows[again[0]])
        q, d = self.query[row].as_py(), self.doc[row].as_py()
        raise InputError(
            message(
                self._where(row),
                "duplicate document",
                raw(f"doc {d!r} of query {q!r} again"),
                "each (query, doc) pair once",
            )
        )


class Qrels(_Judged):
    """Relevance judgments: a grade per judged (query, doc) pair.

    Grades ``>= relevance_level`` (default 1) are relevant; 0 and grades below
    the level are judged non-relevant; negative grades count as unjudged, as in
    trec_eval. Build with :meth:`from_dict`, :meth:`from_table` or
    :func:`read_qrels`.

    Examples
    --------
    >>> qrels = Qrels.from_dict({"q1": {"d1": 2, "d2": 0}, "q2": {"d9": 1}})
    >>> qrels
    Qrels(3 rows, 2 queries)
    >>> qrels.queries().tolist()
    ['q1', 'q2']
    """

    _value_name = "relevance"
    _default_columns = ("query", "doc", "relevance")

    def __init__(self, query: Any, doc: Any, relevance: Any, *, source: str = "table") -> None:
        super().__init__(query, doc, relevance, source=source)

    @property
    def relevance(self) -> NDArray[np.float64]:
        """The grades, one per row."""
        return self.values


class Run(_Judged):
    """Retrieved documents with scores; within a query, higher scores rank first.

    Ties in score are broken by doc id, the larger id first, as trec_eval does;
    a rank column, if the source has one, is ignored. Build with
    :meth:`from_dict`, :meth:`from_table` or :func:`read_run`.

    Notes
    -----
    Scores are compared in double precision. trec_eval stores them as
    single-precision floats, so two scores that differ only beyond about 7
    significant digits tie in trec_eval (and are then ordered by doc id) but not
    in scorekit. Round the scores to float32 first to reproduce trec_eval on
    such data.

    Examples
    --------
    >>> run = Run.from_dict({"q1": {"d1": 0.5, "d2": 0.5, "d3": 0.9}})
    >>> run.ranking("q1")
    ['d3', 'd2', 'd1']
    """

    _value_name = "score"
    _default_columns = ("query", "doc", "score")

    def __init__(self, query: Any, doc: Any, score: Any, *, source: str = "table") -> None:
        super().__init__(query, doc, score, source=source)

    def _start(
        self, query: Any, doc: Any, values: Any, source: str, docs: list[str] | None = None
    ) -> None:
        super()._start(query, doc, values, source, docs)
        self._order: tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.str_]] | None = None

    @property
    def score(self) -> NDArray[np.float64]:
        """The scores, one per row."""
        return self.values

    def ranked(self) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.str_]]:
        """The rows in ranking order, the start of each query's rows, and the query ids.

        Returns ``(order, starts, qids)``: ``order`` lists row indices query by
        query, each query's rows by descending score with ties broken by
        descending doc id; query ``qids[i]`` has rows ``order[starts[i]:starts[i+1]]``.
        Queries appear in sorted order. Computed once and cached.
        """
        if self._order is None:
            codes, names, _ = self._query_index()
            self._order = rank_rows(codes, names, self.doc, self.values)
        return self._order

    def ranking(self, query: str) -> list[str]:
        """The doc ids of one query in ranking order."""
        order, starts, qids = self.ranked()
        i = int(np.searchsorted(qids, query))
        if i == len(qids) or qids[i] != query:
            raise InputError(message("Run", "no such query", query, "a query of the run"))
        rows = order[starts[i] : starts[i + 1]]
        docs: list[str] = self.doc.take(rows).to_pylist()
        return docs


def read_qrels(path: str | os.PathLike[str]) -> Qrels:
    """Read a TREC qrels file (``qid iter docid relevance``; ``.gz`` too).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "qrels.txt"
    >>> _ = path.write_text("q1 0 d1 2\\nq1 0 d2 0\\n")
    >>> read_qrels(path).to_dict()
    {'q1': {'d1': 2.0, 'd2': 0.0}}
    """
    qrels: Qrels = Qrels._from_columns(read_qrels_file(Path(path)))
    return qrels


def read_run(path: str | os.PathLike[str]) -> Run:
    """Read a TREC run file (``qid Q0 docid rank score tag``; ``.gz`` too).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "run.txt"
    >>> _ = path.write_text("q1 Q0 d1 1 0.2 bm25\\nq1 Q0 d2 2 0.9 bm25\\n")
    >>> read_run(path).ranking("q1")
    ['d2', 'd1']
    """
    run: Run = Run._from_columns(read_run_file(Path(path)))
    return run


_VALUES = methodcaller("values")


def _dict_values(
    what: str, name: str, inners: list[Mapping[Any, Any]], total: int
) -> NDArray[np.float64]:
    """The values of every inner mapping, in order, as floats (as :func:`as_values` reads them).

    Each mapping's view of its values lives only while it is read: a list of
    them all would make the garbage collector run over and over, walking the
    large lists of ids built just before.
    """
    values = chain.from_iterable(map(_VALUES, inners))
    try:
        return np.fromiter(values, dtype=np.float64, count=total)
    except (TypeError, ValueError):
        return as_values(what, name, list(chain.from_iterable(i.values() for i in inners)))


def _doc_ids(docs: list[Any]) -> Any:
    """Doc ids as a pyarrow string array: strings as they are, anything else through ``str``."""
    import pyarrow as pa

    try:
        column = pa.array(docs)
    except (pa.ArrowException, TypeError, ValueError):
        column = None
    if column is not None and pa.types.is_string(column.type):
        return column
    return pa.array([str(d) for d in docs], type=pa.string())


def _coerce(what: str, obj: Any, cls: type[Any], reader: Any) -> Any:
    if isinstance(obj, cls):
        return obj
    if isinstance(obj, str | os.PathLike):
        return reader(obj)
    if isinstance(obj, Mapping):
        return cls.from_dict(obj)
    if hasattr(obj, "columns") or hasattr(obj, "column_names"):
        return cls.from_table(obj)
    raise InputError(
        message(
            what,
            "cannot read",
            type(obj).__name__,
            f"a {cls.__name__}, a {{query: {{doc: value}}}} dict, a table or a file path",
        )
    )


def as_qrels(obj: Any) -> Qrels:
    """Coerce a Qrels, dict, table or TREC file path to :class:`Qrels`."""
    result: Qrels = _coerce("qrels", obj, Qrels, read_qrels)
    return result


def as_run(obj: Any) -> Run:
    """Coerce a Run, dict, table or TREC file path to :class:`Run`."""
    result: Run = _coerce("run", obj, Run, read_run)
    return result
