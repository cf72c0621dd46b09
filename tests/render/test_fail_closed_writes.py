"""Issue 15, item 12: writing never loses a file, whatever happens around it.

A SIGTERM while the temporaries exist leaves none behind; replacing a report keeps its mode; a valid
250-byte output name works; `releasegate demo` never overwrites a file.
"""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import run_cli
from releasegate.errors import OutputError
from releasegate.render.atomic import write_files_atomically

ROOT = Path(__file__).resolve().parents[2]


def test_sigterm_while_writing_leaves_no_temporary(tmp_path):
    """The process terminates itself between writing the first temporary and renaming it."""
    script = textwrap.dedent("""
        import os, signal, sys
        from pathlib import Path
        from releasegate.render.atomic import write_files_atomically

        def fsync(fd):
            os.kill(os.getpid(), signal.SIGTERM)

        os.fsync = fsync
        folder = Path(sys.argv[1])
        write_files_atomically([(folder / "out.md", b"new\\n"), (folder / "out.json", b"{}\\n")])
    """)
    (tmp_path / "out.md").write_bytes(b"old\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path)], env=env, capture_output=True, text=True,
                          check=False, timeout=120)
    assert done.returncode in (128 + signal.SIGTERM, -signal.SIGTERM), done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.md"]
    assert (tmp_path / "out.md").read_bytes() == b"old\n"


def test_a_directory_in_the_way_of_one_file_renames_none(tmp_path):
    (tmp_path / "out.md").write_bytes(b"old\n")
    (tmp_path / "out.json").mkdir()
    with pytest.raises(OutputError, match="cannot write .*out.json: Is a directory"):
        write_files_atomically([(tmp_path / "out.md", b"new\n"), (tmp_path / "out.json", b"{}\n")])
    assert (tmp_path / "out.md").read_bytes() == b"old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json", "out.md"]  # no temporary left


def test_the_sigterm_handler_is_restored(tmp_path):
    before = signal.getsignal(signal.SIGTERM)
    write_files_atomically([(tmp_path / "a.md", b"x")])
    assert signal.getsignal(signal.SIGTERM) is before


def test_replacing_a_report_keeps_its_mode(tmp_path):
    private, fresh = tmp_path / "private.md", tmp_path / "fresh.md"
    private.write_bytes(b"old")
    private.chmod(0o600)
    write_files_atomically([(private, b"new"), (fresh, b"new")])
    assert private.read_bytes() == b"new"
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o644


def test_a_250_byte_output_name_is_written(tmp_path, example):
    name = "n" * 247 + ".md"
    assert len(name.encode()) == 250
    result = run_cli("report", example["eval_results.csv"], "--cases", example["eval_cases.csv"],
                     "--policy", example["releasegate.toml"], "-o", tmp_path / name)
    assert result.exit_code == 0, result.stderr
    assert (tmp_path / name).read_text(encoding="utf-8").startswith("<!-- releasegate -->")
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]


@pytest.mark.parametrize("existing", ["eval_results.csv", "releasegate.toml", "report.md"])
def test_demo_never_overwrites_a_file(tmp_path, existing):
    (tmp_path / existing).write_bytes(b"mine\n")
    (tmp_path / "notes.txt").write_bytes(b"unrelated\n")
    result = run_cli("demo", tmp_path)
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [(
        f"releasegate: error[input]: {tmp_path} already holds {existing}, not as the demo wrote it; the demo never "
        "overwrites a file it did not write or that was changed since: move it away, or give a new or empty folder")]
    assert (tmp_path / existing).read_bytes() == b"mine\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([existing, "notes.txt"])
