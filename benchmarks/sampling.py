"""How fast problems are drawn, and how long the shipped catalogs take to load.

Prints, for all Feynman formulas and for 1,000 erbench-syneq formulas (evenly spaced through the
set), the median and 90th-percentile time to draw one problem (512 support + 512 validation
points, targets, rejection, content hash) once the formula is compiled, against the 0.2 ms
target; the same with noise and OOD points; the cost of setting up the random streams; and the
time to load all shipped sets through the loader. Figures are printed, not asserted.

    python benchmarks/sampling.py [--draws 5] [--syneq 1000]
"""

from __future__ import annotations

import argparse
import gc
import time

import numpy as np

from srbf.catalogs.streams import key_material, reset_generator, stream_generator
from srbf.catalogs.loader import clear_cache, list_catalogs, load_catalog
from srbf.catalogs.sampling import ProblemSampler, sample_problem

TARGET_MS = 0.2


def load_all() -> tuple[float, float, int, int]:
    """Seconds to load every shipped set from disk (with admission), then again from the cache."""
    clear_cache()
    start = time.perf_counter()
    catalogs = [load_catalog(name) for name in list_catalogs()]
    cold = time.perf_counter() - start
    start = time.perf_counter()
    for name in list_catalogs():
        load_catalog(name)
    warm = time.perf_counter() - start
    return cold, warm, len(catalogs), sum(len(c) for c in catalogs)


def time_group(entries, catalog, draws: int, **options) -> tuple[np.ndarray, list[str]]:
    """Per-draw seconds over all entries (formula compiled and one warm-up draw first), and the
    reasons of the entries that gave a placeholder or no OOD points."""
    times, placeholders = [], []
    for entry in entries:
        sampler = ProblemSampler(entry, catalog=catalog.name, catalog_version=catalog.version)
        first = sampler.sample(seed=10_000, **options)  # compiles, warms caches, learns valid fraction
        reason = first.placeholder_reason or first.ood_reason
        if reason:
            placeholders.append(f"{entry.id}: {reason}")
        for seed in range(draws):
            start = time.perf_counter()
            sampler.sample(seed=seed, **options)
            times.append(time.perf_counter() - start)
    return np.asarray(times), placeholders


def time_cached_path(entries, catalog, draws: int) -> np.ndarray:
    """The same through sample_problem (cache lookup by formula and variables each call)."""
    times = []
    for entry in entries:
        sample_problem(entry, catalog=catalog.name, catalog_version=catalog.version, seed=10_000)
        for seed in range(draws):
            start = time.perf_counter()
            sample_problem(entry, catalog=catalog.name, catalog_version=catalog.version, seed=seed)
            times.append(time.perf_counter() - start)
    return np.asarray(times)


def stream_setup_costs(repeats: int = 20000) -> dict[str, float]:
    """Microseconds to get a Generator positioned at a stream start, three ways."""
    material = key_material("feynman", 1, "I.6.2", 0, 0)

    def per_call(fn) -> float:
        start = time.perf_counter()
        for _ in range(repeats):
            fn()
        return (time.perf_counter() - start) / repeats * 1e6

    entropy = int.from_bytes(b"\x01" * 32, "little")
    return {
        "PCG64(SeedSequence(entropy, spawn_key))": per_call(
            lambda: np.random.Generator(np.random.PCG64(np.random.SeedSequence(entropy, spawn_key=(1,))))
        ),
        "sha256 -> new PCG64 + state (stream_generator)": per_call(
            lambda: stream_generator("feynman", 1, "I.6.2", 0, 0, "support")
        ),
        "sha256 -> reused per-thread PCG64 state (used)": per_call(lambda: reset_generator(material, "support")),
    }


def describe(label: str, seconds: np.ndarray, target: float | None = TARGET_MS) -> None:
    ms = seconds * 1e3
    median, p90 = np.median(ms), np.percentile(ms, 90)
    verdict = "" if target is None else f"  target median <= {target} ms: {'met' if median <= target else 'NOT met'}"
    print(f"  {label:<44} median {median:6.3f} ms   p90 {p90:6.3f} ms   (n={len(ms)}){verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=5, help="timed draws per formula (default 5)")
    parser.add_argument("--syneq", type=int, default=1000, help="erbench-syneq formulas (default 1000)")
    args = parser.parse_args()

    cold, warm, n_sets, n_entries = load_all()
    print(f"loading all {n_sets} shipped sets ({n_entries} formulas) via the loader, with admission:")
    print(f"  from disk {cold:.2f} s; again from the in-process cache {warm * 1e3:.2f} ms")

    feynman = load_catalog("feynman")
    syneq = load_catalog("erbench-syneq")
    step = max(1, len(syneq.entries) // args.syneq)
    syneq_entries = syneq.entries[::step][: args.syneq]
    groups = [(f"feynman ({len(feynman.entries)} formulas)", feynman, feynman.entries),
              (f"erbench-syneq ({len(syneq_entries)} formulas)", syneq, syneq_entries)]  # fmt: skip

    gc.disable()  # collector pauses are not the sampler's cost
    try:
        for label, catalog, entries in groups:
            print(f"\n{label}, {args.draws} timed draws each, 512 support + 512 validation points:")
            plain, placeholders = time_group(entries, catalog, args.draws)
            describe("ProblemSampler.sample", plain)
            describe("sample_problem (cached compile)", time_cached_path(entries, catalog, args.draws))
            describe("+ noise 0.1", time_group(entries, catalog, args.draws, noise=0.1)[0], None)
            ood, no_ood = time_group(entries, catalog, args.draws, ood=True)
            describe("+ 512 OOD points", ood, None)
            print(f"  placeholders: {len(placeholders)}; formulas without OOD points: {len(no_ood) - len(placeholders)}")
            for line in (placeholders + no_ood)[:4]:
                print(f"    {line}")
    finally:
        gc.enable()

    print("\nsetting up one random stream (microseconds per stream; a problem uses 2, up to 4):")
    for name, us in stream_setup_costs().items():
        print(f"  {name:<50} {us:6.2f} us")


if __name__ == "__main__":
    main()
