"""What a comparison, or the reading of its inputs, set apart: the pairing's :class:`Exclusions` per candidate
(validate/pairing.py) and the :class:`InputExclusion` records of what loading and validation left out of every
comparison (a table not read, a run store's cases dropped, rows without an outcome). wording/exclusions.py names
each wherever a verdict is read."""

from __future__ import annotations

from dataclasses import dataclass

from releasegate.kinds import ExclusionReason, InputExclusionKind, PairingBasis


@dataclass(frozen=True)
class Excluded:
    """The cases of one comparison set apart for one reason: how many, and the first of them by case id."""

    reason: ExclusionReason
    count: int
    case_ids: tuple[str, ...]


# Reasons whose cases are the baseline's and leave its comparison; a case only on the candidate's side is not one
# of the baseline's, and a case whose missing runs were counted as failures stays compared.
LEFT_OUT: frozenset[str] = frozenset({"only_baseline", "content_changed", "errored"})


@dataclass(frozen=True)
class Exclusions:
    """What one comparison set apart, decided once by the pairing (validate/pairing.py): ``reasons`` in the order
    of :data:`releasegate.kinds.EXCLUSION_REASONS`, only those with cases; ``baseline_cases`` is the baseline's
    count, of which :attr:`compared` are compared; ``basis`` says how cases were matched and ``by_id_only`` how
    many compared cases had no content on both sides to match."""

    baseline_cases: int = 0
    reasons: tuple[Excluded, ...] = ()
    basis: PairingBasis = "id"
    by_id_only: int = 0

    def of(self, reason: ExclusionReason) -> Excluded | None:
        return next((r for r in self.reasons if r.reason == reason), None)

    def ids(self, reason: ExclusionReason) -> tuple[str, ...]:
        found = self.of(reason)
        return () if found is None else found.case_ids

    @property
    def left_out(self) -> int:
        """The baseline's cases not compared."""
        return sum(r.count for r in self.reasons if r.reason in LEFT_OUT)

    @property
    def compared(self) -> int:
        return self.baseline_cases - self.left_out

    @property
    def count(self) -> int:
        """Every case set apart or counted for any reason: nothing to name when 0."""
        return sum(r.count for r in self.reasons)

    @property
    def unpaired(self) -> int:
        """Cases on one side only."""
        return sum(r.count for r in self.reasons if r.reason in ("only_baseline", "only_candidate"))


@dataclass(frozen=True)
class InputExclusion:
    """What the reading of the inputs left out of every comparison, or counted otherwise than it was given, before
    any pairing: ``count`` tables, cases or rows of one :data:`releasegate.kinds.InputExclusionKind`; ``where`` the
    folder or run store it concerns ("" for rows); ``examples`` the first table names or case ids, or for rows the
    releases they belong to."""

    kind: InputExclusionKind
    count: int
    where: str = ""
    examples: tuple[str, ...] = ()
