"""The policy's tables whose keys are the user's names or a fixed list: ``[guardrails]``, ``[prices."RELEASE"]``
and ``[columns]``. Each is read into what the Policy holds, or refused in one line naming the table and the key."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from releasegate.errors import PolicyError
from releasegate.policy.values import is_number

CANONICAL_COLUMNS = (
    "release", "case_id", "passed", "score", "category", "cluster", "run",
    "latency_ms", "input_tokens", "output_tokens", "cost",
)
# Column roles that [columns] may rename beyond the canonical ones: "error" stays case metadata too (its text is
# each release's own, shown beside the cases), while validation reads it as the errored state.
EXTRA_COLUMN_ROLES = ("error",)
GUARDRAILS = ("max_latency_p95_ratio", "max_latency_mean_ratio", "max_cost_ratio", "max_tokens_ratio",
              "max_error_rate_increase")
# On by default (issue 34 item 4): a significant rise of the candidate's error rate of more than 2 points blocks
# (docs/policy.md, guardrails, has the measurements the value was chosen from). A [guardrails] table adds to it.
DEFAULT_GUARDRAILS = {"max_error_rate_increase": 0.02}
# [prices."RELEASE"]: what a million input and a million output tokens cost that release (dollars).
PRICE_KEYS = ("input_per_million", "output_per_million")
# Beyond these a ratio limit means nothing: a release held to a thousand times the baseline's cost is held to
# nothing, one held to a thousandth of it blocks on anything (an error rate rises by at most 1, which turns that
# guardrail off). A price has no such range: it is in whatever currency the user counts in.
RATIO_LIMITS = (0.001, 1000.0)


def read_guardrails(raw: Any) -> dict[str, float]:
    """``[guardrails]``: known names only, each a positive finite limit (NaN or inf would never fire)."""
    if not isinstance(raw, Mapping):
        raise PolicyError("guardrails must be a table of limits ([guardrails] max_cost_ratio = 1.0)")
    bad = sorted(set(map(str, raw)) - set(GUARDRAILS))
    if bad:
        raise PolicyError(f"unknown guardrail(s) {', '.join(bad)}; known: {', '.join(GUARDRAILS)}")
    for name, limit in raw.items():
        if not is_number(limit) or not 0 < limit < math.inf:
            raise PolicyError(f"guardrail {name} must be a positive finite number, got {limit!r}")
        if name == "max_error_rate_increase" and limit > 1:
            raise PolicyError(f"guardrail {name} must be a rise of the error rate above 0 and at most 1 (1 turns "
                              f"it off), got {limit!r}")
        if name != "max_error_rate_increase" and not RATIO_LIMITS[0] <= limit <= RATIO_LIMITS[1]:
            raise PolicyError(f"guardrail {name} must be a ratio from {RATIO_LIMITS[0]:g} to {RATIO_LIMITS[1]:,.0f} "
                              f"(candidate / baseline), got {limit!r}")
    return dict(raw)


def read_prices(raw: Any) -> dict[str, dict[str, float]]:
    """``[prices."RELEASE"]`` tables: both PRICE_KEYS, each a finite number >= 0 (per million tokens)."""
    example = '[prices."r1-live"] input_per_million = 1.0, output_per_million = 4.0'
    if not isinstance(raw, Mapping):
        raise PolicyError(f"prices must be a table per release, e.g. {example}")
    out = {}
    for release, price in raw.items():
        if not isinstance(price, Mapping):
            raise PolicyError(f"prices for {release!r} must be a table, e.g. {example}")
        unknown = sorted(set(map(str, price)) - set(PRICE_KEYS))
        if unknown:
            raise PolicyError(f"prices for {release!r}: unknown key(s) {', '.join(unknown)}; "
                              f"known: {', '.join(PRICE_KEYS)}")
        missing = [k for k in PRICE_KEYS if k not in price]
        if missing:
            raise PolicyError(f"prices for {release!r}: missing {', '.join(missing)} (use 0 for a free side)")
        for key in PRICE_KEYS:
            value = price[key]
            if not is_number(value) or not math.isfinite(value) or value < 0:
                raise PolicyError(f"prices for {release!r}: {key} must be a number >= 0, got {value!r}")
        out[str(release)] = {k: float(price[k]) for k in PRICE_KEYS}
    return out


def read_columns(raw: Any) -> dict[str, str]:
    """``[columns]``: a canonical role -> the column's name in the files."""
    if not isinstance(raw, Mapping) or not all(isinstance(k, str) and isinstance(v, str) for k, v in raw.items()):
        raise PolicyError(f"columns must be a table of column names ([columns] case_id = \"id\"), got {raw!r}")
    roles = (*CANONICAL_COLUMNS, *EXTRA_COLUMN_ROLES)
    bad = sorted(set(raw) - set(roles))
    if bad:
        raise PolicyError(f"unknown column role(s) in [columns]: {', '.join(bad)}; known: {', '.join(roles)}")
    return dict(raw)
