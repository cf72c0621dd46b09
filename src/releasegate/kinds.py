"""The kinds and modes every stage names, as enums and Literals rather than free strings: what an outcome is
(validate decides it; analyze, decide and render read it) and the policy's modes (policy/keys.py checks a value is
one of them; the stages that read them compare against these names). A StrEnum member is its value as text,
so the JSON and the templates write "binary" as before."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal, get_args


class OutcomeKind(StrEnum):
    """Pass/fail outcomes (0/1; the McNemar path with one run per case) or scores (continuous)."""

    BINARY = "binary"
    CONTINUOUS = "continuous"


# How a critical category blocks: by its own one-sided exact test, or on any broken case (zero tolerance).
CriticalRule = Literal["test", "any"]
# A critical category's own test on one run's pass/fail outcomes: the exact unconditional test (Suissa-Shuster), or the exact
# McNemar test conditional on the changed cases (the test before issue 34's last figure).
CriticalTestKind = Literal["unconditional", "conditional"]
# What a NOT PROVEN verdict does to the gate: blocks it (check exits 3) or is allowed (exit 0, the note says so).
NotProvenMode = Literal["block", "warn"]
# With gold labels, the overall figure the rules read: the PPI++ corrected difference, or the judge's own (issue 35).
JudgeCorrection = Literal["ppi", "none"]
# Rows without an outcome: refused, counted as failures, or dropped.
MissingMode = Literal["refuse", "fail", "drop"]
# The McNemar p the gate reads.
McNemarVariant = Literal["exact", "midp"]
# The multiplicity correction of the error budget: "discrete-holm" (Holm on each exact test's attainable
# p-values, analyze/family.py) or one of the p-value corrections of stats/multiplicity.py (a test checks they agree).
Correction = Literal["discrete-holm", "holm", "hochberg", "bh", "bonferroni", "none"]
# The unit of a latency column.
LatencyUnit = Literal["ms", "s"]
# A metric's outcome ([metrics.NAME] kind): detected, pass/fail, or a score; and which way is better.
MetricKind = Literal["auto", "pass_fail", "score"]
Direction = Literal["higher", "lower"]
# Why a release of the data is not judged: the policy names other candidates, or it is the baseline run again.
NotJudgedReason = Literal["not_a_candidate", "baseline_rerun"]
# Why a case of one comparison is set apart (validate/pairing.py): on one side only, its content changed between
# the releases, it errored, or it lacks runs other cases have (then counted as failures).
ExclusionReason = Literal["only_baseline", "only_candidate", "content_changed", "errored", "runs_incomplete"]
# What the reading of the inputs left out of every comparison, or counted otherwise than given: tables in a
# harness's folder not read, a run store's cases dropped for their holes (--drop-holes), rows without an outcome
# dropped (--missing drop) or counted as failures (--missing fail), errored rows counted as failures (the same).
InputExclusionKind = Literal["tables_not_read", "holes_dropped", "rows_dropped", "rows_failed", "errors_failed"]
# How the cases of a comparison were matched: by id and content fingerprint, by id alone (no content given),
# or by id with the content a case table (--cases) gave both releases alike.
PairingBasis = Literal["content", "id", "case_table"]

CRITICAL_RULES: tuple[str, ...] = get_args(CriticalRule)
CRITICAL_TESTS: tuple[str, ...] = get_args(CriticalTestKind)
MISSING_MODES: tuple[str, ...] = get_args(MissingMode)
NOT_PROVEN_MODES: tuple[str, ...] = get_args(NotProvenMode)
JUDGE_CORRECTIONS: tuple[str, ...] = get_args(JudgeCorrection)
MCNEMAR_VARIANTS: tuple[str, ...] = get_args(McNemarVariant)
CORRECTIONS: tuple[str, ...] = get_args(Correction)
LATENCY_UNITS: tuple[str, ...] = get_args(LatencyUnit)
METRIC_KINDS: tuple[str, ...] = get_args(MetricKind)
DIRECTIONS: tuple[str, ...] = get_args(Direction)
EXCLUSION_REASONS: tuple[str, ...] = get_args(ExclusionReason)
INPUT_EXCLUSION_KINDS: tuple[str, ...] = get_args(InputExclusionKind)
