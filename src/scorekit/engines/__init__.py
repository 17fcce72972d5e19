"""Engines: the same metric definitions over chunked files and over a Dask cluster.

An engine reads data, turns each chunk into the arguments of ``summarize`` (see
:mod:`scorekit.engines._columns`), and merges the states. It holds no metric code.

- :mod:`scorekit.engines.stream`: :func:`~scorekit.engines.stream.evaluate` (exported
  as ``scorekit.evaluate``) reads tables and files in chunks in this process;
  :func:`~scorekit.engines.stream.fold` merges the states of any sequence of chunks.
- :mod:`scorekit.engines.dask`: the same on a Dask cluster (``scorekit[dask]``).
"""
