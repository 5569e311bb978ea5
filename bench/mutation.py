"""Mutation score of the security code: does a test notice when a defensive line changes?

A small AST mutator. For each module of `skawld_core/permissions/` and
`skawld_core/sandbox/` (or those named), every mutation point becomes one
mutant: a comparison flipped (`==`/`!=`, `<`/`>=`, `in`/`not in`, `is`/`is not`),
`and`/`or` swapped, a `not` removed, an `if`/`while` condition negated, `True`/`False`
swapped, an integer changed by one, `+`/`-` swapped, a call statement, `return`,
`continue` or `break` replaced by `pass`.

Each mutant runs in a forked child of one process that has already imported
skawld and pytest: the child executes the mutated module over the loaded one
(functions keep their identity, so every module that imported them sees the
mutant), clears the analyzers' caches and runs the tests selected for that
module (`TESTS` below; collected once, slow real-bash and bubblewrap tests last)
until one fails. A failing test (or a timeout) kills the mutant. Nothing is
written to the source tree.

    python bench/mutation.py                                  # every module, score per module
    python bench/mutation.py permissions/shell_analysis.py --survivors
    python bench/mutation.py permissions/engine.py --jobs 2 --timeout 60

Prints per module: mutants, killed, survived, the score (killed / mutants) and the
wall time; with --survivors, each surviving mutant's line and change.
"""

from __future__ import annotations

import argparse
import ast
import functools
import os
import select
import sys
import time
import types
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
PACKAGE = ROOT / "skawld_core"

_ANALYZER_TESTS = [
    "tests/core/test_bash_tree.py",
    "tests/core/test_bash_evaluation.py",
    "tests/core/test_bash_rules.py",
    "tests/core/test_shell_edges.py",
    "tests/core/test_permissions.py",
]
_ENGINE_TESTS = [
    "tests/core/test_permissions.py",
    "tests/core/test_engine_edges.py",
    "tests/core/test_path_rules.py",
    "tests/core/test_claude_rules.py",
    "tests/core/test_write_scope.py",
    "tests/core/test_plan_mode.py",
    "tests/core/test_updated_input_recheck.py",
    "tests/core/test_bash_tree.py",
    "tests/core/test_tool_path_policy.py",
    "tests/core/test_open_race.py",
    "tests/core/test_read_deny_through_agent.py",
    "tests/tools/test_web_fetch_permissions.py",
    "tests/sandbox/test_wiring.py",
]
_SANDBOX_TESTS = [
    "tests/sandbox/test_wiring.py",
    "tests/sandbox/test_child_env.py",
    "tests/sandbox/test_bwrap_sandbox.py",
]
# Git is data, never code: the modules behind it and the tests that attack them.
_GIT_MODULES = ("gitdirs.py", "gitguard.py", "gitwatch.py", "gitconfig_allow.py", "git_history.py")
_GIT_TESTS = [
    "tests/sandbox/test_gitdirs.py",
    "tests/sandbox/test_git_guard.py",
    "tests/sandbox/test_git_confined.py",
    "tests/sandbox/test_git_history.py",
    "tests/sandbox/test_attack_git.py",
]
# The tests that exercise each module (relative to skawld_core/); the default is the engine's.
TESTS: dict[str, list[str]] = {
    "permissions/shell_analysis.py": _ANALYZER_TESTS,
    "permissions/shell_syntax.py": _ANALYZER_TESTS,
    "permissions/shell_wrappers.py": ["tests/core/test_shell_wrappers.py", *_ANALYZER_TESTS],
    "permissions/shell_evaluation.py": _ANALYZER_TESTS,
    "permissions/bash_rules.py": _ANALYZER_TESTS,
    "permissions/bash.py": _ANALYZER_TESTS,
    "permissions/engine.py": _ENGINE_TESTS,
    "permissions/write_scope.py": ["tests/core/test_write_scope.py", "tests/core/test_permissions.py"],
    "permissions/remembered.py": ["tests/core/test_permissions.py", "tests/cli/test_permissions_cli.py"],
    **{f"sandbox/{p.name}": _SANDBOX_TESTS for p in (PACKAGE / "sandbox").glob("*.py")},
    "sandbox/spec.py": ["tests/sandbox/test_spec.py", *_SANDBOX_TESTS],
    **{f"sandbox/{name}": _GIT_TESTS for name in _GIT_MODULES},
    # what a project acceptance covers of the scripts its command lines run
    "trust_scripts.py": [
        "tests/core/test_trust_scripts.py",
        "tests/cli/test_attack_trust_scripts.py",
        "tests/cli/test_attack_trust.py",
    ],
    "sandbox/domains.py": [
        "tests/sandbox/test_domain_policy.py",
        "tests/tools/test_web_fetch_permissions.py",
        "tests/sandbox/test_domain_proxy.py",
    ],
    "sandbox/seccomp.py": ["tests/sandbox/test_seccomp_program.py", "tests/sandbox/test_unix_sockets.py"],
    "sandbox/proxy.py": ["tests/sandbox/test_domain_proxy.py", "tests/sandbox/test_network_ask.py"],
}

_FLIP = {
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.Lt: ast.GtE,
    ast.GtE: ast.Lt,
    ast.Gt: ast.LtE,
    ast.LtE: ast.Gt,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}


@dataclass(frozen=True)
class Mutant:
    """One change: the `index`-th mutation point of the module, at `line`."""

    index: int
    line: int
    change: str


class _Mutator(ast.NodeTransformer):
    """Applies the `target`-th mutation point (or, with target -1, only counts them)."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.count = 0
        self.found: list[Mutant] = []

    def _point(self, node: ast.AST, change: str) -> bool:
        index = self.count
        self.count += 1
        self.found.append(Mutant(index, getattr(node, "lineno", 0), change))
        return index == self.target

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        self.generic_visit(node)
        for position, op in enumerate(node.ops):
            flipped = _FLIP.get(type(op))
            if flipped is not None and self._point(node, f"{type(op).__name__} -> {flipped.__name__}"):
                node.ops[position] = flipped()
        return node

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.AST:
        self.generic_visit(node)
        other = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        if self._point(node, f"{type(node.op).__name__} -> {type(other).__name__}"):
            node.op = other
        return node

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.op, ast.Not) and self._point(node, "remove `not`"):
            return node.operand
        return node

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        swap = {ast.Add: ast.Sub, ast.Sub: ast.Add}.get(type(node.op))
        if (
            swap is not None
            and not _is_string(node)
            and self._point(node, f"{type(node.op).__name__} -> {swap.__name__}")
        ):
            node.op = swap()
        return node

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        value = node.value
        if isinstance(value, bool):
            if self._point(node, f"{value} -> {not value}"):
                return ast.copy_location(ast.Constant(not value), node)
        elif isinstance(value, int) and self._point(node, f"{value} -> {value + 1}"):
            return ast.copy_location(ast.Constant(value + 1), node)
        return node

    def _negate_test(self, node: ast.If | ast.While) -> None:
        if not isinstance(node.test, ast.Compare | ast.UnaryOp | ast.BoolOp) and self._point(node, "negate condition"):
            node.test = ast.UnaryOp(ast.Not(), node.test)

    def visit_If(self, node: ast.If) -> ast.AST:
        self._negate_test(node)
        self.generic_visit(node)
        return node

    def visit_While(self, node: ast.While) -> ast.AST:
        self._negate_test(node)
        self.generic_visit(node)
        return node

    def _removable(self, node: ast.stmt, change: str) -> ast.AST:
        if self._point(node, change):
            return ast.copy_location(ast.Pass(), node)
        return node

    def visit_Expr(self, node: ast.Expr) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.value, ast.Call):
            return self._removable(node, "call removed")
        return node

    def visit_Return(self, node: ast.Return) -> ast.AST:
        self.generic_visit(node)
        return self._removable(node, "return removed")

    def visit_Continue(self, node: ast.Continue) -> ast.AST:
        return self._removable(node, "continue removed")

    def visit_Break(self, node: ast.Break) -> ast.AST:
        return self._removable(node, "break removed")

    # not mutated: docstrings, annotations, `__all__`, `if TYPE_CHECKING:` imports
    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST:
        if node.value is not None:
            node.value = self.visit(node.value)
        return node

    def visit_arg(self, node: ast.arg) -> ast.AST:
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        node.body = [self.visit(s) for s in node.body]
        node.args.defaults = [self.visit(d) for d in node.args.defaults]
        node.args.kw_defaults = [d if d is None else self.visit(d) for d in node.args.kw_defaults]
        return node


def _is_string(node: ast.BinOp) -> bool:
    return any(
        isinstance(side, ast.Constant | ast.JoinedStr) and isinstance(getattr(side, "value", ""), str)
        for side in (node.left, node.right)
    )


def _tree(source: str) -> ast.Module:
    tree = ast.parse(source)
    body = [s for s in tree.body if not (isinstance(s, ast.If) and ast.unparse(s.test) == "TYPE_CHECKING")]
    body = [s for s in body if not (isinstance(s, ast.Assign) and ast.unparse(s.targets[0]) == "__all__")]
    tree.body = body
    return tree


def mutants(source: str) -> list[Mutant]:
    """Every mutation point of a module's source."""
    counter = _Mutator(-1)
    counter.visit(_tree(source))
    return counter.found


def mutated_code(source: str, path: str, index: int) -> types.CodeType:
    """The module's code with mutation `index` applied."""
    mutator = _Mutator(index)
    tree = ast.fix_missing_locations(mutator.visit(_tree(source)))
    return compile(tree, path, "exec")


# -- applying a mutant inside a forked child ------------------------------------------------


def _function(obj: object) -> types.FunctionType | None:
    obj = getattr(obj, "__wrapped__", obj)
    if isinstance(obj, staticmethod | classmethod):
        obj = obj.__func__
    if isinstance(obj, property):
        obj = obj.fget
    return obj if isinstance(obj, types.FunctionType) else None


def _transplant(old: object, new: object) -> bool:
    """Give `old` (a function or class the rest of the program holds) the code of `new`."""
    old_fn, new_fn = _function(old), _function(new)
    if old_fn is not None and new_fn is not None:
        if old_fn.__code__.co_filename != new_fn.__code__.co_filename:
            return True  # generated (dataclass methods): the same in both

        old_fn.__code__ = new_fn.__code__
        old_fn.__defaults__ = new_fn.__defaults__
        return True
    if isinstance(old, type) and isinstance(new, type):
        for name, value in vars(new).items():
            if name in vars(old):
                _transplant(vars(old)[name], value)
        return True
    return False


def apply(module: types.ModuleType, code: types.CodeType) -> None:
    """Run the mutated module over `module`; functions and classes keep their identity."""
    old = dict(vars(module))
    exec(code, vars(module))
    for name, value in list(vars(module).items()):
        if name in old and old[name] is not value and _transplant(old[name], value):
            vars(module)[name] = old[name]
    for loaded in list(sys.modules.values()):
        if getattr(loaded, "__name__", "").startswith("skawld_core"):
            for value in list(vars(loaded).values()):
                if isinstance(value, functools._lru_cache_wrapper):
                    value.cache_clear()


@dataclass
class Result:
    mutant: Mutant
    killed: bool
    timed_out: bool = False


class _Failed:
    """Notes whether a test of the running child failed."""

    failed = False

    def pytest_runtest_logreport(self, report: Any) -> None:
        if report.failed:
            self.failed = True


class MutationRun:
    """A pytest plugin: after one collection, runs each module's mutants in forked children."""

    def __init__(self, modules: list[str], jobs: int, timeout: float, survivors: bool) -> None:
        self.modules = modules
        self.jobs = jobs
        self.timeout = timeout
        self.survivors = survivors

    def pytest_runtestloop(self, session: Any) -> bool:
        session.config._tmp_path_factory.getbasetemp()  # one base directory for every child
        print(f"\n{'module':40} {'mutants':>8} {'killed':>7} {'survived':>9} {'score':>7} {'time s':>7}", flush=True)
        for relative in self.modules:
            wanted = {str(ROOT / t) for t in TESTS.get(relative, _ENGINE_TESTS)}
            items = [i for i in session.items if str(i.path) in wanted]
            # slow tests (real bash, bubblewrap) last: most mutants die before them
            items.sort(key=lambda i: any(k in i.nodeid for k in ("real_bash", "bwrap", "sandbox")))
            self.report(relative, *self.run_module(relative, items))
        return True

    def report(self, relative: str, results: list[Result], wall: float) -> None:
        killed = sum(r.killed for r in results)
        score = killed / len(results) if results else 1.0
        print(
            f"{relative:40} {len(results):8} {killed:7} {len(results) - killed:9} {score:7.1%} {wall:7.0f}", flush=True
        )
        if self.survivors:
            lines = (PACKAGE / relative).read_text().splitlines()
            for r in results:
                if not r.killed:
                    text = lines[r.mutant.line - 1].strip() if 0 < r.mutant.line <= len(lines) else ""
                    print(f"    survived: line {r.mutant.line}: {r.mutant.change}: {text}", flush=True)

    def run_module(self, relative: str, items: list[Any]) -> tuple[list[Result], float]:
        import importlib

        path = PACKAGE / relative
        module = importlib.import_module("skawld_core." + relative.removesuffix(".py").replace("/", "."))
        source = path.read_text()
        start = time.monotonic()
        if _wait(self.spawn(module, None, items), self.timeout * 4) is not True:
            raise SystemExit(f"{relative}: the selected tests fail without any mutation")
        pending = mutants(source)
        running: dict[int, tuple[Mutant, float]] = {}
        results: list[Result] = []
        while pending or running:
            while pending and len(running) < self.jobs:
                mutant = pending.pop(0)
                pid = self.spawn(module, mutated_code(source, str(path), mutant.index), items)
                running[pid] = (mutant, time.monotonic())
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid in running:
                mutant, _ = running.pop(pid)
                results.append(Result(mutant, os.waitstatus_to_exitcode(status) != 0))
                continue
            for pid, (mutant, began) in list(running.items()):
                if time.monotonic() - began > self.timeout:
                    os.kill(pid, 9)
                    os.waitpid(pid, 0)
                    del running[pid]
                    results.append(Result(mutant, True, timed_out=True))
            select.select([], [], [], 0.01)
        return sorted(results, key=lambda r: r.mutant.index), time.monotonic() - start

    def spawn(self, module: types.ModuleType, code: types.CodeType | None, items: list[Any]) -> int:
        pid = os.fork()
        if pid != 0:
            return pid
        status = 1
        try:
            with open(os.devnull, "w") as sink:
                os.dup2(sink.fileno(), 1)
                os.dup2(sink.fileno(), 2)
            reporter = items[0].config.pluginmanager.get_plugin("terminalreporter")
            if reporter is not None:
                items[0].config.pluginmanager.unregister(reporter)
            if code is not None:
                apply(module, code)
            watch = _Failed()
            items[0].config.pluginmanager.register(watch)
            for index, item in enumerate(items):
                following = items[index + 1] if index + 1 < len(items) else None
                item.config.hook.pytest_runtest_protocol(item=item, nextitem=following)
                if watch.failed:
                    break
            status = 1 if watch.failed else 0
        except BaseException:  # a mutant that breaks the module counts as killed
            status = 1
        finally:
            os._exit(status)


def _wait(pid: int, timeout: float) -> bool | None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status) == 0
        select.select([], [], [], 0.02)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    return None


def _modules(names: list[str]) -> Iterator[str]:
    if names:
        yield from (n.removeprefix("skawld_core/") for n in names)
        return
    for folder in ("permissions", "sandbox"):
        for path in sorted((PACKAGE / folder).glob("*.py")):
            if path.name != "__init__.py":
                yield f"{folder}/{path.name}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*", help="e.g. permissions/engine.py (default: all)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per mutant (then killed)")
    parser.add_argument("--survivors", action="store_true", help="list the surviving mutants")
    args = parser.parse_args()
    os.chdir(ROOT)
    import pytest

    modules = list(_modules(args.modules))
    tests = sorted({t for m in modules for t in TESTS.get(m, _ENGINE_TESTS) if (ROOT / t).exists()})
    plugin = MutationRun(modules, args.jobs, args.timeout, args.survivors)
    options = ["-q", "-p", "no:cacheprovider", "--no-header", "-o", "addopts=", "-W", "ignore", "-p", "no:randomly"]
    sys.exit(pytest.main([*options, *tests], plugins=[plugin]))


if __name__ == "__main__":
    main()
