"""The layout ARCHITECTURE.md describes, checked: no import circle anywhere in src/, every stage imports only
the stages before it, no module is longer than a sitting's reading, and every rule and adapter is one row of
its table.

Imports are read from the source (module-level and function-level alike: a circle closed inside a function is
still a circle), so the check needs no import of the package.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"
PACKAGE = SRC / "releasegate"
MAX_LINES = 420

# Each stage and the stages it may import (besides itself). Order follows the data: load -> validate ->
# analyze -> decide -> render; the entry points (pipeline, api, cli, demo) sit on top.
BASE = {"errors", "text", "fmt", "kinds", "files", "threads"}
ALLOWED: dict[str, set[str]] = {
    "errors": {"text"},
    "text": set(),
    "fmt": set(),
    # The kinds every stage names (OutcomeKind): the standard library only.
    "kinds": set(),
    # Work shared between the cores (a thread beside, two at once): the standard library only.
    "threads": set(),
    # The files a user names, checked regular and read within a cap: the errors only.
    "files": {"errors", "text"},
    "stats": set(),
    "model": {"stats", "kinds"},
    "policy": {"errors", "files", "kinds", "stats", "text"},
    "provenance": {"errors"},
    "load": BASE | {"model", "policy"},
    # Validation (the gold-label check inside it): the tidy table checked, one per metric gated; its pairing
    # builds the Exclusions record (model) and reads the content fingerprint the adapters write (load.fingerprint).
    "validate": BASE | {"policy", "model", "load"},
    "analyze": BASE | {"model", "policy", "stats", "validate"},
    "wording": {"fmt", "kinds", "model"},
    "decide": BASE | {"model", "policy", "wording"},
    "render": BASE | {"model", "wording", "decide", "provenance"},
    "pipeline": BASE | {"load", "validate", "analyze", "decide", "model", "policy",
                        "provenance", "wording"},  # wording: the settled store's note (pipeline.settled_level)
    "demo": BASE | {"load", "pipeline", "policy", "render"},
    "api": BASE | {"load", "pipeline", "policy", "render", "model", "plan", "validate"},
    "cli": BASE | {"load", "pipeline", "policy", "render", "demo", "api", "plan", "run", "process", "arguments",
                   "audit", "cli_options"},
    # The command line's option declarations (shared by report, check, plan, verify): the adapters' options and
    # the policy keys' flags, each read from its table.
    "cli_options": BASE | {"load", "policy"},
    # What the options of report, check and verify mean: the pipeline's arguments.
    "arguments": BASE | {"load", "pipeline", "policy"},
    # Notes read back (verify, history, --archive): reruns through the pipeline, renders as the note does.
    "audit": BASE | {"load", "pipeline", "policy", "render", "model"},
    # How a command's process runs (the cyclic garbage collector paused): the standard library only.
    "process": set(),
    # plan simulates releases like the suite and runs the gate's own plan on them.
    # "the stages" of ARCHITECTURE.md's row: render too, whose Markdown escaping and all-or-nothing writer
    # `plan -o` uses (plan/outputs.py), and wording, which writes the lines the command prints (wording/plan.py).
    "plan": BASE | {"stats", "model", "policy", "analyze", "decide", "validate", "load",
             "pipeline", "render", "wording"},
}


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(SRC).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _imports(path: Path, modules: dict[str, Path]) -> set[str]:
    """The releasegate modules one file imports (``from A import b`` counts as A.b when b is a module)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("releasegate"))
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("releasegate"):
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                found.add(sub if sub in modules else node.module)
    return found & set(modules)


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    # The top-level package is the lazy facade (releasegate.compare): its imports are the entry points'.
    return {name: (_imports(path, modules) - {name} if name != "releasegate" else set())
            for name, path in modules.items()}


def _stage(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "releasegate"


def test_no_import_circle():
    graph = _graph()
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycle = stack[stack.index(nxt):] + [nxt]
                raise AssertionError("import circle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)


def test_each_stage_imports_only_the_stages_before_it():
    bad = []
    for module, imported in _graph().items():
        stage = _stage(module)
        if stage not in ALLOWED:
            continue  # the package facade and stages added later are listed in ARCHITECTURE.md first
        for target in imported:
            other = _stage(target)
            if other not in (stage, "releasegate") and other not in ALLOWED[stage]:
                bad.append(f"{module} imports {target}")
    assert not bad, "; ".join(sorted(bad))


def test_every_stage_of_the_package_has_a_rule():
    stages = {_stage(m) for m in _modules()} - {"releasegate", "__main__"}
    assert stages <= set(ALLOWED) | {"run", "plan"}, sorted(stages - set(ALLOWED))


def test_modules_stay_readable_in_one_sitting():
    long = {str(p.relative_to(SRC)): n for p in PACKAGE.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, long


def test_rules_are_one_table_read_by_decide_and_the_renderers():
    from releasegate.decide import decide_candidate  # noqa: F401
    from releasegate.decide.rules import RULES

    names = [r.name for r in RULES]
    assert len(set(names)) == len(names) and names[0] == "critical_broken"
    assert all(r.title and callable(r.check) for r in RULES)
    from releasegate.policy import POLICY_KEYS

    for rule in RULES:
        assert set(rule.reads) <= POLICY_KEYS, rule.name


def test_adapters_are_one_registry_read_by_load_the_cli_and_the_api():
    import importlib

    from releasegate.load.adapters import ADAPTERS, FORMATS, OPTIONS

    assert FORMATS == ("auto", "tidy", *ADAPTERS)
    for adapter in ADAPTERS.values():
        module = importlib.import_module(adapter.module)
        assert callable(module.read), adapter.name
    cli = (PACKAGE / "cli.py").read_text(encoding="utf-8")
    for option in OPTIONS:  # the CLI builds its adapter options from the registry, not by hand
        assert f'"{option.flag}"' not in cli, option.flag
