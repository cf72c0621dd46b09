"""The churn section (issue 21 item 3): the live release's own churn, measured from a baseline rerun
(``baseline_rerun``: the baseline run again on the same cases) or from the baseline's own runs, overall and
per category, and the comparisons whose one-run verdict it makes fragile.

- Churn: stats.churn.pairwise_churn over every run of each baseline case (the baseline's and the rerun's
  together), so one run each gives the share of cases that differ, and R runs the mean chance that two
  distinct runs disagree.
- Fragile (one run per release, pass/fail only): churn alone moves broke - fixed of a comparison's N cases
  within a range (stats.churn.churn_net_range, central 95%, at the overall churn s: a category's own estimate
  rests on few cases, 40 cases give it a standard error of about 4 points). A blocking comparison whose
  broke - fixed is within that range is a block churn alone gives; a passing one above it lost more than
  churn explains and ships anyway. Either way one run cannot settle it: the warning says to rerun.

A rerun that misses a baseline case, or outcomes that are scores, cannot be measured: refused, not skipped.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from releasegate.errors import InputError
from releasegate.kinds import OutcomeKind
from releasegate.model import CandidateAnalysis, ChurnGroup, ChurnSection, FragileComparison
from releasegate.policy import Policy
from releasegate.stats.churn import PairwiseChurn, churn_net_range, pairwise_churn
from releasegate.validate import ValidatedResults


@dataclass(frozen=True)
class MeasuredChurn:
    """The release-level measurement; ``rerun_outcome`` (by case_id) when both releases have one run."""

    source: str
    rerun: str | None
    churn: PairwiseChurn
    rerun_outcome: pd.Series | None


def _rows(data: ValidatedResults, release: str) -> pd.DataFrame:
    # Read after analyze.errors.split_errored: errored rows have left the table (or, with --missing fail,
    # stayed in it as failures).
    return data.table[data.table["release"] == release]


def _counts(rows: pd.DataFrame) -> pd.DataFrame:
    grouped = rows.groupby("case_id", observed=True, sort=True)
    out = grouped["outcome"].agg(["sum", "count"])
    if "category" in rows.columns:
        out["category"] = grouped["category"].first().astype(str)
    return out


def measure_churn(data: ValidatedResults, policy: Policy) -> MeasuredChurn | None:
    """The baseline's churn, or None when there is neither a rerun nor several baseline runs."""
    rerun = policy.baseline_rerun
    if rerun is None and not data.has_runs:
        return None
    if data.outcome_kind != OutcomeKind.BINARY:
        if rerun is None:
            return None
        raise InputError(f"baseline_rerun {rerun!r}: churn is measured on pass/fail outcomes, and these are scores")
    if rerun is not None and rerun not in data.releases:
        raise InputError(f"unknown baseline_rerun {rerun!r}; releases: {', '.join(map(repr, data.releases))}")
    base = _counts(_rows(data, data.baseline))
    source = "runs"
    rerun_outcome = None
    if rerun is not None:
        again = _counts(_rows(data, rerun))
        missing = base.index.difference(again.index)
        if len(missing):
            raise InputError(f"baseline_rerun {rerun!r} lacks {len(missing)} of the baseline's {len(base)} cases "
                             f"(e.g. {missing[0]!r}); the rerun must run the same cases")
        if int(base["count"].max()) == 1 and int(again["count"].max()) == 1:
            rerun_outcome = _rows(data, rerun).set_index("case_id")["outcome"]
        again = again.reindex(base.index)
        base = base.assign(sum=base["sum"] + again["sum"], count=base["count"] + again["count"])
        source = "rerun"
    else:
        base = base[base["count"] >= 2]
        if base.empty:
            return None
    labels = base["category"].to_numpy() if "category" in base.columns else None
    measured = pairwise_churn(base["sum"].to_numpy(), base["count"].to_numpy(), labels)
    return MeasuredChurn(source, rerun, measured, rerun_outcome)


def _fragile(label: str, kind: str, blocks: bool, cases: int, broke: int, fixed: int,
             share: float) -> FragileComparison | None:
    span = churn_net_range(cases, share)
    net = broke - fixed
    if (blocks and net <= span.high) or (not blocks and net > span.high):
        return FragileComparison(label, kind, blocks, cases, broke, fixed, share, span.low, span.high)
    return None


def churn_section(measured: MeasuredChurn | None, cand: CandidateAnalysis, policy: Policy,
                  one_run: bool) -> ChurnSection | None:
    """The candidate's churn section: the measurement and, with one run per release, the fragile verdicts."""
    if measured is None:
        return None
    c = measured.churn
    found = []
    if one_run:
        o = cand.overall
        if cand.judged is None:  # a corrected overall figure (gold labels) is no count of cases churn could flip
            found.append(_fragile("overall", "overall", o.p_adjusted < policy.alpha, o.n, o.broke, o.fixed,
                                  c.share))
        critical = {t.label: t for t in (cand.sections.critical.tests if cand.sections.critical else ())}
        for k in cand.categories:
            t = critical.get(k.label)
            if t is not None and t.cases:
                found.append(_fragile(k.label, "critical", t.blocks, t.cases, t.worse, t.better, c.share))
            else:
                found.append(_fragile(k.label, "category", k.p_adjusted < policy.alpha, k.n, k.broke, k.fixed,
                                      c.share))
    groups = tuple(ChurnGroup(label, cases, share) for label, share, cases in c.by_category)
    return ChurnSection(measured.source, measured.rerun, c.cases, c.runs_min, c.runs_max, c.share, groups,
                        tuple(f for f in found if f is not None), one_run)
