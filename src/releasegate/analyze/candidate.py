"""The fixed plan for one candidate (SPEC section 4), on plain arrays and on the validated table.

:func:`plan_arrays` is the plan itself, a function of the paired per-case outcomes: the overall and
per-category comparisons (McNemar for pass/fail with one run, the paired mean otherwise), the item axis, the
clustered figures in place of the naive ones, the multiplicity family and the power. The operating
characteristics (bench/opchar) run it on simulated releases. :func:`analyze_candidate` pairs one candidate with
the baseline, runs the plan, and adds what needs the whole table: the run axis and the changed cases.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from releasegate.analyze.case_details import case_details
from releasegate.analyze.case_view import case_view, with_split_errors
from releasegate.analyze.comparisons import compare_binary, compare_counts, compare_paired
from releasegate.analyze.critical import critical_section
from releasegate.analyze.errors import errored_cases
from releasegate.analyze.budget import apply_budget
from releasegate.analyze.family import power_of
from releasegate.analyze.min_change import moved
from releasegate.analyze.ni_reach import ni_reach_of
from releasegate.analyze.pairing import case_changes, pair, paired_difference
from releasegate.analyze.regression_bounds import with_bounds
from releasegate.kinds import OutcomeKind
from releasegate.model import (
    CandidateAnalysis,
    CandidateSections,
    Comparison,
    CostComparison,
    CriticalScope,
    CriticalSection,
    Power,
)
from releasegate.model.budget import ErrorBudget, PreviousLook
from releasegate.policy import Policy
from releasegate.stats.mcnemar import mcnemar_test
from releasegate.validate import ValidatedResults

# The optional sections' modules (grouped cases, runs, the judge against gold labels) are imported where their
# input is present: a pass/fail suite of one run and no gold labels never loads them.
if TYPE_CHECKING:
    from releasegate.model.axes import ClusterAnalysis, ItemAxis
    from releasegate.model.judge import CorrectedFigures
    from releasegate.validate.gold import ValidatedGold


@dataclass(frozen=True)
class PlanResult:
    """The plan's figures for one candidate: the adjusted comparisons, and the sections made from the arrays."""

    overall: Comparison
    categories: tuple[Comparison, ...]
    power: Power
    item_axis: ItemAxis | None
    clusters: ClusterAnalysis | None
    critical: CriticalSection | None = None
    budget: ErrorBudget | None = None
    error_p_adjusted: float | None = None  # the error-rate member's adjusted p (with ``errored``)
    error_p: float | None = None  # and its raw one-sided p
    # With ``corrected``: the plan's own overall comparison on the outcomes as given (the judge's verdicts),
    # outside the budget, while ``overall`` is the corrected one the rules read (analyze/judge_gated.py).
    judged: Comparison | None = None


def plan_arrays(base: np.ndarray, cand: np.ndarray, policy: Policy, *, mcnemar: bool, rates: bool = True,
                runs: bool = False, category_codes: np.ndarray | None = None,
                category_labels: Sequence[str] = (), cluster_codes: np.ndarray | None = None,
                verdict_only: bool = False, rerun: np.ndarray | None = None,
                critical: CriticalScope | None = None, errored: tuple[int, int] | None = None,
                corrected: CorrectedFigures | None = None, previous: PreviousLook | None = None,
                difference: np.ndarray | None = None) -> PlanResult:
    """The plan on paired per-case outcomes ``base`` and ``cand`` (a case's mean over runs).

    ``mcnemar``: pass/fail with one run per case (else the paired-mean path; ``rates`` says the means are pass
    rates, ``runs`` that there were several runs). Pass rates over runs that are all 0 or 1 (every run of a
    case agrees on both releases) are the outcomes of one run and take the one-run path: plain rows, identical
    runs and singleton clusters of the same outcomes give one set of figures and one verdict. ``category_codes`` (0..K-1 per case) name categories by
    ``category_labels``; ``cluster_codes`` (0..G-1 per case) turn the clustered figures on.
    ``verdict_only`` (``releasegate plan``'s simulations) skips what no rule reads: the powerless flags and the
    exact power search (the normal-formula power stands in), which took 95% of a replication's time.
    ``rerun``: the baseline rerun's outcome per case (pass/fail, one run), read by the critical test.
    ``critical``: the critical categories and whether the metric is critical as a whole (then the critical test
    runs on every case too); without it, the policy's critical categories. ``errored``: (cases only
    the candidate errored on, cases only the baseline errored on) when the data has an error column, the
    error-rate test of the budget. ``corrected``: the outcomes are a judge's verdicts and these are the
    PPI++ corrected figures the overall test reads in the judge's own test's place (judge_correction = "ppi",
    :mod:`.judge_gated`). Every test that says DON'T SHIP is adjusted in one error budget (:mod:`.budget`);
    ``previous``: an earlier look at the same releases, whose unspent level this look's budget is read at.
    ``difference``: :func:`.pairing.paired_difference` of ``base`` and ``cand`` when the caller has it.
    """
    if not mcnemar and rates and runs and _whole_outcomes(base, cand):
        # Every run of every case agrees on both releases (identical runs): the same outcomes as one run, read
        # as one run, so the coding never changes a figure, a fired rule or the critical test.
        mcnemar = True
    scope = critical if critical is not None else CriticalScope(tuple(policy.critical))
    compare = compare_binary if mcnemar else (
        lambda label, b, c, pol, critical=False: compare_paired(label, b, c, pol, critical, rates=rates))
    overall = compare("overall", base, cand, policy)
    categories = []
    if category_codes is not None and mcnemar:
        # Pass/fail: a category's comparison reads its 2x2 table alone, counted for every category at once.
        for label, (both_fail, fixed, broke, both_pass) in zip(
                category_labels, _category_tables(category_codes, len(category_labels), base, cand).tolist()):
            categories.append(compare_counts(str(label), both_pass, broke, fixed, both_fail, policy,
                                             critical=str(label) in scope.categories))
    elif category_codes is not None:
        for label, (base_k, cand_k) in zip(category_labels,
                                           _by_category(category_codes, len(category_labels), base, cand)):
            categories.append(compare(str(label), base_k, cand_k, policy, critical=str(label) in scope.categories))
    d = paired_difference(base, cand) if difference is None else difference
    items = None
    if not mcnemar:  # the item axis: scores and runs only
        from releasegate.analyze.items import item_axis

        items = item_axis(d, policy, OutcomeKind.BINARY if rates else OutcomeKind.CONTINUOUS, runs,
                          cluster_codes is not None)
    clusters, design_effect = None, 1.0
    if cluster_codes is not None:
        from releasegate.analyze.clusters import apply_clusters

        overall, categories, clusters = apply_clusters(overall, categories, base, cand, cluster_codes,
                                                       category_codes, policy, binary=mcnemar)
        design_effect = clusters.design_effect
    critical_tests = critical_section(base, cand, policy, scope, mcnemar=mcnemar, rates=rates,
                                      category_codes=category_codes, category_labels=category_labels,
                                      rerun=rerun if mcnemar else None)
    error = None
    if errored is not None:
        # The error-rate member: cases only the candidate errored on ("broke") against those only the baseline
        # errored on, exact one-sided McNemar.
        candidate_only, baseline_only = errored
        error = (mcnemar_test(baseline_only, candidate_only).p_regression, candidate_only + baseline_only)
    judged = overall
    if corrected is not None:
        from releasegate.analyze.judge_gated import corrected_comparison, corrected_power

        overall = corrected_comparison(judged, corrected)
    budgeted = apply_budget(overall, categories, policy, critical=critical_tests, error=error, flags=not verdict_only,
                            look=1 if previous is None else previous.look + 1,
                            level=None if previous is None else previous.left)
    overall, categories, critical_tests = budgeted.overall, budgeted.categories, budgeted.critical
    if corrected is not None:
        power = corrected_power(corrected, policy, budgeted.level)
    else:
        power = power_of(d, policy, design_effect, overall=overall, level=budgeted.level,
                         exact=mcnemar and cluster_codes is None and policy.mcnemar == "exact" and not verdict_only,
                         whole=mcnemar)
    # The corrected figure's reach is that of a normal interval (its width), never McNemar's discordance.
    power = replace(power, ni_reach=ni_reach_of(overall, policy, mcnemar=mcnemar and corrected is None,
                                                clustered=clusters is not None, exact=not verdict_only))
    return PlanResult(overall, tuple(categories), power, items, clusters, critical_tests, budgeted.budget,
                      budgeted.error_p_adjusted, None if error is None else error[0],
                      judged if corrected is not None else None)


def _whole_outcomes(base: np.ndarray, cand: np.ndarray) -> bool:
    """True when every per-case pass rate is 0 or 1 on both releases (each case's runs all agree)."""
    return bool(base.size) and bool(np.all((base == 0.0) | (base == 1.0)) and np.all((cand == 0.0) | (cand == 1.0)))


def _category_tables(codes: np.ndarray, n_categories: int, base: np.ndarray, cand: np.ndarray) -> np.ndarray:
    """Each category's paired 2x2 table of pass/fail outcomes (a value other than 0 is a pass, as compare_binary
    reads it), one row a category: (both fail, fixed, broke, both pass). One count of each case's category and
    outcomes (4 x code + 2 x base + cand); cases without a category (code -1) are left out. Splitting the
    values by category first sorted every case and gathered both columns (0.5-1 s at 10^7 cases)."""
    # In the integer type np.bincount counts: a narrower key is copied into it there (8 bytes a case).
    key = np.asarray(codes).astype(np.intp)
    np.left_shift(key, 2, out=key)
    passed = np.not_equal(base, 0)
    key += passed
    key += passed  # twice: 2 x the baseline's outcome, with no temporary of 2 x every value
    np.not_equal(cand, 0, out=passed)
    key += passed
    if key.size and np.asarray(codes).min() < 0:
        key = key[key >= 0]
    return np.bincount(key, minlength=4 * n_categories)[:4 * n_categories].reshape(n_categories, 4)


def _by_category(codes: np.ndarray, n_categories: int, *columns: np.ndarray) -> list[tuple[np.ndarray, ...]]:
    """Each category's values of every column, in case order. One stable sort of the codes and one gather of
    each column into category order, each category's values then a slice of it (a gather per category read
    across every column once for each category: 40 categories of 10^7 cases, 0.47-1.04 CPU s against
    0.35-0.64); the bounds are counted, not searched for."""
    codes = np.asarray(codes)
    narrow = codes.astype(np.int16, copy=False) if n_categories < 2**15 else codes  # numpy radix-sorts 16-bit keys
    order = np.argsort(narrow, kind="stable")
    if narrow.size and narrow.min() < 0:  # cases without a category (factorize's -1) sort first and are left out
        bounds = np.searchsorted(narrow[order], np.arange(n_categories + 1))
    else:
        bounds = np.zeros(n_categories + 1, dtype=np.int64)
        np.cumsum(np.bincount(narrow, minlength=n_categories)[:n_categories], out=bounds[1:])
    grouped = [np.asarray(column)[order] for column in columns]
    del order  # 8 bytes a case, not needed beside the gathered columns
    return [tuple(column[bounds[k]:bounds[k + 1]] for column in grouped) for k in range(n_categories)]


def _category_codes(column: pd.Series) -> tuple[np.ndarray, pd.Index]:
    """The categories present, sorted, and each case's position among them (``pd.factorize(sort=True)``'s
    answer). From the validated categorical's own codes when its categories are sorted: factorizing them again
    made three 64-bit arrays of every case (0.24 GiB at 10^7 cases), at the analysis's peak."""
    values = column.array
    if not isinstance(values, pd.Categorical) or not values.categories.is_monotonic_increasing:
        return pd.factorize(column, sort=True)
    codes = values.codes
    if codes.size and codes.min() < 0:  # a case without a category: as factorize has it
        return pd.factorize(column, sort=True)
    used = np.zeros(len(values.categories), dtype=bool)
    used[codes] = True
    width = np.int16 if used.size < 2**15 else np.int32
    if used.all():  # every category holds a case: the positions are the codes themselves
        return codes.astype(width), values.categories
    narrow = (np.cumsum(used) - 1).astype(width)
    return narrow[codes], values.categories[used]


def _categories_not_compared(data: ValidatedResults, candidate: str, compared: Iterable[Any]) -> tuple[str, ...]:
    """The categories of the two releases' rows (errored ones included) none of whose cases is compared: every one
    was left out, so the category has no row of figures; the note says so instead of dropping it unseen."""
    seen = {str(label) for label in compared}
    held: set[str] = set()
    for rows in (data.table, data.errors):
        if rows is not None and "category" in rows:
            mine = rows["release"].isin([data.baseline, candidate]).to_numpy()
            held.update(str(x) for x in pd.unique(rows.loc[mine, "category"].dropna()))
    return tuple(sorted(held - seen))


def analyze_candidate(data: ValidatedResults, candidate: str, policy: Policy,
                      tables: Mapping[str, pd.DataFrame] | None = None,
                      costs: CostComparison | Callable[[], CostComparison | None] | None = None,
                      rerun: pd.Series | None = None,
                      critical: CriticalScope | None = None, gold: ValidatedGold | None = None,
                      previous: PreviousLook | None = None) -> CandidateAnalysis:
    """Pair one candidate with the baseline and run the plan; ``tables`` are the releases' case tables when
    the caller built them (:func:`releasegate.analyze.pairing.case_tables`), ``costs`` its cost section or a
    function that gives it (asked for after the plan's tests, before the case listings: the caller works it out
    beside them),
    ``rerun`` the baseline rerun's outcome by case_id (one run each; the critical test reads it),
    ``critical`` as :func:`plan_arrays` has it; ``gold`` (human labels of the judged outcomes) adds the
    judge section (analyze/judge.py) and, under judge_correction = "ppi", puts the corrected figures in the
    overall test's place."""
    scope = critical if critical is not None else CriticalScope(tuple(policy.critical))
    paired, exclusions = pair(data, candidate, tables)
    base = paired["base"].to_numpy(np.float64)
    cand = paired["cand"].to_numpy(np.float64)
    codes, labels = _category_codes(paired["category"]) if data.has_categories else (None, ())
    # Only when a case was left out can a category lose every case: otherwise both releases hold the cases paired.
    not_compared = _categories_not_compared(data, candidate, labels) if data.has_categories and exclusions.count else ()
    mcnemar = data.outcome_kind == OutcomeKind.BINARY and not data.has_runs
    errors = errored_cases(data, candidate, policy)
    labelled = corrected = None
    if gold is not None:
        from releasegate.analyze.judge import corrected_figures, gold_arrays

        labelled = gold_arrays(data, gold, candidate, paired)
        corrected = corrected_figures(base, cand, labelled.case_gold, policy)
    gated = corrected is not None and policy.judge_correction == "ppi"
    # Computed once for the plan and the case listings below (two passes over 10^7 cases otherwise).
    d = paired_difference(base, cand)
    result = plan_arrays(
        base, cand, policy, mcnemar=mcnemar, rates=data.outcome_kind == OutcomeKind.BINARY, runs=data.has_runs,
        category_codes=codes, category_labels=[str(x) for x in labels],
        cluster_codes=pd.factorize(paired["cluster"])[0] if data.has_clusters else None,
        rerun=None if rerun is None else rerun.reindex(paired.index).to_numpy(np.float64),
        critical=scope,
        errored=None if errors is None else (errors.rate.candidate_only, errors.rate.baseline_only),
        corrected=corrected if gated else None, previous=previous, difference=d)
    judged = result.overall if result.judged is None else result.judged
    if errors is not None:
        # With ``errored`` the family always holds the error-rate member, so both of its figures are set.
        assert result.error_p is not None and result.error_p_adjusted is not None
        errors = replace(errors, p_one_sided=result.error_p, p_adjusted=result.error_p_adjusted)
    # Every row of both releases is in the pairing: the run axis needs no filter (missing runs were filled in).
    # Errored cases counted as failures (--missing fail) stayed in it.
    errored_out = errors is not None and errors.excluded > 0 and not errors.counted_as_failures
    all_paired = all(r.reason == "runs_incomplete" for r in exclusions.reasons) and not errored_out
    runs = None
    if data.has_runs:
        from releasegate.analyze.runs import run_axis

        runs = run_axis(data, candidate, paired, judged, policy, all_paired)
    # Scores: a case is listed only when it moved by more than min_change (analyze/min_change.py).
    up, down = moved(d, policy, data.outcome_kind == OutcomeKind.BINARY)
    critical_categories = scope.categories
    texts = data.per_release_columns
    # Pass/fail (with runs: every run) failing on both releases; scores have no "fail" (analyze/case_view.py).
    both_fail = (base == 0) & (cand == 0) if data.outcome_kind == OutcomeKind.BINARY else None
    # The listed cases' latency and cost changes read the table, not the cost section: worked out while the section
    # may still be running beside (at 10^7 cases 0.3 s of this thread's waiting for it), before the listings.
    costs = costs() if callable(costs) else costs
    view = with_split_errors(case_view(paired, both_fail, data.metadata_columns,
                                       lambda mask: case_changes(paired, mask, data.metadata_columns,
                                                                 critical_categories, texts),
                                       critical_categories), errors)
    judge = None
    if labelled is not None and corrected is not None:
        from releasegate.analyze.judge import judge_section

        judge = judge_section(base, cand, (data.baseline, candidate), labelled, judged, policy, corrected, gated)
    return CandidateAnalysis(
        name=candidate,
        overall=result.overall,
        categories=with_bounds(result.categories, policy.alpha, mcnemar),
        broken_cases=case_changes(paired, down, data.metadata_columns, critical_categories, texts),
        fixed_cases=case_changes(paired, up, data.metadata_columns, critical_categories, texts),
        exclusions=exclusions,
        categories_not_compared=not_compared,
        power=result.power,
        sections=CandidateSections(item_axis=result.item_axis, run_axis=runs, clusters=result.clusters,
                                   costs=costs, critical=result.critical, errors=errors, case_view=view,
                                   budget=result.budget, judge=judge),
        judged=result.judged,
        details=case_details(data, candidate, policy, paired, up | down, critical_categories),
    )
