"""The sentences of the optional sections: the item axis, the run axis, grouped cases and costs.

Each function reads a section's numbers and flags (releasegate.model.axes, releasegate.model.costs) and the
plan's parameters; nothing here computes a statistic. The render context, the JSON writer and decide's
warnings call them, so each sentence is written once.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from releasegate import fmt
from releasegate.kinds import OutcomeKind
from releasegate.model import CostComparison, CostTable, Parameters
from releasegate.model.costs import LARGE_WORK

if TYPE_CHECKING:  # made only with their input (model/axes.py)
    from releasegate.model.axes import ClusterAnalysis, ItemAxis, RunAxis

FEW_CLUSTERS = 20
MAJORITY_RULE = "a case passes when it passes in more than half of its runs, so exactly half counts as a fail"
QUANTILE_METHOD = "numpy's default 'linear' quantile (R type 7)"
CLUSTER_TESTS = {"sparse": "exact conditional test on the groups that changed (p); CR2 or sign-flip (interval)",
                 "signflip": "cluster sign-flip test (p) and its inversion (interval)",
                 "cr2": "CR2 clustered t (p and interval, Bell-McCaffrey df)",
                 "none": "one group: no test",
                 "singleton": "every group is one case: the ungrouped test and interval"}


def rate_name(pass_fail: bool) -> str:
    """What a release's figure is called: its pass rate for pass/fail outcomes (with runs, over every run: the
    mean of its cases' shares of passing runs), its mean score for scores."""
    return "pass rate" if pass_fail else "mean score"


def case_figure_name(pass_fail: bool) -> str:
    """What a case's figure is called, or what moves from run to run: a pass rate (its share of passing runs)
    for pass/fail outcomes, a score for scores."""
    return "pass rate" if pass_fail else "score"


def _moves(r: RunAxis) -> str:
    return case_figure_name(r.outcome_kind == OutcomeKind.BINARY)


# --------------------------------------------------------------------------------------------------------
# item axis


def signflip_method(item: ItemAxis, seed: int) -> str:
    if item.signflip_kind == "exact":
        return f"exact, all {item.signflip_resamples:,} sign assignments"
    if item.signflip_kind == "monte_carlo":
        return f"Monte Carlo, {item.signflip_resamples:,} sign flips, seed {seed}"
    return f"normal limit of the sign-flip distribution ({item.signflip_changed:,} changed cases)"


def worsened_rule(item: ItemAxis) -> str:
    if item.outcome_kind == OutcomeKind.BINARY:
        return ("A case's outcome is its pass rate over its runs; it counts as worsened (listed under broken "
                "cases) when that rate is lower on the candidate, improved when higher. A critical category "
                "blocks by its own test on each case's majority outcome (or, with critical_rule = any, on one "
                "worsened case).")
    over = " (its mean over runs)" if item.runs else ""
    # The counts beside this sentence read min_change: a move within it is no change (analyze/min_change.py).
    amount = (f"by more than {fmt.number(item.min_change)} (min_change), and improved when higher by as much"
              if item.min_change > 0 else "by any amount, and improved when higher")
    return (f"A case counts as worsened (listed under broken cases) when its score{over} is lower on the "
            f"candidate than on the baseline, {amount}. A critical category "
            "blocks by its own sign test (or, with critical_rule = any, on one worsened case); "
            "set pass_threshold to judge cases pass/fail instead.")


def item_summary(item: ItemAxis, parameters: Parameters) -> str:
    agree = (item.signflip_p_value < parameters.alpha) == (item.p_value < parameters.alpha)
    independent = ("Treating the cases as independent (the grouped figures follow), the" if item.clustered
                   else "The")
    return (f"{fmt.plural(item.improved, 'case')} improved, {item.worsened:,} worsened and {item.unchanged:,} did "
            "not change. "
            f"{independent} sign-flip test, which assumes nothing about the shape of the differences, gives "
            f"{fmt.p_is(item.signflip_p_value)} ({signflip_method(item, parameters.seed)}); "
            + ("it agrees with the paired t test." if agree else
               f"unlike the paired t test ({fmt.p_is(item.p_value)}), so the outcome depends on a few large "
               "differences: read the listed cases."))


# --------------------------------------------------------------------------------------------------------
# run axis


def run_agreement(r: RunAxis, parameters: Parameters, baseline: str, group: str | None) -> tuple[str, str]:
    """The plain-words reading of the two axes and, when they disagree, a short warning (else ""). ``group``
    names the cluster column when the case axis counts groups, else None."""
    cases, other = (("groups of cases", f"another set of {group} groups") if group
                    else ("cases", "another set of cases"))
    interval = f"[{fmt.signed(r.case_ci_low)}, {fmt.signed(r.case_ci_high)}]"
    case_figures = f"{fmt.signed(r.case_diff)} {interval}, {fmt.p_is(r.case_p_value)}"
    runs = f"{r.runs_baseline} and {r.runs_candidate} runs"
    tail = " The verdict follows the case axis: a release meets new inputs, not reruns of these ones."
    if not r.run_defined:
        one = baseline if r.runs_baseline < 2 else "the candidate"
        return (f"The run axis cannot be tested: {one} has a single run. The case axis gives a gap of "
                f"{case_figures}." + tail, "")
    run_p = fmt.p_is(r.run_p_value)
    warning = ""
    if r.run_decisive and not r.case_decisive:
        higher = r.run_diff > 0
        every = (r.candidate_run_min > r.baseline_run_max) if higher else (r.candidate_run_max < r.baseline_run_min)
        when = "in every run" if every else "run after run, on average"
        scores = (f"'s pass rate is {'higher' if higher else 'lower'}" if r.outcome_kind == OutcomeKind.BINARY
                  else f" scores {'higher' if higher else 'lower'}")
        text = (f"The two axes disagree. A rerun would very likely show the same gap: {when} the candidate"
                f"{scores} ({fmt.signed(r.run_diff)}, {run_p} across {runs}). But the "
                f"{cases} differ among themselves far more than that: the case-level interval {interval} "
                f"includes no change ({fmt.p_is(r.case_p_value)}), so {other} could show no gap, or the opposite "
                "one. The gap is real for these cases, not shown for the inputs the release will meet.")
        warning = (f"the two axes disagree: a rerun would keep the gap ({run_p}), but {other} might not "
                   f"({case_figures})")
    elif r.case_decisive and not r.run_decisive:
        text = (f"The two axes disagree. Across {cases} the gap is clear ({case_figures}), but the overall "
                f"{_moves(r)} moves from run to run about as much as the gap ({run_p} across {runs}), so a single "
                "rerun could show a smaller gap or none. With few runs this test is weak; more runs would "
                "settle it.")
        warning = (f"the two axes disagree: the gap holds across {cases} ({case_figures}) but not clearly from "
                   f"run to run ({run_p}, {runs})")
    elif r.run_decisive and r.case_decisive:
        text = (f"Both axes agree: a rerun would very likely show the same gap ({run_p}), and so would "
                f"{other} ({case_figures}).")
    else:
        text = (f"Neither axis shows a gap: the {_moves(r)} moves from run to run ({run_p}) and from case to case "
                f"({interval}, {fmt.p_is(r.case_p_value)}) by more than the observed {fmt.signed(r.case_diff)}.")
    return text + tail, warning


def run_warnings(r: RunAxis, parameters: Parameters, baseline: str, group: str | None) -> list[str]:
    warning = run_agreement(r, parameters, baseline, group)[1]
    out = [warning] if warning else []
    if r.runs_per_case_min != r.runs_per_case_max:
        out.append(f"cases have between {r.runs_per_case_min} and {r.runs_per_case_max} runs: each case counts "
                   "once, as the mean of the runs it has")
    return out


# --------------------------------------------------------------------------------------------------------
# grouped cases


def cluster_verdict_method(k: ClusterAnalysis) -> str:
    return CLUSTER_TESTS[k.verdict_test]


def cluster_explanation(k: ClusterAnalysis) -> str:
    binary = k.binary

    def interval(low: float, high: float) -> str:
        return fmt.interval_points(low, high) + " points" if binary else fmt.interval_signed(low, high)

    n, g, deff, ratio, column = k.n_cases, k.n_clusters, k.design_effect, k.width_ratio, k.cluster_column
    low, high = k.smallest_cluster, k.largest_cluster
    each = f"{fmt.plural(low, 'case')} each" if low == high else f"{low} to {high} cases each"
    text = (f"The {n:,} cases come in {g:,} groups (by {column}), {each}. Cases in one group share what makes "
            f"the group easy or hard, so they count for less than {n:,} independent cases")
    if deff > 1.05:
        text += (f": the difference carries about as much information as {n / deff:,.0f} independent cases "
                 f"(design effect {deff:.1f}).")
    else:
        text += ", although here the grouping barely matters (design effect about 1)."
    clustered = interval(k.clustered_ci_low, k.clustered_ci_high)
    naive = interval(k.naive_ci_low, k.naive_ci_high)
    if not (math.isfinite(k.clustered_ci_low) and math.isfinite(k.clustered_ci_high)):
        text += (f" Counting whole groups, {g:,} groups bound nothing: the grouped interval is {clustered}, "
                 f"against {naive} treating every case as independent. The verdict uses the grouped one.")
    elif math.isfinite(ratio) and ratio >= 1.1:
        text += (f" Counting whole groups gives an interval {ratio:.1f} times as wide as treating every case "
                 f"as independent ({clustered} against {naive}). The wider one is the "
                 "honest one, and the verdict uses it.")
    else:
        text += (f" The interval that counts whole groups, {clustered}, is about as wide as the one "
                 f"that treats cases as independent, {naive}; the verdict uses the grouped one.")
    return text


def cluster_floor(k: ClusterAnalysis) -> str:
    g, two, one = k.n_clusters, k.smallest_p_two_sided, k.smallest_p_one_sided
    text = (f"With {g:,} groups no test that respects them can reach p below {two:.2g} two-sided "
            f"({one:.2g} one-sided, all groups' changes in one direction).")
    if g >= FEW_CLUSTERS:
        text += " That floor is far below any threshold in use, so it costs nothing here."
    return text


def cluster_warnings(k: ClusterAnalysis, parameters: Parameters) -> list[str]:
    column, g = k.cluster_column, k.n_clusters
    out = []
    if g < 2:
        out.append(f"all cases are in one {column} group: no statement about other groups is possible, so "
                   "every p is 1 and nothing is ruled out")
    elif g < FEW_CLUSTERS:
        out.append(f"only {g} groups ({column}): grouped intervals are unreliable below {FEW_CLUSTERS} groups, "
                   f"and no test that respects the grouping can reach p below {k.smallest_p_two_sided:.2g} "
                   f"(two-sided; {k.smallest_p_one_sided:.2g} one-sided). More groups, not "
                   "more cases per group, would help")
    if k.few_cluster_categories:
        names = ", ".join(f"{label} ({n:,})" for label, n in k.few_cluster_categories)
        out.append(f"categories with too few {column} groups to show a regression on their own after the "
                   f"{parameters.correction} correction: {names}")
    # Say so when counting groups rather than single cases changes what a rule concludes.
    binary = k.binary
    alpha, margin = parameters.alpha, parameters.margin

    if margin > 0 and k.naive_ni_low >= -margin > k.verdict_ni_low:
        shown = (f"{fmt.points(-margin)} points" if binary else fmt.signed(-margin))
        out.append(f"the grouping decides the non-inferiority rule: treating the cases as independent, the "
                   f"{ni_level(parameters)}% interval's lower bound would be "
                   f"{beside(k.naive_ni_low, -margin, binary)}, within the margin of {shown}; counting {column} "
                   f"groups it is {beside(k.verdict_ni_low, -margin, binary)}, beyond it")
    if k.naive_p_one_sided < alpha <= k.verdict_p_one_sided:
        out.append(f"treating the cases as independent the drop would look significant (one-sided "
                   f"{fmt.p_is(k.naive_p_one_sided)}); counting {column} groups it is not "
                   f"({fmt.p_is(k.verdict_p_one_sided)})")
    return out


def beside(value: float, limit: float, binary: bool) -> str:
    """A figure read against a limit (a bound against its margin), in the note's unit, with as many more digits
    as it takes to show it apart from the limit: "-5.05 points" beside a margin of -5.0 points and "beyond",
    not "-5.0 points"."""
    if binary:
        return f"{fmt.points(value, fmt.apart(value, limit, 1, 100))} points"
    return fmt.signed(value, fmt.apart(value, limit, 3))


def ni_level(parameters: Parameters) -> int:
    """The non-inferiority interval's level in percent: the two-sided (1 - 2 alpha) interval."""
    return round((1 - 2 * parameters.alpha) * 100)


# --------------------------------------------------------------------------------------------------------
# costs


def _change(ratio: float, lower: str, higher: str, same: str) -> str:
    percent = round(abs(1.0 - ratio) * 100)
    if percent == 0:
        return same
    return f"{percent}% {lower if ratio < 1 else higher}"


def cost_clause(k: CostComparison) -> str:
    """The verdict's cost clause, e.g. "54% cheaper per case, p95 latency 0.57x" (point estimates)."""
    parts = []
    cost, tokens, p95 = k.cost_ratio, k.tokens_ratio, k.latency_p95_ratio
    if cost is not None and math.isfinite(cost.ratio):
        parts.append(_change(cost.ratio, "cheaper", "more expensive", "same cost") + " per case")
    elif tokens is not None and math.isfinite(tokens.ratio):
        parts.append(_change(tokens.ratio, "fewer tokens", "more tokens", "same tokens") + " per case")
    if p95 is not None and math.isfinite(p95.ratio):
        parts.append(f"p95 latency {p95.ratio:.2f}x")
    return ", ".join(parts)


def cost_warnings(k: CostComparison) -> list[str]:
    n, out = k.n_paired, []
    if k.latency_mean_ratio is not None and k.latency_mean_ratio.excluded:
        out.append(f"latency: {k.latency_mean_ratio.excluded:,} of {n:,} paired cases excluded (missing, zero or "
                   f"negative latency in {k.baseline} or {k.candidate})")
    if k.tokens_ratio is not None and k.tokens_ratio.excluded:
        out.append(f"tokens: {k.tokens_ratio.excluded:,} of {n:,} paired cases excluded (missing or negative)")
    if k.cost_ratio is not None and k.cost_ratio.excluded:
        out.append(f"cost: {k.cost_ratio.excluded:,} of {n:,} paired cases excluded (missing or negative)")
    return out


def cost_interval_method(table: CostTable, parameters: Parameters) -> str:
    boot = (f"paired case bootstrap ({parameters.n_resamples:,} resamples, seed {parameters.seed}, percentile "
            "interval)")
    normal = (f"normal approximation (delta method: Bahadur representation with Hall-Sheather sparsity for "
              f"the p95, linearised ratio estimator for totals), used above {LARGE_WORK:,} resampled cases "
              "(pairs x resamples) where the bootstrap would be slow")
    text = "; ".join(m for m, key in ((boot, "paired bootstrap"), (normal, "normal approximation"))
                     if key in table.interval_methods)
    return text or boot


def cost_notes(table: CostTable) -> list[str]:
    notes = []
    if table.prices_used:
        notes.append("Cost per case = input tokens x input price + output tokens x output price, with the "
                     "policy's prices per million tokens.")
    if table.prices_ignored:
        notes.append("The results have a cost column; the policy's prices are not used.")
    if table.unpriced:
        notes.append(f"No prices for {', '.join(table.unpriced)} in the policy: no cost shown for them.")
    if table.unknown_prices:
        notes.append(f"Prices given for {', '.join(table.unknown_prices)}, which are not compared here.")
    # A cost of 0 on every case is as often a cost not recorded as a free model: said, since the cost ratio
    # against it would read as cheaper than any limit (or, on the baseline, as not measurable).
    for r in table.releases:
        if r.cost_source and r.cost_per_case == 0:
            notes.append(f"The cost per case of {r.name} is 0 on its {r.n_cases:,} cases: a cost that was not "
                         f"recorded reads as 0, so check {r.name}'s {r.cost_source} before trusting a cost figure or "
                         "cost guardrail beside it.")
    invalid = [f"{r.name} {r.latency_invalid}" for r in table.releases if r.latency_invalid]
    if invalid:
        notes.append(f"Latencies missing, zero or negative were excluded ({', '.join(invalid)} rows).")
    if table.has_runs:
        notes.append("With several runs a case's latency is its median over runs; tokens and cost their mean.")
    return notes
