"""Command-line options -> what the library's one pipeline (pipeline.run) reads, for report, check, plan and
verify: the policy from its file and the flags (flags win), the reading of the inputs from the adapter and shape
flags. The command line (cli.py) only declares the options; this is what they mean."""

from __future__ import annotations

import dataclasses
import shlex
import sys
from pathlib import Path
from typing import Any

from releasegate.load.adapters import OPTIONS as ADAPTER_OPTIONS

COLUMN_FLAGS = (
    ("case_col", "case_id"), ("release_col", "release"), ("passed_col", "passed"), ("score_col", "score"),
    ("category_col", "category"), ("cluster_col", "cluster"), ("run_col", "run"), ("latency_col", "latency_ms"),
    ("error_col", "error"),
)




def _policy_path_read(kw: dict[str, Any]) -> Path | None:
    """The policy file the options make the pipeline read: --policy, else (without --no-policy) a
    releasegate.toml found beside the results, as the line naming it shows it."""
    if kw.get("policy_path") is not None:
        return Path(kw["policy_path"])
    if kw.get("no_policy") or not kw.get("results"):
        return None
    from releasegate.load.policy_file import find_policy, shown
    from releasegate.load.sources import parse_source

    found = find_policy([parse_source(text).path for text in kw["results"]])
    return None if found is None else Path(shown(found, Path.cwd()))


def _gold_path_read(kw: dict[str, Any], policy_path: Path | None) -> Path | None:
    """The gold labels the options make the pipeline read: --gold, else the policy file's ``gold``."""
    if kw.get("gold"):
        return Path(kw["gold"])
    if policy_path is None:
        return None
    from releasegate.policy import load_policy_file

    gold = load_policy_file(policy_path).get("gold")
    return Path(gold) if isinstance(gold, str) and gold.strip() else None


def input_paths(kw: dict[str, Any]) -> list[Path]:
    """Every file or folder the options make the pipeline read, which no output may be: the results, the case
    table, the policy (named, or found beside the results), the gold labels (--gold, or the policy's gold) and
    the previous note."""
    from releasegate.load.sources import parse_source

    policy = _policy_path_read(kw)
    paths: list[Path | str | None] = [parse_source(text).path for text in kw["results"]]
    paths += [kw.get("cases"), policy, _gold_path_read(kw, policy), kw.get("previous")]
    return [Path(p) for p in paths if p is not None]


def read_inputs(kw: dict[str, Any], note: Any = None) -> dict[str, Any]:
    """Options -> what the pipeline reads: sources, policy, adapter options, metrics and the policy file. For
    `verify`, ``note`` (a note read back, audit/notes.py) gives the policy and the reading of the inputs that
    its flags do not (no releasegate.toml is looked for: the note holds its policy)."""
    from releasegate.load.policy_file import find_policy, policy_record, shown, stray_policy
    from releasegate.load.sources import parse_source
    from releasegate.pipeline import rerun_arguments
    from releasegate.policy import KEYS, load_policy_file, make_policy

    sources = [parse_source(text) for text in kw["results"]]
    policy_path = kw.get("policy_path")
    found = policy_path is None and not kw.get("no_policy") and bool(sources) and note is None
    if found:
        policy_path = find_policy([s.path for s in sources])
        stray = stray_policy([s.path for s in sources], Path.cwd())
        # Said on stderr after the verdicts, so that a run refused for bad input prints one line.
        if policy_path is not None:
            kw["found_policy"] = (f"policy: {shown(policy_path, Path.cwd())} (found beside the results; --policy "
                                  "FILE for another, --no-policy for none)")
        elif stray is not None:
            kw["found_policy"] = (f"policy: none read; {shown(stray, Path.cwd())} in the working directory is not "
                                  f"beside the results (--policy {shown(stray, Path.cwd())} to read it)")
    file_values = load_policy_file(policy_path) if policy_path else note.policy_values if note else {}
    columns = {canonical: kw[flag] for flag, canonical in COLUMN_FLAGS if kw.get(flag)}
    # Every key with a flag, by its row of the table (its option's name is the key); None or (): not given.
    flags = {row.name: kw.get(row.name) for row in KEYS if row.flag}
    policy = make_policy(file_values, columns=columns, **flags)
    recorded = rerun_arguments(note.loading if note else {})
    base = recorded["options"]
    values = {**base.values, **{o.name: kw[o.name] for o in ADAPTER_OPTIONS
                                if not o.repeatable and kw.get(o.name) is not None}}
    # The metrics gated as named: one lm-eval metric too is read in load (load/per_metric.py), not here.
    metrics = tuple(kw.get("metric") or ()) or recorded["metrics"]
    input_format = kw.get("input_format") or base.format
    options = dataclasses.replace(
        base, format=input_format, values=values,
        drop_holes=bool(kw.get("drop_holes")) or base.drop_holes, wide=bool(kw.get("wide")) or base.wide,
        latency_unit=kw.get("latency_unit") or base.latency_unit,
        release_cols=tuple(c.strip() for c in (kw.get("release_cols") or "").split(",") if c.strip())
        or base.release_cols)
    record = policy_record(policy_path, bool(found)) if policy_path else None
    return {"sources": sources, "policy": policy, "options": options, "metrics": metrics, "policy_file": record}


def run_arguments(kw: dict[str, Any], note: Any = None) -> dict[str, Any]:
    """Options -> every argument of pipeline.run: :func:`read_inputs`' and the case table, the command line and
    (for `verify`) the note's default title."""
    recorded = note.loading if note else {}
    inputs = read_inputs(kw, note)
    previous = None
    if kw.get("previous") is not None:
        # An earlier look at the same releases: this one reads its regression tests at what that one left.
        from releasegate.load.looks import read_previous

        previous = read_previous(Path(kw["previous"]), inputs["policy"], inputs["metrics"])
    return {**inputs, "cases": kw.get("cases"),
            "command_line": "releasegate " + shlex.join(sys.argv[1:]),
            "default_title": recorded.get("default_title") if isinstance(recorded, dict) else None,
            "previous": previous}
