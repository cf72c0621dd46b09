"""The method notes of the release note ("How these figures were computed"), written once for every format.

Each line is a list of (kind, text) parts: "text" parts are the note's own words, "name" parts are names from
the input (the baseline, a candidate), which each format escapes its own way. ``typographic`` picks the
typesetter's minus sign and quotes (HTML, PDF) or plain ASCII (Markdown, read as source in a PR).
"""

from __future__ import annotations

from releasegate import fmt
from releasegate.model import Analysis, PolicyFile, Power, Verdict
from releasegate.model.costs import GUARDRAIL_RATIOS
from releasegate.model.judge import CORRECTED_POWER_METHOD
from releasegate.wording.sections import ni_level

Line = list[tuple[str, str]]


def method_lines(analysis: Analysis, verdicts: tuple[Verdict, ...], typographic: bool) -> list[Line]:
    minus, lq, rq = ("\u2212", "\u201c", "\u201d") if typographic else ("-", '"', '"')
    p = analysis.parameters
    binary = analysis.mcnemar_path
    lines: list[Line] = [[
        ("text", "Pairing: every candidate is compared with "), ("name", analysis.baseline),
        ("text", f" case by case (inner join on case_id); difference = candidate {minus} baseline."),
    ]]
    if binary:
        lines.append([("text", ("Pass rates with Wilson 95% intervals; the difference with Newcombe's paired interval "
                               "(method 10); McNemar's exact test on the fixed and broke counts (two-sided p in the "
                               f"tables; the gate uses the one-sided {lq}worse{rq} p)."))])
    else:
        lines.append([("text", ("Each case reduced to its mean over runs; paired mean difference with a t interval and "
                               "paired t test; pass/fail cases that changed in every run (each mean difference "
                               f"{minus}1, 0 or +1) take McNemar's exact test and Newcombe's interval instead."))])
    if analysis.has_runs:
        lines.append([("text", (f"Runs: each release's overall mean per run, compared with Welch's t ({lq}would a rerun "
                               f"agree?{rq}), is shown beside the verdict; the verdict reads the per-case means "
                               f"({lq}would other cases agree?{rq})."))])
    if analysis.has_clusters:
        lines.append([("text", ("Grouped cases: each difference's p-value and interval come from one method, the "
                               "cluster sign-flip test and its inversion below 20 groups, the CR2 t test and t "
                               "interval (Bell-McCaffrey degrees of freedom) from 20 on; when every group's change "
                               f"is {minus}1, 0 or +1 the p is the exact test on the groups that changed; the cluster "
                               f"bootstrap ({fmt.number(p.n_resamples, 0)} resamples, seed {p.seed}) is shown beside "
                               "them; release intervals use CR2; the minimum detectable difference includes the "
                               "design effect."))])
    members = ["the overall test", "every category test"] if analysis.has_categories else ["the overall test"]
    if p.critical:
        members.append(f"each critical category's own test (weight {_critical_weight(analysis):g})")
    if any(c.sections.errors is not None for c in analysis.candidates):
        members.append("the error-rate test")
    listed = members[0] if len(members) == 1 else ", ".join(members[:-1]) + " and " + members[-1]
    lines.append([("text", (f"One error budget: per candidate, {listed} "
                           f"form one family at alpha {fmt.number(p.alpha, 2)}, adjusted with {p.correction} "
                           "(weighted), so a release that changes nothing is told DON'T SHIP by them at most "
                           f"{fmt.number(p.alpha, 2)} of the time."
                           + (" The per-category tables show each category's one-sided p adjusted in this "
                              "family, the p its rule reads; the unadjusted and two-sided p-values are in the JSON."
                              if analysis.has_categories else "")))])
    lines.append([("text", (f"Non-inferiority: the lower bound of the {ni_level(p)}% interval of the difference is "
                           f"compared with {minus}{p.margin}."))])
    # The sentence is about the ratios' intervals: the error-rate guardrail (on by default) is a test of the budget.
    if any(c.rule == "guardrail" and any(f.subject in GUARDRAIL_RATIOS for f in c.figures)
           for v in verdicts for c in v.checks):
        lines.append([("text", (f"Guardrails: the upper bound of each ratio's {ni_level(p)}% interval is compared with "
                               "its limit, so, like non-inferiority and the regression tests, each bound is a "
                               f"one-sided test at {fmt.number(p.alpha, 2)}."))])
    for c in analysis.candidates:
        budget = c.sections.budget
        if budget is not None and budget.look > 1:
            lines.append([("name", c.name), ("text", (
                f": look {budget.look} of its comparison with {analysis.baseline} (--previous): its regression "
                f"tests were read at alpha {fmt.pvalue(budget.level)}, what the earlier looks left unspent, and "
                f"their adjusted p-values are scaled by {fmt.number(p.alpha, 2)} / {fmt.pvalue(budget.level)} so "
                f"that each fires below {fmt.number(p.alpha, 2)}; non-inferiority is read at "
                f"{fmt.number(p.alpha, 2)} as at every look."))])
    by_name = {c.name: c for c in analysis.candidates}
    for verdict in verdicts:
        power = by_name[verdict.candidate].power
        drop = f"{fmt.size_points(power.mde)} points" if binary else fmt.number(power.mde)
        level = f" at the level {fmt.pvalue(power.level)} the family leaves it" if power.level == power.level else ""
        low = verdict.smallest_margin_ruled_out
        if low != low:  # a corrected figure that cannot be measured rules nothing out
            ruled = "the data rule out no loss (the overall figure the rules read cannot be measured)"
        elif low >= 0:
            ruled = "the data rule out any loss"
        else:
            ruled = ("the data rule out a loss larger than "
                     + (f"{fmt.size_points(low)} points" if binary else fmt.number(-low)))
        lines.append([("name", verdict.candidate),
                      ("text", f": {power_sentence(power, drop, level)}; {ruled}.")])
    return lines


def _critical_weight(analysis: Analysis) -> float:
    for c in analysis.candidates:
        if c.sections.budget is not None:
            return c.sections.budget.critical_weight
    return float("nan")


def power_sentence(power: Power, drop: str, level: str) -> str:
    """What the overall test can detect, or that nothing is detectable (issue 21: never "0.0 points")."""
    pct = fmt.pct(power.power, 0)
    if power.undetectable == "floor":
        return (f"nothing is detectable: the overall test's smallest possible p is above the level "
                f"{fmt.pvalue(power.level)} the family leaves it")
    if power.undetectable == "undefined":
        return "nothing is detectable: the corrected difference cannot be measured from these gold labels"
    if power.undetectable == "infeasible" or power.mde != power.mde:
        return f"nothing is detectable at {pct} power{level}, even a drop of the whole pass rate"
    how = {"exact McNemar power": " (exact McNemar power)",
           CORRECTED_POWER_METHOD: " (on the corrected difference's standard error)",
           }.get(power.method, "")
    return f"at {pct} power{level} the overall test detects a true drop of {drop}{how}"


def found_policy_lines(policy_file: PolicyFile | None) -> list[Line]:
    """The method section's line on a policy file found beside the results rather than named with --policy:
    which one was read, and from where (none for a policy named, or for flags and defaults alone)."""
    if policy_file is None or not policy_file.found:
        return []
    return [[("text", "Policy: read from "), ("name", policy_file.path),
             ("text", (", found beside the results, not named with --policy (its sha256 is in the provenance); "
                       "--no-policy compares without it."))]]
