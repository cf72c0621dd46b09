"""What every report records about its own making: the time of generation and the package versions."""

from __future__ import annotations

import datetime as _dt
import os
from functools import lru_cache
from importlib import metadata

from releasegate.errors import InputError

PROVENANCE_PACKAGES = ("numpy", "pandas", "jinja2")


def generation_time() -> str:
    """ISO time of generation: SOURCE_DATE_EPOCH when set (reproducible builds), else now, in UTC."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch:
        try:
            moment = _dt.datetime.fromtimestamp(int(epoch), tz=_dt.UTC)
        except (ValueError, OverflowError, OSError):
            raise InputError(f"SOURCE_DATE_EPOCH must be an integer number of seconds, got {epoch!r}") from None
    else:
        moment = _dt.datetime.now(tz=_dt.UTC).replace(microsecond=0)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def package_versions(names: tuple[str, ...] = PROVENANCE_PACKAGES) -> dict[str, str]:
    """The installed version of each package named ("not installed" when it is not), as a new dict."""
    return dict(_versions(names))


@lru_cache(maxsize=8)
def _versions(names: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    # Once per process: the installed packages do not change under a running process, and each lookup scans
    # the site-packages metadata (5 ms a report, paid by every report a notebook or the test suite makes).
    found = []
    for name in names:
        try:
            found.append((name, metadata.version(name)))
        except metadata.PackageNotFoundError:
            found.append((name, "not installed"))
    return tuple(found)
