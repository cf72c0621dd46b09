"""The policy's keys as one table: each field of :class:`Policy` is a row, declared once with :func:`key` (its
type, range, default, flag, whether ``[metrics.NAME]`` may set it, its doc line), and :data:`KEYS` reads them.

The command line's options (cli_options.py), the pipeline's arguments (arguments.py), the API's keywords, the
per-metric tables (:class:`MetricSpec`), the checks of every value (``make_policy``), docs/policy.md's key table
and the note's JSON Schema (scripts/policy_tables.py writes both docs' tables) all read the rows. A new key is
one field here and the rule that reads it (ARCHITECTURE.md, "A policy key").
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from releasegate.errors import PolicyError
from releasegate.kinds import (
    CORRECTIONS,
    CRITICAL_RULES,
    CRITICAL_TESTS,
    DIRECTIONS,
    JUDGE_CORRECTIONS,
    MCNEMAR_VARIANTS,
    METRIC_KINDS,
    MISSING_MODES,
    NOT_PROVEN_MODES,
    Correction,
    CriticalRule,
    CriticalTestKind,
    Direction,
    JudgeCorrection,
    McNemarVariant,
    MetricKind,
    MissingMode,
    NotProvenMode,
)
from releasegate.policy.tables import DEFAULT_GUARDRAILS, read_columns, read_guardrails, read_prices
from releasegate.policy.values import Choice, Names, Number, Pair, Switch, Table, Text, Value

# What a per-metric value is on the score axis: a "level" (a threshold: negated with the scores of a metric
# where lower is better) or a "size" (a distance: the same either way). "" for a key [metrics.NAME] cannot set.
PerMetric = Literal["", "level", "size"]


@dataclass(frozen=True)
class Key:
    """One row of the table: a policy key."""

    name: str
    value: Value
    default: Any
    doc: str  # the meaning, as docs/policy.md's table and the flag's help say it
    flag: str = ""  # the command line's flag ("" for none)
    per_metric: PerMetric = ""
    hint: str = ""  # said after a refusal: usual values, or what the key decides
    shown: str = ""  # the default as the docs show it, when not the value itself
    flag_doc: str = ""  # the docs' flag column, when the key is set by other flags
    section: str = ""  # docs/policy.md's heading that explains it, when not the key's own
    absent: str = ""  # when the note's JSON leaves it out
    merged: bool = False  # a table the flags add to (a --case-col keeps the file's other [columns])
    looks: bool = False  # the looks of one comparison share it: a --previous note of another value is refused

    def refusal(self, value: Any) -> str:
        return self.value.refusal(self.name, value) + (f" ({self.hint})" if self.hint else "")

    def check(self, value: Any, where: str = "") -> Any:
        """The value as the Policy holds it, or PolicyError with the one line naming the key."""
        if self.value.problem(value) is not None:
            raise PolicyError(f"{where}{self.refusal(value)}")
        return self.value.convert(value)


def key(default: Any, value: Value, doc: str, *, flag: bool | str = False, **row: Any) -> Any:
    """A Policy field and its row: ``flag`` True for ``--the-key-name``, or the flag's own spelling."""
    spelled = flag if isinstance(flag, str) else ""
    meta = {"row": dict(value=value, doc=doc, flag=spelled, derived_flag=flag is True, **row)}
    if isinstance(default, (dict, list)):
        return field(default_factory=lambda: type(default)(default), metadata=meta)
    return field(default=default, metadata=meta)


def rows(cls: type) -> tuple[Key, ...]:
    """The rows of a dataclass declared with :func:`key`, in its field order (fields without one left out)."""
    out = []
    for f in dataclasses.fields(cls):
        if "row" not in f.metadata:
            continue
        row = dict(f.metadata["row"])
        derived = row.pop("derived_flag")
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()  # type: ignore[operator]
        out.append(Key(f.name, default=default, flag=row.pop("flag") or ("--" + f.name.replace("_", "-")
                                                                              if derived else ""), **row))
    return tuple(out)


@dataclass(frozen=True)
class MetricSpec:
    """One ``[metrics.NAME]`` table: the metric's own keys (None: not given) and the policy keys it sets for that
    metric (``overrides``, the rows whose ``per_metric`` says so)."""

    kind: MetricKind | None = key(None, Choice(options=METRIC_KINDS), "how the column is read; auto reads "
                                  "boolean-like values as pass/fail", shown='`"auto"`')
    direction: Direction | None = key(
        None, Choice(options=DIRECTIONS, expected='"higher" or "lower" (which is better)'),
        "which is better; `\"lower\"` (scores only) negates the score. Unset, a score is read as higher-is-better "
        "and the notes say `higher is better (assumed ...)`; a score whose name says lower is better (a word of it "
        "among lat, latency, loss, error, err, toxicity, toxic, perplexity, ppl, wer, cer, cost, duration, time, ms) "
        "is refused until the direction is set. A harness that states the direction (lm-eval's `higher_is_better`) "
        "or defines its scores as higher-is-better (Inspect AI, promptfoo, OpenAI evals) needs none",
        shown='`"higher"`', looks=True)  # the other direction turns every regression test of the budget round
    # A critical metric blocks by the critical categories' own test, overall and in every category
    # (decide/rules/critical.py); only TOML's true or false is read, so "yes" cannot pass as a flag. Its tests
    # are members of the budget, so the looks of one comparison share it.
    critical: bool | None = key(None, Switch(), "a regression of this metric blocks by the critical test, overall "
                                "and in every category", shown="`false`", looks=True)
    overrides: Mapping[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        own = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "overrides"}
        return {**{k: v for k, v in own.items() if v is not None}, **self.overrides}


def read_metrics(raw: Any) -> dict[str, MetricSpec]:
    """``[metrics.NAME]`` tables -> a MetricSpec each; an unknown key or a bad value is one line naming both."""
    if not isinstance(raw, Mapping) or not all(isinstance(v, (Mapping, MetricSpec)) for v in raw.values()):
        raise PolicyError(f"metrics must be a table per metric ([metrics.safe] kind = \"pass_fail\"), got {raw!r}")
    own = {k.name: k for k in METRIC_OWN_KEYS}
    shared = {k.name: k for k in KEYS if k.per_metric}
    out = {}
    for name, spec in raw.items():
        given = spec.as_dict() if isinstance(spec, MetricSpec) else dict(spec)
        where = f"policy [metrics.{name}]: "
        unknown = sorted(set(map(str, given)) - set(own) - set(shared))
        if unknown:
            raise PolicyError(f"{where}unknown key(s) {', '.join(unknown)}; known: {', '.join([*own, *shared])}")
        values = {k: (own.get(k) or shared[k]).check(v, where) for k, v in given.items()}
        out[str(name)] = MetricSpec(**{k: values.pop(k) for k in list(values) if k in own}, overrides=values)
    return out


class Threshold(Number):
    """pass_threshold: a refusal says which way every case would fall (NaN fails every comparison)."""

    def refusal(self, name: str, value: Any) -> str:
        side = "pass" if isinstance(value, (int, float)) and not isinstance(value, bool) and value < 0 else "fail"
        return (f"{super().refusal(name, value)}: every case would {side} it on every release, and the comparison "
                "would judge nothing")


@dataclass(frozen=True)
class Policy:
    """Every setting of one run; each field a row of the table (:func:`key`). docs/policy.md explains each key."""

    baseline: str | None = key(None, Text(expected='text (quote it: baseline = "2024")', json="string or null"),
                               "the live release every candidate is compared with", flag=True, shown="none: required")
    # The live release run again on the same cases (issue 21 item 3): churn is measured from it, the critical
    # test uses it, and it is never a candidate.
    baseline_rerun: str | None = key(None, Text(expected='text (quote it: baseline_rerun = "r1-again")',
                                                json="string or null"),
                                     "the live release run again: churn measured, used by the critical test",
                                     flag=True, shown="none")
    candidates: tuple[str, ...] = key((), Names(expected="a list of release names"), "the releases to judge",
                                      flag="--candidate", shown="every other release")
    # Above 0.5 the "1 - 2 alpha" interval of the non-inferiority test has a negative level; below one in a
    # million it is not a level a release is judged at, and below about 1e-17 that interval's level is 1.
    alpha: float = key(0.05, Number(low=1e-6, high=0.5, open_high=True), "significance level", flag=True,
                       hint="0.05 is usual, 0.01 strict")
    margin: float = key(0.05, Number(low=0, high=1, open_high=True), "non-inferiority margin; `0` turns the rule "
                        "off", flag=True, per_metric="size", looks=True)
    correction: Correction = key("discrete-holm", Choice(options=CORRECTIONS), "multiplicity correction", flag=True,
                                 looks=True)
    mcnemar: McNemarVariant = key("exact", Choice(options=MCNEMAR_VARIANTS), "exact or mid-p McNemar for the gate",
                                  flag=True, looks=True)
    critical: tuple[str, ...] = key((), Names(expected="a list of category names"), "categories tested on their "
                                    "own; they can block alone", flag=True, shown="`[]`", looks=True)
    # A critical category blocks by its own one-sided exact test ("test"), or on any broken case ("any", zero
    # tolerance); docs/operating-characteristics.md measured both (issue 21).
    critical_rule: CriticalRule = key("test", Choice(options=CRITICAL_RULES), '`"test"`, or `"any"`: any broken '
                                      "case blocks", flag=True, section="critical_rule-and-critical_weight",
                                      looks=True)
    # Which exact test a critical category's "test" is on one run's pass/fail outcomes: "conditional" (the exact
    # McNemar test on the changed cases: with few of them it cannot reach alpha and costs the budget nothing) or
    # "unconditional" (Suissa-Shuster: smaller p-values on few changed cases, but it spends its share of the
    # budget at every step). docs/policy.md has what each catches.
    critical_test: CriticalTestKind = key(
        "conditional", Choice(options=CRITICAL_TESTS, why="a critical category's own exact test: unconditional, "
                              "or conditional on the changed cases"),
        "a critical category's own test on one run's pass/fail outcomes: `\"conditional\"` (exact McNemar on the "
        "changed cases) or `\"unconditional\"` (Suissa-Shuster)", section="critical_rule-and-critical_weight",
        looks=True)
    # Each critical category's own test is a member of the one error budget (analyze/budget.py) with this
    # weight added to its category's, beside 1 for the overall test, 1 shared by the categories and 1 for the
    # error-rate test; no member is read above alpha.
    critical_weight: float = key(10.0, Number(low=0, open_low=True, high=1000), "weight added to each critical "
                                 "category's own test in the one error budget", flag=True,
                                 section="critical_rule-and-critical_weight", looks=True)
    # A critical category measured beyond the margin whose own test reaches this p without blocking (the budget
    # reads it above alpha) is NOT PROVEN rather than SHIP: a loss too likely to call the category clear, too
    # unlikely to block on.
    # It spends nothing of the budget: DON'T SHIP on a harmless release stays at most alpha.
    critical_doubt: float = key(0.10, Number(low=0, high=0.5), "a critical category measured beyond the margin "
                                "whose own one-sided p is at or below this, short of blocking, is NOT PROVEN; "
                                "`0` turns it off", flag=True)
    # NOT PROVEN (the data cannot show the candidate no worse, nothing shows it worse): "block" makes `check`
    # exit 3, "warn" lets it pass with exit 0 while the note still says NOT PROVEN (issue 34 item 1).
    not_proven: NotProvenMode = key("block", Choice(options=NOT_PROVEN_MODES, why="what a NOT PROVEN verdict does "
                                                    "to the gate: exit 3, or exit 0 with the note saying so"),
                                    "what a NOT PROVEN verdict does to `check`: `\"block\"` (exit 3) or `\"warn\"` "
                                    "(exit 0)", flag=True)
    guardrails: Mapping[str, float] = key(dict(DEFAULT_GUARDRAILS), Table(
        expected="a table of limits ([guardrails] max_cost_ratio = 1.0)",
        read=lambda raw: {**DEFAULT_GUARDRAILS, **read_guardrails(raw)}),
        "error-rate, latency, token and cost limits", shown="`{max_error_rate_increase = 0.02}`")
    prices: Mapping[str, Mapping[str, float]] = key({}, Table(expected="a table per release", read=read_prices),
                                                   "prices per million tokens, per release", shown="`{}`")
    columns: Mapping[str, str] = key({}, Table(expected="a table of column names", read=read_columns),
                                     "your column names", shown="`{}`", flag_doc="`--case-col`, `--release-col`, ...",
                                     merged=True)
    pass_threshold: float | None = key(None, Threshold(expected="a finite number", json="float or null",
                                                       nullable=True), "turn scores into pass/fail", flag=True,
                                       per_metric="level", shown="none", looks=True)
    score_range: tuple[float, float] | None = key(None, Pair(), "refuse scores outside `[low, high]`", shown="none")
    # A score case counts as improved or worsened only when it moves by more than this (issue 29 item 4); None:
    # 1% of the score range (score_range, else the one observed), analyze/min_change.py. The tests read every move.
    min_change: float | None = key(None, Number(expected="a finite number >= 0 (in score units; 0 counts every "
                                                "move)", json="float or null", low=0, nullable=True),
                                   "how far a score must move for its case to count as improved or worsened",
                                   flag=True, per_metric="size", shown="none (1% of the score range)")
    missing: MissingMode = key("refuse", Choice(options=MISSING_MODES), "rows without an outcome", flag=True)
    allow_missing: bool = key(False, Switch(), "compare shared cases when case sets differ", flag=True)
    # A case whose content differs between the releases is another question under the same id: refused, or with
    # this left out of the comparison and counted (validate/pairing.py).
    allow_changed: bool = key(False, Switch(), "leave out (and count) the cases whose content differs between the "
                              "releases, instead of refusing", flag=True)
    # A case with fewer runs than other cases have: refused, or with this each missing run of a candidate counted
    # as a failure (never dropped: the runs a crashed or filtered job loses are not a random sample of them). The
    # baseline's are refused even so: as failures they would count for the candidate.
    allow_incomplete_runs: bool = key(False, Switch(), "count each run a candidate's case lacks (other cases have "
                                      "it) as a failure, instead of refusing (a baseline's are refused)", flag=True)
    # The intervals' bootstrap reads (1 - confidence) / 2 of its resamples beyond each bound: past 99.9% that is
    # a handful of the 10,000, and the interval would be the extreme resamples, not the level it names.
    confidence: float = key(0.95, Number(low=0.5, high=0.999), "level of the intervals in the tables",
                            hint="the level of every interval: 0.95 is usual, 0.99 strict")
    # At or below even odds a "minimum detectable difference" is one the test would usually miss.
    power: float = key(0.8, Number(low=0.5, open_low=True, high=1, open_high=True), "power of the minimum "
                       "detectable difference", hint="the chance of catching the minimum detectable difference: "
                       "0.8 is usual, 0.9 strict")
    # numpy's generators take a seed of any size, but past 64 bits it is no more random, and a seed of 4,300
    # digits or more cannot even be written into the note's JSON.
    seed: int = key(20240501, Number(expected="a whole number from 0 to 2**64 - 1 (numpy's generators take no "
                                     "negative seed)", json="int", low=0, high=2**64 - 1, whole=True),
                    "seed of every resampling", flag=True, section="seed-and-n_resamples")
    # Every resampling costs time in proportion: 1,000,000 resamples of a 360-case clustered suite take 9 s here.
    n_resamples: int = key(10_000, Number(json="int", low=100, high=1_000_000, whole=True),
                           "bootstrap resamples and random sign flips", flag="--resamples",
                           section="seed-and-n_resamples")
    title: str | None = key(None, Text(json="string or null", plain=True), "the report's title", flag=True,
                            shown="the task or description the data names, else the first file's name")
    metrics: Mapping[str, MetricSpec] = key({}, Table(expected="a table per metric", read=read_metrics),
                                            "per-metric kind, direction, critical, and the keys marked per metric",
                                            shown="`{}`", flag_doc="`--metric NAME` (repeatable) names the metrics",
                                            absent="when the policy has no such table")
    # Human labels of the judged outcomes (issue 35): a file of release, case_id, label[, run]; the judge is
    # measured against them and the comparison corrected (analyze/judge.py). In a policy file, relative to it.
    gold: str | None = key(None, Text(expected='a file path (text: gold = "gold.csv")', blank_ok=False),
                           "human labels of the judged outcomes: the judge measured, the comparison corrected",
                           flag=True, shown="none", absent="without gold labels")
    # The judge gate (decide/rules/judge.py, issue 35 item 4): with gold labels, the judge must pass on at least
    # this share of a real difference on each release (the lower bound of Youden's J), and its TPR and FPR may
    # not differ between the releases by more than the tolerance (significantly, at the note's confidence).
    # docs/operating-characteristics.md measured both defaults.
    judge_min_youden: float = key(0.3, Number(low=-1, high=1, open_high=True), "with gold labels: the lowest lower "
                                  "bound of the judge's J on each release", hint="the lowest lower bound of the "
                                  "judge's Youden J the gate accepts: 0.3 by default", absent="without gold labels",
                                  section="judge_min_youden-and-judge_rate_tolerance")
    judge_rate_tolerance: float = key(0.1, Number(low=0, high=1, open_high=True), "with gold labels: how far the "
                                      "judge's TPR or FPR may differ between the releases", hint="how far the "
                                      "judge's TPR or FPR may differ between the releases: 0.1 by default",
                                      absent="without gold labels", section="judge_min_youden-and-judge_rate_tolerance")
    # With gold labels, the overall test the rules read (issue 35 item 3): "ppi", the PPI++ corrected paired
    # difference (analyze/judge_gated.py), in the error budget in the judge's overall test's place; "none", the
    # judge's own comparison, the corrected one shown beside it. The categories are the judge's either way.
    judge_correction: JudgeCorrection = key(
        "ppi", Choice(options=JUDGE_CORRECTIONS, why="with gold labels, the overall figure the rules read: the "
                      "PPI++ corrected difference, or the judge's own"),
        "with gold labels: the overall figure the rules read, the corrected difference (`\"ppi\"`) or the judge's "
        "own (`\"none\"`)", absent="without gold labels", looks=True)

    def as_dict(self) -> dict[str, Any]:
        """Plain, JSON-ready view for provenance."""
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        out.update(candidates=list(self.candidates), critical=list(self.critical), guardrails=dict(self.guardrails),
                   prices={k: dict(v) for k, v in self.prices.items()}, columns=dict(self.columns),
                   score_range=list(self.score_range) if self.score_range else None,
                   metrics={k: v.as_dict() for k, v in self.metrics.items()})
        if not out["metrics"]:
            del out["metrics"]  # a single-metric run's provenance stays as it was
        if out["gold"] is None:
            del out["gold"]  # likewise a run without gold labels, whose judge gate reads nothing
            del out["judge_min_youden"], out["judge_rate_tolerance"], out["judge_correction"]
        return out


KEYS: tuple[Key, ...] = rows(Policy)
METRIC_OWN_KEYS: tuple[Key, ...] = rows(MetricSpec)
