"""``releasegate run CONFIG.toml``: the command's behaviour, so that cli.py stays a thin parser.

Exit status: 0 every expected cell done, 4 holes remain (the store is valid and resumable: run again), 2 bad
configuration or a run stopped by 401/403 (every further call would fail the same way). With ``--settle``
(run/settle.py) the cells done, the status is the settled verdict's, as ``check``'s: 0 SHIP (or a NOT PROVEN
the policy lets pass), 1 DON'T SHIP, 3 NOT PROVEN; 4 while holes remain, in either phase. Holes have their own
status (they had 3, NOT PROVEN's) so that a CI step gating on ``run --settle`` tells "run again" from "not
proven".

Before anything is called: the ``-o`` table's format and its dependency (pyarrow for Parquet), and that it
is none of the run's inputs (the config, its case file, the store) in a folder that exists and can be
written in, so a run never ends by failing to write, and never overwrites what it read.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from releasegate.errors import InputError, OutputError
from releasegate.model import Decision

if TYPE_CHECKING:
    import pandas as pd

    from releasegate.run import RunResult
    from releasegate.run.config import RunConfig

EXIT_DONE, EXIT_BAD_CONFIG, EXIT_HOLES = 0, 2, 4
EXIT_SHIP, EXIT_DONT_SHIP, EXIT_NOT_PROVEN = 0, 1, 3
TABLE_SUFFIXES = (".parquet", ".csv")


def run_command(config_path: Path, *, dry_run: bool, only: str | None, fresh: bool, output: Path | None,
                echo: Callable[[str], None], progress: bool = True, sheet: Path | None = None,
                labels: int | None = None, settle: bool = False, settle_budget: int | None = None,
                say: Callable[[str], None] | None = None) -> int:
    """``say`` prints the settled verdict (stdout, like check's); ``echo`` everything else (stderr)."""
    from releasegate.run import run_config, summary_line
    from releasegate.run.config import load_config
    from releasegate.run.settle import check_settle_options
    from releasegate.load.store_table import db_path

    check_settle_options(settle=settle, budget=settle_budget, dry_run=dry_run, only=only)
    if output is not None and output.suffix.lower() not in TABLE_SUFFIXES:
        raise OutputError(f"-o {output}: the table is written as {' or '.join(TABLE_SUFFIXES)}")
    config = load_config(config_path)
    if dry_run and fresh:
        raise InputError("--dry-run and --fresh together: a dry run changes nothing, so it cannot start afresh")
    if output is not None and not dry_run:
        check_table_output(output, (*config.inputs(), db_path(config.store)))
    if labels is not None and sheet is None:
        raise InputError("--labels sets the size of the labelling sheet: give --labelling-sheet FILE too")
    if sheet is not None:
        check_sheet_output(sheet, (*config.inputs(), db_path(config.store), *([output] if output else [])))
    try:
        result = run_config(config, dry_run=dry_run, only=only, fresh=fresh, progress=progress, announce=echo)
    except KeyboardInterrupt:
        if dry_run:
            raise
        # Cells are committed as they finish: an interrupted run is a run with holes, and the same command
        # resumes it.
        echo(f"interrupted: the cells already committed are kept in the store ({config.store}); run the same "
             "command again to resume")
        return EXIT_HOLES
    if dry_run:
        echo(f"dry run: {result.plan.describe()}")
        return EXIT_DONE
    stats = result.stats
    assert stats is not None
    if not progress:
        echo(summary_line(stats))
    if output is not None:
        write_table(result.table, output)
        echo(f"wrote {output}")
    if sheet is not None and result.complete:
        from releasegate.run.labelling import DEFAULT_LABELS, labelling_sheet

        rows = labelling_sheet(result.table, DEFAULT_LABELS if labels is None else labels, config.seed)
        write_table(rows, sheet)
        echo(f"wrote {sheet}: {rows['case_id'].nunique()} cases to label on every release (fill the label "
             "column with pass or fail, then give it to report or check with --gold)")
    elif sheet is not None:
        echo(f"no labelling sheet: {result.hole_count} cells are holes; run again to fill them first")
    for line in result.ranking:
        echo(line)
    if stats.stopped:
        raise InputError(stats.stopped)
    if not result.complete:
        shown = "; ".join(h.describe() for h in result.holes[:5])
        more = f" and {len(result.holes) - 5} more" if len(result.holes) > 5 else ""
        echo(f"{len(result.holes)} cells missing or errored ({shown}{more}): run again to resume")
        return EXIT_HOLES
    if settle:
        return settle_command(config, settle_budget, echo, say or echo, progress, output)
    echo(f"complete: {result.plan.expected} cells in {config.store}")
    return EXIT_DONE


def settle_command(config: RunConfig, budget: int | None, echo: Callable[[str], None], say: Callable[[str], None],
                   progress: bool, output: Path | None) -> int:
    """Phase one is complete: look 1, and on NOT PROVEN the second phase and look 2 (run/settle.py)."""
    from releasegate.run import run_config, summary_line
    from releasegate.run.plan import read_cases
    from releasegate.run.settle import settle

    def execute(second: RunConfig) -> RunResult:
        result = run_config(second, progress=progress, announce=echo)
        stats = result.stats
        assert stats is not None  # a run that is not a dry run has its stats
        if not progress:
            echo(summary_line(stats))
        if stats.stopped:
            raise InputError(stats.stopped)
        if not result.complete:
            echo(f"{result.hole_count} cells of the second phase missing or errored: run again with --settle to "
                 "resume (look 1 is read from the first runs again, so nothing is decided twice)")
        elif output is not None:
            write_table(result.table, output)
            echo(f"wrote {output} (every run of the second look)")
        return result

    settled = settle(config, budget=budget, execute=execute, cases=len(read_cases(config.cases_path)),
                     cwd=Path.cwd(), echo=echo)
    if settled is None:
        return EXIT_HOLES
    for candidate, verdict in settled.verdicts.items():
        say(f"{verdict.label}  {candidate} (settled: look 1 {settled.first.verdicts[candidate].label}"
            + ("" if settled.second is None else f", look 2 {settled.second.verdicts[candidate].label}") + ")")
    decision = settled.decision
    if decision is Decision.DONT_SHIP:
        return EXIT_DONT_SHIP
    return EXIT_SHIP if settled.passes else EXIT_NOT_PROVEN


def check_table_output(path: Path, inputs: Iterable[Path]) -> None:
    """The table's folder exists and can be written in, it is not a directory, its dependency is there, and the
    table would overwrite none of the inputs (links included)."""
    if path.suffix.lower() == ".parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise OutputError(f"-o {path}: Parquet needs pyarrow (pip install 'releasegate[parquet]'), or write "
                             ".csv; checked before the run, so nothing was called") from None
    for source in inputs:
        try:
            same = os.path.samefile(path, source)
        except OSError:  # one of them does not exist yet: compare where they would be
            same = Path(path).resolve() == Path(source).resolve()
        if same:
            raise OutputError(f"-o {path} is the run's input {source}; write the table to another name")
    from releasegate.render.output_guard import check_output_places

    check_output_places([path])


def check_sheet_output(path: Path, inputs: Iterable[Path]) -> None:
    """The sheet is CSV, overwrites none of the inputs, and no existing file: it may hold a human's labels."""
    if path.suffix.lower() != ".csv":
        raise OutputError(f"--labelling-sheet {path}: the sheet is written as .csv")
    check_table_output(path, inputs)
    if path.exists():
        raise OutputError(f"--labelling-sheet {path} exists and may hold a human's labels; write the sheet to "
                         "another name or remove that file first")


def write_table(table: pd.DataFrame, path: Path) -> None:
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
            raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None
        if isinstance(exc, ImportError):
            raise OutputError(f"cannot write {path}: parquet needs pyarrow (pip install 'releasegate[parquet]')") from None
        raise
