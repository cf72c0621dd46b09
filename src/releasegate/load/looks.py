"""An earlier note of the same baseline and candidates given back with ``--previous NOTE`` (issue 46 item 3): every
re-comparison of the same releases is a later look, and it may spend only what the earlier looks left unspent.

The note's JSON carries, per candidate, its error budget's look number and ``left`` (what its regression tests
could not spend at their level, given their changed cases; docs/methods.md, later looks). A note that records no
look (written before looks were recorded, or edited) is refused: read as a look that left nothing it would turn
the next look's regression tests off, so a regression within the margin would ship unchecked; read as a first
look it would spend alpha twice. A note of another baseline, another alpha, or several metrics is refused with
one line: it is not an earlier look at these releases.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from releasegate.errors import FileError, InputError
from releasegate.files import TABLE_CAP, read_text_capped
from releasegate.model.budget import PreviousLook


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


def read_previous(path: Path, baseline: str | None, alpha: float) -> dict[str, PreviousLook]:
    """The looks of the note at ``path`` by candidate name, checked against this comparison's baseline and
    alpha (InputError otherwise)."""
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
    return {str(c["name"]): _candidate_look(c, where, alpha) for c in note["candidates"]
            if isinstance(c, dict) and isinstance(c.get("name"), str)}


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
