"""Engines: the same metric definitions over chunked files and over a Dask cluster.

An engine reads data, turns each chunk into the arguments of ``summarize`` (see
:mod:`scorekit.engines._columns`), and merges the states. It holds no metric code.
"""
