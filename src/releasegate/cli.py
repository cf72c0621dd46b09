"""The command line: parses options and calls the library. Nothing heavy is imported before a command runs."""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn, ParamSpec, TypeVar

import click
from click.core import ParameterSource

from releasegate import __version__
from releasegate.cli_options import OneValued, input_options, option  # noqa: F401 (OneValued: tests build with it)
from releasegate.plan.options import PLAN_OPTIONS, PLAN_SKIPS
from releasegate.process import cyclic_gc_paused, say
from releasegate.render import SUFFIXES, formats_help

Arguments = ParamSpec("Arguments")
Result = TypeVar("Result")

EXIT_SHIP, EXIT_DONT_SHIP, EXIT_BAD_INPUT, EXIT_NOT_PROVEN = 0, 1, 2, 3


def exit_status(report: Any) -> int:
    """check's exit status: 1 if any candidate is DON'T SHIP, else 3 if any is NOT PROVEN and the policy blocks
    on it (``not_proven = "block"``, the default), else 0."""
    if report.any_dont_ship:
        return EXIT_DONT_SHIP
    return EXIT_SHIP if report.passes else EXIT_NOT_PROVEN


def _fail(message: str, code: str = "input") -> NoReturn:
    """One line on stderr, ``releasegate: error[<code>]: <message>`` (the kinds of releasegate.errors), exit 2."""
    from releasegate.text import one_line

    say(f"releasegate: error[{code}]: {one_line(message)}", err=True)
    sys.exit(EXIT_BAD_INPUT)


def guarded(function: Callable[Arguments, Result]) -> Callable[Arguments, Result]:
    """Turn InputError (and any unexpected error) into one line on stderr and exit status 2."""

    @functools.wraps(function)
    def wrapper(*args: Arguments.args, **kwargs: Arguments.kwargs) -> Result:
        debug = kwargs.get("debug", False)
        try:
            return function(*args, **kwargs)
        except SystemExit:
            raise
        except KeyboardInterrupt:
            _fail("interrupted")
        except Exception as exc:
            if debug:
                raise
            from releasegate.errors import InputError

            if isinstance(exc, InputError):
                _fail(str(exc), exc.code)
            first = " ".join(str(exc).split())[:300]
            _fail(f"internal error ({type(exc).__name__}: {first}); rerun with --debug and report it", "internal")

    return wrapper


def read_inputs(kw: dict[str, Any]) -> dict[str, Any]:
    """Options -> what the pipeline reads (arguments.read_inputs): sources, policy, adapter options, metrics and
    the policy file."""
    from releasegate.arguments import read_inputs as read

    return read(kw)


def build_report(kw: dict[str, Any]) -> Any:
    """Options -> Report, through the library's one pipeline."""
    from releasegate.arguments import run_arguments
    from releasegate.pipeline import run

    return run(**run_arguments(kw))


def _check_not_inputs(paths: list[Path], kw: dict[str, Any]) -> None:
    """No output may be an input (arguments.input_paths), nor a file inside a directory input."""
    from releasegate.arguments import input_paths
    from releasegate.render import companion_paths
    from releasegate.render.output_guard import check_outputs_are_not_inputs

    check_outputs_are_not_inputs([*paths, *companion_paths(paths)], input_paths(kw))


class OneLineUsage(click.ClickException):
    """A usage error (an unknown option, a flag's value of the wrong type) as the one line every bad input gets."""

    exit_code = EXIT_BAD_INPUT

    def show(self, file: Any = None) -> None:
        from releasegate.text import one_line

        say(f"releasegate: error[input]: {one_line(self.message)}", err=True)


class Commands(click.Group):
    """The command group: click's several-line usage errors become one line and exit status 2."""

    @staticmethod
    def _one_line(error: click.UsageError) -> click.ClickException:
        if type(error).__name__ == "NoArgsIsHelpError":  # no arguments at all: click shows the help, as asked
            return error
        words = error.ctx.command_path.split()[1:] if error.ctx is not None else []
        command = " ".join(["releasegate", *words])  # the program's name whatever it was started as
        return OneLineUsage(f"{error.format_message()} (see {command} --help)")

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as error:
            raise self._one_line(error) from error.__cause__

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.UsageError as error:
            raise self._one_line(error) from error.__cause__


@click.group(cls=Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="releasegate")
def main() -> None:
    """Decide whether a release may ship: paired statistics on per-case eval results, written as a release note.

    \b
    releasegate report results.csv --cases cases.csv --baseline r1 -o note.html -o note.md
    releasegate check  results.csv --policy releasegate.toml      (exit 0 ship, 1 don't ship, 3 not proven,
                                                                   2 bad input)
    releasegate demo   [DIR]                                      (the bundled example and its reports)
    releasegate run    CONFIG.toml                                (call the systems into a store; resumable)
    releasegate verify note.json results.csv --cases cases.csv    (does an archived note follow from its inputs?)
    releasegate history archive/ -o history.html                  (releases over time, from archived notes)
    """


@main.command()
@input_options
@option("-o", "--output", "outputs", multiple=True, type=click.Path(path_type=Path),
              help=f"Output file, repeatable; the format comes from the suffix: {formats_help()}.")
@option("--archive", type=click.Path(path_type=Path),
        help="Also write the note's JSON and PDF/A-3b into a new dated folder of this one (verify, history).")
@option("--paper", type=click.Choice(["A4", "Letter"], case_sensitive=False), default="A4", show_default=True,
              help="PDF paper size.")
@option("--pdf-variant", type=click.Choice(["pdf/a-3b"]), help="PDF/A-3b with the JSON analysis attached.")
@option("--interactive", is_flag=True, help="HTML: add one inline Vega bundle for tooltips.")
@option("--appendix", is_flag=True, help="PDF: end with every case listing in full, both answers shown.")
@option("--comment", type=click.Path(path_type=Path),
        help="Also write the pull-request comment (Markdown): verdicts, reasons in plain words, the worst cases.")
@option("--comment-link", metavar="URL", help="Where the comment says the full note is (the run's artifacts).")
@option("--previous", type=click.Path(path_type=Path), metavar="NOTE",
        help="The JSON note of an earlier comparison of the same baseline and candidates: this one is its next "
             "look, its regression tests read at what the earlier looks left unspent (docs/methods.md).")
@guarded
def report(outputs: tuple[Path, ...], archive: Path | None, paper: str, pdf_variant: str | None, interactive: bool,
           appendix: bool, comment: Path | None, comment_link: str | None, debug: bool, **kw: Any) -> None:
    """Write the release note in every format asked for with -o (and --archive, --comment)."""
    from releasegate.render import check_output_paths, rendering, write_reports

    paths = list(outputs)
    if not paths and archive is None and comment is None:
        _fail(f"give an output with -o PATH ({', '.join(SUFFIXES)}), --comment FILE or --archive DIR")
    check_output_paths(paths, comment)
    _check_not_inputs(paths + ([comment] if comment else []), kw)
    writer: Callable[..., list[Path] | None] = write_reports
    if archive is not None:
        from releasegate.audit.archive import check_archive, write_archived

        check_archive(archive)
        writer = functools.partial(write_archived, directory=archive)  # returns the archive's files
    with rendering(paths + [Path("note.pdf")] * (archive is not None)) as charts, cyclic_gc_paused():
        result = build_report(kw)
        archived = writer(result, paths, charts=charts, paper=paper, pdf_variant=pdf_variant,
                          interactive=interactive, appendix=appendix, comment=comment,
                          comment_link=comment_link) or []
    from releasegate.text import one_line

    if kw.get("found_policy"):
        say(one_line(kw["found_policy"]), err=True)
    for verdict in result.verdicts:  # release names come from the input: one line each, controls shown
        say(f"{verdict.label:<10}  {one_line(verdict.candidate)}")
    from releasegate.render.console import inputs, not_judged

    for line in not_judged(result) + inputs(result):
        say(line)
    for path in [*paths, *([comment] if comment else []), *archived]:
        say(f"wrote {path}", err=True)


@main.command()
@input_options
@option("-o", "--output", "outputs", multiple=True, type=click.Path(path_type=Path),
              help=f"Also write the report, repeatable; the format comes from the suffix: {formats_help()}.")
@option("--paper", type=click.Choice(["A4", "Letter"], case_sensitive=False), default="A4", show_default=True,
              help="PDF paper size.")
@option("--pdf-variant", type=click.Choice(["pdf/a-3b"]), help="PDF/A-3b with the JSON analysis attached.")
@option("--appendix", is_flag=True, help="PDF: end with every case listing in full, both answers shown.")
@option("--no-step-summary", is_flag=True,
              help="Do not append the verdict to $GITHUB_STEP_SUMMARY (done by default when it is set).")
@option("--comment", type=click.Path(path_type=Path),
        help="Also write the pull-request comment (Markdown): verdicts, reasons in plain words, the worst cases.")
@option("--comment-link", metavar="URL", help="Where the comment says the full note is (the run's artifacts).")
@option("--previous", type=click.Path(path_type=Path), metavar="NOTE",
        help="The JSON note of an earlier comparison of the same baseline and candidates: this one is its next "
             "look, its regression tests read at what the earlier looks left unspent (docs/methods.md).")
@guarded
def check(outputs: tuple[Path, ...], paper: str, pdf_variant: str | None, appendix: bool, no_step_summary: bool,
          comment: Path | None, comment_link: str | None, debug: bool, **kw: Any) -> None:
    """The CI gate: a short verdict on stdout; exit 0 if every candidate may ship, 1 if any is DON'T SHIP, 3 if
    any is NOT PROVEN (the data cannot show it no worse; 0 with --not-proven warn), 2 on bad input.

    In GitHub Actions each verdict in plain words, then the rules collapsed, is appended to the job summary.
    """
    paths = list(outputs)
    if paths or comment:
        from releasegate.render import check_output_paths, rendering, write_reports

        check_output_paths(paths, comment)
        _check_not_inputs(paths + ([comment] if comment else []), kw)
        with rendering(paths) as charts, cyclic_gc_paused():
            result = build_report(kw)
            write_reports(result, paths, charts, paper=paper, pdf_variant=pdf_variant, appendix=appendix,
                          comment=comment, comment_link=comment_link)
    else:
        with cyclic_gc_paused():
            result = build_report(kw)
    from releasegate.text import one_line

    if kw.get("found_policy"):
        say(one_line(kw["found_policy"]), err=True)
    from releasegate.render.console import verdict_lines

    for line in verdict_lines(result):
        say(line)
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary and not no_step_summary:
        _append_summary(result, Path(summary), kw)
    for path in paths:
        say(f"wrote {path}", err=True)
    sys.exit(exit_status(result))


def _append_summary(result: Any, path: Path, kw: dict[str, Any]) -> None:
    """A lost job summary must not change the gate's verdict: warn and carry on. Nothing is appended to an input."""
    from releasegate.errors import OutputError
    from releasegate.render.summary import append_step_summary

    try:
        _check_not_inputs([path], kw)
    except OutputError as exc:
        say(f"releasegate: warning: not appended to $GITHUB_STEP_SUMMARY: {exc}", err=True)
        return
    try:
        append_step_summary(result, path)
    except OSError as exc:
        say(f"releasegate: warning: cannot append to $GITHUB_STEP_SUMMARY ({path}): {exc.strerror or exc}",
                   err=True)


@main.command(name="run")
@click.argument("config", type=click.Path(path_type=Path))
@option("--dry-run", is_flag=True, help="Print done / stale / errored / new cells and the calls a run would make.")
@option("--only", help="Call only this system (release); the others' cells stay as they are.")
@option("--fresh", is_flag=True, help="Discard the store and run every cell again.")
@option("-o", "--output", type=click.Path(path_type=Path), help="Also write the tidy table (.parquet or .csv).")
@option("--labelling-sheet", "sheet", type=click.Path(path_type=Path),
        help="Also write a labelling sheet (.csv): sampled cases with every release's answer and a label column "
             "to fill, read back with --gold.")
@option("--labels", type=int, help="Cases on the labelling sheet (default 150).")
@option("--settle", is_flag=True, help="On NOT PROVEN, run the two-phase design's extra runs and decide again "
        "(docs/run.md); --settle-budget CALLS caps their calls.")
@option("--settle-budget", type=int, default=None, metavar="CALLS",
        help="With --settle: at most CALLS system calls for the extra runs (default: the design's 4 more runs).")
@option("--debug", is_flag=True, help="Show the traceback of an error.")
@guarded
def run_systems(config: Path, dry_run: bool, only: str | None, fresh: bool, output: Path | None, sheet: Path | None,
                labels: int | None, settle: bool, settle_budget: int | None, debug: bool) -> None:
    """Call every system on every case for every run, score the outputs, keep them in the store (resumable).

    Exit 0 when every cell is done, 4 when holes remain (run again to resume), 2 for bad configuration.
    With --settle: 0 SHIP, 1 DON'T SHIP, 3 NOT PROVEN, as check (4 while holes remain).
    """
    from releasegate.run.command import run_command

    sys.exit(run_command(config, dry_run=dry_run, only=only, fresh=fresh, output=output, sheet=sheet,
                         labels=labels, echo=lambda line: say(line, err=True), settle=settle,
                         settle_budget=settle_budget, say=say))


def _options(table: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    return lambda f: functools.reduce(lambda g, o: option(*o[0], **o[1])(g), reversed(table), f)


@main.command(name="plan")
@click.argument("results", nargs=-1)
@functools.partial(input_options, skip=PLAN_SKIPS)
@_options(PLAN_OPTIONS)
@guarded
def plan_suite(results: tuple[str, ...], debug: bool, **kw: Any) -> None:
    """How often this suite's gate says SHIP, NOT PROVEN or DON'T SHIP, harmless or regressed (simulated)."""
    from releasegate.plan.command import plan_command

    if kw.get("output"):  # refused before the simulation, as report refuses before the analysis
        from releasegate.render.output_guard import check_output_places

        check_output_places(list(kw["output"]))
        _check_not_inputs(list(kw["output"]), {**kw, "results": results})
    inputs = read_inputs({**kw, "results": results})
    if kw.get("found_policy"):
        say(kw["found_policy"], err=True)
    sys.exit(plan_command(tuple(results), kw, echo=say, **inputs))


@main.command()
@click.argument("note", type=click.Path(path_type=Path))
@input_options
@click.pass_context
@guarded
def verify(ctx: click.Context, /, note: Path, debug: bool, **kw: Any) -> None:
    """Rerun a note (.json, or .pdf written with --pdf-variant pdf/a-3b) from its inputs and compare every figure.

    The note's policy and reading of the inputs are used; flags given win. Exit 0 reproduced, 1 differs (each
    difference listed: input hashes, verdicts, cases, figures by JSON path), 2 bad input.
    """
    from releasegate.arguments import run_arguments
    from releasegate.audit.notes import read_note
    from releasegate.audit.verify import verification_lines, verify

    for name in ("input_format", "latency_unit"):  # their defaults stand for "as the note recorded"
        if ctx.get_parameter_source(name) is ParameterSource.DEFAULT:
            kw[name] = None
    recorded = read_note(note)
    with cyclic_gc_paused():  # the rerun is a report's run, and its comparison walks two notes' acyclic trees
        result = verify(recorded, **run_arguments(kw, recorded))
    for line in verification_lines(result):
        say(line)
    sys.exit(result.exit_code)


@main.command()
@click.argument("notes", nargs=-1, required=True, type=click.Path(path_type=Path))
@option("-o", "--output", "outputs", multiple=True, required=True, type=click.Path(path_type=Path),
        help="history.html, history.md or history.json (the suffix says which). Repeatable.")
@option("--debug", is_flag=True, help="Show the traceback of an error.")
@guarded
def history(notes: tuple[Path, ...], outputs: tuple[Path, ...], debug: bool) -> None:
    """Releases over time from archived notes (folders, .json, PDF/A-3b): pass rates, verdicts, costs, categories."""
    from releasegate.audit.history_render import history_command

    for line in history_command(list(notes), list(outputs)):
        say(line, err=True)


@main.command()
@click.argument("directory", required=False, default="releasegate-demo", type=click.Path(path_type=Path))
@option("--run", "run_example", is_flag=True,
        help="Instead: the offline `releasegate run` example (two fake-provider systems and a case file).")
@option("--debug", is_flag=True, help="Show the traceback of an error.")
@guarded
def demo(directory: Path, run_example: bool, debug: bool) -> None:
    """Write the bundled bank-assistant example, its policy and its reports into DIRECTORY."""
    if run_example:
        from releasegate.demo import write_run_demo

        written = write_run_demo(directory)
        say(f"Wrote the run example to {directory}/; from the systems to a release note:")
        say(f"  releasegate run {written[0]}")
        say(f"  releasegate check {directory}/store --baseline r1-live")
        say(f"  releasegate report {directory}/store --baseline r1-live -o note.html -o note.md")
        return
    from releasegate.demo import write_demo

    written = write_demo(directory)
    say(f"Wrote the bank-assistant example to {directory}/:")
    for path in written:
        say(f"  {path}")
    say("Open the .html report in a browser, or read the .md one; the .json holds every figure.")
    say(f"Check a note against its inputs: releasegate verify {directory}/report.pdf "
               f"{directory}/eval_results.csv --cases {directory}/eval_cases.csv")


def entry() -> None:
    """The console script: run the command, then end the process without the interpreter's teardown.

    Freeing every object of pandas, WeasyPrint and the report one by one takes 0.1 s after a Markdown report
    and 0.2 s after a PDF, which the operating system frees anyway. By then every output has been written,
    flushed and renamed (render.write_reports) and any chart worker has ended; stdout and stderr are flushed
    here. RELEASEGATE_FULL_EXIT=1 exits normally (e.g. under coverage, whose atexit hook must run).
    """
    try:
        main(prog_name="releasegate")
        code: str | int | None = 0
    except SystemExit as exc:
        code = exc.code
    if os.environ.get("RELEASEGATE_FULL_EXIT"):
        sys.exit(code)
    if code is not None and not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass  # a reader that closed the pipe early (| head) does not change the verdict's exit status
    os._exit(code or 0)


if __name__ == "__main__":  # pragma: no cover
    entry()
