"""Run the ``scorekit`` command as ``python -m scorekit``."""

from scorekit.cli import main

raise SystemExit(main())
