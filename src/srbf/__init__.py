"""srbf: an open benchmark framework for symbolic regression."""

__version__ = "0.1.0"
