"""The note of a report on a store that ``releasegate run --settle`` decided (load/settled.py): its looks, their
levels and verdicts, and why this report is the last look at its own level."""

from __future__ import annotations

import json
from typing import Any

from releasegate.model import Decision


def _runs(count: int) -> str:
    return f"{count} run{'' if count == 1 else 's'} a case"


def settled_note(policy_alpha: float, looks: list[tuple[int, float, dict[str, str]]]) -> str:
    """``looks``: (runs, alpha, verdict value per candidate) of each look taken, in order."""
    said = "; ".join(
        f"look {i} on {_runs(runs)} at alpha {alpha:g}: "
        + ", ".join(f"{name} {Decision(value).label}" for name, value in sorted(verdicts.items()))
        for i, (runs, alpha, verdicts) in enumerate(looks, 1))
    runs, alpha, _ = looks[-1]
    return (f"Settled by `releasegate run --settle` (the two-phase design at alpha {policy_alpha:g}): {said}. "
            f"This report is look {len(looks)} again, on the same cells at its own alpha {alpha:g}: deciding "
            f"the store's {_runs(runs)} at the policy's {policy_alpha:g} would be a look the design did not "
            "spend alpha on.")


def changed_policy(changed: list[tuple[str, Any, Any, str]]) -> str:
    """The pinned keys that differ from the settled policy, each (name, value now, value settled under, where the
    value now came from: a flag, a policy file's path, "" for the default), e.g. 'not_proven = "warn" given by
    --not-proven, settled under "block"'; an unknown key when none could be named (a record of an older version)."""
    if not changed:
        return "a key other than alpha or title changed"

    def origin(where: str) -> str:
        if not where:
            return " (the default)"
        return f" given by {where}" if where.startswith("--") or where.startswith("the ") else f" set in {where}"

    return "; ".join(f"{name} = {json.dumps(now)}{origin(where)}, settled under {json.dumps(was)}"
                     for name, now, was, where in changed)
