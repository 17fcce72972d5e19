"""Run the ``scorekit`` command as ``python -m scorekit``."""

from scorekit.cli import run

if __name__ == "__main__":
    run()
