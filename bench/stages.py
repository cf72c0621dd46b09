"""Time every stage of `releasegate report FILE -o .json -o .md` inside one process, as the CLI runs them.

Stages: imports (releasegate and pandas), load, validate, analyze, decide (with provenance), JSON, Markdown.
For each: wall seconds, CPU seconds (user + system, all threads: pyarrow's readers use both cores), the stage's
own peak RSS (``peak_mib``: the kernel's high-water mark, reset at each stage's start through
/proc/self/clear_refs) and the RSS left at its end (``rss_mib``: what the next stage starts from). Prints one
JSON line.

    PYTHONPATH=src python bench/stages.py RESULTS.csv --baseline r1-live
    PYTHONPATH=src python bench/stages.py RESULTS.csv --pandas-only   # pandas.read_csv alone (the yardstick)
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import time
from pathlib import Path

START_WALL, START_CPU = time.perf_counter(), time.process_time()


class Stages:
    """Collects (wall, CPU, peak RSS) for named stages, each measured from the end of the previous one."""

    def __init__(self) -> None:
        self.wall, self.cpu = START_WALL, START_CPU
        self.sys, self.faults = 0.0, 0
        self.out: dict[str, dict[str, float]] = {}
        self.peak = 0.0

    def mark(self, name: str) -> None:
        wall, cpu = time.perf_counter(), time.process_time()
        usage = resource.getrusage(resource.RUSAGE_SELF)
        peak_mib, rss_mib = stage_memory()
        self.peak = max(self.peak, peak_mib)
        # Kernel time and page faults apart: fresh pages for new arrays cost kernel time, not user time.
        self.out[name] = {"wall_s": round(wall - self.wall, 3), "cpu_s": round(cpu - self.cpu, 3),
                          "sys_s": round(usage.ru_stime - self.sys, 3), "faults": usage.ru_minflt - self.faults,
                          "peak_mib": round(peak_mib), "rss_mib": round(rss_mib)}
        self.wall, self.cpu, self.sys, self.faults = wall, cpu, usage.ru_stime, usage.ru_minflt


def stage_memory() -> tuple[float, float]:
    """The peak RSS since the last call and the RSS now, in MiB (Linux's /proc/self/status); writing 5 to
    /proc/self/clear_refs resets the peak, so each stage's is its own. Where that is refused, the peak is the
    process's so far."""
    status = Path("/proc/self/status").read_text()
    peak, now = (int(re.search(rf"{key}:\s+(\d+)", status).group(1)) / 1024 for key in ("VmHWM", "VmRSS"))
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        pass
    return peak, now


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path)
    parser.add_argument("--baseline", default="r1-live")
    parser.add_argument("--pandas-only", action="store_true", help="time pandas.read_csv of the file, nothing else")
    parser.add_argument("--out", type=Path, help="folder for the JSON and Markdown reports (default: not kept)")
    args = parser.parse_args()
    stages = Stages()
    if args.pandas_only:
        import pandas as pd

        stages.mark("imports")
        pd.read_csv(args.results)
        stages.mark("pandas_read_csv")
        print(json.dumps(stages.out))
        return

    import pandas  # noqa: F401  (imported by the first stage anyway; timed apart here)

    from releasegate.analyze import analyze
    from releasegate.decide import decide
    from releasegate.load import Source, load_results
    from releasegate.load.sources import default_title
    from releasegate.load.tidy import release_arrow_memory
    from releasegate.decide.metrics import combine
    from releasegate.model import MetricSection, Provenance, Report
    from releasegate.policy import make_policy
    from releasegate.provenance import generation_time, package_versions
    from releasegate.render.json_cases import json_files
    from releasegate.render.json_out import render_json
    from releasegate.render.markdown import render_markdown
    from releasegate.validate import validate

    stages.mark("imports")
    import gc

    from releasegate.process import keep_freed_memory, small_pages_only

    keep_freed_memory()  # as the report command does (releasegate.process.cyclic_gc_paused)
    small_pages_only()
    gc.disable()
    policy = make_policy({}, baseline=args.baseline)
    sources = [Source(args.results)]
    loaded = load_results(sources, columns=policy.columns)
    stages.mark("load")
    data = validate(loaded.table, policy, loaded.metadata_columns)
    inputs = loaded.inputs
    del loaded  # as releasegate.pipeline.run_loaded does: the loaded text columns are not needed any more
    release_arrow_memory()
    stages.mark("validate")
    analysis = analyze(data, policy)
    stages.mark("analyze")
    verdicts = decide(analysis, policy, data.outcome_column)
    provenance = Provenance(tool_version="bench", command_line="", inputs=inputs, policy=policy.as_dict(),
                            packages=package_versions(), generated_at=generation_time(),
                            title=default_title(sources))
    sections = (MetricSection(data.outcome_column, analysis, verdicts),)
    report = Report(sections, combine(sections), provenance)
    stages.mark("decide")
    # As -o note.json writes it: past the bound its case listings go to the case file (render/json_cases.py).
    files = json_files(report, Path("note.json"), render_json)
    as_json = files[-1][1]
    stages.mark("json")
    as_markdown = render_markdown(report).encode("utf-8")
    stages.mark("markdown")
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        for path, data in files:
            (args.out / path.name).write_bytes(data)
        (args.out / "note.md").write_bytes(as_markdown)
    stages.out["total"] = {"wall_s": round(time.perf_counter() - START_WALL, 3),
                           "cpu_s": round(time.process_time() - START_CPU, 3),
                           "peak_mib": round(stages.peak),
                           "json_mb": round(len(as_json) / 1e6, 1), "ship": report.ship_all}
    print(json.dumps(stages.out))


if __name__ == "__main__":
    main()
