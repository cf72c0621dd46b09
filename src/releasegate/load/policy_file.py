"""Which policy file applies when the command names none: ``releasegate.toml`` beside the results (the way a
project keeps its gate next to its eval results). Never one from the working directory when the results are
elsewhere: a stray file there must not change the gate (drop a release from it, weaken a rule), so it is only
named, as not read. The command says on stderr which file it read, and the note's method section says it too,
so a verdict is never read against a policy nobody knew was there; ``--no-policy`` compares with the defaults
and the flags alone, ``--policy FILE`` reads any file."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from releasegate.errors import PolicyError
from releasegate.model import PolicyFile

POLICY_NAME = "releasegate.toml"


def _folders(result_paths: Sequence[Path]) -> list[Path]:
    return list(dict.fromkeys(Path(p).parent.resolve() for p in result_paths))


def find_policy(result_paths: Sequence[Path]) -> Path | None:
    """The first ``releasegate.toml`` in the folder of each results file, in order."""
    for folder in _folders(result_paths):
        candidate = folder / POLICY_NAME
        if candidate.is_file():
            return candidate
    return None


def stray_policy(result_paths: Sequence[Path], cwd: Path) -> Path | None:
    """A ``releasegate.toml`` in the working directory when the results are elsewhere: not read, only named."""
    candidate = Path(cwd).resolve() / POLICY_NAME
    return candidate if candidate.is_file() and candidate.parent not in _folders(result_paths) else None


def shown(path: Path, cwd: Path) -> str:
    """The path as the user would type it: relative to the working directory when inside it."""
    try:
        return str(path.relative_to(cwd.resolve()))
    except ValueError:
        return str(path)


def policy_record(path: Path, found: bool, cwd: Path | None = None) -> PolicyFile:
    """The provenance of the policy file read: its path (as shown on stdout when found), its sha256, and
    whether it was found rather than named, so a note never stands on a policy nobody can identify."""
    from releasegate.load.sources import sha256_of

    try:
        digest = sha256_of(path)
    except OSError as exc:
        raise PolicyError(f"cannot read policy file {path}: {exc.strerror or exc}") from None
    return PolicyFile(shown(path, cwd or Path.cwd()) if found else str(path), digest, found)
