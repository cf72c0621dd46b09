"""The releases of the data that no verdict is about, and why, in words ("r3, not among the policy's candidates
(r2)"): a note judged on a policy's short list of candidates says which releases it left out."""

from __future__ import annotations

from collections.abc import Sequence

from releasegate.model import NotJudged

MAX_NAMED = 20  # releases named per line; the JSON lists every one
REASONS = {
    "not_a_candidate": "not among the policy's candidates",
    "baseline_rerun": "the baseline rerun (its churn is measured; it is never judged)",
}


def not_judged_lines(items: Sequence[NotJudged], candidates: Sequence[str]) -> list[str]:
    """One line per reason: the releases (the first MAX_NAMED, then how many more) and why, without the
    "not judged:" the templates and the console put before it."""
    lines = []
    for reason, why in REASONS.items():
        names = [item.release for item in items if item.reason == reason]
        if not names:
            continue
        shown = ", ".join(names[:MAX_NAMED]) + (f" and {len(names) - MAX_NAMED:,} more" if len(names) > MAX_NAMED else "")
        if reason == "not_a_candidate":
            named = ", ".join(candidates[:MAX_NAMED]) + (" ..." if len(candidates) > MAX_NAMED else "")
            why = f"{why} ({named})"
        lines.append(f"{shown}, {why}")
    return lines
