"""The configurations a store holds, which of them a reading reads, and what differs between them.

A configuration is one ``(method, config_hash)`` pair of the predictions' key: what a method was
run with (its adapter or method file's digest, its options, its time limit; docs/config.md). Editing
a method file or an option makes a new one, and the store keeps the old one's fits beside it. Every
reading command (analyze, compare, ranks, site build, export, arena score, distill) reads the
configurations ``select_configurations`` chooses, and nothing else:

- ``latest`` (the default): per method label (the name the analysis shows, ``gplearn`` or
  ``gplearn[population_size=500]``; with the method it labels), the configuration whose most
  recent run stored a fit;
- ``all``: every configuration;
- hashes (or unique prefixes of them): those configurations, and the latest of every other label.

Among the configurations a reading keeps for one label, the newest shows as the label itself and
every other as ``LABEL@HASH`` (the first 8 characters of its hash, more if two would look alike), so
the statistics never see two configurations under one name. ``Selection.apply`` narrows a frame
to them; ``Selection.note`` is the one line naming what was set aside. ``differences`` says what
changed between two configurations (what ``srbf runs`` and a run whose method changed print), and
``forget_rows`` removes configurations from a store.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from srbf.core import SrbfError
from srbf.store.jsontext import loads

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "CHOICES",
    "Configuration",
    "ConfigurationError",
    "Selection",
    "differences",
    "forget_counts",
    "forget_rows",
    "match_configurations",
    "read_configurations",
    "select_configurations",
    "short_hashes",
]

CHOICES = ("latest", "all")
SHORT = 8  # characters of a hash shown (more when two of a store's hashes share them)


class ConfigurationError(SrbfError, ValueError):
    """A configuration asked for that the store does not hold (or holds twice under one prefix)."""


@dataclass(frozen=True)
class Configuration:
    """One configuration with fits in a store: ``recency`` is the id of the latest campaign that
    stored a fit of it (the larger, the more recently it ran); ``variant`` is what that campaign
    recorded about it (``srbf.runs.sweeps.Variant.to_dict``; {} when unknown)."""

    label: str
    method: str
    config_hash: str
    fits: int
    first: str  # when its first stored fit was recorded (ISO 8601, UTC)
    last: str  # when its last one was
    recency: int
    provenance: str
    statuses: Mapping[str, int] = field(default_factory=dict)
    variant: Mapping[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> tuple[str, str]:
        return self.method, self.config_hash


def read_configurations(conn: sqlite3.Connection) -> list[Configuration]:
    """Every configuration with stored fits, grouped by label and method (sorted), newest first."""
    rows = conn.execute(  # one pass in the key's index order
        "SELECT method, config_hash, max(campaign_id), status, provenance, count(*), min(created_at), max(created_at) "
        "FROM predictions GROUP BY method, config_hash, status, provenance"
    ).fetchall()
    configs = {int(r[0]): loads(r[1]) for r in conn.execute("SELECT id, config FROM campaigns")}
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for method, config_hash, campaign, status, provenance, n, first, last in rows:
        entry = found.setdefault((method, config_hash), {"fits": 0, "first": first, "last": last, "recency": -1,
                                                         "provenance": set(), "statuses": {}})  # fmt: skip
        entry["fits"] += n
        entry["first"], entry["last"] = min(entry["first"], first), max(entry["last"], last)
        entry["recency"] = max(entry["recency"], int(campaign))
        entry["provenance"].add(provenance)
        entry["statuses"][status] = entry["statuses"].get(status, 0) + n
    out = []
    for (method, config_hash), entry in found.items():
        config = configs.get(entry["recency"])
        variant = config.get("variant") if isinstance(config, Mapping) else None
        variant = variant if isinstance(variant, Mapping) else {}
        label = variant.get("label") if isinstance(variant.get("label"), str) and variant.get("label") else method
        out.append(Configuration(label, method, config_hash, entry["fits"], entry["first"], entry["last"],
                                 entry["recency"], "+".join(sorted(entry["provenance"])), entry["statuses"],
                                 variant))  # fmt: skip
    return sorted(out, key=lambda c: (c.label, c.method, -c.recency))


def short_hashes(configurations: Iterable[Configuration]) -> dict[str, str]:
    """Each hash's shortest prefix of at least ``SHORT`` characters that no other hash shares."""
    hashes = sorted({c.config_hash for c in configurations})
    out = {}
    for h in hashes:
        n = SHORT
        while n < len(h) and any(o != h and o[:n] == h[:n] for o in hashes):
            n += 1
        out[h] = h[:n]
    return out


def match_configurations(configurations: Sequence[Configuration], wanted: str) -> list[Configuration]:
    """The configurations ``wanted`` names: ``LABEL`` or ``METHOD`` (every configuration of it),
    ``LABEL@HASH`` or a bare ``HASH`` (a prefix of at least 4 characters is enough when it is
    unique). ConfigurationError, naming what the store holds, when it names none."""
    name, at, prefix = wanted.rpartition("@") if "@" in wanted else (wanted, "", "")
    if not at:
        named = [c for c in configurations if name in (c.label, c.method)]
        if named:
            return named
        name, prefix = "", wanted  # a bare hash
    pool = [c for c in configurations if not name or name in (c.label, c.method)]
    if name and not pool:
        raise ConfigurationError(f"no method {name!r} in the store; it holds {_held(configurations)}")
    if len(prefix) < 4 or not all(ch in "0123456789abcdef" for ch in prefix.lower()):
        raise ConfigurationError(f"{wanted!r}: not a method of the store nor a configuration hash (4 or more hex "
                                 f"characters); the store holds {_held(configurations)}")  # fmt: skip
    hits = [c for c in pool if c.config_hash.startswith(prefix.lower())]
    if not hits:
        raise ConfigurationError(f"no configuration {wanted!r} in the store; it holds {_held(pool)}")
    if len({c.config_hash for c in hits}) > 1:
        raise ConfigurationError(f"{wanted!r} names {len(hits)} configurations ({_held(hits)}): give more of the hash")
    return hits


def _held(configurations: Iterable[Configuration]) -> str:
    configurations = list(configurations)
    short = short_hashes(configurations)
    return ", ".join(f"{c.label}@{short[c.config_hash]}" for c in configurations) or "nothing"


@dataclass(frozen=True)
class Selection:
    """What a reading reads: ``kept`` maps each chosen ``(method, config_hash)`` to the label it
    is shown under; ``set_aside`` lists the configurations left out."""

    choice: tuple[str, ...]
    kept: Mapping[tuple[str, str], str]
    set_aside: tuple[Configuration, ...]
    short: Mapping[str, str] = field(default_factory=dict)

    def note(self) -> str | None:
        """The line naming what was set aside (None when nothing was)."""
        if not self.set_aside:
            return None
        shown = "; ".join(f"{c.label}@{self.short.get(c.config_hash, c.config_hash[:SHORT])} ({c.fits} fit(s), last "
                          f"{_date(c.last)})" for c in self.set_aside)  # fmt: skip
        how = "the newest configuration of each method" if self.choice == ("latest",) else "the configurations asked for"
        return (f"read {how}; set aside {len(self.set_aside)} older one(s): {shown} "
                "(--configs all reads them too; srbf runs lists them)")

    def apply(self, frame: pd.DataFrame, *, method: str = "method", label: str | None = None) -> pd.DataFrame:
        """``frame`` narrowed to the kept configurations (``method`` names its column of the keyed
        method name, ``config_hash`` its hash), with ``label`` (when given) set to the label each
        is shown under."""
        pairs = list(zip(frame[method].astype(str), frame["config_hash"].astype(str)))
        keep = [pair in self.kept for pair in pairs]
        out = frame.loc[keep].copy() if not all(keep) else frame.copy()
        if label is not None and len(out):
            out[label] = [self.kept[pair] for pair, k in zip(pairs, keep) if k]
        return out


def _date(text: str) -> str:
    return str(text)[:16].replace("T", " ")


def select_configurations(configurations: Sequence[Configuration], choice: Sequence[str] | str = "latest") -> Selection:
    """Which configurations a reading reads (see the module's docstring): ``choice`` is
    ``"latest"``, ``"all"``, or a list of hashes (prefixes) and ``LABEL@HASH`` names."""
    choice = (choice,) if isinstance(choice, str) else tuple(choice)
    if not choice:
        choice = ("latest",)
    if len(choice) > 1 and any(c in CHOICES for c in choice):
        raise ConfigurationError(f"--configs: 'latest' and 'all' stand alone, got {' '.join(choice)}")
    by_label: dict[tuple[str, str], list[Configuration]] = {}  # a label belongs to one method (a store made by hand may say otherwise)
    for c in configurations:
        by_label.setdefault((c.label, c.method), []).append(c)
    for group in by_label.values():
        group.sort(key=lambda c: -c.recency)
    if choice == ("all",):
        chosen = {c.key for c in configurations}
    elif choice == ("latest",):
        chosen = {group[0].key for group in by_label.values()}
    else:
        named = [hit for wanted in choice for hit in match_configurations(configurations, wanted)]
        named_labels = {(c.label, c.method) for c in named}
        chosen = {c.key for c in named} | {g[0].key for label, g in by_label.items() if label not in named_labels}
    short = short_hashes(configurations)
    kept, aside = {}, []
    for (label, _), group in by_label.items():
        shown = [c for c in group if c.key in chosen]
        for i, c in enumerate(shown):
            kept[c.key] = label if i == 0 else f"{label}@{short[c.config_hash]}"
        aside += [c for c in group if c.key not in chosen]
    return Selection(choice, kept, tuple(aside), short)


# --- what differs ---------------------------------------------------------------------------------


def _flat(value: Any, prefix: str, top: bool = True) -> dict[str, Any]:
    """A nested mapping as ``{"options.params.x": value}`` (an empty mapping inside stays a value)."""
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key in value:
            out.update(_flat(value[key], f"{prefix}.{key}", top=False))
        return out if out or top else {prefix: {}}
    return {prefix: value}


def _text(value: Any) -> str:
    import json

    return "(none)" if value is _ABSENT else json.dumps(value, sort_keys=True, default=str)


_ABSENT = object()


def differences(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """What differs between two configurations' records (``Variant.to_dict()``, as campaigns
    store them), as short phrases: the adapter or method file, options, time limit, budgets,
    interpreter. [] when either is unknown (an empty record: a campaign that did not say)."""
    if not old or not new:
        return []
    found = []
    old_adapter = (old.get("hash_payload") or {}).get("adapter") or {}
    new_adapter = (new.get("hash_payload") or {}).get("adapter") or {}
    if old_adapter != new_adapter and old_adapter and new_adapter:
        if "sha256" in old_adapter and "sha256" in new_adapter and old_adapter.get("type") == new_adapter.get("type"):
            what = "the method file" if old_adapter.get("type") == "file" else "the SRBench folder"
            found.append(f"{what} (sha256 {str(old_adapter['sha256'])[:SHORT]} -> {str(new_adapter['sha256'])[:SHORT]})")
        else:
            found.append(f"the adapter ({_text(old_adapter)} -> {_text(new_adapter)})")
    flat_old = _flat(old.get("options") or {}, "options")
    flat_new = _flat(new.get("options") or {}, "options")
    for key in sorted(set(flat_old) | set(flat_new)):
        a, b = flat_old.get(key, _ABSENT), flat_new.get(key, _ABSENT)
        if a != b:
            found.append(f"{key} ({_text(a)} -> {_text(b)})")
    for key, name in (("time_limit", "time limit"), ("budgets", "budgets"), ("python", "interpreter")):
        a, b = old.get(key, _ABSENT), new.get(key, _ABSENT)
        if a is not _ABSENT and b is not _ABSENT and a != b:
            found.append(f"{name} ({_text(a)} -> {_text(b)})")
    a, b = (old.get("hash_payload") or {}).get("limits"), (new.get("hash_payload") or {}).get("limits")
    if a != b:
        found.append(f"limits ({_text(a)} -> {_text(b)})")
    return found


# --- forgetting -----------------------------------------------------------------------------------

_TEMP = "CREATE TEMP TABLE IF NOT EXISTS forgotten (method TEXT NOT NULL, config_hash TEXT NOT NULL)"


def _doomed(conn: sqlite3.Connection, pairs: Iterable[tuple[str, str]]) -> None:
    conn.execute(_TEMP)
    conn.execute("DELETE FROM temp.forgotten")
    conn.executemany("INSERT INTO temp.forgotten VALUES (?, ?)", list(pairs))


_PREDICTIONS = ("SELECT p.id FROM predictions p JOIN temp.forgotten f "
                "ON p.method = f.method AND p.config_hash = f.config_hash")  # fmt: skip


def _campaigns(conn: sqlite3.Connection, pairs: set[tuple[str, str]]) -> list[int]:
    """Campaigns of the forgotten configurations that hold no fit of another configuration."""
    ids = []
    for cid, config_hash, config in conn.execute("SELECT id, config_hash, config FROM campaigns"):
        variant = (loads(config) or {}).get("variant") or {}
        if (variant.get("method"), config_hash) not in pairs:
            continue
        other = conn.execute(
            f"SELECT 1 FROM predictions WHERE campaign_id = ? AND id NOT IN ({_PREDICTIONS}) LIMIT 1", (cid,)
        ).fetchone()
        if other is None:
            ids.append(int(cid))
    return ids


def forget_counts(conn: sqlite3.Connection, pairs: Iterable[tuple[str, str]]) -> dict[str, int]:
    """How many rows forgetting ``pairs`` (method, config_hash) removes, per table."""
    pairs = set(pairs)
    _doomed(conn, pairs)
    one = lambda sql: int(conn.execute(sql).fetchone()[0])  # noqa: E731
    counts = {
        "predictions": one(f"SELECT count(*) FROM ({_PREDICTIONS})"),
        "trajectory steps": one(f"SELECT count(*) FROM trajectories WHERE prediction_id IN ({_PREDICTIONS})"),
        "metrics rows": one(f"SELECT count(*) FROM metrics WHERE prediction_id IN ({_PREDICTIONS})"),
        "campaigns": len(_campaigns(conn, pairs)),
        "judge stacks": one(f"SELECT count(*) FROM judge_stacks j WHERE EXISTS (SELECT 1 FROM metrics m WHERE "
                            f"m.judge_stack_id = j.id) AND NOT EXISTS (SELECT 1 FROM metrics m WHERE m.judge_stack_id "
                            f"= j.id AND m.prediction_id NOT IN ({_PREDICTIONS}))"),
    }  # fmt: skip
    conn.execute("DELETE FROM temp.forgotten")
    return counts


def forget_rows(conn: sqlite3.Connection, pairs: Iterable[tuple[str, str]]) -> dict[str, int]:
    """Remove the configurations ``pairs`` inside the caller's write transaction: their
    predictions, those predictions' trajectories and metrics, the campaigns that recorded only
    them, and the judge stacks only their metrics used. Returns the counts of ``forget_counts``."""
    pairs = set(pairs)
    counts = forget_counts(conn, pairs)
    _doomed(conn, pairs)
    campaigns = _campaigns(conn, pairs)
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS forgotten_stacks (id INTEGER)")
    conn.execute("DELETE FROM temp.forgotten_stacks")
    conn.execute(f"INSERT INTO temp.forgotten_stacks SELECT DISTINCT judge_stack_id FROM metrics WHERE "
                 f"judge_stack_id IS NOT NULL AND prediction_id IN ({_PREDICTIONS})")  # fmt: skip
    conn.execute(f"DELETE FROM metrics WHERE prediction_id IN ({_PREDICTIONS})")
    conn.execute(f"DELETE FROM trajectories WHERE prediction_id IN ({_PREDICTIONS})")
    conn.execute(f"DELETE FROM predictions WHERE id IN ({_PREDICTIONS})")
    conn.executemany("DELETE FROM campaigns WHERE id = ?", [(c,) for c in campaigns])
    conn.execute("DELETE FROM judge_stacks WHERE id IN (SELECT id FROM temp.forgotten_stacks) AND NOT EXISTS "
                 "(SELECT 1 FROM metrics m WHERE m.judge_stack_id = judge_stacks.id)")  # fmt: skip
    conn.execute("DELETE FROM temp.forgotten")
    conn.execute("DELETE FROM temp.forgotten_stacks")
    return counts
