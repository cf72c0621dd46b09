"""`releasegate demo`: the bundled bank-assistant example, its policy and its reports, written to a folder."""

from __future__ import annotations

import contextlib
import os
import shutil
from importlib import resources
from pathlib import Path

EXAMPLE = "bank-assistant"
INPUTS = ("eval_results.csv", "eval_cases.csv", "releasegate.toml")
REPORTS = ("report.md", "report.json", "report.html", "report.pdf")


def example_files() -> dict[str, Path]:
    """Paths of the bundled example's input files inside the installed package."""
    root = resources.files("releasegate") / "examples" / EXAMPLE
    return {name: Path(str(root / name)) for name in INPUTS}


def write_demo(directory: Path, reports: tuple[str, ...] = REPORTS) -> list[Path]:
    """Copy the example into ``directory`` and write its reports; returns the files written, inputs first."""
    from releasegate.errors import InputError
    from releasegate.load import Source
    from releasegate.pipeline import run
    from releasegate.policy import load_policy_file, make_policy
    from releasegate.render import rendering, write_reports

    directory = Path(directory)
    # `releasegate demo .` in a project folder must not replace its eval_results.csv or releasegate.toml.
    present = [name for name in (*INPUTS, *reports) if os.path.lexists(directory / name)]
    if present:
        raise InputError(f"{directory} already holds {', '.join(present)}; the demo never overwrites files: "
                         "give it a new or empty folder")
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create {directory}: {exc.strerror or exc}") from None
    written = []
    for name, source in example_files().items():
        shutil.copyfile(source, directory / name)
        written.append(directory / name)
    outputs = [Path(name) for name in reports]
    command = ("releasegate report eval_results.csv --cases eval_cases.csv --policy releasegate.toml "
               + " ".join(f"-o {name}" for name in reports))
    # Run inside the folder so the report records the short relative paths a reader can rerun with.
    with contextlib.chdir(directory), rendering(outputs) as charts:
        policy = make_policy(load_policy_file(Path("releasegate.toml")))
        report = run([Source(Path("eval_results.csv"))], policy, cases=Path("eval_cases.csv"), command_line=command)
        # The PDF is the audit variant, carrying the JSON: `releasegate verify report.pdf ...` reads it back.
        write_reports(report, outputs, charts, pdf_variant="pdf/a-3b")
    written += [directory / name for name in reports]
    return written


RUN_EXAMPLE = ("releasegate-run.toml", "cases.csv")


def write_run_demo(directory: Path) -> list[Path]:
    """Copy the offline ``releasegate run`` example (two fake-provider systems, a case file) into ``directory``."""
    from releasegate.errors import InputError

    directory = Path(directory)
    try:
        directory.mkdir(parents=True, exist_ok=True)
        root = resources.files("releasegate") / "examples" / "run"
        for name in RUN_EXAMPLE:
            shutil.copyfile(Path(str(root / name)), directory / name)
    except OSError as exc:
        raise InputError(f"cannot write the run example to {directory}: {exc.strerror or exc}") from None
    return [directory / name for name in RUN_EXAMPLE]
