"""Every public function of the engine says what it computes (and in which units): a docstring on
each module-level function and each method of a public class whose name does not start with `_`."""
import ast
from pathlib import Path

import tcoapp.engine

ENGINE = Path(tcoapp.engine.__file__).parent


def _public_functions(tree: ast.Module):
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.name.startswith("_"):
            yield node.name, node
        elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and not item.name.startswith("_"):
                    yield f"{node.name}.{item.name}", item


def test_every_public_engine_function_has_a_docstring():
    missing = [f"{path.relative_to(ENGINE.parent)}:{node.lineno} {name}"
               for path in sorted(ENGINE.rglob("*.py"))
               for name, node in _public_functions(ast.parse(path.read_text(encoding="utf-8")))
               if not (ast.get_docstring(node) or "").strip()]
    assert not missing, "public engine functions without a docstring:\n" + "\n".join(missing)


def test_the_check_sees_a_missing_docstring():
    tree = ast.parse("def shown(x):\n    return x\n\nclass A:\n    def f(self):\n        '''Said.'''\n    def g(self):\n        pass\n")
    assert [name for name, node in _public_functions(tree) if not ast.get_docstring(node)] == ["shown", "A.g"]
