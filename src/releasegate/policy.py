"""The policy: the analysis parameters and the rules of the verdict, from a TOML file and flags (flags win)."""

from __future__ import annotations

import dataclasses
import math
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from releasegate.errors import PolicyError
from releasegate.kinds import (
    CRITICAL_RULES,
    CRITICAL_TESTS,
    DIRECTIONS,
    JUDGE_CORRECTIONS,
    MCNEMAR_VARIANTS,
    METRIC_KINDS,
    MISSING_MODES,
    NOT_PROVEN_MODES,
    CriticalRule,
    CriticalTestKind,
    JudgeCorrection,
    McNemarVariant,
    MissingMode,
    NotProvenMode,
)
from releasegate.stats.multiplicity import CORRECTIONS as PVALUE_CORRECTIONS

# "discrete-holm" adjusts the family with each exact McNemar test's attainable p-values (issue 21 item 2);
# it needs the discordant counts, so it lives beside the p-value corrections, in analyze/family.py.
CORRECTIONS = ("discrete-holm", *PVALUE_CORRECTIONS)

CANONICAL_COLUMNS = (
    "release", "case_id", "passed", "score", "category", "cluster", "run",
    "latency_ms", "input_tokens", "output_tokens", "cost",
)
# On by default (issue 34 item 4): a significant rise of the candidate's error rate of more than 2 points blocks
# (docs/policy.md, guardrails, has the measurements the value was chosen from). A [guardrails] table adds to it.
DEFAULT_GUARDRAILS = {"max_error_rate_increase": 0.02}
# Keys a policy may no longer hold, with what replaced them: refused with this line rather than ignored.
RETIRED_KEYS = {
    "critical_alpha": ("critical_alpha is retired: the critical categories' tests now share the one error budget "
                       "at alpha with the other regression tests; set critical_weight (default 10) to make them "
                       "more or less sensitive (docs/policy.md, critical_weight)"),
}
# Column roles that [columns] may rename beyond the canonical ones: "error" stays case metadata too (its text is
# each release's own, shown beside the cases), while validation reads it as the errored state.
EXTRA_COLUMN_ROLES = ("error",)
GUARDRAILS = ("max_latency_p95_ratio", "max_latency_mean_ratio", "max_cost_ratio", "max_tokens_ratio",
              "max_error_rate_increase")
# [prices."RELEASE"]: what a million input and a million output tokens cost that release (dollars).
PRICE_KEYS = ("input_per_million", "output_per_million")
MAX_RESAMPLES = 1_000_000


@dataclass(frozen=True)
class Policy:
    """Every setting of one run. Defaults are SPEC section 5's; docs/policy.md explains each key."""

    baseline: str | None = None
    # The live release run again on the same cases (issue 21 item 3): churn is measured from it, the critical
    # test uses it, and it is never a candidate.
    baseline_rerun: str | None = None
    candidates: tuple[str, ...] = ()
    alpha: float = 0.05
    margin: float = 0.05
    correction: str = "discrete-holm"
    mcnemar: McNemarVariant = "exact"
    critical: tuple[str, ...] = ()
    # A critical category blocks by its own one-sided exact test ("test"), or on any broken case ("any", zero
    # tolerance); docs/operating-characteristics.md measured both (issue 21).
    critical_rule: CriticalRule = "test"
    # Which exact test a critical category's "test" is on one run's pass/fail outcomes: "unconditional" (Suissa-Shuster: it
    # reaches smaller p-values on few changed cases, at the same level) or "conditional" (the exact McNemar test on
    # the changed cases alone). docs/policy.md has what each catches (issue 34).
    critical_test: CriticalTestKind = "unconditional"
    # Each critical category's own test is a member of the one error budget (analyze/budget.py) with this
    # weight, beside 1 for the overall test, each category and the error-rate test (issue 34 item 5).
    critical_weight: float = 10.0
    # NOT PROVEN (the data cannot show the candidate no worse, nothing shows it worse): "block" makes `check`
    # exit 3, "warn" lets it pass with exit 0 while the note still says NOT PROVEN (issue 34 item 1).
    not_proven: NotProvenMode = "block"
    guardrails: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_GUARDRAILS))
    prices: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    columns: Mapping[str, str] = field(default_factory=dict)  # canonical name -> name in the files
    pass_threshold: float | None = None
    score_range: tuple[float, float] | None = None
    # A score case counts as improved or worsened only when it moves by more than this (issue 29 item 4); None:
    # 1% of the score range (score_range, else the one observed), analyze/min_change.py. The tests read every move.
    min_change: float | None = None
    missing: MissingMode = "refuse"
    allow_missing: bool = False
    confidence: float = 0.95
    power: float = 0.8
    seed: int = 20240501
    n_resamples: int = 10_000
    title: str | None = None
    metrics: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # [metrics.NAME]: per-metric rules
    # Human labels of the judged outcomes (issue 35): a file of release, case_id, label[, run]; the judge is
    # measured against them and the comparison corrected (analyze/judge.py). In a policy file, relative to it.
    gold: str | None = None
    # The judge gate (decide/rules/judge.py, issue 35 item 4): with gold labels, the judge must pass on at least
    # this share of a real difference on each release (the lower bound of Youden's J), and its TPR and FPR may
    # not differ between the releases by more than the tolerance (significantly, at the note's confidence).
    # docs/operating-characteristics.md measured both defaults.
    judge_min_youden: float = 0.3
    judge_rate_tolerance: float = 0.1
    # With gold labels, the overall test the rules read (issue 35 item 3): "ppi", the PPI++ corrected paired
    # difference (analyze/judge_gated.py), in the error budget in the judge's overall test's place; "none", the
    # judge's own comparison, the corrected one shown beside it. The categories are the judge's either way.
    judge_correction: JudgeCorrection = "ppi"

    def as_dict(self) -> dict[str, Any]:
        """Plain, JSON-ready view for provenance."""
        out = dataclasses.asdict(self)
        out["candidates"] = list(self.candidates)
        out["critical"] = list(self.critical)
        out["guardrails"] = dict(self.guardrails)
        out["prices"] = {k: dict(v) for k, v in self.prices.items()}
        out["columns"] = dict(self.columns)
        out["score_range"] = list(self.score_range) if self.score_range else None
        out["metrics"] = {k: dict(v) for k, v in self.metrics.items()}
        if not out["metrics"]:
            del out["metrics"]  # a single-metric run's provenance stays as it was
        if out["gold"] is None:
            del out["gold"]  # likewise a run without gold labels, whose judge gate reads nothing
            del out["judge_min_youden"], out["judge_rate_tolerance"], out["judge_correction"]
        return out


POLICY_KEYS = frozenset(f.name for f in dataclasses.fields(Policy))


def load_policy_file(path: Path) -> dict[str, Any]:
    """Read a releasegate.toml into a plain dict of policy keys (not yet validated)."""
    try:
        # utf-8-sig: a byte-order mark (Windows editors write one) is read as nothing, as in a results CSV.
        text = Path(path).read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise PolicyError(f"policy file not found: {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise PolicyError(f"cannot read policy file {path}: {exc}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PolicyError(f"policy file {path} is not valid TOML: {exc}") from None
    except RecursionError:
        raise PolicyError(f"policy file {path} is nested too deeply to be a policy") from None
    retired = sorted(set(data) & set(RETIRED_KEYS))
    if retired:
        raise PolicyError(f"policy file {path}: {RETIRED_KEYS[retired[0]]}")
    unknown = sorted(set(data) - POLICY_KEYS)
    if unknown:
        import difflib

        close = difflib.get_close_matches(unknown[0], sorted(POLICY_KEYS), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise PolicyError(f"policy file {path}: unknown key(s) {', '.join(unknown)}{hint}; "
                         f"known keys: {', '.join(sorted(POLICY_KEYS))}")
    if isinstance(data.get("gold"), str):  # a path in the policy is read from the policy's folder
        data["gold"] = str(Path(path).parent / data["gold"])
    return data


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _is_table(x: Any, test) -> bool:
    return isinstance(x, Mapping) and all(isinstance(k, str) and test(v) for k, v in x.items())


# What each key must hold, as TOML writes it; checked before use so a wrong type is a message, not a crash.
_TYPES: dict[str, tuple[str, Any]] = {
    "baseline": ("text (quote it: baseline = \"2024\")", lambda x: isinstance(x, str)),
    "baseline_rerun": ("text (quote it: baseline_rerun = \"r1-again\")", lambda x: isinstance(x, str)),
    "title": ("text", lambda x: isinstance(x, str)),
    "gold": ("a file path (text: gold = \"gold.csv\")", lambda x: isinstance(x, str) and x.strip() != ""),
    "correction": ("text", lambda x: isinstance(x, str)),
    "mcnemar": ("text", lambda x: isinstance(x, str)),
    "critical_rule": ("text (\"test\" or \"any\")", lambda x: isinstance(x, str)),
    "critical_weight": ("a number", _is_number),
    "critical_test": ("text (\"unconditional\" or \"conditional\")", lambda x: isinstance(x, str)),
    "not_proven": ("text (\"block\" or \"warn\")", lambda x: isinstance(x, str)),
    "judge_min_youden": ("a number from -1 to 1 (the lowest J the judge may show)", _is_number),
    "judge_rate_tolerance": ("a number from 0 to 1 (points of TPR or FPR, as a share)", _is_number),
    "judge_correction": ("text (\"ppi\" or \"none\")", lambda x: isinstance(x, str)),
    "missing": ("text", lambda x: isinstance(x, str)),
    "candidates": ("a list of release names", lambda x: isinstance(x, (str, list, tuple))),
    "critical": ("a list of category names", lambda x: isinstance(x, (str, list, tuple))),
    "pass_threshold": ("a finite number", lambda x: _is_number(x) and math.isfinite(x)),
    "min_change": ("a finite number >= 0", lambda x: _is_number(x) and math.isfinite(x) and x >= 0),
    "seed": ("an integer", lambda x: isinstance(x, int) and not isinstance(x, bool)),
    "allow_missing": ("true or false", lambda x: isinstance(x, bool)),
    "score_range": ("two numbers [low, high]",
                    lambda x: isinstance(x, (list, tuple)) and len(x) == 2 and all(map(_is_number, x))),
    "columns": ("a table of column names ([columns] case_id = \"id\")",
                lambda x: _is_table(x, lambda v: isinstance(v, str))),
    "guardrails": ("a table of limits ([guardrails] max_cost_ratio = 1.0)", lambda x: _is_table(x, lambda v: True)),
    "metrics": ("a table per metric ([metrics.safe] kind = \"pass_fail\")",
                lambda x: _is_table(x, lambda v: isinstance(v, Mapping))),
    # prices: checked key by key by _prices, whose messages name the release and the key.
}


def _check_types(values: Mapping[str, Any]) -> None:
    for key, (expected, test) in _TYPES.items():
        value = values.get(key)
        if value is not None and not test(value):
            raise PolicyError(f"policy: {key} must be {expected}, got {value!r}")


def make_policy(file_values: Mapping[str, Any] | None = None, **overrides: Any) -> Policy:
    """Combine the policy file's values with flag overrides (None means "not given") and check them."""
    retired = sorted((set(file_values or {}) | {k for k, v in overrides.items() if v is not None}) & set(RETIRED_KEYS))
    if retired:
        raise PolicyError(RETIRED_KEYS[retired[0]])
    _check_types(file_values or {})
    values: dict[str, Any] = dict(file_values or {})
    if "guardrails" in values:
        values["guardrails"] = {**DEFAULT_GUARDRAILS, **dict(values["guardrails"])}
    for key, value in overrides.items():
        if value is None or value == () or value == {}:
            continue
        if key == "columns":
            values["columns"] = {**dict(values.get("columns", {})), **value}
        else:
            values[key] = value
    for key in ("candidates", "critical"):
        if key in values:
            raw = values[key]
            values[key] = (raw,) if isinstance(raw, str) else tuple(str(x) for x in raw)
    if "score_range" in values and values["score_range"] is not None:
        rng = values["score_range"]
        values["score_range"] = (float(rng[0]), float(rng[1]))
    if "prices" in values:
        values["prices"] = _prices(values["prices"])
    if isinstance(values.get("gold"), os.PathLike):  # a Path from the API is kept as text, as TOML has it
        values["gold"] = os.fspath(values["gold"])
    policy = Policy(**values)
    _check(policy)
    return policy


def _prices(raw: Any) -> dict[str, dict[str, float]]:
    """Check ``[prices."RELEASE"]`` tables: both PRICE_KEYS, each a finite number >= 0 (per million tokens)."""
    example = '[prices."r1-live"] input_per_million = 1.0, output_per_million = 4.0'
    if not isinstance(raw, Mapping):
        raise PolicyError(f"prices must be a table per release, e.g. {example}")
    out = {}
    for release, price in raw.items():
        if not isinstance(price, Mapping):
            raise PolicyError(f"prices for {release!r} must be a table, e.g. {example}")
        unknown = sorted(set(price) - set(PRICE_KEYS))
        if unknown:
            raise PolicyError(f"prices for {release!r}: unknown key(s) {', '.join(unknown)}; "
                             f"known: {', '.join(PRICE_KEYS)}")
        missing = [k for k in PRICE_KEYS if k not in price]
        if missing:
            raise PolicyError(f"prices for {release!r}: missing {', '.join(missing)} (use 0 for a free side)")
        for key in PRICE_KEYS:
            value = price[key]
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                    or value < 0:
                raise PolicyError(f"prices for {release!r}: {key} must be a number >= 0, got {value!r}")
        out[str(release)] = {k: float(price[k]) for k in PRICE_KEYS}
    return out


def _check(p: Policy) -> None:
    def unit(name: str, value: float, high: float = 1.0) -> None:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value) \
                or not (0 < value < high):
            raise PolicyError(f"{name} must be a number between 0 and {high:g} (both excluded), got {value!r}")

    # Above 0.5 the "1 - 2 alpha" interval of the non-inferiority test has a negative level.
    unit("alpha", p.alpha, 0.5)
    if isinstance(p.critical_weight, bool) or not isinstance(p.critical_weight, (int, float)) \
            or not math.isfinite(p.critical_weight) or not 0 < p.critical_weight <= 1000:
        raise PolicyError(f"critical_weight must be a number above 0 and at most 1000, got {p.critical_weight!r}")
    if p.not_proven not in NOT_PROVEN_MODES:
        raise PolicyError(f"unknown not_proven {p.not_proven!r}; expected one of {', '.join(NOT_PROVEN_MODES)} (what "
                         "a NOT PROVEN verdict does to the gate: exit 3, or exit 0 with the note saying so)")
    if not _is_number(p.judge_min_youden) or not -1 <= p.judge_min_youden < 1:
        raise PolicyError(f"judge_min_youden must be a number from -1 up to 1 (excluded), got {p.judge_min_youden!r} "
                         "(the lowest lower bound of the judge's Youden J the gate accepts: 0.3 by default)")
    if not _is_number(p.judge_rate_tolerance) or not 0 <= p.judge_rate_tolerance < 1:
        raise PolicyError(f"judge_rate_tolerance must be a number from 0 up to 1 (excluded), got "
                         f"{p.judge_rate_tolerance!r} (how far the judge's TPR or FPR may differ between the "
                         "releases: 0.1 by default)")
    if p.judge_correction not in JUDGE_CORRECTIONS:
        raise PolicyError(f"unknown judge_correction {p.judge_correction!r}; expected one of "
                         f"{', '.join(JUDGE_CORRECTIONS)} (with gold labels, the overall figure the rules read: the "
                         "PPI++ corrected difference, or the judge's own)")
    if p.critical_rule not in CRITICAL_RULES:
        raise PolicyError(f"unknown critical_rule {p.critical_rule!r}; expected one of {', '.join(CRITICAL_RULES)}")
    if p.critical_test not in CRITICAL_TESTS:
        raise PolicyError(f"unknown critical_test {p.critical_test!r}; expected one of {', '.join(CRITICAL_TESTS)} "
                         "(a critical category's own exact test: unconditional, or conditional on the changed cases)")
    # The intervals' bootstrap reads (1 - confidence) / 2 of its resamples beyond each bound: past 99.9% that is
    # a handful of the 10,000, and the interval would be the extreme resamples, not the level it names.
    if not _is_number(p.confidence) or not 0.5 <= p.confidence <= 0.999:
        raise PolicyError(f"confidence must be a number from 0.5 to 0.999, got {p.confidence!r} (the level of "
                         "every interval: 0.95 is usual, 0.99 strict)")
    # At or below even odds a "minimum detectable difference" is one the test would usually miss.
    if not _is_number(p.power) or not 0.5 < p.power < 1:
        raise PolicyError(f"power must be a number above 0.5 and below 1, got {p.power!r} (the chance of catching "
                         "the minimum detectable difference: 0.8 is usual, 0.9 strict)")
    if p.pass_threshold is not None and (not _is_number(p.pass_threshold) or not math.isfinite(p.pass_threshold)):
        side = "pass" if _is_number(p.pass_threshold) and p.pass_threshold < 0 else "fail"
        raise PolicyError(f"pass_threshold must be a finite number, got {p.pass_threshold!r}: every case would "
                         f"{side} it on every release, and the comparison would judge nothing")
    if p.min_change is not None and (not _is_number(p.min_change) or not 0 <= p.min_change < math.inf):
        raise PolicyError(f"min_change must be a finite number >= 0 (in score units; 0 counts every move), "
                         f"got {p.min_change!r}")
    if p.baseline_rerun is not None and p.baseline_rerun in (p.baseline, *p.candidates):
        role = "baseline" if p.baseline_rerun == p.baseline else "a candidate"
        raise PolicyError(f"baseline_rerun {p.baseline_rerun!r} is also {role}: the rerun is the live release run "
                         "again, a release of its own in the data")
    if not isinstance(p.margin, (int, float)) or not (0 <= p.margin < 1):
        raise PolicyError(f"margin must be a number in [0, 1), got {p.margin!r}")
    if p.correction not in CORRECTIONS:
        raise PolicyError(f"unknown correction {p.correction!r}; expected one of {', '.join(CORRECTIONS)}")
    if p.mcnemar not in MCNEMAR_VARIANTS:
        raise PolicyError(f"unknown mcnemar variant {p.mcnemar!r}; expected exact or midp")
    if p.missing not in MISSING_MODES:
        raise PolicyError(f"unknown missing mode {p.missing!r}; expected one of {', '.join(MISSING_MODES)}")
    bad = sorted(set(p.guardrails) - set(GUARDRAILS))
    if bad:
        raise PolicyError(f"unknown guardrail(s) {', '.join(bad)}; known: {', '.join(GUARDRAILS)}")
    for name, limit in p.guardrails.items():
        # NaN compares false with every bound: a guardrail of nan would never fire, nor one of inf.
        if not _is_number(limit) or not 0 < limit < math.inf:
            raise PolicyError(f"guardrail {name} must be a positive finite number, got {limit!r}")
    roles = (*CANONICAL_COLUMNS, *EXTRA_COLUMN_ROLES)
    bad = sorted(set(p.columns) - set(roles))
    if bad:
        raise PolicyError(f"unknown column role(s) in [columns]: {', '.join(bad)}; known: {', '.join(roles)}")
    # Every resampling costs time in proportion: 1,000,000 resamples of a 360-case clustered suite take 9 s here.
    if not isinstance(p.n_resamples, int) or isinstance(p.n_resamples, bool) or not 100 <= p.n_resamples <= MAX_RESAMPLES:
        raise PolicyError(f"n_resamples must be an integer from 100 to {MAX_RESAMPLES:,}, got {p.n_resamples!r}")
    if not isinstance(p.seed, int) or isinstance(p.seed, bool) or p.seed < 0:
        raise PolicyError(f"seed must be a whole number >= 0 (numpy's generators take no negative seed), got {p.seed!r}")
    for name, spec in p.metrics.items():
        _check_metric(name, spec)
    if p.score_range and not all(map(math.isfinite, p.score_range)):
        raise PolicyError(f"score_range must be two finite numbers, got {list(p.score_range)}")
    if p.score_range and p.score_range[0] >= p.score_range[1]:
        raise PolicyError(f"score_range low must be below high, got {list(p.score_range)}")


# [metrics.NAME] keys and what each must hold.
METRIC_RULES: dict[str, tuple[str, Any]] = {
    "kind": ('"auto", "pass_fail" or "score"', lambda x: x in METRIC_KINDS),
    "direction": ('"higher" or "lower" (which is better)', lambda x: x in DIRECTIONS),
    "margin": ("a number in [0, 1)", lambda x: _is_number(x) and 0 <= x < 1),
    "pass_threshold": ("a finite number", lambda x: _is_number(x) and math.isfinite(x)),
    # A critical metric blocks by the critical categories' own test, overall and in every category
    # (decide/rules/critical.py); only TOML's true or false is read, so "yes" cannot pass as a flag.
    "critical": ("true or false", lambda x: isinstance(x, bool)),
    "min_change": ("a finite number >= 0", lambda x: _is_number(x) and math.isfinite(x) and x >= 0),
}


def _check_metric(name: str, spec: Mapping[str, Any]) -> None:
    unknown = sorted(set(spec) - set(METRIC_RULES))
    if unknown:
        raise PolicyError(f"policy [metrics.{name}]: unknown key(s) {', '.join(unknown)}; known: "
                         f"{', '.join(METRIC_RULES)}")
    for key, (expected, test) in METRIC_RULES.items():
        if key in spec and not test(spec[key]):
            raise PolicyError(f"policy [metrics.{name}]: {key} must be {expected}, got {spec[key]!r}")
