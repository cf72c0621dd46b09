"""The gold labels checked against the validated results (issue 35): every row names a release, case (and run)
the results hold, once, with a boolean-like label, and each compared release has enough labels of both kinds
for the judge's intervals. One line per problem (InputError), as validate.py's checks.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from releasegate.errors import InputError
from releasegate.kinds import OutcomeKind
from releasegate.validate.outcomes import parse_passed
from releasegate.validate.results import ValidatedResults

# Below this many gold labels on a release no interval the judge section shows (Wilson's, Newcombe's, kappa's
# normal one, PPI++'s) is worth reading; the refusal says how many more to label.
MIN_GOLD_LABELS = 10
_SHOWN = 3


@dataclass(frozen=True)
class ValidatedGold:
    """The checked gold labels: ``table`` has text ``release``, ``case_id`` (and ``run`` when the results
    have runs) and a float 0/1 ``label``; ``path`` names the file."""

    table: pd.DataFrame
    path: str
    has_runs: bool


def _shown(rows: pd.DataFrame) -> str:
    return "; ".join(" ".join(map(str, row)) for row in rows.head(_SHOWN).itertuples(index=False))


def _label(series: pd.Series, path: str) -> pd.Series:
    try:
        values = parse_passed(series.rename("label"))
    except InputError as exc:
        if "; found " not in str(exc):  # JSON objects or lists, said of the label column
            raise InputError(f"{path}: gold {exc}") from None
        detail = str(exc).split("; found ", 1)[-1]
        raise InputError(f"{path}: gold 'label' must be boolean-like (0/1, true/false, pass/fail, yes/no); "
                         f"found {detail}") from None
    missing = values.isna()
    if missing.any():
        raise InputError(f"{path}: {int(missing.sum())} gold row(s) have no label; label them or remove them")
    return values


def validate_gold(gold: pd.DataFrame, data: ValidatedResults, path: str,
                  judge_correction: str = "none") -> ValidatedGold:
    """Check the gold rows against the validated results and return them with a float ``label``;
    ``judge_correction`` is the policy's (the corrected comparison has no clustered form)."""
    if data.outcome_kind != OutcomeKind.BINARY:
        raise InputError(f"{path}: gold labels grade pass/fail verdicts, and the results hold scores; set "
                         "pass_threshold to turn the scores into the judge's pass/fail")
    if data.has_clusters and judge_correction == "ppi":
        # PPI++'s standard error counts cases as independent: with grouped cases it would be too narrow, and
        # the rules would read it (fail closed rather than gate on an interval that undercovers).
        raise InputError(f"{path}: the results have a cluster column, and the corrected comparison the rules read "
                         "with gold labels (judge_correction = \"ppi\") treats cases as independent; set "
                         "judge_correction = \"none\" to gate on the judge's own clustered figures")
    table = gold.copy()
    for column in ("release", "case_id"):
        blank = table[column].isna() | (table[column].astype(str).str.strip() == "")
        if blank.any():
            raise InputError(f"{path}: {int(blank.sum())} gold row(s) have a blank {column}")
        table[column] = table[column].astype(str)
    has_runs = "run" in data.table.columns and data.table["run"].notna().any()
    if has_runs and "run" not in table.columns:
        raise InputError(f"{path}: the results have runs, so each gold label needs its run (a run column)")
    if not has_runs and "run" in table.columns and table["run"].notna().any():
        raise InputError(f"{path}: the gold file has a run column, but the results have no runs")
    table = table.drop(columns=[c for c in ("run",) if c in table.columns and not has_runs])
    keys = ["release", "case_id", *(["run"] if has_runs else [])]
    if has_runs:
        table["run"] = table["run"].astype(str)
    table["label"] = _label(table["label"], path).to_numpy()
    releases = [str(r) for r in data.releases]
    unknown = table.loc[~table["release"].isin(releases), "release"].unique()
    if len(unknown):
        raise InputError(f"{path}: gold labels for release {unknown[0]!r}, which is not among the compared "
                         f"releases ({', '.join(map(repr, releases))})")
    dup = table.duplicated(subset=keys, keep="first")
    if dup.any():
        raise InputError(f"{path}: {int(dup.sum())} duplicate ({', '.join(keys)}) gold row(s), e.g. "
                         f"{_shown(table.loc[dup, keys])}; give each cell one label")
    results = data.table[data.table["case_id"].isin(table["case_id"].unique())]
    present = pd.DataFrame({k: results[k].astype(str).to_numpy() for k in keys}).drop_duplicates()
    found = table[keys].merge(present, on=keys, how="left", indicator=True)["_merge"].to_numpy() == "both"
    if not found.all():
        what = "case and run" if has_runs else "case"
        raise InputError(f"{path}: {int((~found).sum())} gold row(s) name a {what} not in the results of their "
                         f"release, e.g. {_shown(table.loc[~found, keys])}")
    for release in (data.baseline, *data.candidates):
        labels = table.loc[table["release"] == str(release), "label"]
        if len(labels) == 0:
            raise InputError(f"{path}: release {str(release)!r} has no gold labels; they must cover the baseline "
                             f"and every candidate compared (at least {MIN_GOLD_LABELS} each; --candidate NAME "
                             "compares fewer candidates)")
        if len(labels) < MIN_GOLD_LABELS:
            raise InputError(f"{path}: release {str(release)!r} has {len(labels)} gold label(s); the judge's "
                             f"intervals need at least {MIN_GOLD_LABELS} (label "
                             f"{MIN_GOLD_LABELS - len(labels)} more, sampled at random from its cases)")
        if labels.nunique() < 2:
            kind, other = ("pass", "fails") if labels.iloc[0] == 1.0 else ("fail", "passes")
            raise InputError(f"{path}: all {len(labels)} gold labels of release {str(release)!r} are {kind}: the "
                             f"judge's {'false' if kind == 'pass' else 'true'}-positive rate needs human {other} "
                             "too; label more cases, sampled at random")
    return ValidatedGold(table.reset_index(drop=True), path, bool(has_runs))
