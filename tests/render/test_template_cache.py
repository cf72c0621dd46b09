"""The compiled templates kept between commands (render/template_cache.py): the same text as compiling them, never
stale, and never in the way of a note when the cache cannot be used."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from jinja2 import Environment, FileSystemLoader

from releasegate.render.template_cache import QuietBytecodeCache, template_cache


def _environment(folder, **options) -> Environment:
    return Environment(loader=FileSystemLoader(str(folder)), **options)


def _render(folder, cache_dir, monkeypatch, **options) -> tuple[str, Environment]:
    monkeypatch.setenv("RELEASEGATE_TEMPLATE_CACHE", str(cache_dir))
    env = _environment(folder, **options)
    env.bytecode_cache = template_cache(env, "md")
    return env.get_template("t.md").render(x=1), env


def _cached_files(cache_dir) -> list:
    return sorted(p for p in cache_dir.rglob("*.cache"))


def test_a_second_load_reads_the_cache_and_renders_the_same(tmp_path, monkeypatch):
    (tmp_path / "t.md").write_text("{% for i in range(3) %}{{ i + x }} {% endfor %}\n")
    cache_dir = tmp_path / "cache"
    first, env = _render(tmp_path, cache_dir, monkeypatch)
    assert isinstance(env.bytecode_cache, QuietBytecodeCache)
    files = _cached_files(cache_dir)
    assert len(files) == 1
    stamp = files[0].stat().st_mtime_ns
    second, _ = _render(tmp_path, cache_dir, monkeypatch)
    assert first == second == "1 2 3 "
    assert files[0].stat().st_mtime_ns == stamp  # read, not written again


def test_a_changed_template_is_compiled_again(tmp_path, monkeypatch):
    cache_dir = tmp_path / "cache"
    (tmp_path / "t.md").write_text("old {{ x }}")
    assert _render(tmp_path, cache_dir, monkeypatch)[0] == "old 1"
    (tmp_path / "t.md").write_text("new {{ x }}")
    assert _render(tmp_path, cache_dir, monkeypatch)[0] == "new 1"


def test_other_syntax_options_use_another_directory(tmp_path, monkeypatch):
    # trim_blocks changes the compiled code of the same source: the two must not share a compiled file.
    (tmp_path / "t.md").write_text("{% if x %}\nyes\n{% endif %}\n")
    cache_dir = tmp_path / "cache"
    plain, _ = _render(tmp_path, cache_dir, monkeypatch)
    trimmed, _ = _render(tmp_path, cache_dir, monkeypatch, trim_blocks=True)
    assert plain == "\nyes\n" and trimmed == "yes\n"
    assert len({p.parent for p in _cached_files(cache_dir)}) == 2


def test_off_and_unusable_directories_mean_no_cache(tmp_path, monkeypatch):
    env = _environment(tmp_path)
    for off in ("0", "off"):
        monkeypatch.setenv("RELEASEGATE_TEMPLATE_CACHE", off)
        assert template_cache(env, "md") is None
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    monkeypatch.setenv("RELEASEGATE_TEMPLATE_CACHE", str(a_file))  # cannot hold a directory
    assert template_cache(env, "md") is None
    shared = tmp_path / "shared"
    monkeypatch.setenv("RELEASEGATE_TEMPLATE_CACHE", str(shared))
    directory = template_cache(env, "md").directory
    os.chmod(directory, 0o777)  # writable by others: their code could be executed
    assert template_cache(env, "md") is None


def test_a_cache_that_cannot_be_written_is_skipped(tmp_path, monkeypatch):
    # A directory below a plain file cannot be written, not even by root (a read-only mode would not stop root).
    (tmp_path / "t.md").write_text("{{ x }}")
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    env = _environment(tmp_path)
    env.bytecode_cache = QuietBytecodeCache(str(a_file / "cache"))
    assert env.get_template("t.md").render(x=1) == "1"


def test_a_vanished_or_damaged_cache_file_is_a_miss(tmp_path, monkeypatch):
    (tmp_path / "t.md").write_text("{{ x }}!")
    cache_dir = tmp_path / "cache"
    _, env = _render(tmp_path, cache_dir, monkeypatch)
    (compiled,) = _cached_files(cache_dir)
    compiled.write_bytes(compiled.read_bytes()[:40])  # cut short
    assert _render(tmp_path, cache_dir, monkeypatch)[0] == "1!"
    env.bytecode_cache.directory = str(tmp_path / "gone")  # a directory removed while running
    env.cache.clear()
    assert env.get_template("t.md").render(x=2) == "2!"


def test_the_command_line_notes_are_the_same_with_the_cache(tmp_path, example):
    """The bundled example's Markdown note: without the cache, with it being filled, with it read."""
    notes = []
    for setting in ("0", str(tmp_path / "cache"), str(tmp_path / "cache")):
        out = tmp_path / f"run{len(notes)}" / "note.md"  # one name: the note quotes its command line
        out.parent.mkdir()
        env = {**os.environ, "RELEASEGATE_TEMPLATE_CACHE": setting}
        done = subprocess.run([sys.executable, "-m", "releasegate", "report", str(example["eval_results.csv"]),
                               "--cases", str(example["eval_cases.csv"]), "--policy", str(example["releasegate.toml"]),
                               "-o", "note.md"], cwd=out.parent, env=env, capture_output=True, text=True, timeout=120, check=False)
        assert done.returncode == 0, done.stderr
        notes.append(out.read_bytes())
    assert notes[0] == notes[1] == notes[2]
    assert _cached_files(tmp_path / "cache")
