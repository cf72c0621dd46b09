"""``releasegate run CONFIG.toml``: the command's behaviour, so that cli.py stays a thin parser.

Exit status: 0 every expected cell done, 3 holes remain (the store is valid and resumable), 2 bad
configuration or a run stopped by 401/403 (every further call would fail the same way).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from releasegate.errors import InputError

EXIT_DONE, EXIT_BAD_CONFIG, EXIT_HOLES = 0, 2, 3
TABLE_SUFFIXES = (".parquet", ".csv")


def run_command(config_path: Path, *, dry_run: bool, only: str | None, fresh: bool, output: Path | None,
                echo: Callable[[str], None], progress: bool = True) -> int:
    from releasegate.run import run_config, summary_line
    from releasegate.run.config import load_config

    if output is not None and output.suffix.lower() not in TABLE_SUFFIXES:
        raise InputError(f"-o {output}: the table is written as {' or '.join(TABLE_SUFFIXES)}")
    config = load_config(config_path)
    if dry_run and fresh:
        raise InputError("--dry-run and --fresh together: a dry run changes nothing, so it cannot start afresh")
    result = run_config(config, dry_run=dry_run, only=only, fresh=fresh, progress=progress, announce=echo)
    if dry_run:
        echo(f"dry run: {result.plan.describe()}")
        return EXIT_DONE
    stats = result.stats
    if not progress:
        echo(summary_line(stats))
    if output is not None:
        write_table(result.table, output)
        echo(f"wrote {output}")
    for line in result.ranking:
        echo(line)
    if stats.stopped:
        raise InputError(stats.stopped)
    if result.holes:
        shown = "; ".join(h.describe() for h in result.holes[:5])
        more = f" and {len(result.holes) - 5} more" if len(result.holes) > 5 else ""
        echo(f"{len(result.holes)} cells missing or errored ({shown}{more}): run again to resume")
        return EXIT_HOLES
    echo(f"complete: {result.plan.expected} cells in {config.store}")
    return EXIT_DONE


def write_table(table, path: Path) -> None:
    """Written beside the target and renamed into place: never a partial or clobbered file."""
    parent = path.parent if str(path.parent) else Path(".")
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=parent)
    os.close(handle)
    try:
        if path.suffix.lower() == ".csv":
            table.to_csv(temporary, index=False)
        else:
            table.to_parquet(temporary, index=False)
        os.replace(temporary, path)
    except BaseException as exc:
        if os.path.exists(temporary):
            os.unlink(temporary)
        if isinstance(exc, OSError):
            raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None
        if isinstance(exc, ImportError):
            raise InputError(f"cannot write {path}: parquet needs pyarrow (pip install 'releasegate[parquet]')") from None
        raise
