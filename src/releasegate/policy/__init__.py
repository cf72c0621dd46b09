"""The policy: the analysis parameters and the rules of the verdict, from a TOML file and flags (flags win).

Every key is a row of one table (:mod:`releasegate.policy.keys`: type, range, default, flag, per-metric, doc);
this module reads a policy file and makes a :class:`Policy` from its values and the flags, checking every value
by its row, so a wrong type or range is one line (PolicyError), never a crash or a silent default.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from releasegate.errors import PolicyError
from releasegate.files import TEXT_CAP, read_text_capped
from releasegate.kinds import CORRECTIONS
from releasegate.policy.keys import KEYS, METRIC_OWN_KEYS, Key, MetricSpec, Policy
from releasegate.policy.tables import (
    CANONICAL_COLUMNS,
    DEFAULT_GUARDRAILS,
    EXTRA_COLUMN_ROLES,
    GUARDRAILS,
    PRICE_KEYS,
)

# Keys a policy may no longer hold, with what replaced them: refused with this line rather than ignored.
RETIRED_KEYS = {
    "critical_alpha": ("critical_alpha is retired: the critical categories' tests now share the one error budget "
                       "at alpha with the other regression tests; set critical_weight (default 10) to make them "
                       "more or less sensitive (docs/policy.md, critical_weight)"),
}
POLICY_KEYS = frozenset(k.name for k in KEYS)
BY_NAME: dict[str, Key] = {k.name: k for k in KEYS}

__all__ = ["BY_NAME", "CANONICAL_COLUMNS", "CORRECTIONS", "DEFAULT_GUARDRAILS", "EXTRA_COLUMN_ROLES", "GUARDRAILS",
           "KEYS", "METRIC_OWN_KEYS", "POLICY_KEYS", "PRICE_KEYS", "RETIRED_KEYS", "Key", "MetricSpec", "Policy",
           "load_policy_file", "make_policy"]


def load_policy_file(path: Path) -> dict[str, Any]:
    """Read a releasegate.toml into a plain dict of policy keys (not yet validated)."""
    # utf-8-sig: a byte-order mark (Windows editors write one) is read as nothing, as in a results CSV.
    text = read_text_capped(path, "policy file", cap=TEXT_CAP, error=PolicyError, encoding="utf-8-sig")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PolicyError(f"policy file {path} is not valid TOML: {exc}") from None
    except ValueError as exc:  # an integer of more digits than Python converts (sys.get_int_max_str_digits)
        raise PolicyError(f"policy file {path} holds a number too long to read: {str(exc).split(';')[0]}") from None
    except RecursionError:
        raise PolicyError(f"policy file {path} is nested too deeply to be a policy") from None
    _refuse_unknown(set(data), f"policy file {path}: ")
    # A path in the policy is read from the policy's folder; a blank one is left blank, refused by its row.
    if isinstance(data.get("gold"), str) and data["gold"].strip():
        data["gold"] = str(Path(path).parent / data["gold"])
    return data


def _refuse_unknown(names: set[str], where: str = "") -> None:
    """A retired key names what replaced it; an unknown one the closest known key and every known key."""
    retired = sorted(names & set(RETIRED_KEYS))
    if retired:
        raise PolicyError(f"{where}{RETIRED_KEYS[retired[0]]}")
    unknown = sorted(names - POLICY_KEYS)
    if unknown:
        import difflib

        close = difflib.get_close_matches(unknown[0], sorted(POLICY_KEYS), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise PolicyError(f"{where}unknown key(s) {', '.join(unknown)}{hint}; "
                          f"known keys: {', '.join(sorted(POLICY_KEYS))}")


def make_policy(file_values: Mapping[str, Any] | None = None, **overrides: Any) -> Policy:
    """Combine the policy file's values with flag overrides (None means "not given") and check every value by
    its row of the table: a file's value is refused as "policy: KEY must be ...", a flag's as "KEY must be ..."."""
    given = {k: v for k, v in overrides.items() if v is not None and v != () and v != {}}
    file_values = dict(file_values or {})
    _refuse_unknown(set(map(str, file_values)) | set(given))
    values: dict[str, Any] = {}
    for where, source in (("policy: ", file_values), ("", given)):
        for name, value in source.items():
            if isinstance(value, os.PathLike):  # a Path from the API is kept as text, as TOML has it
                value = os.fspath(value)
            checked = BY_NAME[name].check(value, where)
            values[name] = {**values.get(name, {}), **checked} if BY_NAME[name].merged else checked
    policy = Policy(**values)
    _check_together(policy)
    return policy


def _check_together(p: Policy) -> None:
    """What no one key's row can say: the rerun is neither the baseline nor a candidate."""
    if p.baseline_rerun is not None and p.baseline_rerun in (p.baseline, *p.candidates):
        role = "baseline" if p.baseline_rerun == p.baseline else "a candidate"
        raise PolicyError(f"baseline_rerun {p.baseline_rerun!r} is also {role}: the rerun is the live release run "
                          "again, a release of its own in the data")
