"""A release note read back: a JSON note, or the JSON a PDF/A-3b note carries as its attachment (render/pdf.py).

The PDF is read with pypdf, imported only here: the attachment sits in the catalog's name tree, which WeasyPrint
writes inside a compressed object stream indexed by a cross-reference stream, and an archived PDF may have been
re-saved by another tool since (an incremental update, a rebuilt cross-reference table). A reader of what
WeasyPrint alone writes would refuse those; pypdf reads them all and has no dependencies of its own.

Every shape the note's JSON may take is read through :meth:`Note.sections` (the note itself, or each metric's
note of a several-metric note), so the verify and history code does not depend on where a figure sits.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from releasegate.errors import InputError
from releasegate.files import TABLE_CAP, read_capped
from releasegate.render.json_cases import CASE_KEYS, LISTINGS

ATTACHMENT = "analysis.json"  # the name render/pdf.py gives the attached JSON


def schema_version() -> str:
    """The schema of the notes this releasegate writes (render/json_out.py)."""
    from releasegate.render.json_out import SCHEMA_VERSION

    return SCHEMA_VERSION


def note_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of the note, shipped in the package (docs/schema/note.schema.json)."""
    from importlib import resources

    return json.loads((resources.files("releasegate") / "schema" / "note.schema.json").read_text(encoding="utf-8"))


def readable(version: Any) -> bool:
    """A note of this schema can be read: the same major version, a minor one no newer than this writer's."""
    ours = _parts(schema_version())
    theirs = _parts(version) if isinstance(version, str) else None
    return theirs is not None and ours is not None and theirs[0] == ours[0] and theirs[1] <= ours[1]


def _parts(version: str) -> tuple[int, int] | None:
    major, _, minor = version.partition(".")
    return (int(major), int(minor or 0)) if major.isdigit() and (minor or "0").isdigit() else None


@dataclass(frozen=True)
class Note:
    """One note read back: where it came from, its JSON, and the hash of that JSON's bytes (a PDF's
    attachment and the JSON written beside it are the same note)."""

    path: Path
    data: dict[str, Any]
    digest: str
    container: str  # "json" or "pdf"

    def sections(self) -> list[tuple[str | None, dict[str, Any]]]:
        """The single-metric notes inside: ``[(None, note)]``, or ``[(metric, its note), ...]`` for several."""
        return sections(self.data)

    def section_paths(self) -> list[str]:
        """Where each single-metric note sits in the JSON: ``""`` (the top), or ``metrics.NAME`` for several."""
        return [f"metrics.{name}" if name is not None else "" for name, _ in self.sections()]

    @property
    def where(self) -> str:
        """The file, as messages name it (a PDF's attachment said so)."""
        return _where(self.path, self.container)

    @property
    def first(self) -> dict[str, Any]:
        return self.sections()[0][1]

    @property
    def schema_version(self) -> str:
        return str(self.data.get("schema_version"))

    @property
    def tool_version(self) -> str:
        return str((self.first.get("tool") or {}).get("version", "unknown"))

    @property
    def generated_at(self) -> str:
        return str(self.first.get("generated_at") or "")

    @property
    def loading(self) -> dict[str, Any]:
        """How the inputs were read (absent from schema 1.0 notes: the defaults, ``{}``)."""
        loading = self.first.get("loading")
        return loading if isinstance(loading, dict) else {}

    @property
    def policy_values(self) -> dict[str, Any]:
        """The policy the note applied, as policy keys (a several-metric note names its metric in each copy)."""
        from releasegate.policy import POLICY_KEYS

        policy = self.first.get("policy")
        if not isinstance(policy, dict):
            raise InputError(f"{self.path}: the note records no policy, so it cannot be rerun")
        values = {k: v for k, v in policy.items() if k != "metric"}
        unknown = sorted(set(values) - POLICY_KEYS)
        if unknown:
            raise InputError(f"{self.path}: the note's policy has key(s) this releasegate does not know: "
                             f"{', '.join(unknown)}")
        return values


    def with_cases(self) -> dict[str, Any]:
        """The note's JSON with every case listing whole: from its case file (checked against the sha256 the note
        records, render/json_cases.py) when it has one, else as it is."""
        record = self.data.get("cases_file")
        if not isinstance(record, dict):
            return self.data
        data = json.loads(json.dumps(self.data))
        expand_listings(data, read_case_file(self.path, record))
        return data


def sections(data: dict[str, Any]) -> list[tuple[str | None, dict[str, Any]]]:
    """A note's single-metric notes: the note itself, or each metric's note of a several-metric note."""
    metrics = data.get("metrics")
    if data.get("kind") == "several_metrics" and isinstance(metrics, dict):
        found = [(str(name), note) for name, note in metrics.items() if isinstance(note, dict)]
        if found:
            return found
    return [(None, data)]


def read_note(path: Path) -> Note:
    """A note from a ``.json`` file or a PDF/A-3b note's attachment; InputError (one line) when the file is not a
    releasegate note, is a note of a schema this version cannot read, or is a PDF without the attachment."""
    path = Path(path)
    raw = read_capped(path, "note", cap=TABLE_CAP,
                      hint="; give a note (.json, or .pdf written with --pdf-variant pdf/a-3b)")
    container = "pdf" if raw[:5] == b"%PDF-" else "json"
    text = _attached_json(path) if container == "pdf" else raw
    where = _where(path, container)
    try:
        data = json.loads(text.decode("utf-8"))
    except UnicodeDecodeError:
        raise InputError(f"{where} is not a releasegate note: not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{where} is not a releasegate note: not JSON ({exc.msg}, line {exc.lineno})") from None
    except RecursionError:
        raise InputError(f"{where} is not a releasegate note: nested too deeply") from None
    _check_note(data, where)
    return Note(path, data, hashlib.sha256(text).hexdigest(), container)


def _where(path: Path, container: str) -> str:
    return f"{path}" + (f" (its attachment {ATTACHMENT})" if container == "pdf" else "")


def _check_note(data: Any, where: str) -> None:
    if not isinstance(data, dict) or "schema_version" not in data:
        raise InputError(f"{where} is not a releasegate note: no schema_version")
    version = data["schema_version"]
    if not readable(version):
        ours = schema_version()
        raise InputError(f"{where} is a note of schema {version!r}; this releasegate reads schema "
                         f"{ours.partition('.')[0]}.0 to {ours} (use the releasegate that wrote it)")
    for _, note in sections(data):
        tool = note.get("tool")
        if not (isinstance(tool, dict) and tool.get("name") == "releasegate"):
            raise InputError(f"{where} is not a releasegate note: no tool.name \"releasegate\"")
        if not isinstance(note.get("candidates"), list):
            raise InputError(f"{where} is not a releasegate note: no candidates list")


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _time(value: Any) -> bool:
    try:
        return isinstance(value, str) and datetime.fromisoformat(value) is not None
    except ValueError:
        return False


# What a key read by `history` must hold: a test of the value (and whether the note's outcomes are pass/fail, where
# a rate is a fraction 0..1) and the words a refusal says it in.
KINDS: dict[str, tuple[Callable[[Any, bool], bool], str]] = {
    "text": (lambda v, _: isinstance(v, str), "a string"),
    "time": (lambda v, _: _time(v), "an ISO 8601 time"),
    "count": (lambda v, _: isinstance(v, int) and not isinstance(v, bool) and v >= 0, "a whole number 0 or more"),
    "flag": (lambda v, _: isinstance(v, bool), "true or false"),
    "object": (lambda v, _: isinstance(v, dict), "an object"),
    "object or null": (lambda v, _: v is None or isinstance(v, dict), "an object or null"),
    "list": (lambda v, _: isinstance(v, list), "a list"),
    "number or null": (lambda v, _: v is None or _finite(v), "a number or null"),
    "amount or null": (lambda v, _: v is None or (_finite(v) and v >= 0), "a number 0 or more, or null"),
    "p": (lambda v, _: _finite(v) and 0 <= v <= 1, "a p-value 0..1"),
    "p or null": (lambda v, _: v is None or (_finite(v) and 0 <= v <= 1), "a p-value 0..1 or null"),
    "rate or null": (lambda v, binary: v is None or (_finite(v) and (not binary or 0 <= v <= 1)),
                     "a number or null (0..1 for pass/fail outcomes)"),
    "verdict": (lambda v, _: v in ("ship", "dont_ship", "not_proven"), 'one of "ship", "dont_ship", "not_proven"'),
    "outcome kind": (lambda v, _: v in ("binary", "continuous"), 'one of "binary", "continuous"'),
}

# Every key `history` reads, in a single-metric note (and in each metric's note of a several-metric one), with the
# kind docs/json.md gives it; "[]" is every item of a list. Parents come before their keys: a key under a parent
# that is absent (a section that may be) or null is not read. None of them is one added since schema 1.0 (`loading`,
# `cases_file`, `cases_listed`, `errors.counted_as_failures` are not read), so a note of any 1.x schema holds each.
# A cost may be negative (a release's mean cost per case keeps the negative costs its data gives); a latency not.
READ_BY_HISTORY: tuple[tuple[str, str], ...] = (
    ("tool", "object"), ("tool.version", "text"), ("generated_at", "time"), ("title", "text"), ("baseline", "text"),
    ("outcome_kind", "outcome kind"), ("n_cases", "count"), ("policy", "object"),
    ("releases", "list"), ("releases[]", "object"), ("releases[].name", "text"), ("releases[].rate", "object"),
    ("releases[].rate.n", "count"), ("releases[].rate.value", "rate or null"),
    ("releases[].rate.ci_low", "rate or null"), ("releases[].rate.ci_high", "rate or null"),
    ("costs", "object"), ("costs.releases", "list"), ("costs.releases[]", "object"),
    ("costs.releases[].name", "text"), ("costs.releases[].cost_per_1k", "number or null"),
    ("costs.releases[].latency_ms", "object or null"), ("costs.releases[].latency_ms.p95", "amount or null"),
    ("candidates", "list"), ("candidates[]", "object"), ("candidates[].name", "text"),
    ("candidates[].verdict", "verdict"), ("candidates[].overall", "object"),
    ("candidates[].overall.diff", "number or null"), ("candidates[].overall.ci_low", "number or null"),
    ("candidates[].overall.ci_high", "number or null"),
    ("candidates[].categories", "list"), ("candidates[].categories[]", "object"),
    ("candidates[].categories[].category", "text"), ("candidates[].categories[].critical", "flag"),
    ("candidates[].categories[].n", "count"), ("candidates[].categories[].diff", "number or null"),
    ("candidates[].categories[].ci_low", "number or null"), ("candidates[].categories[].ci_high", "number or null"),
    ("candidates[].categories[].fixed", "count"), ("candidates[].categories[].broke", "count"),
    ("candidates[].categories[].p_adjusted", "p or null"),
    ("candidates[].critical", "object"), ("candidates[].critical.tests", "list"),
    ("candidates[].critical.tests[]", "object"), ("candidates[].critical.tests[].label", "text"),
    ("candidates[].critical.tests[].worse", "count"), ("candidates[].critical.tests[].better", "count"),
    ("candidates[].critical.tests[].p_regression", "p"), ("candidates[].critical.tests[].blocks", "flag"),
)
# The keys of READ_BY_HISTORY a note may lack (json.md: absent without such columns, without critical categories).
MAY_BE_ABSENT = frozenset({"costs", "candidates[].critical"})
_ABSENT = object()


def _places(section: dict[str, Any], path: str) -> list[tuple[str, Any]]:
    """Each place ``path`` names in ``section``, as (its path with list indices, its value or ``_ABSENT``); none
    under a parent that is absent, null or not of its kind (the parent's own row refuses that)."""
    places: list[tuple[str, Any]] = [("", section)]
    for part in path.split("."):
        key, every = part.removesuffix("[]"), part.endswith("[]")
        found = []
        for where, value in places:
            if not isinstance(value, dict):
                continue
            child, here = value.get(key, _ABSENT), f"{where}.{key}" if where else key
            if not every:
                found.append((here, child))
            elif isinstance(child, list):
                found += [(f"{here}[{i}]", item) for i, item in enumerate(child)]
        places = found
    return places


def check_read_keys(note: Note) -> None:
    """Refuse (InputError, one line naming the file, the key and what it holds) a note whose keys that `history`
    reads (READ_BY_HISTORY) are missing, of another type or impossible, or whose releases do not name its baseline
    and every candidate; a page would otherwise show what it holds as figures, or leave a release out."""
    if note.data.get("kind") == "several_metrics":  # sections() reads only the metrics that are objects
        metrics = note.data.get("metrics", _ABSENT)
        if not (isinstance(metrics, dict) and metrics):
            raise InputError(f"{note.where}: malformed note: metrics is {_held(metrics)} (expected an object of "
                             "each metric's note)")
        for name, metric in metrics.items():
            if not isinstance(metric, dict):
                raise InputError(f"{note.where}: malformed note: metrics.{name} is {_held(metric)} (expected an "
                                 "object: that metric's note)")
    for prefix, (_, section) in zip(note.section_paths(), note.sections()):
        prefix += "." if prefix else ""
        binary = section.get("outcome_kind") == "binary"
        for path, kind in READ_BY_HISTORY:
            test, expected = KINDS[kind]
            for place, value in _places(section, path):
                if value is _ABSENT and path not in MAY_BE_ABSENT:
                    raise InputError(f"{note.where}: malformed note: {prefix}{place} is missing (expected {expected})")
                if value is not _ABSENT and not test(value, binary):
                    raise InputError(f"{note.where}: malformed note: {prefix}{place} is {_held(value)} "
                                     f"(expected {expected})")
        names = {r["name"] for r in section["releases"]}
        for place, name in [("baseline", section["baseline"]),
                            *((f"candidates[{i}].name", c["name"]) for i, c in enumerate(section["candidates"]))]:
            if name not in names:
                raise InputError(f"{note.where}: malformed note: {prefix}{place} is {_held(name)}, which is not "
                                 f"among {prefix}releases[].name")


def _held(value: Any) -> str:
    """A value as a refusal shows it: JSON, on one line, at most 60 characters."""
    if value is _ABSENT:
        return "missing"
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= 60 else text[:59] + "…"


def _attached_json(path: Path) -> bytes:
    """The JSON attached to a PDF/A-3b note (``pdfdetach -list`` shows it as analysis.json)."""
    import logging

    try:
        from pypdf import PdfReader
    except ImportError:  # pragma: no cover  (a dependency; only a broken install lacks it)
        raise InputError(f"reading the PDF note {path} needs pypdf: pip install pypdf") from None
    # pypdf logs what it repairs in a damaged file; the one line below says what matters instead.
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    try:
        reader = PdfReader(path)
        if reader.is_encrypted:
            raise InputError(f"{path}: the PDF is encrypted; a note's PDF is not")
        attached = reader.attachments.get(ATTACHMENT)
    except InputError:
        raise
    except Exception as exc:  # noqa: BLE001  (pypdf raises many types for a damaged file; each is one line)
        first = " ".join(str(exc).split())[:200]
        raise InputError(f"{path}: cannot read the PDF ({type(exc).__name__}: {first})") from None
    if not attached:
        raise InputError(f"{path} is a PDF without the note's JSON attached ({ATTACHMENT}); "
                         "write the note with --pdf-variant pdf/a-3b, or give its .json")
    return attached[0]


def read_case_file(note_path: Path, record: dict[str, Any]):
    """The case file a note names, checked against its sha256: a pyarrow Table. InputError (one line) when it is
    missing, is not where the note says, or is not the file the note was written with."""
    name = record.get("path")
    if not isinstance(name, str) or Path(name).name != name:
        raise InputError(f"{note_path}: its case file is named {name!r}, not a file name beside the note")
    path = note_path.with_name(name)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"{note_path}: its case listings are in {path}, which cannot be read "
                         f"({exc.strerror or exc}); keep the case file beside the note") from None
    digest = hashlib.sha256(data).hexdigest()
    if digest != record.get("sha256"):
        raise InputError(f"{path}: not the case file {note_path.name} was written with (sha256 {digest}, the note "
                         f"records {record.get('sha256')})")
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        return pq.read_table(pa.BufferReader(data))
    except pa.ArrowException as exc:
        raise InputError(f"{path}: cannot read as Parquet: {str(exc).splitlines()[0]}") from None


def expand_listings(data: dict[str, Any], table: Any) -> None:
    """Put the case file's listings (a pyarrow Table from :func:`read_case_file`) back into the note's ``data``
    (in place), as the note would list them without the bound."""
    rows: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    names = table.column_names
    metadata = [n for n in names if n.startswith("metadata.")]
    answers = [n for n in names if n.startswith("answers.") and n.endswith(".baseline")]
    for row in table.to_pylist():
        key = (row["metric"] or "", row["candidate"], row["listing"])
        if row["listing"].startswith("excluded_cases."):
            rows.setdefault(key, []).append(row["case_id"])
            continue
        meta = {n[len("metadata."):]: row[n] for n in metadata if row[n] is not None}
        said = {n[len("answers."):-len(".baseline")]: row[n] for n in answers if row[n] is not None}
        rows.setdefault(key, []).append({
            **{k: row[k] for k in CASE_KEYS[:3]}, "critical": row["critical"],
            "baseline_outcome": row["baseline_outcome"], "candidate_outcome": row["candidate_outcome"],
            "metadata": meta,
            "answers": {name: {"baseline": text, "candidate": meta.get(name, "")} for name, text in said.items()}})
    data["cases_file"] = None  # as the note without the bound has it
    for metric, note in sections(data):
        for cand in note.get("candidates") or []:
            if not isinstance(cand, dict):
                continue
            if isinstance(cand.get("cases_listed"), dict):
                cand["cases_listed"]["in_note_at_most"] = None
            for listing in LISTINGS:
                found = rows.get((metric or "", str(cand.get("name")), listing), [])
                if listing.startswith("excluded_cases."):
                    cand.setdefault("excluded_cases", {})[listing.partition(".")[2]] = found
                else:
                    cand[listing] = found
