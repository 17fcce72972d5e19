"""ranx's fusion in a child process with numba's JIT off, one JSON request per line.

ranx compiles its Borda and Condorcet kernels with numba on first use (tens of
seconds, and its cache does not hold them); with ``NUMBA_DISABLE_JIT=1`` the same
ranx source runs as plain Python. Each request line is ``[runs, method, norm,
params]``; each answer line is the fused run as ``{query: {doc: score}}``.
"""

from __future__ import annotations

import json
import sys
import warnings


def main() -> None:
    warnings.simplefilter("ignore")
    from ranx import Run, fuse

    for line in sys.stdin:
        runs, method, norm, params = json.loads(line)
        fused = fuse([Run(r) for r in runs], norm=norm, method=method, params=params)
        answer = {q: {d: float(v) for d, v in docs.items()} for q, docs in fused.to_dict().items()}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
