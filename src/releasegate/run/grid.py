"""A sweep: ``[run.grid]`` expands one ``[[run.system]]`` into a candidate per combination of values.

```toml
[run.grid]
base = "r2"                           # the system whose settings vary (it is replaced by its candidates)
baseline = "r1-live"                  # what every candidate is ranked against (default: the first other system)
"params.temperature" = [0.0, 0.7]
system_prompt_file = ["prompts/a.txt", "prompts/b.txt"]
```

Each candidate is a release named after its values, e.g. ``r2:system_prompt=a,temperature=0.7``; each has
its own system hash, so adding a value to the grid runs only the new candidates' cells.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from releasegate.errors import RunConfigError

GRID_KEYS = {"base", "baseline"}
# Beyond this a grid is refused at once (each candidate is a release: its own cells and its own verdict).
MAX_CANDIDATES = 1000


def expand_grid(systems: list[Any], grid: Any, where: str) -> tuple[list[dict[str, Any]], str, tuple[str, ...]]:
    """(the systems with the base replaced by its candidates, the baseline's name, the candidates' names)."""
    if not isinstance(grid, Mapping):
        raise RunConfigError(f"{where}: [run.grid] must be a table")
    base_name = grid.get("base")
    by_name = {s.get("name"): s for s in systems if isinstance(s, Mapping)}
    if base_name not in by_name:
        raise RunConfigError(f"{where}: [run.grid] base must name a [[run.system]], got {base_name!r}")
    others = [s["name"] for s in systems if isinstance(s, Mapping) and s.get("name") != base_name]
    baseline = grid.get("baseline", others[0] if others else None)
    if baseline not in others:
        raise RunConfigError(f"{where}: [run.grid] baseline must name another [[run.system]], got {baseline!r}")
    axes = {k: v for k, v in grid.items() if k not in GRID_KEYS}
    if not axes:
        raise RunConfigError(f"{where}: [run.grid] needs at least one key with a list of values")
    for key, values in axes.items():
        if key in ("name", "kind"):
            raise RunConfigError(f"{where}: [run.grid] cannot vary {key!r}")
        if not isinstance(values, list) or not values or len({repr(v) for v in values}) < len(values):
            raise RunConfigError(f"{where}: [run.grid] {key} must be a non-empty list of distinct values")
    combinations = math.prod(len(v) for v in axes.values())
    if combinations > MAX_CANDIDATES:
        raise RunConfigError(f"{where}: [run.grid] makes {combinations:,} candidates; at most {MAX_CANDIDATES:,} are run")
    base = by_name[base_name]
    candidates = []
    for combination in itertools.product(*axes.values()):
        system = {k: (dict(v) if isinstance(v, Mapping) else v) for k, v in base.items()}
        label = []
        for key, value in zip(axes, combination, strict=True):
            if key.startswith("params."):
                system.setdefault("params", {})
                system["params"][key[len("params."):]] = value
            else:
                system[key] = value
            label.append(f"{_short(key)}={_label(key, value)}")
        system["name"] = f"{base_name}:" + ",".join(label)
        candidates.append(system)
    expanded = []
    for system in systems:
        expanded.extend(candidates if isinstance(system, Mapping) and system.get("name") == base_name else [system])
    return expanded, baseline, tuple(c["name"] for c in candidates)


def _short(key: str) -> str:
    key = key.removeprefix("params.")
    return key.removesuffix("_file")


def _label(key: str, value: Any) -> str:
    if key.endswith("_file") and isinstance(value, str):
        return Path(value).stem
    return str(value)
