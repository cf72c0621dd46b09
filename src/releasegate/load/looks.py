"""An earlier note of the same baseline and candidates given back with ``--previous NOTE`` (issue 46 item 3): every
re-comparison of the same releases is a later look, and it may spend only what the earlier looks left unspent.

The note's JSON carries, per candidate, its error budget's look number and ``left`` (what its regression tests
could not spend at their level, given their changed cases; docs/methods.md, later looks). A note that records no
look (written before looks were recorded, or edited) is refused: read as a look that left nothing it would turn
the next look's regression tests off, so a regression within the margin would ship unchecked; read as a first
look it would spend alpha twice. A note of another baseline, another alpha, or several metrics is refused with
one line: it is not an earlier look at these releases. So is one of another metric or kind of outcome, another
policy of the budget (margin, correction, McNemar variant, critical categories, their rule, test and weight, the
error-rate guardrail, the judge's correction), or whose cases or categories could not be a part of this
comparison's: a later look holds every case of the earlier ones and more. The policy compared is the one the
metric gated was decided under, its ``[metrics.NAME]`` table's keys of the budget included; the latency, token
and cost guardrails are no member of the budget and are not compared. A note whose policy lacks a key of the
budget is refused. The note records no case ids (only the cases it lists), so that its cases are a subset of
this comparison's cannot be checked, only their counts and its categories (:func:`check_suite`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from releasegate.errors import FileError, InputError
from releasegate.files import TABLE_CAP, read_text_capped
from releasegate.model.budget import PreviousLook, PreviousSuite

if TYPE_CHECKING:
    from releasegate.model import Analysis
    from releasegate.policy import Policy
    from releasegate.policy.keys import Key


# What a [metrics.NAME] key of the budget left unset means (metric_tables reads None so): a note without the
# table and one that spells the default out are the same look.
_UNSET = {"critical": False, "direction": "higher"}
_ABSENT = object()  # a key the JSON leaves out by design (Key.absent)


def _budget_values(values: Mapping[str, Any], metric: str | None, where: str) -> dict[str, tuple[str, Any]]:
    """The policy of the budget a policy's JSON view (a note's ``policy``, or ``Policy.as_dict``) decides
    ``metric`` under, by key: each ``looks`` row as the metric's ``[metrics.NAME]`` table sets it, else the
    policy's own value (the one a single-metric run reads, validate/metric_tables.py), with the name it is shown
    by. ``metric`` None: the policy's own values alone. A key the view lacks, or a table not as a note writes
    it, is refused (``where`` names the note): what cannot be read cannot be checked."""
    from releasegate.policy.keys import KEYS, METRIC_OWN_KEYS

    tables = values.get("metrics", {})
    table = tables.get(metric, {}) if metric is not None and isinstance(tables, Mapping) else {}
    if not isinstance(tables, Mapping) or not isinstance(table, Mapping):
        raise _unedited(where, f"[metrics.{metric}] table as a note writes it")
    out: dict[str, tuple[str, Any]] = {}
    for row in KEYS:
        if not row.looks:
            continue
        if row.name not in values and not row.absent:  # judge_correction is left out without gold labels
            raise _unedited(where, row.name)
        if row.name not in values:  # shown as what leaves it out: judge_correction's "none" is a value of its own
            out[row.name] = (row.absent.replace("without ", "no ", 1), _ABSENT)
        else:
            out[row.name] = _read(row, row.name, values[row.name], where)
        if row.per_metric and row.name in table:
            out[row.name] = _read(row, f"[metrics.{metric}] {row.name}", table[row.name], where)
    if metric is not None:
        for row in METRIC_OWN_KEYS:
            if row.looks:
                label, given = f"[metrics.{metric}] {row.name}", table.get(row.name)
                out[f"metrics.{row.name}"] = (label, _UNSET.get(row.name)) if given is None else \
                    _read(row, label, given, where)
    critical = out["critical"][1]
    if isinstance(critical, (list, tuple)):  # the critical categories are a set: in another order, the same plan
        out["critical"] = ("critical", sorted(map(str, critical)))
    return out


def _read(row: Key, label: str, value: Any, where: str) -> tuple[str, Any]:
    """A recorded value of the budget's policy with the name it is shown by; one a report could not have written
    (another type, out of range) is refused: compared, it would be read as another policy or, worse, as none."""
    if row.value.problem(value) is not None:
        raise InputError(f"--previous {where}: that note records {label} {_shown(value)}, not a value a report "
                         "writes, so whether it is an earlier look at this comparison cannot be checked; give the "
                         "note.json a report wrote, unedited")
    return label, value


def _candidate_look(entry: Mapping[str, Any], source: str, alpha: float) -> PreviousLook:
    """The look a note's candidate entry records. A budget that records no look, or records it otherwise than a
    note writes it, is refused: what the earlier looks spent cannot be read, and neither reading of it is safe
    (module docstring)."""
    budget = entry.get("budget", {})
    if isinstance(budget, Mapping) and "look" not in budget and "left" not in budget:
        raise InputError(f"--previous {source}: candidate {entry['name']}'s budget records no look (a note written "
                         "before looks were recorded, or edited), so what it spent cannot be read; write that "
                         "comparison's note.json again with this version and give it back")
    if not isinstance(budget, Mapping):
        raise InputError(f"--previous {source}: candidate {entry['name']}'s budget is {_shown(budget)}, not an "
                         "object; give the note.json a report wrote, unedited")
    look, left = budget.get("look"), budget.get("left")
    if not isinstance(look, int) or isinstance(look, bool) or look < 1:
        raise InputError(f"--previous {source}: candidate {entry['name']}'s budget records look {_shown(look)}, not "
                         "a whole number from 1; give the note.json a report wrote, unedited")
    if (not isinstance(left, (int, float)) or isinstance(left, bool) or not math.isfinite(left)
            or not 0 <= left <= alpha):
        raise InputError(f"--previous {source}: candidate {entry['name']}'s budget records left {_shown(left)}, "
                         f"not a level from 0 to alpha {alpha:g}; give the note.json a report wrote, unedited")
    return PreviousLook(look, float(left), source)


def _shown(value: object) -> str:
    return json.dumps(value)[:40] if not isinstance(value, float) or math.isfinite(value) else str(value)


def read_previous(path: Path, policy: Policy, metrics: tuple[str, ...] = ()) -> dict[str, PreviousLook]:
    """The looks of the note at ``path`` by candidate name, checked against this comparison's baseline, alpha
    and the policy of its budget for the metric gated (``metrics``: those named, none for the outcome column;
    InputError otherwise); each carries what the note records of its suite and metric, which
    :func:`check_suite` checks once this comparison's are known."""
    baseline, alpha = policy.baseline, policy.alpha
    where = str(path)
    if not Path(path).exists():
        raise FileError(f"--previous {where}: no such file")
    # Read as every note is, capped and a regular file only: a FIFO is refused, never waited on.
    text = read_text_capped(path, "--previous note", cap=TABLE_CAP)
    try:
        note = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise FileError(f"--previous {where}: not a release note's JSON ({exc.__class__.__name__})") from None
    if not isinstance(note, dict) or not isinstance(note.get("candidates"), list):
        if isinstance(note, dict) and "several_metrics" in note:
            raise InputError(f"--previous {where}: a several-metric note; compare each metric on its own and give "
                             "back its one-metric note")
        raise InputError(f"--previous {where}: not a release note's JSON (no candidates); give the note.json a "
                         "report wrote")
    previous_baseline = note.get("baseline")
    if baseline is not None and previous_baseline != baseline:
        raise InputError(f"--previous {where}: that note compared against {previous_baseline}, this comparison "
                         f"against {baseline}; a later look is of the same baseline")
    parameters = note.get("parameters") if isinstance(note.get("parameters"), dict) else {}
    previous_alpha = parameters.get("alpha", alpha)
    if (not isinstance(previous_alpha, (int, float)) or isinstance(previous_alpha, bool)
            or not math.isfinite(previous_alpha)):
        raise InputError(f"--previous {where}: that note records alpha {_shown(previous_alpha)}, not a level; give "
                         "the note.json a report wrote, unedited")
    if not math.isclose(float(previous_alpha), alpha):
        raise InputError(f"--previous {where}: that note was decided at alpha {previous_alpha:g}, this comparison "
                         f"at {alpha:g}; the looks of one comparison share one alpha")
    looks = {str(c["name"]): _candidate_look(c, where, alpha) for c in note["candidates"]
             if isinstance(c, dict) and isinstance(c.get("name"), str)}
    _check_policy(note, where, policy, tuple(metrics))
    suite = _suite(note, where)
    return {name: PreviousLook(look.look, look.left, look.source, suite) for name, look in looks.items()}


def _unedited(where: str, what: str) -> InputError:
    return InputError(f"--previous {where}: that note records no {what}, so whether it is an earlier look at this "
                      "suite cannot be checked; give the note.json a report wrote, unedited")


def _check_policy(note: Mapping[str, Any], where: str, policy: Policy, metrics: tuple[str, ...] = ()) -> None:
    """The note's policy of the budget against this comparison's, as each decides its one metric (a
    ``[metrics.NAME]`` table's margin, pass threshold, direction and critical flag included): one line naming
    each key that differs. Of the guardrails only the error-rate one is a member of the budget; the latency,
    token and cost guardrails are not (docs/methods.md, later looks), so a later look may change them."""
    recorded = note.get("policy")
    if not isinstance(recorded, Mapping):
        raise _unedited(where, "policy")
    named = _metric_names(recorded, where)
    # Another metric is refused once this comparison's is analysed (check_suite); until then each side's own
    # values are compared, as without a table.
    metric = named[0] if len(named) == 1 and tuple(named) == metrics else None
    was, now = _budget_values(recorded, metric, where), _budget_values(policy.as_dict(), metric, where)
    differ = [(*was[k], *now[k]) for k in was if not _same(was[k][1], now[k][1])]
    rails = recorded.get("guardrails")
    if not isinstance(rails, Mapping):  # the error-rate guardrail's test is a member of the budget
        raise _unedited(where, "guardrails")
    rate = "max_error_rate_increase"
    if not _same(rails.get(rate), policy.guardrails.get(rate)):
        differ.append((rate, rails.get(rate), rate, policy.guardrails.get(rate)))
    if differ:
        then = ", ".join(k if a is _ABSENT else f"{k} {_value(a)}" for k, a, _, _ in differ)
        today = ", ".join(k if b is _ABSENT else f"{k} {_value(b)}" for _, _, k, b in differ)
        raise InputError(f"--previous {where}: that note was decided with {then}, this comparison with {today}; "
                         "the looks of one comparison share one policy of the budget")


def _metric_names(recorded: Mapping[str, Any], where: str) -> list[str]:
    """The metrics a note's policy names (recorded with it; none: the outcome column)."""
    metric = recorded.get("metric", [])
    metric = [metric] if isinstance(metric, str) else metric
    if not isinstance(metric, list):
        raise _unedited(where, "metric")
    return [str(m) for m in metric]


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool) \
            and not isinstance(b, bool):
        return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-12)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return bool(a == b)


def _value(value: Any) -> str:
    if value is None or value == []:
        return "none"
    if isinstance(value, bool):  # as the policy file spells it
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(map(str, value)) + "]"
    return f"{value:g}" if isinstance(value, float) else str(value)


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _suite(note: Mapping[str, Any], where: str) -> PreviousSuite:
    """What the note records of its suite, refused when a part is missing or not as a note writes it."""
    kind, n_cases, releases = note.get("outcome_kind"), note.get("n_cases"), note.get("releases")
    if not isinstance(kind, str):
        raise _unedited(where, "outcome kind")
    if not _count(n_cases):
        raise _unedited(where, "count of cases")
    if not isinstance(releases, list) or not all(isinstance(r, Mapping) and isinstance(r.get("name"), str)
                                                 and _count(r.get("n_cases")) for r in releases):
        raise _unedited(where, "cases per release")
    categories = []
    for c in note["candidates"]:
        listed = c.get("categories") if isinstance(c, Mapping) else None
        if not isinstance(listed, list) or not all(isinstance(x, Mapping) and isinstance(x.get("category"), str)
                                                   for x in listed):
            raise _unedited(where, f"categories of candidate {c.get('name') if isinstance(c, Mapping) else c}")
        categories.append((str(c.get("name")), tuple(x["category"] for x in listed)))
    return PreviousSuite(str(note.get("baseline")), kind, n_cases,
                         tuple((r["name"], r["n_cases"]) for r in releases), tuple(categories),
                         tuple(_metric_names(note["policy"], where)))


def check_suite(looks: Mapping[str, PreviousLook], analysis: Analysis, metrics: tuple[str, ...] = ()) -> None:
    """The suite an earlier note records against this comparison's, once analysed: the same baseline and kind of
    outcome and metrics (``metrics``: those named, as the note records them), no more cases in all or in any release than this comparison holds, and no category of a candidate
    that this comparison's comparison of it lacks (a later look holds every case of the earlier ones, each in its
    category). One line naming what differs. The case ids themselves are not in the note: a suite of as many
    other cases passes this check."""
    suite = next((look.suite for look in looks.values() if look.suite is not None), None)
    if suite is None:
        return
    where = next(iter(looks.values())).source
    head = f"--previous {where}: that note"
    if suite.baseline != analysis.baseline:
        raise InputError(f"{head} compared against {suite.baseline}, this comparison against {analysis.baseline}; "
                         "a later look is of the same baseline")
    if suite.metrics != tuple(metrics):
        raise InputError(f"{head} gated {_value(list(suite.metrics)) if suite.metrics else 'the outcome column'}, "
                         f"this comparison {_value(list(metrics)) if metrics else 'the outcome column'}: another "
                         "metric, not an earlier look at this one")
    if suite.outcome_kind != str(analysis.outcome_kind):
        raise InputError(f"{head} compared {suite.outcome_kind} outcomes, this comparison "
                         f"{analysis.outcome_kind} ones: another metric, not an earlier look at this one")
    more = "a later look holds every case of the earlier ones and more, so it is not an earlier look at this suite"
    if suite.n_cases is not None and suite.n_cases > analysis.n_cases:
        raise InputError(f"{head} held {suite.n_cases:,} cases, this comparison {analysis.n_cases:,}; {more}")
    today = {r.name: r.n_cases for r in analysis.releases}
    for name, n in suite.release_cases:
        if name in today and n > today[name]:
            raise InputError(f"{head} held {n:,} cases of {name}, this comparison {today[name]:,}; {more}")
    compared = {c.name: {k.label for k in c.categories} for c in analysis.candidates}
    for name, listed in suite.categories:
        lacking = [k for k in listed if name in compared and k not in compared[name]]
        if lacking:
            raise InputError(f"{head} compared {name} in category {lacking[0]!r}, which this comparison of it does "
                             f"not have ({len(lacking)} such); {more}")


def recorded_looks(note: Mapping[str, Any]) -> dict[str, PreviousLook] | None:
    """The earlier looks a note of a later look was read after, rebuilt from its own budgets (the level each
    candidate's regression tests were read at is what the looks before it left), so that ``verify`` reruns it
    the way it was made; None for a first look."""
    out = {}
    for c in note.get("candidates") or ():
        budget = c.get("budget") if isinstance(c, dict) and isinstance(c.get("budget"), Mapping) else {}
        look, level = budget.get("look"), budget.get("level")
        if isinstance(look, int) and look > 1 and isinstance(level, (int, float)):
            out[str(c["name"])] = PreviousLook(look - 1, float(level), "the note's own record")
    return out or None
