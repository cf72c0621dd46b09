"""The Python API for notebooks: ``releasegate.compare(results, baseline=..., policy=...)``.

It runs the same pipeline as the command line (load -> validate -> analyze -> decide) and returns a
:class:`ReleaseComparison` that shows itself in Jupyter (verdicts and tables) and writes every report format.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from releasegate.errors import InputError
from releasegate.model import Analysis, CandidateVerdict, Decision, Report
from releasegate.policy import Policy

if TYPE_CHECKING:  # pandas, the loading and the plan are imported by the calls that need them
    import pandas as pd

    from releasegate.load import AdapterOptions, LoadedResults
    from releasegate.plan.suite import SuitePlan

SHAPE_KEYS = ("wide", "release_cols", "latency_unit")  # input shapes (load/shapes.py), beside the adapters'


@dataclasses.dataclass(frozen=True)
class ReleaseComparison:
    """The result of :func:`compare`: the Report (a section per metric, the verdicts, provenance) and its
    renderings."""

    report: Report

    @property
    def analysis(self) -> Analysis:
        """The analysis of the one metric gated; with several, ``report.section(NAME).analysis``."""
        return self.report.analysis

    @property
    def metrics(self) -> tuple[str, ...]:
        """The metrics gated, in order (one: the outcome column, passed or score, unless named)."""
        return self.report.metrics

    @property
    def verdicts(self) -> tuple[CandidateVerdict, ...]:
        """One verdict per candidate over every metric; each names the metrics that block (``blocking``) and
        holds each metric's own verdict (``by_metric``, each with its ``metric``)."""
        return self.report.verdicts

    @property
    def ship(self) -> bool:
        """True when every candidate's verdict is SHIP (a NOT PROVEN one is not, whatever the policy says)."""
        return self.report.ship_all

    @property
    def decision(self) -> Decision:
        """The gate's verdict over the candidates (a :class:`releasegate.model.Decision`): DON'T SHIP if any is,
        else NOT PROVEN if any is, else SHIP."""
        return self.report.decision

    @property
    def passes(self) -> bool:
        """True when ``releasegate check`` would exit 0: every candidate SHIPs, or the rest are NOT PROVEN and the
        policy says ``not_proven = "warn"``."""
        return self.report.passes

    def verdict(self, candidate: str) -> CandidateVerdict:
        """The verdict of one candidate, by name."""
        for verdict in self.verdicts:
            if verdict.candidate == candidate:
                return verdict
        names = ", ".join(v.candidate for v in self.verdicts)
        raise KeyError(f"no candidate {candidate!r}; candidates: {names}")

    def to_markdown(self) -> str:
        """The GitHub-flavoured Markdown note, the same text as ``releasegate report -o note.md``."""
        from releasegate.render.markdown import render_markdown

        return render_markdown(self.report)

    def to_json(self) -> str:
        """The JSON analysis (``schema_version`` first), the same text as ``-o note.json``."""
        from releasegate.render.json_out import render_json

        return render_json(self.report)

    def to_html(self, **options: Any) -> str:
        """The self-contained HTML report (``-o note.html``); options as ``render_html`` (e.g. interactive=True)."""
        from releasegate.render import render

        return render(self.report, ".html", **options).decode("utf-8")

    def to_pdf(self, path: str | os.PathLike[str], **options: Any) -> Path:
        """Write the PDF report to ``path`` atomically (options: paper="Letter", pdf_variant="pdf/a-3b")."""
        return self.save(path, **options)[0]

    def save(self, *paths: str | os.PathLike[str], **options: Any) -> list[Path]:
        """Write the report in every format named by the paths' suffixes, all or nothing (like ``-o``)."""
        from releasegate.render import write_reports

        targets = [Path(p) for p in paths]
        write_reports(self.report, targets, **options)
        return targets

    def to_frame(self) -> pd.DataFrame:
        """One row per candidate, metric and comparison (overall, then each category): a pandas DataFrame, with
        the candidate's cost and latency ratios (and intervals) on its rows when the data has costs.
        ``frame.attrs["columns"]`` says what the p-value and ratio columns are: ``p_adjusted`` is the one-sided
        "worse" p adjusted over the family (the gate's); ``p_value_adjusted`` the two-sided one."""
        from releasegate.render.frames import comparisons_frame

        return comparisons_frame(self.report)

    def cases(self, kind: str | None = None, candidate: str | None = None, metric: str | None = None, *,
              search: str | None = None, category: str | None = None, change: str | None = None,
              sort: str | None = None) -> pd.DataFrame:
        """The cases of one kind, "broken" (the default), "fixed", "both_fail" or "errored", as a DataFrame: one
        row per case, candidate and metric (or of ``metric`` only), with both releases' answers ("output (r1)",
        "output (r2)") side by side.

        With ``search``, ``category``, ``change`` or ``sort``: the rows the HTML note's case explorer shows for
        the same view instead (render/explorer_query.py): ``search`` words each found in the case id, category,
        metadata or either answer (any case); ``change`` one of "broken", "fixed", "errored", "unchanged"
        ("worsened", "improved" for scores); ``sort`` "note", "category", "score", "latency" or "cost";
        ``candidate`` and ``metric`` as above. ``change="all"`` with no other filter: every row it holds."""
        if search is None and category is None and change is None and sort is None:
            from releasegate.render.frames import cases_frame

            return cases_frame(self.report, kind or "broken", candidate, metric)
        if kind is not None:
            raise ValueError("kind names one of the note's case lists; with search, category, change or sort the "
                             "explorer's rows are filtered: give change= instead of kind")
        from releasegate.render.frames import explorer_frame

        return explorer_frame(self.report, search or "", candidate, category, None if change == "all" else change,
                              metric, sort or "note")

    def _repr_html_(self) -> str:
        """Jupyter's view: verdicts, summary, rules, categories and broken cases (render/notebook.py)."""
        from releasegate.render.notebook import render_notebook

        return render_notebook(self.report)

    def __repr__(self) -> str:
        verdicts = "; ".join(f"{v.label} {v.candidate}" for v in self.verdicts)
        return f"<ReleaseComparison baseline={self.report.sections[0].analysis.baseline!r}: {verdicts}>"


def compare(
    results: Any,
    *,
    baseline: str | None = None,
    candidates: Sequence[str] | str | None = None,
    cases: Any = None,
    policy: Policy | Mapping[str, Any] | str | os.PathLike[str] | None = None,
    **overrides: Any,
) -> ReleaseComparison:
    """Compare candidate releases with the baseline, from a notebook: the same plan and rules as the CLI.

    ``results``: a tidy pandas DataFrame; a path (str or Path; ``NAME=path`` names its release); a list of
    them; or a mapping ``{release name: DataFrame or path}``. ``cases``: a case table joined on case_id, a file
    or a DataFrame.
    ``policy``: a :class:`~releasegate.policy.Policy`, a dict of policy keys, or a TOML file. Keyword
    ``overrides`` win over the policy, like flags: any policy key (``critical=["Fraud"]``, ``margin=0.03``,
    ``alpha``, ``correction``, ``columns={"passed": "ok"}``, ...) and the adapter options ``format``,
    ``scorer``, ``filter_name``, ``category_field``, ``release_by``. ``metric`` names the metric(s) to gate, as
    ``--metric`` does: a name or a list (tidy columns, a long layout's ``metric`` column, Inspect scorers,
    promptfoo named metrics, lm-eval metrics); every one must pass for a candidate to ship.
    Methods: docs/methods.md (McNemar exact, Newcombe method 10, Holm; Fagerland et al. 2013).
    Bad input raises :class:`releasegate.errors.InputError`.
    """
    from releasegate.load.adapters import OPTIONS
    from releasegate.load.results import AdapterOptions
    from releasegate.pipeline import loading_record, run_loaded

    metric = overrides.pop("metric", None)
    metrics = _metric_names(metric)
    adapter = {key: overrides.pop(key) for key in ("format", *(o.name for o in OPTIONS if not o.repeatable))
               if key in overrides}
    if cases is not None and not isinstance(cases, (str, os.PathLike)) and type(cases).__name__ != "DataFrame":
        raise InputError(f"cases must be a file path or a DataFrame, got {type(cases).__name__}")
    shape = {key: overrides.pop(key) for key in SHAPE_KEYS if key in overrides}
    resolved = _policy(policy, baseline=baseline, candidates=candidates, **overrides)
    release_cols = shape.get("release_cols") or ()
    if isinstance(release_cols, str):
        release_cols = release_cols.split(",")
    options = AdapterOptions(format=adapter.get("format") or "auto",
                             values={k: v for k, v in adapter.items() if k != "format"},
                             wide=bool(shape.get("wide")), latency_unit=shape.get("latency_unit") or "ms",
                             release_cols=tuple(str(c).strip() for c in release_cols))
    loaded, default_title = _load(results, resolved, _case_source(cases), options, metrics)
    call = _call_text(results, baseline=baseline, candidates=candidates, cases=cases, policy=policy,
                      metric=metric, **adapter, **shape, **overrides)
    record = None
    if isinstance(policy, (str, os.PathLike)):
        from releasegate.load.policy_file import policy_record

        record = policy_record(Path(policy), found=False)
    report = run_loaded(loaded, resolved, command_line=call, default_title=default_title, policy_file=record,
                        loading=loading_record(options, metrics, default_title))
    return ReleaseComparison(report)


def _policy(policy: Any, **overrides: Any) -> Policy:
    """Policy object, dict or TOML path, with keyword overrides on top (None means "not given")."""
    from releasegate.policy import load_policy_file, make_policy

    if policy is None:
        values: dict[str, Any] = {}
    elif isinstance(policy, Policy):
        values = policy.as_dict()
    elif isinstance(policy, Mapping):
        values = dict(policy)
    elif isinstance(policy, (str, os.PathLike)):
        values = load_policy_file(Path(policy))
    else:
        raise InputError(f"policy must be a Policy, a dict or a TOML file path, got {type(policy).__name__}")
    return make_policy(values, **overrides)  # an unknown key is refused naming the known ones


def _metric_names(metric: Any) -> tuple[str, ...]:
    """``metric="safe"`` or ``metric=["correct", "safe"]`` -> the names, in order."""
    if metric is None:
        return ()
    names = (metric,) if isinstance(metric, str) else metric
    if not isinstance(names, Sequence) or not names or not all(isinstance(m, str) and m for m in names):
        raise InputError(f"metric must be a metric's name or a list of names, got {metric!r}")
    return tuple(names)


def _case_source(cases: Any) -> Any:
    """The case table as the loaders take it: a Path, a DataFrame as it is, or None."""
    return None if cases is None else cases if type(cases).__name__ == "DataFrame" else Path(cases)


def _load(results: Any, policy: Policy, cases: Any, options: AdapterOptions,
          metrics: tuple[str, ...] = ()) -> tuple[LoadedResults, str]:
    """Results in any accepted form -> (LoadedResults with the metrics' columns, default title)."""
    import pandas as pd

    from releasegate.load.frame import load_frame
    from releasegate.load.per_metric import gated_columns, load_gated
    from releasegate.load.sources import Source, default_title, parse_source

    def is_path(x: Any) -> bool:
        return isinstance(x, (str, os.PathLike))

    if isinstance(results, pd.DataFrame) or (
            isinstance(results, Mapping) and results and all(isinstance(v, pd.DataFrame) for v in results.values())):
        if options.release_cols and not options.wide:
            raise InputError("release_cols names the release columns of a wide frame: add wide=True")
        loaded = load_frame(results, columns=policy.columns, cases=cases, latency_unit=options.latency_unit,
                            wide_release_cols=options.release_cols if options.wide else (), metrics=metrics)
        return gated_columns(loaded, metrics) if metrics else loaded, "release comparison"
    if is_path(results):
        sources = [parse_source(os.fspath(results))]
    elif isinstance(results, Mapping) and results and all(is_path(v) for v in results.values()):
        sources = [Source(Path(v), str(k)) for k, v in results.items()]
    elif isinstance(results, Sequence) and results and all(is_path(v) for v in results):
        sources = [parse_source(os.fspath(v)) for v in results]
    else:
        raise InputError("results must be a DataFrame, a path, a list of paths, or a mapping of release name to "
                         "DataFrame or path (not a mix)")
    loaded = load_gated(sources, columns=policy.columns, cases=cases, options=options, metrics=metrics)
    return loaded, default_title(sources, loaded.names)


def _call_text(results: Any, **arguments: Any) -> str:
    """The call as text, for provenance: what a reader would type to get this report again."""
    parts = [_short(results)] + [f"{k}={_short(v)}" for k, v in arguments.items() if v is not None]
    return f"releasegate.compare({', '.join(parts)})"


def _short(value: Any) -> str:
    if type(value).__name__ == "DataFrame":
        return f"<DataFrame {value.shape[0]} rows>"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k!r}: {_short(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_short(v) for v in value) + "]"
    if isinstance(value, Policy):
        return "Policy(...)"
    if isinstance(value, os.PathLike):
        return repr(os.fspath(value))
    return repr(value)


def plan_suite(results: Any = None, *, cases: str | os.PathLike[str] | None = None,
               policy: Policy | Mapping[str, Any] | str | os.PathLike[str] | None = None, baseline: str | None = None,
               baseline_rerun: str | None = None, churn: float | None = None, replications: int | None = None,
               seed: int | None = None, n_cases: int | None = None, pass_rate: float = 0.9,
               critical_sizes: Mapping[str, int] | None = None, categories: int = 1, runs: int = 1,
               run_churn: float | None = None, **overrides: Any) -> SuitePlan:
    """``releasegate plan`` from a notebook: the gate's own plan on simulated releases like this suite.

    The suite is measured from ``results`` (any form :func:`compare` takes) or described by counts
    (``n_cases``, ``pass_rate``, ``critical_sizes={"Fraud": 50}``, ``categories``, ``runs``); ``churn``
    states the churn between releases (default: measured from the results' candidate, ``baseline_rerun`` or
    the baseline's runs, else 0.10, said so), ``run_churn`` its run-to-run part (default: measured from a rerun
    or runs, else none: all of the churn case-level).
    Returns a :class:`releasegate.plan.suite.SuitePlan` (``plan_lines`` and ``plan_dict`` render it).
    """
    from releasegate.load.results import AdapterOptions
    from releasegate.plan import suite
    from releasegate.plan.defaults import DEFAULT_REPLICATIONS, DEFAULT_SEED
    from releasegate.plan.measure import design_of
    from releasegate.validate import validate

    resolved = _policy(policy, baseline=baseline, baseline_rerun=baseline_rerun, **overrides)
    if results is None:
        if n_cases is None:
            raise InputError("plan_suite needs results or n_cases")
        try:
            design = suite.design_from_counts(n_cases, pass_rate=pass_rate, categories=categories, runs=runs,
                                              critical=tuple((critical_sizes or {}).items()), churn=churn,
                                              run_churn=run_churn)
        except ValueError as exc:
            raise InputError(f"this suite cannot be simulated: {exc}") from None
    else:
        loaded, _ = _load(results, resolved, Path(cases) if cases is not None else None, AdapterOptions())
        validated = validate(loaded.table, resolved, loaded.metadata_columns, loaded.case_columns)
        design = design_of(validated, resolved, churn, run_churn)
    reps = DEFAULT_REPLICATIONS if replications is None else int(replications)
    if reps < 1:
        raise InputError(f"replications must be at least 1, got {reps}")
    return suite.plan_suite(design, resolved, replications=reps, seed=DEFAULT_SEED if seed is None else seed)
