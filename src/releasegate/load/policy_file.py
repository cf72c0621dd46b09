"""Which policy file applies when the command names none: ``releasegate.toml`` beside the results, else in the
working directory (the way a project keeps its gate next to its eval results). The command says on stdout
which file it used, so a verdict is never read against a policy nobody knew was there; ``--no-policy``
compares with the defaults and the flags alone."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from releasegate.errors import PolicyError
from releasegate.model import PolicyFile

POLICY_NAME = "releasegate.toml"


def find_policy(result_paths: Sequence[Path], cwd: Path) -> Path | None:
    """The first ``releasegate.toml`` in the folder of each results file, in order, then in ``cwd``."""
    folders = [p.parent for p in result_paths] + [cwd]
    for folder in dict.fromkeys(f.resolve() for f in folders):
        candidate = folder / POLICY_NAME
        if candidate.is_file():
            return candidate
    return None


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
