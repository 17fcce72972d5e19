__version__ = "0.1.0"
"""The version of scorekit."""
