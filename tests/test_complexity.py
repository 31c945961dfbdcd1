"""Every function of tcoapp is simple enough to read: cyclomatic complexity <= 20 (radon's grade C or
better) and under 60 lines, its docstring not counted (docs/model.md is where the long explanations go).

The complexity is counted as radon counts it, without radon: 1 + one per if / elif / conditional expression
/ with, per loop (and its else), per except handler (and a try's else), per extra operand of and / or, per
comprehension and its ifs, per assert, per match case; a nested function counts in the function that holds it
(so the figure is never below radon's), a lambda's branches count there too. (`pip install radon;
radon cc -s -n D tcoapp` lists radon's figures.)"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "tcoapp"
MAX_COMPLEXITY = 20
MAX_LINES = 59


def complexity(function: ast.AST) -> int:
    """The cyclomatic complexity of a function's body (see the module docstring)."""
    total = 1
    for node in ast.walk(function):
        if isinstance(node, (ast.If, ast.IfExp, ast.With, ast.AsyncWith, ast.Assert)):
            total += 1
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            total += 1 + bool(node.orelse)
        elif isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            total += len(node.handlers) + bool(node.orelse)
        elif isinstance(node, ast.BoolOp):
            total += len(node.values) - 1
        elif isinstance(node, ast.comprehension):
            total += 1 + len(node.ifs)
        elif isinstance(node, ast.match_case):
            total += 1
    return total


def code_lines(function: ast.FunctionDef) -> int:
    """The function's lines from `def` to its end, less its docstring."""
    lines = function.end_lineno - function.lineno + 1
    first = function.body[0]
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        lines -= first.end_lineno - first.lineno + 1
    return lines


def _functions():
    for path in sorted(ROOT.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield f"{path.relative_to(ROOT).as_posix()}:{node.lineno} {node.name}", node


def test_every_function_is_at_most_grade_c():
    offenders = {where: c for where, node in _functions() if (c := complexity(node)) > MAX_COMPLEXITY}
    assert not offenders, f"cyclomatic complexity > {MAX_COMPLEXITY}: {offenders}"


def test_every_function_is_under_60_lines():
    offenders = {where: n for where, node in _functions() if (n := code_lines(node)) > MAX_LINES}
    assert not offenders, f"functions of 60 lines or more (docstring not counted): {offenders}"


def test_the_count_sees_a_branchy_function():
    """The check is not vacuous: 20 ifs, a lambda's conditional, a comprehension with its if and an `and`."""
    source = "def f(x):\n" + "".join(f"    if x == {i}:\n        return {i}\n" for i in range(20)) + \
             "    g = lambda y: 1 if y else 2\n    return [v for v in x if v and x]\n"
    function = ast.parse(source).body[0]
    assert complexity(function) == 1 + 20 + 1 + 2 + 1
