"""srbf: an open benchmark framework for symbolic regression."""

__version__ = "0.1.0"

_API = {"open": "open_results", "evaluate": "evaluate", "Results": "Results"}  # srbf.X -> srbf.api's name
__all__ = ["Results", "__version__", "evaluate", "open"]


def __getattr__(name: str):
    """``srbf.open``, ``srbf.evaluate`` and ``srbf.Results``, imported on first use (PEP 562), so
    ``import srbf`` (and with it every command) stays light."""
    if name in _API:
        import importlib

        return getattr(importlib.import_module("srbf.api"), _API[name])
    raise AttributeError(f"module 'srbf' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_API])
