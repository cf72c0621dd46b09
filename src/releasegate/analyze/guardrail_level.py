"""The level of every interval a rule reads a bound of: two-sided 1 - 2 alpha (90% at alpha 0.05).

A guardrail fires when the upper bound of its ratio's interval is above the limit; non-inferiority fires when
the lower bound of the difference's interval is below -margin. Each is a one-sided test at level alpha
("the candidate is over the limit", "worse by the margin"), the two one-sided tests logic (Schuirmann 1987),
so both read the two-sided (1 - 2 alpha) interval. Guardrails once read the 95% interval (one-sided 2.5%),
half the level of every other rule for no stated reason (issue 21 item 6e).
"""

from __future__ import annotations

from releasegate.policy import Policy


def rule_confidence(policy: Policy) -> float:
    """The two-sided level whose one bound is a one-sided test at the policy's alpha."""
    return 1.0 - 2.0 * policy.alpha
