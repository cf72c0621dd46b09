"""The settled verdict a run store records (``releasegate run CONFIG --settle``, issue 34): what ``check STORE`` and
``report STORE`` read instead of deciding every run again at the policy's full alpha.

The two-phase design looks at a store at most twice (look 1 at four fifths of alpha on the config's runs; on
NOT PROVEN look 2 at the last fifth on all the runs). Deciding the store once more at the full alpha would be a
third look the design spent nothing on: the chance of calling a harmless release DON'T SHIP, or one worse by the
margin SHIP, would no longer be alpha. So the store keeps, in its ``meta`` table (key ``settled``), the looks
taken (their runs, levels and verdicts), the final verdicts, and fingerprints of what was decided: the gated
table (every cell's outcome, error and figures) and the policy, whose pinned keys are kept beside it so that a
refusal can name the key that changed. A later ``check STORE`` decides the last look
again, at that look's alpha, on the same cells (the last look always read every run the store holds); when the
cells or the policy changed since, or a candidate was settled by an earlier look than the one the store's runs
belong to, it refuses with what to run (:func:`releasegate.pipeline.settled_level`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from releasegate.errors import StoreError

META_KEY = "settled"
# The columns of the store's table that decide a verdict (no output text, model or fingerprint).
DECIDING = ("release", "case_id", "run", "passed", "score", "error", "latency_ms", "input_tokens", "output_tokens",
            "cost", "category", "cluster")
# Policy keys a settled record does not pin: the level is the design's (each look's own), the title is words,
# the candidates compared are checked one by one against the looks, and the baseline apart.
UNPINNED = ("alpha", "title", "candidates", "baseline")


@dataclass(frozen=True)
class SettledLook:
    """One look of the two-phase design: the runs a case it read, its level and each candidate's verdict
    (the Decision's value: ship, dont_ship, not_proven)."""

    runs: int
    alpha: float
    verdicts: Mapping[str, str]


@dataclass(frozen=True)
class SettledRecord:
    """What ``run --settle`` decided: the policy's alpha the design split, the baseline, the looks taken, the final
    verdict per candidate, and the fingerprints of the table and the policy it decided."""

    policy_alpha: float
    baseline: str
    looks: tuple[SettledLook, ...]
    verdicts: Mapping[str, str]
    table: str
    policy: str
    # The pinned keys' values the policy fingerprint is of (None in a record written before they were kept).
    pinned: Mapping[str, Any] | None = None

    @property
    def last(self) -> SettledLook:
        return self.looks[-1]

    def as_meta(self) -> dict[str, Any]:
        return {"policy_alpha": self.policy_alpha, "baseline": self.baseline,
                "looks": [{"runs": look.runs, "alpha": look.alpha, "verdicts": dict(look.verdicts)}
                          for look in self.looks],
                "verdicts": dict(self.verdicts), "table": self.table, "policy": self.policy,
                **({"pinned": dict(self.pinned)} if self.pinned is not None else {})}


def record_of(meta: Any, where: str) -> SettledRecord | None:
    """The store's ``settled`` meta value read back (None when the store was never settled)."""
    if meta is None:
        return None
    try:
        looks = tuple(SettledLook(int(x["runs"]), float(x["alpha"]), dict(x["verdicts"])) for x in meta["looks"])
        pinned = meta.get("pinned")
        record = SettledRecord(float(meta["policy_alpha"]), str(meta["baseline"]), looks, dict(meta["verdicts"]),
                               str(meta["table"]), str(meta["policy"]), None if pinned is None else dict(pinned))
    except (KeyError, TypeError, ValueError):
        raise StoreError(f"{where}: the store's settled record is unreadable; run `releasegate run CONFIG --settle` "
                         "again to decide it anew") from None
    if not looks:
        raise StoreError(f"{where}: the store's settled record holds no look; run `releasegate run CONFIG --settle` "
                         "again to decide it anew")
    problem = _implausible(record)
    if problem:
        raise StoreError(f"{where}: the store's settled record was edited or damaged ({problem}); run `releasegate "
                         "run CONFIG --settle` again to decide it anew")
    return record


def _implausible(record: SettledRecord) -> str:
    """What in a readable record no `run --settle` writes: a level outside (0, 0.5), looks that spend more than
    the policy's alpha or read fewer runs than the look before, a verdict that is no Decision's value."""
    from releasegate.model import Decision

    known = {d.value for d in Decision}
    if not 0 < record.policy_alpha < 0.5:
        return f"policy alpha {record.policy_alpha!r}"
    spent = 0.0
    for i, look in enumerate(record.looks, 1):
        if not 0 < look.alpha < 0.5:
            return f"look {i} at alpha {look.alpha!r}"
        if look.runs < 1 or (i > 1 and look.runs <= record.looks[i - 2].runs):
            return f"look {i} on {look.runs} run(s)"
        spent += look.alpha
        bad = [str(v) for v in look.verdicts.values() if v not in known]
        if bad:
            return f"look {i}'s verdict {bad[0]!r}"
    if spent > record.policy_alpha * (1 + 1e-9):
        return f"looks spending alpha {spent:g}, more than the policy's {record.policy_alpha:g}"
    bad = [str(v) for v in record.verdicts.values() if v not in known]
    if bad:
        return f"verdict {bad[0]!r}"
    if record.pinned is not None and policy_fingerprint(record.pinned) != record.policy:
        return "policy values that are not the ones its fingerprint is of"
    return ""


def table_fingerprint(table: pd.DataFrame) -> str:
    """sha256 of the cells that decide a verdict, in the store's order (the expected grid's)."""
    kept = table[[c for c in DECIDING if c in table.columns]]
    return hashlib.sha256(kept.to_csv(index=False).encode("utf-8")).hexdigest()


def pinned_values(policy_dict: Mapping[str, Any]) -> dict[str, Any]:
    """A policy's keys (Policy.as_dict) but those a settled record does not pin (UNPINNED), as JSON reads them
    back: what the record keeps, of which :func:`policy_fingerprint` is the same."""
    pinned = {k: v for k, v in policy_dict.items() if k not in UNPINNED}
    return json.loads(json.dumps(pinned, sort_keys=True, default=str))


def policy_fingerprint(policy_dict: Mapping[str, Any]) -> str:
    """sha256 of a policy's keys (Policy.as_dict) but those a settled record does not pin (UNPINNED)."""
    pinned = {k: v for k, v in policy_dict.items() if k not in UNPINNED}
    return hashlib.sha256(json.dumps(pinned, sort_keys=True, default=str).encode("utf-8")).hexdigest()


def changed_keys(record: SettledRecord, policy_dict: Mapping[str, Any],
                 defaults: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """The pinned keys whose value differs from the one the store was settled under, each with that value: from
    the record's values; in a record written before they were kept, the one key whose default (``defaults``,
    Policy().as_dict()) in its place gives the record's fingerprint, if there is one (else none is known)."""
    now = pinned_values(policy_dict)
    if record.pinned is not None:
        return [(k, record.pinned.get(k)) for k in sorted(set(now) | set(record.pinned))
                if now.get(k) != record.pinned.get(k)]
    was = pinned_values(defaults)
    for name in sorted(now):
        if now[name] != was.get(name) and policy_fingerprint({**now, name: was.get(name)}) == record.policy:
            return [(name, was.get(name))]
    return []
