"""The command line's options: each one-valued option may be given once (OneValued), and the inputs, columns,
adapter and policy options shared by every command that reads results (report, check, plan, verify)."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from click.core import ParameterSource

from releasegate.load.adapters import FORMATS
from releasegate.load.adapters import OPTIONS as ADAPTER_OPTIONS


# Click keeps the last of `--passed-col a --passed-col b` silently; a user who wrote both meant something the
# tool cannot guess, so a second occurrence of a one-valued option is an error (one line, exit 2) instead.
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
                click.echo(f"releasegate: error[input]: {one_line(message)}", err=True)
                sys.exit(2)
            value = value[0]
        return value, source


def option(*names, **kwargs):
    """click.option with the OneValued class: every option of the command line is built with it."""
    return click.option(*names, cls=OneValued, **kwargs)


def input_options(function, skip: tuple[str, ...] = ()):
    """The options of every command that reads results (report, check, plan): inputs, columns, adapters and
    policy; ``skip`` leaves out the named ones (plan's --seed is its simulation's)."""
    decorators = [
        click.argument("results", nargs=-1, required=True),
        option("--cases", type=click.Path(path_type=Path), help="Case table joined on case_id (category, cluster, input, ...)."),
        option("--gold", help="Human labels of the judged outcomes (release, case_id, label[, run]): the judge is measured and the comparison corrected."),
        option("--baseline", help="The live release (default: the policy's)."),
        option("--baseline-rerun", help="The live release run again on the same cases: churn is measured from it "
               "and the critical test uses it (never a candidate)."),
        option("--candidate", "candidates", multiple=True, help="A candidate to compare (default: every other release)."),
        option("--policy", "policy_path", type=click.Path(path_type=Path),
               help="Policy TOML file; flags win over it (default: releasegate.toml beside the results or here)."),
        option("--no-policy", is_flag=True, help="Use no policy file, even if a releasegate.toml is found."),
        option("--critical", multiple=True,
               help="A critical category: its own exact test (or, with --critical-rule any, any broken case) blocks."),
        option("--critical-rule", type=click.Choice(["test", "any"]),
               help="How a critical category blocks: by its exact test (default) or on any broken case."),
        option("--critical-weight", type=float, help="Weight of each critical category's own test in the one error "
               "budget (default 10; the overall test and each category weigh 1)."),
        option("--not-proven", type=click.Choice(["block", "warn"]), help="What NOT PROVEN does to check: block "
               "(exit 3, the default) or warn (exit 0, the note says it is allowed by the policy)."),
        option("--margin", type=float, help="Non-inferiority margin in pass-rate or score units (0 turns it off)."),
        option("--alpha", type=float, help="Significance level (default 0.05)."),
        option("--correction", type=click.Choice(["discrete-holm", "holm", "hochberg", "bh", "bonferroni", "none"]),
                     help="Multiplicity correction (default discrete-holm)."),
        option("--mcnemar", type=click.Choice(["exact", "midp"]), help="McNemar p used by the gate (default exact)."),
        option("--pass-threshold", type=float, help="Scores at or above this count as passed."),
        option("--min-change", type=float, help="A score case counts as improved or worsened only when it moves by "
               "more than this (default 1% of the score range; the tests read every move)."),
        option("--missing", type=click.Choice(["refuse", "fail", "drop"]), help="Rows without an outcome (default refuse)."),
        option("--allow-missing", is_flag=True, default=None, help="Compare shared cases only when case sets differ."),
        option("--seed", type=int, help="Random seed of every resampling."),
        option("--resamples", "n_resamples", type=int, help="Bootstrap resamples (default 10,000)."),
        option("--title", help="Report title (default: the input's folder name)."),
        option("--case-col", help="Column holding the case id."),
        option("--release-col", help="Column holding the release name."),
        option("--passed-col", help="Column holding pass/fail."),
        option("--score-col", help="Column holding a numeric score."),
        option("--category-col", help="Column holding the case category."),
        option("--cluster-col", help="Column holding the cluster (passage, conversation, template)."),
        option("--run-col", help="Column holding the run (seed / epoch) index."),
        option("--error-col", help="Column holding an error message (a non-empty value marks the cell errored)."),
        option("--latency-col", help="Column holding the latency (default latency_ms, or latency_s in seconds)."),
        option("--latency-unit", type=click.Choice(["ms", "s"]), default="ms", show_default=True,
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
    params = function.__click_params__
    function.__click_params__ = params[:before] + [p for p in params[before:] if p.name not in skip]
    return function
