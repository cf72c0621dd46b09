"""releasegate: decide whether a new LLM release may ship, from per-case eval results.

The pipeline is ``load -> validate -> analyze -> decide -> render``; see :func:`releasegate.api.compare`
for the notebook entry point. Heavy modules are imported lazily so that ``releasegate --help`` stays fast.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

__all__ = ["__version__", "compare", "plan_suite", "run_systems"]


def __getattr__(name: str) -> Any:
    if name == "compare":
        from releasegate.api import compare

        return compare
    if name == "plan_suite":  # releasegate plan from a notebook
        from releasegate.api import plan_suite

        return plan_suite
    if name == "run_systems":  # releasegate run from Python: the function run of the package releasegate.run
        from releasegate.run import run

        return run
    if name == "run":  # the package (a module attribute once imported; looked up here before that)
        import importlib

        return importlib.import_module("releasegate.run")
    raise AttributeError(f"module 'releasegate' has no attribute {name!r}")
