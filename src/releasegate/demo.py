"""`releasegate demo`: the bundled bank-assistant example, its policy and its reports, written to a folder.

Run again on the same folder, the demo writes its own files again, and only those it can tell are its own and
unchanged: an input equal to the bundled copy, a report whose sha256 is the one the last demo recorded in
``.releasegate-demo.json``. Any other file of the same name (the user's own data, an edited policy, a report
written over) is never overwritten: the demo refuses with one line and writes nothing.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
from importlib import resources
from pathlib import Path

EXAMPLE = "bank-assistant"
INPUTS = ("eval_results.csv", "eval_cases.csv", "releasegate.toml")
REPORTS = ("report.md", "report.json", "report.html", "report.pdf")
MANIFEST = ".releasegate-demo.json"  # what the demo wrote last: file name -> sha256


def example_files() -> dict[str, Path]:
    """Paths of the bundled example's input files inside the installed package."""
    root = resources.files("releasegate") / "examples" / EXAMPLE
    return {name: Path(str(root / name)) for name in INPUTS}


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _recorded(directory: Path) -> dict[str, str]:
    """The sha256 of every file the last demo wrote into ``directory`` (none when it left no manifest)."""
    try:
        data = json.loads((directory / MANIFEST).read_text(encoding="utf-8"))
        files = data.get("files") if isinstance(data, dict) else None
        return {str(k): str(v) for k, v in files.items()} if isinstance(files, dict) else {}
    except (OSError, ValueError):
        return {}


def refuse_foreign_files(directory: Path, names: tuple[str, ...], bundled: dict[str, Path]) -> None:
    """InputError naming the files of ``names`` in ``directory`` that the demo did not write or that changed
    since (a file equal to its bundled copy, or to the sha256 recorded by the last demo, is the demo's own)."""
    from releasegate.errors import InputError

    recorded = _recorded(directory)
    foreign = []
    for name in names:
        path = directory / name
        if not os.path.lexists(path):
            continue
        own = path.is_file() and not path.is_symlink() and (
            _sha256(path) == recorded.get(name) or (name in bundled and _sha256(path) == _sha256(bundled[name])))
        if not own:
            foreign.append(name)
    if foreign:
        them = "it" if len(foreign) == 1 else "them"
        raise InputError(f"{directory} already holds {', '.join(foreign)}, not as the demo wrote {them}; the demo "
                         f"never overwrites a file it did not write or that was changed since: move {them} away, "
                         "or give a new or empty folder")


def _record(directory: Path, names: tuple[str, ...]) -> None:
    """Write the manifest of the files just written (a temporary file renamed into place)."""
    files = {name: _sha256(directory / name) for name in names}
    text = json.dumps({"written_by": "releasegate demo", "files": files}, indent=2) + "\n"
    tmp = directory / f"{MANIFEST}.tmp"
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, directory / MANIFEST)


def write_demo(directory: Path, reports: tuple[str, ...] = REPORTS) -> list[Path]:
    """Copy the example into ``directory`` and write its reports; returns the files written, inputs first."""
    from releasegate.errors import InputError
    from releasegate.load import Source
    from releasegate.load.policy_file import policy_record
    from releasegate.pipeline import run
    from releasegate.policy import load_policy_file, make_policy
    from releasegate.render import rendering, write_reports

    directory = Path(directory)
    # `releasegate demo .` in a project folder must not replace its eval_results.csv or releasegate.toml.
    refuse_foreign_files(directory, (*INPUTS, *reports), example_files())
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
        report = run([Source(Path("eval_results.csv"))], policy, cases=Path("eval_cases.csv"), command_line=command,
                     policy_file=policy_record(Path("releasegate.toml"), found=False))
        write_reports(report, outputs, charts)
    written += [directory / name for name in reports]
    _record(directory, (*INPUTS, *reports))
    return written


RUN_EXAMPLE = ("releasegate-run.toml", "cases.csv")


def write_run_demo(directory: Path) -> list[Path]:
    """Copy the offline ``releasegate run`` example (two fake-provider systems, a case file) into ``directory``;
    a file of the same name is replaced only when it is the bundled copy, unchanged."""
    from releasegate.errors import InputError

    directory = Path(directory)
    root = resources.files("releasegate") / "examples" / "run"
    bundled = {name: Path(str(root / name)) for name in RUN_EXAMPLE}
    refuse_foreign_files(directory, RUN_EXAMPLE, bundled)
    try:
        directory.mkdir(parents=True, exist_ok=True)
        for name, source in bundled.items():
            shutil.copyfile(source, directory / name)
    except OSError as exc:
        raise InputError(f"cannot write the run example to {directory}: {exc.strerror or exc}") from None
    return [directory / name for name in RUN_EXAMPLE]
