"""The configuration commands of the ``srbf`` CLI: ``runs`` (what a store holds) and ``forget``.

``srbf runs`` lists, per method, every configuration the store holds: its hash, when its fits were
stored, how many, its provenance, and what differs from the method's newest configuration (the
method file's digest, options, budgets, time limit). ``srbf forget METHOD[@HASH]`` removes
configurations' rows in one transaction after showing what will go (``--yes`` skips the question;
without a terminal it is required). Both read the store by the rule of ``store_args``. The store
is imported inside the commands. docs/cli.md has the long form.
"""

from __future__ import annotations

import argparse
import json
import sys

from srbf.cli.args import UserError
from srbf.cli.store_args import add_store_flags, results_root

__all__ = ["add_config_commands"]


def _open(args: argparse.Namespace):
    from srbf.store import ResultsStore, resolve_path

    root = results_root(args)
    if not resolve_path(root).is_file():
        raise UserError(f"no results store at {resolve_path(root)} (run something first, or pass --results DIR / -c CONFIG)")
    return ResultsStore.open_readonly(root)


def listing(configurations) -> list[dict]:
    """Per configuration (newest of each method first): what ``srbf runs`` shows, as plain data."""
    from srbf.store.configurations import differences, short_hashes

    short = short_hashes(configurations)
    newest: dict[str, object] = {}
    rows = []
    for c in configurations:  # grouped by label, newest first
        first = newest.setdefault((c.label, c.method), c)
        rows.append({
            "method": c.label, "config_hash": c.config_hash, "short": short[c.config_hash], "newest": first is c,
            "first_stored": c.first, "last_stored": c.last, "fits": c.fits, "statuses": dict(c.statuses),
            "provenance": c.provenance, "differs": [] if first is c else differences(c.variant, first.variant),
        })  # fmt: skip
    return rows


def _runs(args: argparse.Namespace) -> int:
    from srbf.report.text import text_table

    with _open(args) as store:
        rows, path = listing(store.configurations()), store.path
    if args.json:
        print(json.dumps({"results": str(path), "configurations": rows}, indent=2))
        return 0
    methods = len({r["method"] for r in rows})
    print(f"results {path}: {methods} method(s), {len(rows)} configuration(s); the newest of each is read "
          "unless --configs says otherwise")  # fmt: skip
    table = [(r["method"], r["short"] + (" *" if r["newest"] else ""), r["last_stored"][:16].replace("T", " "), r["fits"],
              r["fits"] - r["statuses"].get("ok", 0), r["provenance"],
              "(newest)" if r["newest"] else "; ".join(r["differs"]) or "nothing recorded differs")
             for r in rows]  # fmt: skip
    print(text_table(("method", "configuration", "last stored (UTC)", "fits", "not ok", "provenance",
                      "differs from the newest"), table, right=(3, 4)))  # fmt: skip
    if any(not r["newest"] for r in rows):
        print("read an older one: --configs HASH (or all); remove one: srbf forget METHOD@HASH")
    return 0


def _forget(args: argparse.Namespace) -> int:
    from srbf.runs.driver import run_lock
    from srbf.store import ResultsStore
    from srbf.store.configurations import match_configurations, short_hashes

    with _open(args) as store:
        configurations = store.configurations()
        chosen = {c.key: c for wanted in args.targets for c in match_configurations(configurations, wanted)}
        counts = store.forget_counts(chosen)
        path = store.path
    short = short_hashes(configurations)
    print(f"{path}: forgetting {len(chosen)} configuration(s):")
    for c in chosen.values():
        print(f"  {c.label}@{short[c.config_hash]}: {c.fits} fit(s), stored {c.first[:16]} .. {c.last[:16]}")
    print("removes " + ", ".join(f"{n} {what}" for what, n in counts.items()))
    if not args.yes:
        if not sys.stdin.isatty():
            raise UserError("srbf forget asks before removing anything: pass --yes to confirm without a terminal")
        if input("forget them? [y/N] ").strip().lower() not in ("y", "yes"):
            print("nothing removed")
            return 0
    lock = run_lock(path)  # never while a run writes the store
    try:
        with ResultsStore(path) as store:
            removed = store.forget(chosen)
    finally:
        lock.release()
    print("removed " + ", ".join(f"{n} {what}" for what, n in removed.items()))
    return 0


def add_config_commands(commands: argparse._SubParsersAction) -> None:
    """Register ``srbf runs`` and ``srbf forget`` on the top-level parser."""
    p = commands.add_parser("runs", help="the configurations a store holds, per method: hash, date, fits, what differs")
    add_store_flags(p, configs=False)
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(run=_runs)

    p = commands.add_parser("forget", help="remove configurations' rows (predictions, trajectories, metrics) from a store")
    p.add_argument("targets", nargs="+", metavar="METHOD[@HASH]",
                   help="a method (every configuration of it) or one configuration, METHOD@HASH (a unique prefix "
                        "of the hash is enough; srbf runs lists them)")  # fmt: skip
    add_store_flags(p, configs=False)
    p.add_argument("--yes", action="store_true", help="do not ask (required without a terminal)")
    p.set_defaults(run=_forget)
