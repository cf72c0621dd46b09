"""The console script ends the process itself (os._exit): output, exit status and the full-exit switch."""

from __future__ import annotations

import os
import subprocess
import sys


def _run(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "releasegate", *args], capture_output=True, text=True,
                          timeout=120, check=False, env={**os.environ, **env})


def test_output_is_flushed_and_statuses_kept(example):
    version = _run("--version")
    assert version.returncode == 0 and version.stdout.startswith("releasegate, version")
    gate = _run("check", str(example["eval_results.csv"]), "--cases", str(example["eval_cases.csv"]),
                "--policy", str(example["releasegate.toml"]), "--no-step-summary")
    assert gate.returncode == 1  # DON'T SHIP
    assert gate.stdout.count("DON'T SHIP") == 2 and gate.stdout.endswith("\n")
    bad = _run("check", "/nonexistent/results.csv")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr


def test_full_exit_switch_gives_the_same_result(example):
    args = ("check", str(example["eval_results.csv"]), "--cases", str(example["eval_cases.csv"]),
            "--policy", str(example["releasegate.toml"]), "--no-step-summary")
    fast, full = _run(*args), _run(*args, RELEASEGATE_FULL_EXIT="1")
    assert (fast.returncode, fast.stdout) == (full.returncode, full.stdout) == (1, fast.stdout)


def test_the_top_level_help_names_every_exit_status_of_check():
    from conftest import run_cli

    text = " ".join(run_cli("--help").output.split())
    assert "(exit 0 ship, 1 don't ship, 3 not proven, 2 bad input)" in text
