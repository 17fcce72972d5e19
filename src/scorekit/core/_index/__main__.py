"""``python -m scorekit.core._index [--write | --check]``: the metric index of the live registry.

Without an option, print the index; ``--write`` writes it to the package's
``metrics.json``; ``--check`` exits with status 1 when that file differs.
No plug-in is loaded: the index holds scorekit's own metrics only.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from scorekit.core._index import PATH, REGENERATE, build, render


def main(argv: Sequence[str] | None = None) -> int:
    """Print, write or check the index; return the exit status.

    Examples
    --------
    >>> main(["--check"])
    0
    """
    parser = argparse.ArgumentParser(
        prog="python -m scorekit.core._index",
        description="The metadata of scorekit's own metrics, as `scorekit list` reads it.",
    )
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--write", action="store_true", help=f"write it to {PATH}")
    action.add_argument(
        "--check", action="store_true", help="exit with status 1 when that file differs"
    )
    args = parser.parse_args(argv)
    index = build()
    text = render(index)
    if args.write:
        with open(PATH, "w", encoding="utf-8") as file:
            file.write(text)
        count = sum(len(entries) for entries in index.values())
        print(f"wrote {count} metrics of {len(index)} providers to {PATH}")
        return 0
    if args.check:
        try:
            with open(PATH, encoding="utf-8") as file:
                current = file.read()
        except OSError:
            current = None
        if current != text:
            print(f"{PATH} differs from the registry; run `{REGENERATE}`", file=sys.stderr)
            return 1
        return 0
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
