"""Writing is all-or-nothing (SPEC section 6): a temporary file beside each report, renamed into place.

A failure while rendering writes nothing; a failure while writing (disk full) leaves no temporary file and
no half-written report; an existing report is never left half-written; -o into a missing directory is
refused before any work is done.
"""

from __future__ import annotations

import errno
import os

import pytest

import releasegate.render as render_module
from conftest import build_report, run_cli
from releasegate.demo import example_files
from releasegate.errors import InputError
from releasegate.render import write_reports

OLD = b"previous report, which must survive a failed run\n"


@pytest.fixture(scope="module")
def report():
    files = example_files()
    return build_report(files["eval_results.csv"], files["eval_cases.csv"], files["releasegate.toml"], command_line="")


def _existing(directory):
    path = directory / "note.md"
    path.write_bytes(OLD)
    os.utime(path, (1_700_000_000, 1_700_000_000))
    return path


def _untouched(path) -> bool:
    return path.read_bytes() == OLD and os.stat(path).st_mtime == 1_700_000_000


def test_writes_every_format_and_no_temporary(tmp_path, report):
    md, js = _existing(tmp_path), tmp_path / "note.json"
    write_reports(report, [md, js])
    assert md.read_text(encoding="utf-8").startswith("<!-- releasegate -->\n## Release note")
    assert js.read_text(encoding="utf-8").startswith('{\n  "schema_version"')
    assert sorted(p.name for p in tmp_path.iterdir()) == ["note.json", "note.md"]


def test_failure_while_rendering_writes_nothing(tmp_path, report, monkeypatch):
    md, js = _existing(tmp_path), tmp_path / "note.json"

    def broken(_report):
        raise RuntimeError("renderer failed half-way")

    monkeypatch.setitem(render_module.RENDERERS, ".json", render_module.Renderer(".json", "broken", broken))
    with pytest.raises(RuntimeError):
        write_reports(report, [md, js])
    assert _untouched(md)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["note.md"]


def test_failure_while_rendering_through_the_cli(tmp_path, example, monkeypatch):
    md = _existing(tmp_path)
    monkeypatch.setitem(render_module.RENDERERS, ".json", render_module.Renderer(
        ".json", "broken", lambda _report: (_ for _ in ()).throw(ValueError("boom"))))
    result = run_cli("report", example["eval_results.csv"], "--cases", example["eval_cases.csv"],
                     "--policy", example["releasegate.toml"], "-o", md, "-o", tmp_path / "note.json")
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and "internal error (ValueError: boom)" in result.stderr
    assert _untouched(md)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["note.md"]


def test_disk_full_while_writing_leaves_no_partial_file(tmp_path, report, monkeypatch):
    """The second report's write fails after some bytes: nothing is renamed, every temporary is removed."""
    md, js = _existing(tmp_path), tmp_path / "note.json"
    real_fdopen = os.fdopen
    calls = []

    class FullDisk:
        def __init__(self, stream):
            self.stream = stream

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.stream.close()

        def write(self, data):
            self.stream.write(data[:100])
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def fdopen(fd, *args, **kwargs):
        calls.append(fd)
        stream = real_fdopen(fd, *args, **kwargs)
        return FullDisk(stream) if len(calls) == 2 else stream

    monkeypatch.setattr(os, "fdopen", fdopen)
    with pytest.raises(InputError, match=r"cannot write .*note\.json: No space left on device"):
        write_reports(report, [md, js])
    assert len(calls) == 2
    assert _untouched(md)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["note.md"]


def test_interrupted_rename_keeps_each_file_whole(tmp_path, report, monkeypatch):
    """Each report is replaced whole or not at all, and no temporary survives a failed rename."""
    md, js = _existing(tmp_path), tmp_path / "note.json"
    js.write_bytes(OLD)
    real_replace = os.replace

    def replace(src, dst):
        if str(dst).endswith(".json"):
            raise OSError(errno.EACCES, os.strerror(errno.EACCES), dst)
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(InputError, match="cannot write"):
        write_reports(report, [md, js])
    assert md.read_text(encoding="utf-8").startswith("<!-- releasegate -->\n## Release note")  # complete new report
    assert js.read_bytes() == OLD  # complete old report
    assert sorted(p.name for p in tmp_path.iterdir()) == ["note.json", "note.md"]


def test_missing_directory_is_refused_before_any_work(tmp_path, report, monkeypatch):
    called = []
    monkeypatch.setitem(render_module.RENDERERS, ".md",
                        render_module.Renderer(".md", "spy", lambda r: called.append(r) or b""))
    with pytest.raises(InputError, match=r"output directory does not exist: .*nowhere \(for .*nowhere/r\.md\)"):
        write_reports(report, [tmp_path / "nowhere" / "r.md"])
    assert not called
    assert not (tmp_path / "nowhere").exists()


def test_cli_refuses_missing_directory_before_reading_inputs(tmp_path):
    # The results file does not exist either: the output check comes first, so that is not what is reported.
    result = run_cli("report", tmp_path / "absent.csv", "--baseline", "r1", "-o", tmp_path / "no" / "r.md")
    assert result.exit_code == 2
    assert "output directory does not exist" in result.stderr
    assert not (tmp_path / "no").exists()
