"""Every sentence of the note states what its figures show: properties checked on many analyses built through
the real pipeline (``build_report``), the crafted ones that once contradicted themselves and seeded random ones.

What is read: each candidate's plain paragraph (wording/plain.py), its verdict box (the headline's reason, the
rules that fired, the warnings shown under "do not change the verdict") and the check line (render/console.py).
Each property returns the sentences that break it, so a failure names them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from conftest import build_report
from releasegate.render.console import verdict_lines
from releasegate.wording import plain


# --------------------------------------------------------------------------------------------------------
# the inputs


def counted(spec: list[tuple[str, int, int, int, int]]) -> pd.DataFrame:
    """Pass/fail cases by count: (category, cases, broke, fixed, failing on both) per category; the rest pass on
    both releases."""
    rows, i = [], 0
    for category, n, broke, fixed, both_fail in spec:
        for k in range(n):
            before, after = ((1, 0) if k < broke else (0, 1) if k < broke + fixed
                             else (0, 0) if k < broke + fixed + both_fail else (1, 1))
            rows += [("r1", f"c{i}", before, category), ("r2", f"c{i}", after, category)]
            i += 1
    return pd.DataFrame(rows, columns=["release", "case_id", "passed", "category"])


def with_latency(table: pd.DataFrame, ratio: float, seed: int = 1) -> pd.DataFrame:
    """Latencies, the candidate's ``ratio`` times the baseline's (no cost or token column)."""
    rng = np.random.default_rng(seed)
    base = rng.lognormal(6.5, 0.3, size=len(table) // 2)
    out = table.copy()
    out["latency_ms"] = np.where(out["release"] == "r1", np.repeat(base, 2), np.repeat(base * ratio, 2))
    return out


def random_table(seed: int) -> tuple[pd.DataFrame, dict]:
    """A release pair drawn at random: its size, categories (one or two critical, or none), how often each
    breaks and fixes, pass/fail or scores, and which cost columns it has; with the policy's keys it is read with."""
    rng = np.random.default_rng(seed)
    n = int(rng.choice([16, 40, 120, 400]))
    names = ["Fraud", "Safety", "Cards", "Fees", "Transfers"][: int(rng.integers(0, 6))]
    critical = [c for c in names[:2] if rng.random() < 0.7]
    scores = rng.random() < 0.2
    rows = []
    base_rate, rates = rng.uniform(0.6, 0.97), {}
    for name in names or ["all"]:
        rates[name] = (rng.choice([0.0, 0.02, 0.08, 0.25, 0.5]), rng.choice([0.0, 0.05, 0.2, 0.5]))
    for i in range(n):
        category = (names or ["all"])[int(rng.integers(0, len(names) or 1))]
        broke, fixed = rates[category]
        before = rng.random() < base_rate
        after = (rng.random() >= broke) if before else (rng.random() < fixed)
        if scores:
            b = float(np.clip(rng.normal(0.7 if before else 0.3, 0.15), 0, 1))
            a = float(np.clip(b + (rng.normal(0, 0.2) if after != before else rng.normal(0, 0.02)), 0, 1))
            rows += [("r1", f"c{i}", round(b, 3), category), ("r2", f"c{i}", round(a, 3), category)]
        else:
            rows += [("r1", f"c{i}", int(before), category), ("r2", f"c{i}", int(after), category)]
    table = pd.DataFrame(rows, columns=["release", "case_id", "score" if scores else "passed", "category"])
    if not names:
        table = table.drop(columns="category")
    if rng.random() < 0.5:
        table = with_latency(table, float(rng.choice([0.5, 1.0, 1.3])), seed)
    if "latency_ms" in table and rng.random() < 0.5:
        table["cost"] = np.where(table["release"] == "r1", 0.002, 0.002 * float(rng.choice([0.5, 1.0, 1.6])))
    policy = {"critical": critical, "margin": float(rng.choice([0.0, 0.05, 0.1])), "n_resamples": 400}
    return table, policy


@dataclass(frozen=True)
class Scenario:
    name: str
    table: pd.DataFrame
    policy: dict


# Each of these once made the note contradict itself (the sentence quoted is what it said).
CRAFTED = [
    # "It costs its slowest answers take 0.47x as long": latency without a cost figure.
    Scenario("latency without cost", with_latency(counted([("Cards", 120, 3, 5, 6)]), 0.47), {}),
    # "nothing the policy guards got worse" beside "Worse: Fraud (critical) -7" (Fraud down 14 points).
    Scenario("a SHIP with a critical category down",
             counted([("Fraud", 50, 12, 5, 3), ("Other", 300, 5, 15, 5)]), {"critical": ["Fraud"]}),
    # "the exact test, which the rules read, does not reach significance" beside a fired overall rule.
    Scenario("a fired overall rule with a two-sided p above alpha",
             counted([("Fraud", 50, 6, 0, 3), ("A", 10, 1, 0, 0), ("B", 10, 1, 0, 0), ("C", 10, 1, 0, 0),
                      ("D", 10, 0, 1, 0), ("E", 10, 0, 1, 0)]), {"critical": ["Fraud"]}),
    # "significant regression in Fraud -30.8 points [-57.1, +1.1]": the test and the interval disagree.
    Scenario("a small critical category's test against its interval",
             counted([("Fraud", 13, 4, 0, 8), ("Other", 200, 1, 1, 5)]), {"critical": ["Fraud"]}),
    # "Warnings (do not change the verdict)" holding "the critical test blocks"; r3 of the lesson: Fraud and
    # Safety down, neither on the check line.
    Scenario("a blocking critical category and another down",
             counted([("Fraud", 50, 6, 0, 3), ("Safety", 30, 2, 0, 1), ("Other", 300, 4, 12, 10)]),
             {"critical": ["Fraud", "Safety"]}),
]
RANDOM = [Scenario(f"random {seed}", *random_table(seed)) for seed in range(36)]


_REPORTS: dict[str, object] = {}


def report_of(scenario: Scenario, folder: Path):
    """The scenario's Report through the pipeline, once per test process (the coverage test reads them all)."""
    if scenario.name not in _REPORTS:
        path = folder / "results.csv"
        scenario.table.to_csv(path, index=False)
        _REPORTS[scenario.name] = build_report(path, baseline="r1", **scenario.policy)
    return _REPORTS[scenario.name]


# --------------------------------------------------------------------------------------------------------
# what the reader reads, per candidate


@dataclass(frozen=True)
class Read:
    cand: object  # CandidateAnalysis
    verdict: object  # Verdict
    paragraph: str
    check_line: str
    binary: bool

    @property
    def box(self) -> list[str]:
        return [self.verdict.because, *(r.message for r in self.verdict.reasons)]

    @property
    def everything(self) -> list[str]:
        return [self.paragraph, self.check_line, *self.box, *self.verdict.warnings]


def read(report) -> list[Read]:
    section = report.sections[0]
    paragraphs = plain.paragraphs(report)
    lines = verdict_lines(report)
    out = []
    for cand, verdict in zip(section.analysis.candidates, section.verdicts):
        line = next(x for x in lines if x.split(" ", 2)[1:2] == [cand.name] or f" {cand.name}: " in x)
        out.append(Read(cand, verdict, paragraphs[cand.name], line, section.analysis.mcnemar_path))
    return out


def fired(r: Read, rule: str) -> bool:
    return any(c.rule == rule and c.fired for c in r.verdict.checks)


# --------------------------------------------------------------------------------------------------------
# the properties: each returns the sentences that break it


def fired_rule_called_not_significant(r: Read) -> list[str]:
    """A rule that fired is never called not significant; a regression no rule found is never called
    significant."""
    out = []
    if fired(r, "overall_regression"):
        out += [t for t in r.box + [r.check_line] if re.search(r"not significant|does not reach significance", t)]
    elif r.cand.overall.diff < 0:
        out += [t for t in r.box + [r.check_line] if re.search(r"\bsignificant\)", t) and "not significant)" not in t]
    return out


def nothing_worse_beside_worse(r: Read) -> list[str]:
    """"nothing ... got worse" never stands beside a category (or the whole) that got worse."""
    worse = r.cand.overall.broke > 0 or any(c.broke > c.fixed for c in r.cand.categories)
    return [t for t in r.everything if worse and re.search(r"\bnothing\b[^.;]*\bworse\b", t)]


def critical_down_off_the_check_line(r: Read) -> list[str]:
    """A critical category that went down is named on the check line, whatever the verdict."""
    down = [c.label for c in r.cand.categories if c.critical and c.diff < 0]
    return [f"{label} is not on: {r.check_line}" for label in down
            if not re.search(rf"\b{re.escape(label)}\b", r.check_line)]


def warning_that_blocks(r: Read) -> list[str]:
    """The warnings are shown as not changing the verdict: none says something blocks."""
    return [w for w in r.verdict.warnings if re.search(r"(?<!not )(?<!never )\bblock(s|ed|ing)?\b", w)]


MISSING_CLAUSE = re.compile(
    r"It costs (?![\d$])"  # "It costs its slowest answers ...": the cost figure left out
    r"|\(\s*\)|\s[,.;:](?!\d)|[,;:]\s*[.;,]|\.\s*\.(?!\.)"  # empty brackets, stray or doubled punctuation
    r"|\b(?:nan|None|inf)\b|\bx as\b|:\s*$")


def missing_clause(r: Read) -> list[str]:
    """No sentence has a hole where an absent figure (no cost, no latency, no categories) would have been."""
    return [t for t in r.everything if MISSING_CLAUSE.search(t)]


def _signed(text: str) -> float:
    return float(text.replace("\u2212", "-"))


def direction_disagrees(r: Read) -> list[str]:
    """Directions and signs agree with the figures: the counts fixed and broken, each category named worse or
    better, the overall difference inside its interval and with the sign of fixed - broke, the costs' words."""
    out, o, text = [], r.cand.overall, r.paragraph
    better, worse = ("fixed", "broken") if r.binary else ("improved", "worsened")
    if not re.search(rf"{o.fixed:,} {better}, {o.broke:,} {worse}( by more than [\d.]+)?\.", text):
        out.append(f"counts: {text}")
    net = {c.label: c.broke - c.fixed for c in r.cand.categories}
    for label, sign, count in re.findall(r"(?:Worse|Better|,|and) ([A-Z][\w ]*?)(?: \(critical\))? ([+-])(\d+)",
                                         text):
        if label in net and (net[label] if sign == "-" else -net[label]) != int(count):
            out.append(f"{label} {sign}{count} against {net[label]} net broken: {text}")
    shown = re.search(r"overall ([+-−]?[\d.]+)(?: points)? \[([+-−]?[\d.]+), ([+-−]?[\d.]+)\]", r.verdict.because)
    if shown:
        value, low, high = (_signed(x) for x in shown.groups())
        if not low <= value <= high:
            out.append(f"overall outside its interval: {shown.group(0)}")
        if r.binary and np.sign(value) not in (0, np.sign(o.fixed - o.broke)):
            out.append(f"overall sign against {o.fixed} fixed, {o.broke} broken: {shown.group(0)}")
    k = r.cand.sections.costs
    cost = k.cost_ratio if k is not None else None
    said = re.search(r"(\d+)% (less|more) per answer", text)
    if said and (cost is None or (said.group(2) == "less") != (cost.ratio < 1)):
        out.append(f"cost direction: {said.group(0)} (ratio {None if cost is None else cost.ratio})")
    for word in re.findall(r"(cheaper|more expensive) per case", r.verdict.because):
        if cost is not None and (word == "cheaper") != (cost.ratio < 1):
            out.append(f"cost direction: {word} (ratio {cost.ratio})")
    slow = re.search(r"slowest answers take ([\d.]+)x as long", text)
    if slow and (k is None or k.latency_p95_ratio is None or abs(float(slow.group(1)) - k.latency_p95_ratio.ratio) > 0.006):
        out.append(f"latency: {slow.group(0)}")
    return out


def interval_against_its_test(r: Read) -> list[str]:
    """A category named a significant regression shows the bound of an interval that inverts its test, below
    zero, or the sentence names the two methods where they disagree."""
    out = []
    for check in r.verdict.checks:
        if check.rule != "category_regression" or not check.fired:
            continue
        sentence = next(x.message for x in r.verdict.reasons if x.rule == check.rule)
        for f in check.figures:
            part = sentence[sentence.index(f.subject):]
            bound = getattr(f, "bound", None)  # a figure without one shows no bound
            agrees = bound is not None and bound < 0 and "bound" in part
            if not agrees and "two methods" not in part:
                out.append(f"{f.subject}: {sentence}")
            if agrees and f.ci_high is not None and f.ci_high >= 0 and "includes zero" not in part:
                out.append(f"{f.subject}: an interval across zero beside its test, unexplained: {sentence}")
    return out


PROPERTIES = [fired_rule_called_not_significant, interval_against_its_test, nothing_worse_beside_worse, critical_down_off_the_check_line,
              warning_that_blocks, missing_clause, direction_disagrees]


def violations(report) -> list[str]:
    return [f"{p.__name__}: {t}" for r in read(report) for p in PROPERTIES for t in p(r)]


@pytest.mark.parametrize("scenario", CRAFTED, ids=[s.name for s in CRAFTED])
def test_the_crafted_contradictions_are_gone(scenario, tmp_path):
    assert violations(report_of(scenario, tmp_path)) == []


@pytest.mark.parametrize("scenario", RANDOM, ids=[s.name for s in RANDOM])
def test_random_analyses_never_contradict_their_figures(scenario, tmp_path):
    assert violations(report_of(scenario, tmp_path)) == []


def test_the_random_analyses_reach_every_kind_of_verdict_and_figure(tmp_path):
    """The generator is worth its properties only if it reaches each verdict, a fired overall and category
    rule, a critical category down, and notes with and without cost and latency figures."""
    seen = set()
    for scenario in RANDOM:
        for r in read(report_of(scenario, tmp_path)):
            seen.add(r.verdict.decision.value)
            seen.update(c.rule for c in r.verdict.checks if c.fired)
            seen.add("critical down" if any(c.critical and c.diff < 0 for c in r.cand.categories) else "")
            k = r.cand.sections.costs
            seen.add("no costs" if k is None else "cost" if k.cost_ratio is not None else "latency only")
            seen.add("scores" if not r.binary else "")
    assert {"ship", "dont_ship", "not_proven", "overall_regression", "category_regression", "critical_broken",
            "critical down", "no costs", "cost", "latency only", "scores"} <= seen, seen
