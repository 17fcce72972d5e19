"""Run the ``scorekit`` command as ``python -m scorekit``."""

from scorekit.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
