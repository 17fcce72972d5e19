"""One self-contained HTML report of an evaluation (the ``[report]`` extra).

:func:`report` writes a single file: the figures are inline SVG drawn by
matplotlib, the style is inline CSS, and nothing is fetched from anywhere
(no script, font or image from another file or host), so the file opens from
disk, prints, and can be mailed. Everything taken from the data (class names,
query ids, file names, error reasons) is escaped. Sections follow what the
result holds: a summary table of values and settings (with each interval's
low and high when the values carry intervals); ROC, precision-recall,
calibration, score distributions and a threshold table from score
histograms; confusion matrices and per-class tables from confusion counts;
absolute errors and a per-output table from regression states; per-query
distributions and the worst and best queries from ranking states; latency
CDFs, throughput and requests in flight over time and failures by reason
from serving records or states, and throughput against latency over a
sweep's steps. Given the texts (``texts=``) or the SQuAD files (``squad=``),
the per-segment or per-question values and the worst of them;
:func:`comparison` writes the report of systems compared. Figures come from
the metrics' states, so the report's time and size do not grow with the
rows; the file stays under 5 MB (long lists are summarised).

Examples
--------
>>> import os, tempfile, scorekit
>>> result = scorekit.evaluate({"y_true": [0, 1, 1, 0], "y_score": [0.2, 0.9, 0.6, 0.4]},
...                            ["roc_auc", "average_precision"])
>>> path = scorekit.report(result, os.path.join(tempfile.mkdtemp(), "report.html"))
>>> text = open(path, encoding="utf-8").read()
>>> "<svg" in text and "roc_auc" in text
True
>>> import re
>>> sorted(set(re.findall(r'https?://[^"]*', text)))  # the SVG namespaces only
['http://www.w3.org/1999/xlink', 'http://www.w3.org/2000/svg']
"""

from __future__ import annotations

import sys
import types
from typing import Any

from scorekit.report._build import MAX_BYTES, comparison, missing_packages, render, report

__all__ = ["MAX_BYTES", "comparison", "missing_packages", "render", "report"]


class _CallableModule(types.ModuleType):
    """This module, callable: ``scorekit.report(result, path)`` is :func:`report`."""

    def __call__(self, result: Any, path: Any, **options: Any) -> str:
        return report(result, path, **options)


sys.modules[__name__].__class__ = _CallableModule
