"""releasegate: decide whether a new LLM release may ship, from per-case eval results.

The pipeline is ``load -> validate -> analyze -> decide -> render``; see :func:`releasegate.api.compare`
for the notebook entry point. Heavy modules are imported lazily so that ``releasegate --help`` stays fast.
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__", "compare", "plan_suite", "run"]


def __getattr__(name: str):
    if name == "compare":
        from releasegate.api import compare

        return compare
    if name == "plan_suite":  # releasegate plan from a notebook
        from releasegate.api import plan_suite

        return plan_suite
    if name == "run":  # the package releasegate.run, callable as releasegate.run(...) (run/__init__.py)
        import importlib

        return importlib.import_module("releasegate.run")
    raise AttributeError(f"module 'releasegate' has no attribute {name!r}")
