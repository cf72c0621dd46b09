"""The key and group checks of validation (SPEC 3.2): no blank or duplicate key, a sane category column, the
policy's critical categories present, each case in one category and one cluster.

Each asks its question on integer codes (validate/keycodes.py) and builds its message the slow way, on the table
itself, only when the answer is a problem.
"""

from __future__ import annotations

import difflib

import pandas as pd

from releasegate.errors import BadValueError, InputError, PolicyError
from releasegate.policy import Policy
from releasegate.validate import beside, keycodes, pairing

# Beyond this a "category" column is an id or free text: every category would hold a case or two, and a
# family of that many tests would leave even the overall test unable to fire (docs/input-errors.md).
MAX_CATEGORIES = 10_000
MAX_LISTED = 20


def check_keys(table: pd.DataFrame, has_runs: bool, codes: dict[str, keycodes.Codes]) -> None:
    """No blank case id, and no (release, case_id[, run]) twice."""
    if keycodes.any_blank(table["case_id"]):
        blank = keycodes.is_blank(table["case_id"])
        # counted per release: the total beside one release's name read as that release's count (issue 31)
        per = table.loc[blank, "release"].astype(str).value_counts(sort=False)
        shown = ", ".join(f"{n} in {r!r}" for r, n in list(per.items())[:5]) + (", ..." if len(per) > 5 else "")
        raise BadValueError(f"{int(blank.sum())} row(s) have a blank case_id ({shown})")
    keys = ["release", "case_id"] + (["run"] if has_runs else [])
    if not keycodes.has_duplicate_keys(*(codes[k] for k in keys)):
        return
    dup = table.duplicated(subset=keys, keep=False)
    if dup.any():
        rows = table.loc[dup, keys].drop_duplicates().head(3)
        shown = "; ".join(" ".join(str(v) for v in row) for row in rows.itertuples(index=False))
        if "metric" in table.columns:  # one row per metric: the long layout, whose metrics --metric names
            names = ", ".join(map(str, pd.unique(table["metric"].astype(str))[:MAX_LISTED]))
            raise InputError(f"the rows are a long layout, one per ({', '.join(keys)}) and metric (the 'metric' "
                             f"column: {names}): name the metrics to gate with --metric NAME (repeatable)")
        extra = "" if has_runs or "run" in table.columns else " (several runs per case need a run column: --run-col)"
        raise BadValueError(f"{int(table.duplicated(subset=keys).sum())} duplicate ({', '.join(keys)}) row(s), e.g. "
                         f"{shown}{extra}")


def _check_category_count(table: pd.DataFrame) -> None:
    if len(table["category"].cat.categories) <= MAX_CATEGORIES:
        return  # no more used than there are: nothing to count
    count = len(keycodes.used_categories(table["category"]))
    if count > MAX_CATEGORIES:
        cases = int(table["case_id"].nunique())
        raise InputError(f"the category column has {count} distinct values for {cases} cases (at most "
                         f"{MAX_CATEGORIES}); it looks like an id or free text: rename it, or name the real "
                         "category column with --category-col")


# A critical name matching no category would check nothing and let a broken case SHIP (issue 15): refused.
def _closest_category(name: str, categories: list[str]) -> str | None:
    """The category the user most plausibly meant: the same name in another case, else a near spelling."""
    folded = [c for c in categories if c.casefold() == name.casefold()]
    if folded:
        return folded[0]
    close = difflib.get_close_matches(name.casefold(), [c.casefold() for c in categories], n=1, cutoff=0.6)
    if not close:
        return None
    return next(c for c in categories if c.casefold() == close[0])


def check_critical(critical: tuple[str, ...], categories: list[str] | None) -> None:
    """Refuse critical names when there is no category at all, or when one matches no category exactly.

    ``categories`` is None when the data has no category column (nor a case table giving one).
    """
    if not critical:
        return
    if categories is None:
        raise PolicyError(f"critical categor{'y' if len(critical) == 1 else 'ies'} "
                         f"{', '.join(map(repr, critical))} given, but the data has no category column "
                         "(add one, join a case table with --cases, or name it with --category-col)")
    known = set(categories)
    for name in critical:
        if name in known:
            # A label that differs only in case or spaces is the same category written two ways: its cases
            # would be tested as an ordinary category's, and a loss there would never reach the critical test.
            twins = [c for c in categories if c != name and c not in critical
                     and " ".join(c.split()).casefold() == " ".join(name.split()).casefold()]
            if twins:
                raise PolicyError(f"critical category {name!r} and the category {twins[0]!r} differ only in case "
                                  f"or spaces: the critical test would leave {twins[0]!r} out; give its cases one "
                                  "label, or name both as critical")
            continue
        listing = ", ".join(map(repr, categories[:MAX_LISTED]))
        if len(categories) > MAX_LISTED:
            listing += f" and {len(categories) - MAX_LISTED} more"
        close = _closest_category(name, categories)
        hint = f"; closest match {close!r}" if close else ""
        raise PolicyError(f"critical category {name!r} matches no category (names are case-sensitive){hint}; "
                         f"categories: {listing}")


def check_groups(table: pd.DataFrame, policy: Policy, cases: keycodes.Codes, changed: pd.Index,
                 coded: pd.Series | None = None) -> tuple[bool, bool]:
    """The category and cluster columns checked and coded (each case in one group, the policy's critical
    categories present): whether the table has categories, and clusters. ``coded``: the category column already
    coded on these rows (beside.coded_category), else it is coded here."""
    has_categories = "category" in table.columns and keycodes.any_given(table["category"])
    has_clusters = "cluster" in table.columns and keycodes.any_given(table["cluster"])
    if has_categories:
        # Coded before the checks, which then count its codes.
        table["category"] = coded if coded is not None else beside.coded_category(table["category"])
        _check_category_count(table)
        pairing.check_attribute_agrees(table, "category", cases, changed)
    # The categories some row holds are listed only when a critical one is named: nothing else reads them.
    check_critical(tuple(policy.critical), sorted(map(str, keycodes.used_categories(table["category"])))
                   if has_categories and policy.critical else None)
    if has_clusters:
        if table["cluster"].isna().any():
            raise BadValueError(f"{int(table['cluster'].isna().sum())} row(s) have no cluster although the cluster "
                                "column is set")
        keycodes.as_categories(table, ("cluster",))
        pairing.check_attribute_agrees(table, "cluster", cases, changed)
    return has_categories, has_clusters
