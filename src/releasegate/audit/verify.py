"""`releasegate verify`: does an archived note follow from its inputs?

The note is rerun through the library's one pipeline with the policy and the reading of the inputs it recorded
(``policy`` and ``loading``; flags given to verify win, and what they change then shows as a difference), its
JSON written as `report -o note.json` writes it, and the two notes compared key by key (audit/tree_diff.py):
every figure at the precision the JSON writes it, every verdict, every case listed, every sentence. The input
files' hashes are compared record by record. Not compared: the time of generation, the command line, the
package versions and the tool's version (said in the answer instead) and the inputs' paths (a note is verified
from wherever its inputs now are; their hashes say whether they are the same files).
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from releasegate import __version__
from releasegate.audit.notes import Note, schema_version
from releasegate.audit.tree_diff import MISSING, Difference, compare, count_leaves
from releasegate.errors import InputError
from releasegate.text import one_line

# Not compared, by their place in a (single-metric) note: when and how the note was made, not what it found (the
# tool's version is said apart), the inputs (compared record by record) and the gold file's path as the judge
# section repeats it (its hash is in inputs). Keys of the same name elsewhere (a data column "tool") are compared.
IGNORED = frozenset({"generated_at", "command_line", "packages", "tool", "inputs", "candidates[].judge.gold_path"})
# What an input's record holds besides its path and hash: compared once the two records are paired.
_ORDER = {"input": 0, "verdict": 1, "case": 2, "figure": 3}


@dataclass(frozen=True)
class Verification:
    """The answer of :func:`verify`: every difference (none: reproduced), the versions, and what was compared."""

    note: Note
    differences: tuple[Difference, ...]
    version: str  # the releasegate that reran the note
    inputs: int  # input records compared
    figures: int  # numbers compared
    values: int  # other values compared (verdicts, names, flags, sentences)
    # How the policy was checked: "" when a policy file was given (its sha256 is compared with the note's record);
    # else the clause the answer ends with, that the note's own policy was used and not checked.
    policy_unchecked: str = ""

    @property
    def reproduced(self) -> bool:
        return not self.differences

    @property
    def exit_code(self) -> int:
        return 0 if self.reproduced else 1


def verify(note: Note, *, sources: list[Any], policy, cases: Path | None = None, options=None, metrics=(),
           default_title: str | None = None, command_line: str = "", policy_file=None,
           previous=None) -> Verification:
    """Rerun ``note`` on ``sources`` (and ``cases``) with ``policy`` and the reading ``options``, and compare.

    The arguments are :func:`releasegate.pipeline.run`'s; the command line builds them from the note's record
    and its flags (cli.run_arguments). Bad input (a file that cannot be read as the note read it) raises
    InputError; a different result is not an error but the answer's differences. A note of a later look is rerun
    at the level its regression tests were read at (the looks it records; ``previous`` overrides them)."""
    from releasegate.load.looks import recorded_looks
    from releasegate.pipeline import run

    data = note.with_cases()  # every case listed, from the note's case file when it has one
    table = next((i for i in _inputs(data) if i.get("format") == "cases"), None)
    if table is not None and cases is None:  # the rerun would fail on, or differ by, the missing categories
        raise InputError(f"{note.path} was made with a case table ({table.get('path')}, sha256 "
                         f"{table.get('sha256')}): give it with --cases")
    gold = next((i for i in _inputs(data) if i.get("format") == "gold"), None)
    if gold is not None and getattr(policy, "gold", None) and not Path(policy.gold).exists():
        raise InputError(f"{note.path} was made with gold labels ({gold.get('path')}, sha256 {gold.get('sha256')}), "
                         f"not found at {policy.gold}: give them with --gold")
    try:
        report = run(sources, policy, cases=cases, options=options, command_line=command_line,
                     metrics=tuple(metrics), default_title=default_title, policy_file=policy_file,
                     previous=previous if previous is not None else recorded_looks(note.data))
    except InputError as exc:
        raise InputError(f"cannot rerun {note.path}: {exc}") from None
    bounded, rerun = _rerun_notes(report)
    _carry_over(data, rerun, policy_file_given=policy_file is not None)
    ignore = _ignored(note)
    differences = [*input_differences(_inputs(data), _inputs(rerun)), *compare(data, rerun, ignore=ignore)]
    differences += _kept_differences(note, bounded, ignore, policy_file is not None, differences)
    if note.schema_version != schema_version():  # an older minor schema: what it did not yet write is not compared
        differences = [d for d in differences if not (d.kind == "key" and d.note is MISSING)
                       and d.path.rpartition(".")[2] != "schema_version"]
    differences.sort(key=lambda d: _ORDER.get(d.kind, len(_ORDER)))  # stable: the note's order within a kind
    figures, values = count_leaves(data, ignore)
    unchecked = "" if policy_file is not None else unchecked_policy(note, [s.path for s in sources])
    return Verification(note, tuple(differences), __version__, len(_inputs(data)), figures, values, unchecked)


# The rerun's note is written as `report -o note.json` writes it.
_RERUN = Path("note.json")


def _rerun_notes(report: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """The rerun's note as `report -o note.json` writes it (past the bound, the first cases of each listing and a
    case file), and the same note with every listing whole: its case file's listings put back as the archived
    note's are (audit/notes.py ``expand_listings``), so both sides of the comparison are read the same way."""
    from releasegate.audit.notes import expand_listings
    from releasegate.render import output_files
    from releasegate.render.json_cases import case_file_path

    files = dict(output_files(report, _RERUN))
    text = files[_RERUN].decode("utf-8")
    side = files.get(case_file_path(_RERUN))
    whole = json.loads(text)
    if side is not None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        expand_listings(whole, pq.read_table(pa.BufferReader(side)))
    return json.loads(text), whole


def _kept_differences(note: Note, bounded: dict[str, Any], ignore: Any, policy_file_given: bool,
                      found: list[Difference]) -> list[Difference]:
    """A note with a case file keeps the first cases of each listing itself, and counts them in its record: those
    are what a reader sees first, so they are compared too, with the rerun's note written with the same bound
    (``bounded``; the whole listings are compared from the files). The file's sha256 is the note's: the file was
    checked against it, and the same cases may be written in other bytes by another pyarrow. So is its name, which
    follows the note's own (``release.json`` -> ``release.cases.parquet``), not the inputs: the rerun's is
    written as ``note.json``."""
    record = note.data.get("cases_file")
    if not isinstance(record, dict):
        return []
    if isinstance(bounded.get("cases_file"), dict):
        bounded["cases_file"].update(sha256=record.get("sha256"), path=record.get("path"))
    _carry_over(note.data, bounded, policy_file_given=policy_file_given)
    seen = {d.path for d in found}
    return [d for d in compare(note.data, bounded, ignore=ignore) if d.path not in seen]


def unchecked_policy(note: Note, inputs: list[Path]) -> str:
    """The clause of an answer whose policy came from the note, not from a file given with --policy: what was
    used is the note's own record, which nothing checked. A ``releasegate.toml`` beside the inputs whose sha256
    is not the one the note records is named, since it may be the policy the note should have been made with."""
    from releasegate.load.policy_file import POLICY_NAME
    from releasegate.load.sources import sha256_of

    recorded = note.data.get("policy_file")
    recorded = recorded if isinstance(recorded, dict) else {}
    beside = next((p for p in dict.fromkeys(Path(i).parent / POLICY_NAME for i in inputs) if p.is_file()), None)
    unchecked = "the policy was taken from the note and not checked"
    if beside is None:
        return f"{unchecked} (give --policy FILE to check it)"
    try:
        digest = sha256_of(beside)
    except OSError:
        return f"{unchecked} (give --policy FILE to check it)"
    if digest == recorded.get("sha256"):
        return (f"{unchecked}: {beside} beside the inputs has the sha256 the note records, but the note's values "
                f"were used (give --policy {beside} to check them against it)")
    noted = f"sha256 {str(recorded['sha256'])[:12]}…" if recorded.get("sha256") else "no policy file"
    return (f"{unchecked}: {beside} beside the inputs differs from the note's record (sha256 {digest[:12]}…, the "
            f"note records {noted}); give --policy {beside} to verify the note against it")


def _ignored(note: Note):
    """The predicate on shape paths that leaves out :data:`IGNORED` in each of the note's single-metric notes. It
    is asked once for every value compared or counted (940,000 times for a note of 57,000 changed cases), of a few
    hundred shapes: each shape's answer is kept."""
    prefixes = [f"{where}." if where else "" for where in note.section_paths()]

    @functools.cache
    def ignore(shape: str) -> bool:
        return any(shape.startswith(p) and shape[len(p):] in IGNORED for p in prefixes)

    return ignore


# Policy keys that hold a path (a file read as an input): where the file now is does not count, its hash does.
PATH_KEYS = ("gold",)


def _carry_over(note: dict[str, Any], rerun: dict[str, Any], policy_file_given: bool) -> None:
    """What the rerun takes from the note instead of comparing it: the policy's paths where both name a file (the
    file's hash is compared in ``inputs``), and, when no policy file is given to verify, the note's record of its
    policy file (the policy's values, read from the note, are compared); a policy file given is compared by its
    sha256, not by where it now is or whether it was found."""
    from releasegate.audit.notes import sections

    for (_, ours), (_, theirs) in zip(sections(note), sections(rerun)):
        a, b = ours.get("policy"), theirs.get("policy")
        if isinstance(a, dict) and isinstance(b, dict):
            for key in PATH_KEYS:
                if a.get(key) and b.get(key):
                    b[key] = a[key]
        if "policy_file" in ours and "policy_file" in theirs:
            mine, given = ours["policy_file"], theirs["policy_file"]
            if not policy_file_given:
                theirs["policy_file"] = mine
            elif isinstance(mine, dict) and isinstance(given, dict):
                theirs["policy_file"] = {**mine, "sha256": given.get("sha256")}


def _inputs(data: dict[str, Any]) -> list[dict[str, Any]]:
    from releasegate.audit.notes import sections

    inputs = sections(data)[0][1].get("inputs")
    return [i for i in inputs if isinstance(i, dict)] if isinstance(inputs, list) else []


def input_differences(note: list[dict[str, Any]], given: list[dict[str, Any]]) -> list[Difference]:
    """The note's input records against the rerun's: paired on their hash, then on the file's name, then in
    order; a pair with different hashes, rows or reading is a difference, and so is a record left unpaired."""
    left, right = list(note), list(given)
    pairs = []
    for match in (lambda a, b: a.get("sha256") == b.get("sha256"), lambda a, b: _name(a) == _name(b),
                  lambda a, b: True):
        for a in list(left):
            b = next((b for b in right if match(a, b)), None)
            if b is not None:
                pairs.append((a, b))
                left.remove(a)
                right.remove(b)
    out = []
    for a, b in pairs:
        path = f"inputs[path={a.get('path')}]"
        for key in [*a, *(k for k in b if k not in a)]:
            if key != "path" and a.get(key, MISSING) != b.get(key, MISSING):
                out.append(Difference(f"{path}.{key}", "input", a.get(key, MISSING), b.get(key, MISSING)))
    out += [Difference(f"inputs[path={a.get('path')}]", "input", a, MISSING) for a in left]
    out += [Difference(f"inputs[path={b.get('path')}]", "input", MISSING, b) for b in right]
    return out


def _name(record: dict[str, Any]) -> str:
    return Path(str(record.get("path", ""))).name


def _shown(value: Any, limit: int = 120) -> str:
    if value is MISSING:
        return "absent"
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _excerpt(text: str, start: int, width: int = 90) -> str:
    """The part of a sentence around where two versions part (``start``), quoted."""
    part = text[start:start + width]
    return f"\"{'…' if start else ''}{part}{'…' if start + width < len(text) else ''}\""


def _older(v: Verification) -> str:
    if v.note.schema_version == schema_version():
        return ""
    return f" (the note is of schema {v.note.schema_version}: keys added to the JSON since are not compared)"


def _version_clause(v: Verification) -> str:
    written = v.note.tool_version
    if written == v.version:
        return f"releasegate {v.version}, the version that wrote the note"
    return f"releasegate {v.version}; the note was written by releasegate {written}"


def difference_line(d: Difference) -> str:
    """One difference as one line: what differs, where (its JSON path), the note's value and the rerun's."""
    if d.kind == "input":
        record = d.note if d.note is not MISSING else d.rerun
        if isinstance(record, dict):  # a record on one side only
            side = "in the note, not given" if d.rerun is MISSING else "given, not in the note"
            return f"input {record.get('path')} (sha256 {record.get('sha256')}): {side}"
        what = d.path.rpartition(".")[2]
        return f"input {d.path.partition('[path=')[2].rpartition(']')[0]}: {what} {_shown(d.note)} in the note, " \
               f"{_shown(d.rerun)} given"
    if d.kind == "case":
        record = d.note if d.note is not MISSING else d.rerun
        listing, _, _ = d.path.rpartition("[")
        side = "of the note, not of the rerun" if d.rerun is MISSING else "of the rerun, not of the note"
        outcome = f" (baseline outcome {_shown(record.get('baseline_outcome'))}, candidate " \
                  f"{_shown(record.get('candidate_outcome'))})" if isinstance(record, dict) else ""
        return f"case {record.get('case_id')}: in {listing} {side}{outcome}"
    if d.kind == "text" and isinstance(d.note, str) and isinstance(d.rerun, str):
        start = max(0, next((i for i, (x, y) in enumerate(zip(d.note, d.rerun)) if x != y),
                            min(len(d.note), len(d.rerun))) - 40)
        return f"text {d.path}: {_excerpt(d.note, start)} in the note, {_excerpt(d.rerun, start)} in the rerun"
    if d.kind in ("key", "item"):
        side = "in the note only" if d.rerun is MISSING else "in the rerun only"
        return f"{d.kind} {d.path}: {side} ({_shown(d.note if d.rerun is MISSING else d.rerun, 80)})"
    return f"{d.kind} {d.path}: {_shown(d.note)} in the note, {_shown(d.rerun)} in the rerun"


def _policy_clause(v: Verification) -> str:
    return f"; {v.policy_unchecked}" if v.policy_unchecked else ""


def verification_lines(v: Verification) -> list[str]:
    """What `releasegate verify` prints: one line of answer, then one line per difference."""
    if v.reproduced:
        return [one_line(f"reproduced: {v.note.path} follows from its inputs: {v.inputs} input(s) with the sha256 the note "
                f"records, {v.figures:,} figures and {v.values:,} other values (verdicts, cases, sentences) the same, "
                f"rerun with {_version_clause(v)}{_older(v)}{_policy_clause(v)}")]
    counts: dict[str, int] = {}
    for d in v.differences:
        counts[d.kind] = counts.get(d.kind, 0) + 1
    summary = ", ".join(f"{n} {kind}{'s' if n != 1 else ''}" for kind, n in counts.items())
    head = (f"differs: {v.note.path} does not follow from the inputs given ({len(v.differences)} differences: "
            f"{summary}); rerun with {_version_clause(v)}{_older(v)}{_policy_clause(v)}")
    return [one_line(line) for line in (head, *(difference_line(d) for d in v.differences))]
