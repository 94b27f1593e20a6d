"""``WorkerSpec``: what a method worker process is started with, as plain picklable data.

Its own module, importing nothing heavy, because it travels: slot processes (``slot``) and Dask
workers (``dask_slot``) unpickle it, and importing ``plan`` there would load the config models.
``srbf.runs.plan.worker_spec`` makes one from a variant.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from srbf.methods.boundary import Limits

__all__ = ["WorkerSpec"]


@dataclass(frozen=True)
class WorkerSpec:
    """What a worker process is started with: one per variant. Hashable, plain data (picklable).

    ``options`` is the variant's options as canonical JSON text (``setup(options)`` receives them
    decoded); ``sees_truth`` marks an oracle, the only kind of method whose fits carry the truth;
    ``memory_limit`` is the method's own (bytes), None for the machine's default (``executor``).
    """

    label: str
    method_file: str
    python: str | None
    options_json: str
    env: tuple[tuple[str, str | None], ...]
    sees_truth: bool = False
    limits: Limits = Limits()
    memory_limit: int | None = None

    @property
    def options(self) -> dict[str, Any]:
        """The options ``setup`` and every ``fit`` receive (a fresh copy)."""
        return json.loads(self.options_json)
