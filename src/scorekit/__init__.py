"""scorekit: evaluation metrics for machine learning."""

from scorekit._version import __version__

__all__ = ["__version__"]
