"""ranx's evaluate in a child process with numba's JIT off, one JSON request per line.

ranx compiles its metric kernels with numba on first use (tens of seconds);
with ``NUMBA_DISABLE_JIT=1`` the same ranx source runs as plain Python. Each
request line is ``[qrels, run, metrics]``; each answer line maps every metric
to its per-query values in sorted query order (``NaN`` where ranx gives nan),
with the run made comparable to the qrels first.
"""

from __future__ import annotations

import json
import sys
import warnings


def main() -> None:
    warnings.simplefilter("ignore")
    from ranx import Qrels, Run, evaluate

    for line in sys.stdin:
        qrels, run, metrics = json.loads(line)
        values = evaluate(Qrels(qrels), Run(run), metrics, return_mean=False, make_comparable=True)
        if len(metrics) == 1:
            values = {metrics[0]: values}
        answer = {m: [float(v) for v in values[m]] for m in metrics}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
