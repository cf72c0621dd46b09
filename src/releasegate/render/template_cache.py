"""The compiled templates kept on disk between commands, so that a Markdown or HTML note does not compile its
templates again on every run (report.md and its parts: about 0.1 CPU s of a 2 s `report` at 10^6 cases).

Jinja's own bytecode cache, in a directory of the user's cache (``$XDG_CACHE_HOME/releasegate`` or
``~/.cache/releasegate``; ``RELEASEGATE_TEMPLATE_CACHE=0`` turns it off, ``RELEASEGATE_TEMPLATE_CACHE=DIR`` moves
it). Never stale: Jinja keys each file by the template's path and checks the checksum of its source, and the
directory is named by a hash of what else the compiled code depends on (the Python, Jinja and releasegate
versions, the environment's syntax options, its filters and finalize). Never in the way: a directory that cannot
be made, is not the user's own or is writable by others (compiled code is executed) means no cache; a file that
cannot be written is skipped, one that cannot be read is compiled again.
"""

from __future__ import annotations

import hashlib
import os
import stat
import sys
from pathlib import Path

from jinja2 import Environment, FileSystemBytecodeCache
from jinja2.bccache import Bucket
from jinja2 import __version__ as jinja_version

from releasegate import __version__

OFF = ("0", "off", "no", "false")


class QuietBytecodeCache(FileSystemBytecodeCache):
    """Jinja's file cache with every failure to read or write a file taken as a miss."""

    def load_bytecode(self, bucket: Bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except Exception:  # a file cut short or damaged (pickle's and marshal's errors vary): compiled again
            bucket.reset()

    def dump_bytecode(self, bucket: Bucket) -> None:
        try:
            super().dump_bytecode(bucket)
        except OSError:
            pass


def template_cache(env: Environment, kind: str) -> QuietBytecodeCache | None:
    """The cache for one environment (set up, its templates not yet loaded), or None when there can be none."""
    setting = os.environ.get("RELEASEGATE_TEMPLATE_CACHE", "")
    if setting.lower() in OFF:
        return None
    root = Path(setting) if setting else _user_cache()
    if root is None:
        return None
    directory = root / f"templates-{kind}-{_fingerprint(env)}"
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = directory.stat()
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode) or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH) \
            or (hasattr(os, "getuid") and info.st_uid != os.getuid()):
        return None
    return QuietBytecodeCache(str(directory))


def _user_cache() -> Path | None:
    base = os.environ.get("XDG_CACHE_HOME")
    if base:
        return Path(base) / "releasegate"
    try:
        return Path.home() / ".cache" / "releasegate"
    except RuntimeError:  # no home directory to be found
        return None


def _fingerprint(env: Environment) -> str:
    """A hash of everything the compiled code of a template depends on besides its own source."""
    finalize = env.finalize
    parts = (
        sys.version, jinja_version, __version__,
        env.block_start_string, env.block_end_string, env.variable_start_string, env.variable_end_string,
        env.comment_start_string, env.comment_end_string, env.line_statement_prefix, env.line_comment_prefix,
        env.trim_blocks, env.lstrip_blocks, env.newline_sequence, env.keep_trailing_newline, env.optimized,
        # What autoescaping decides for each kind of template name, and how each callable is called (Jinja's
        # pass_context and the like change the compiled call), not only their names.
        tuple(env.autoescape(f"t.{suffix}") if callable(env.autoescape) else env.autoescape
              for suffix in ("html", "htm", "xml", "svg", "md", "txt", "css", "js")),
        None if finalize is None else _name(finalize),
        tuple(sorted((name, _name(f)) for name, f in env.filters.items())),
        tuple(sorted((name, _name(f)) for name, f in env.tests.items())), tuple(sorted(env.extensions)),
    )
    return hashlib.sha256(repr(parts).encode("utf-8")).hexdigest()[:16]


def _name(function: object) -> str:
    name = getattr(function, "__qualname__", type(function).__qualname__)
    return f"{getattr(function, '__module__', '')}.{name}:{getattr(function, 'jinja_pass_arg', '')}"
