"""Click option classes of the command line: a one-valued option is one-valued.

Click keeps the last of ``--passed-col a --passed-col b`` silently; a user who wrote both meant something
the tool cannot guess, so the second occurrence is an error (one line, exit 2) instead.
"""

from __future__ import annotations

import sys

import click
from click.core import ParameterSource


class OneValued(click.Option):
    """An option that takes one value and may be given at most once."""

    def add_to_parser(self, parser, ctx) -> None:
        if self.multiple or self.is_flag or self.count:
            super().add_to_parser(parser, ctx)
            return
        # Collected as a list so that consume_value can see how often it was given.
        parser.add_option(obj=self, opts=self.opts, dest=self.name, action="append", nargs=self.nargs)

    def consume_value(self, ctx, opts):
        value, source = super().consume_value(ctx, opts)
        if source is ParameterSource.COMMANDLINE and isinstance(value, list) \
                and not (self.multiple or self.is_flag or self.count):
            if len(value) > 1:
                from releasegate.text import one_line

                shown = ", ".join(repr(v) for v in value)
                message = f"{self.opts[-1]} takes one value and was given {len(value)} times ({shown}); give it once"
                click.echo(f"releasegate: error: {one_line(message)}", err=True)
                sys.exit(2)
            value = value[0]
        return value, source


def option(*names, **kwargs):
    """click.option with the OneValued class: every option of the command line is built with it."""
    return click.option(*names, cls=OneValued, **kwargs)
