"""The command line's options: each one-valued option may be given once (OneValued), and the inputs, columns,
adapter and policy options shared by every command that reads results (report, check, plan, verify)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click
from click.core import ParameterSource

from releasegate.kinds import LATENCY_UNITS
from releasegate.load.adapters import FORMATS
from releasegate.load.adapters import OPTIONS as ADAPTER_OPTIONS
from releasegate.policy.keys import KEYS, Key

# A command function as click decorates it.
Command = TypeVar("Command", bound=Callable[..., Any])


# Click keeps the last of `--passed-col a --passed-col b` silently; a user who wrote both meant something the
# tool cannot guess, so a second occurrence of a one-valued option is an error (one line, exit 2) instead.
class OneValued(click.Option):
    """An option that takes one value and may be given at most once."""

    def add_to_parser(self, parser: click.parser._OptionParser, ctx: click.Context) -> None:
        if self.multiple or self.is_flag or self.count:
            super().add_to_parser(parser, ctx)
            return
        # Collected as a list so that consume_value can see how often it was given.
        parser.add_option(obj=self, opts=self.opts, dest=self.name, action="append", nargs=self.nargs)

    def consume_value(self, ctx: click.Context, opts: Any) -> tuple[Any, ParameterSource]:
        value, source = super().consume_value(ctx, opts)
        if source is ParameterSource.COMMANDLINE and isinstance(value, list) \
                and not (self.multiple or self.is_flag or self.count):
            if len(value) > 1:
                from releasegate.text import one_line

                shown = ", ".join(repr(v) for v in value)
                message = f"{self.opts[-1]} takes one value and was given {len(value)} times ({shown}); give it once"
                click.echo(f"releasegate: error[input]: {one_line(message)}", err=True)
                sys.exit(2)
            value = value[0]
        return value, source


def option(*names: str, **kwargs: Any) -> Callable[[Command], Command]:
    """click.option with the OneValued class: every option of the command line is built with it."""
    return click.option(*names, cls=OneValued, **kwargs)


def _default_text(row: Key) -> str:
    if row.shown:
        return row.shown.replace("`", "")
    return "none" if row.default is None else str(row.default).lower() if isinstance(row.default, bool) \
        else str(row.default)


def policy_option(row: Key) -> Callable[[Command], Command]:
    """The flag of one policy key, from its row of the table (releasegate.policy.keys): its type, its choices
    (the kinds.py tuple), repeatable for names, on/off for a switch; the help is the row's doc line."""
    kind = row.value.flag
    help_text = f"{row.doc[0].upper()}{row.doc[1:]} (default: {_default_text(row)}).".replace("`", "")
    if kind == "names":
        return option(row.flag, row.name, multiple=True, help=help_text)
    if kind == "switch":
        return option(row.flag, row.name, is_flag=True, default=None, help=help_text)
    parsed = click.Choice(row.value.options) if kind == "choice" else kind  # type: ignore[attr-defined]
    return option(row.flag, row.name, type=parsed, help=help_text)


def policy_options() -> list[Callable[[Command], Command]]:
    """Every policy key that has a flag, in the table's order."""
    return [policy_option(row) for row in KEYS if row.flag]


def input_options(function: Command, skip: tuple[str, ...] = ()) -> Command:
    """The options of every command that reads results (report, check, plan): inputs, columns, adapters and
    policy; ``skip`` leaves out the named ones (plan's --seed is its simulation's)."""
    decorators = [
        click.argument("results", nargs=-1, required=True),
        option("--cases", type=click.Path(path_type=Path), help="Case table joined on case_id (category, cluster, input, ...)."),
        option("--policy", "policy_path", type=click.Path(path_type=Path),
               help="Policy TOML file; flags win over it (default: releasegate.toml beside the results)."),
        option("--no-policy", is_flag=True, help="Use no policy file, even if a releasegate.toml is found."),
        *policy_options(),
        option("--case-col", help="Column holding the case id."),
        option("--release-col", help="Column holding the release name."),
        option("--passed-col", help="Column holding pass/fail."),
        option("--score-col", help="Column holding a numeric score."),
        option("--category-col", help="Column holding the case category."),
        option("--cluster-col", help="Column holding the cluster (passage, conversation, template)."),
        option("--run-col", help="Column holding the run (seed / epoch) index."),
        option("--error-col", help="Column holding an error message (a non-empty value marks the cell errored)."),
        option("--latency-col", help="Column holding the latency (default latency_ms, or latency_s in seconds)."),
        option("--latency-unit", type=click.Choice(LATENCY_UNITS), default="ms", show_default=True,
               help="Unit of the latency column."),
        option("--wide", is_flag=True, help="One row per case, one outcome column per release (--release-cols)."),
        option("--release-cols", help="With --wide: the release columns, comma-separated (r1,r2)."),
        option("--format", "input_format", type=click.Choice(FORMATS), default="auto", show_default=True,
                     help="Input format (detected from the file by default)."),
        *(option(o.flag, o.name, type=click.Choice(o.choices) if o.choices else None, help=o.help,
                 multiple=o.repeatable)
          for o in ADAPTER_OPTIONS),
        option("--drop-holes", is_flag=True, help="A run store with missing or errored cells: compare "
               "without those cases (listed in the notes) instead of refusing."),
        option("--debug", is_flag=True, help="Show the traceback of an error."),
    ]
    before = len(getattr(function, "__click_params__", ()))  # the command's own options, kept whatever skip says
    for decorator in reversed(decorators):
        function = decorator(function)
    params = getattr(function, "__click_params__")
    setattr(function, "__click_params__", params[:before] + [p for p in params[before:] if p.name not in skip])
    return function
