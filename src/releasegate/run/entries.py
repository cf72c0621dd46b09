"""``package.module:function`` entries of Python systems and metrics: the function, and its source for the hash.

The config's folder is importable (put first on ``sys.path`` for the import), so ``entry = "mybot:respond"``
finds ``mybot.py`` beside CONFIG.toml without PYTHONPATH, whatever the directory the run starts from.
"""

from __future__ import annotations

import importlib
import inspect
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from releasegate.errors import RunConfigError


def importable(folder: Path | None) -> None:
    """Make ``folder`` (the config's) importable, once, ahead of the rest of sys.path."""
    if folder is None:
        return
    text = str(Path(folder).resolve())
    if text not in sys.path:
        sys.path.insert(0, text)
        importlib.invalidate_caches()


def resolve_callable(entry: str, where: str, folder: Path | None = None) -> Callable[..., Any]:
    """``package.module:function`` -> the function; a bad entry is an InputError, not a traceback."""
    module_name, sep, attr = entry.partition(":")
    if not sep or not module_name or not attr:
        raise RunConfigError(f"{where}: entry must look like 'package.module:function', got {entry!r}")
    importable(folder)
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # noqa: BLE001  (any failure to import the user's module is their config's)
        raise RunConfigError(f"{where}: cannot import {module_name!r}: {type(exc).__name__}: {exc}") from None
    target: Any = module
    for part in attr.split("."):
        target = getattr(target, part, None)
        if target is None:
            raise RunConfigError(f"{where}: {module_name!r} has no attribute {attr!r}")
    if not callable(target):
        raise RunConfigError(f"{where}: {entry!r} is not callable")
    return target


def callable_source(function: Callable[..., Any]) -> str:
    """The function's source (part of the hash: editing the function re-runs its cells)."""
    try:
        return inspect.getsource(function)
    except (OSError, TypeError):
        return repr(function)  # builtins and C functions: their identity, with the version string
