"""The lines ``releasegate plan`` prints (and ``-o plan.md`` / ``plan.html`` list): the simulated plan's and the
gold-label plan's. Each is written from the plan's plain data, the very mapping ``-o plan.json`` writes
(plan.suite.plan_dict, plan.gold.gold_plan_dict), so a line and the JSON beside it never disagree."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from releasegate import fmt

Data = Mapping[str, Any]


def _pct(rate: Data) -> str:
    """A rate with its Monte Carlo standard error: "12.0% (+/- 2.7)"."""
    return f"{100 * rate['rate']:.1f}% (+/- {100 * rate['se']:.1f})"


def churn_line(design: Data) -> str:
    """The churn simulated: between releases and where it came from, then its run-to-run and case-level parts
    (the case-level part capped at what the pass rate allows, said so when it bites)."""
    churn = design["churn"]
    if design["churn_source"] == "assumed":
        head = (f"{100 * churn:.1f}% between releases (assumed: give results with a candidate, "
                "--baseline-rerun NAME, runs, or --churn to measure or state it)")
    else:
        head = f"{100 * churn:.1f}% between releases ({design['churn_source']})"
    if design["run_churn"] is None:
        split = "all of it simulated as case-level change (run-to-run churn unknown)"
    else:
        split = (f"run-to-run {100 * design['simulated_run_share']:.1f}% ({design['run_churn_source']}), "
                 f"case-level change {100 * design['simulated_case_share']:.1f}%")
        if design["simulated_churn"] < churn - 1e-9:
            split += (f" (capped at {100 * design['simulated_case_ceiling']:.1f}% of cases: beside that run-to-run "
                      f"churn one run of each release then disagrees on {100 * design['simulated_churn']:.1f}%)")
    return f"churn: {head}; {split}" + ("; the critical test uses the baseline rerun" if design["baseline_rerun"]
                                        else "")


def reach_line(reach: Data) -> str:
    """"what this suite can show: a candidate no more than 12.0 points worse at best, ...": the smallest margin
    the suite shows no worse at its chance, beside the policy's, and whether more runs would reach it."""
    line = (f"what this suite can show: a candidate no more than {100 * reach['smallest_margin']:.1f} points worse "
            f"at best, with an {round(100 * reach['chance'])}% chance at its churn (the policy's margin: "
            f"{100 * reach['margin']:g} points)")
    if reach["smallest_margin"] <= reach["margin"]:
        return line + "; it reaches the margin as it is"
    if reach["runs_needed"] is not None and reach["runs_needed"] > reach["runs"]:
        return line + f"; {reach['runs_needed']} runs of every case would reach the margin"
    if reach["runs_reason"] == "unknown":
        return line + ("; whether more runs would help is unknown: its run-to-run churn is not measured (a baseline "
                       "rerun, several runs, or --run-churn)")
    return line + "; more runs would not reach the margin (its churn is case-level change): more cases would"


def _target_line(target: Data) -> str:
    """The size search's answer: the target, then reached as it is, at a larger suite, or not, and why."""
    t = target["smallest_reaching"]
    goal = (f"{round(100 * target['detection'])}% detection of a {round(100 * target['drop'])}-point regression at "
            f"no more than {round(100 * target['max_false_blocks'])}% false blocks (blocks: DON'T SHIP or NOT PROVEN)")
    figures = f"detection {_pct(t['detection'])}, false blocks {_pct(t['false_blocks'])}"
    if t["scale"] == 1.0 and t["reached"]:
        return f"{goal}: reached with the suite as it is"
    if t["reached"]:
        return f"{goal}: about {t['cases']:,} cases ({t['scale']:g}x this suite, every category in proportion): {figures}"
    reason = ("false blocks stay above the limit" if t["false_blocks"]["rate"] > target["max_false_blocks"]
              else "detection stays below it")
    return f"{goal}: not reached up to {t['cases']:,} cases ({t['scale']:g}x this suite; {reason}: {figures})"


def plan_lines(plan: Data) -> list[str]:
    """The simulated plan in plain lines, from plan.suite.plan_dict's mapping."""
    d = plan["design"]
    crit = ", ".join(f"{c['category']} {c['cases']}" for c in d["critical"]) or "none"
    others, runs = d["other_categories"], d["runs"]
    harmless = plan["harmless"]
    by_rule = plan["false_blocks_by_rule"]
    out = [
        (f"suite: {d['cases']:,} cases, baseline pass rate {100 * d['baseline_pass_rate']:.1f}%, critical categories: "
         f"{crit}; {others} other categor{'y' if others == 1 else 'ies'}; {runs} run{'s' if runs > 1 else ''}"),
        churn_line(d),
        (f"simulated: {plan['replications']} replications per scenario, seed {plan['seed']} "
         "(rates +/- one Monte Carlo standard error; cost guardrails not simulated)"),
        (f"a release that changes nothing: DON'T SHIP {_pct(harmless['dont_ship'])}, NOT PROVEN "
         f"{_pct(harmless['not_proven'])}, SHIP {_pct(harmless['ship'])}")
        + (" (by rule: " + ", ".join(f"{name} {_pct(r)}" for name, r in by_rule.items()) + ")" if by_rule else ""),
    ]
    if plan["reach"] is not None:
        out.append(reach_line(plan["reach"]))
    out += [f"a {round(100 * r['drop'])}-point regression overall: DON'T SHIP {_pct(r['dont_ship'])}, not SHIP "
            f"{_pct(r['detection'])}" for r in plan["regressions"]]
    out += [f"a {round(100 * c['drop'])}-point drop in {c['category']} (critical): DON'T SHIP {_pct(c['dont_ship'])}, "
            f"not SHIP {_pct(c['detection'])}" for c in plan["critical_drops"]]
    out.append(_target_line(plan["target"]))
    return out


def _width(x: float) -> str:
    return f"{fmt.size_points(x)} points"


def gold_plan_lines(data: Data) -> list[str]:
    """Each candidate's gold-label plan in plain lines, from plan.gold.gold_plan_dict's mapping: the width its
    labels give now, the labels a target width needs (or that it is out of reach), and where a sample
    stratified by whether the judge changed the case would need fewer."""
    lines = []
    for p in data["gold_plans"]:
        head = f"{p['candidate']} against {p['baseline']}"
        plan = p["plan"]
        if plan is None:
            lines.append(f"{head}: no gold-label plan; it needs the same cases labelled on both releases "
                         f"(the gold labels here are {p['design'].replace('_', ' ')}) and a corrected interval")
            continue
        lines.append(f"{head}: {p['labelled']:,} paired gold labels give a corrected interval "
                     f"{_width(plan['width_now'])} wide (of {plan['n_cases']:,} cases)")
        if not plan["reachable"]:
            lines.append(f"  a width of {_width(plan['target_width'])} is out of reach: every case labelled gives "
                         f"{_width(plan['width_all'])}")
            continue
        lines.append(f"  {plan['needed']:,} gold-labelled cases per release, drawn at random (the same cases on both), "
                     f"give {_width(plan['target_width'])}: {plan['more']:,} more")
        a = p["allocation"]
        if a is not None and a["defined"] and p["stratified_needed"] is not None:
            shares = ", ".join(f"{name} {count:,} cases: {100 * share:.0f}% of the labels"
                               for name, count, share in zip(a["strata"], a["cases"], a["shares"], strict=True))
            lines.append(f"  stratified by whether the judge changed the case ({shares}): about "
                         f"{p['stratified_needed']:,} (design effect {a['design_effect']:.2f}); releasegate's "
                         "correction reads a random sample, so draw at random (docs/judge.md, how many labels)")
    return lines
