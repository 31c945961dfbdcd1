"""Every public function of the engine says what it computes (and in which units): a docstring on
each module-level function and each method of a public class whose name does not start with `_`."""
import ast
from pathlib import Path

import tcoapp.engine

ENGINE = Path(tcoapp.engine.__file__).parent


def _documented_methods(tree: ast.Module) -> dict[str, set[str]]:
    """class name -> the methods it documents itself or inherits a docstring for from a base class of the
    same module (as inspect.getdoc finds an overridden method's docstring)."""
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    documented: dict[str, set[str]] = {}

    def of(name: str) -> set[str]:
        if name not in documented:
            node = classes[name]
            own = {item.name for item in node.body if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
                   and (ast.get_docstring(item) or "").strip()}
            for base in node.bases:
                if isinstance(base, ast.Name) and base.id in classes:
                    own |= of(base.id)
            documented[name] = own
        return documented[name]

    return {name: of(name) for name in classes}


def _inherits_doc(node: ast.ClassDef, method: str, documented: dict[str, set[str]]) -> bool:
    """Whether a base class of the same module documents `method` (an override inherits its docstring)."""
    return any(isinstance(b, ast.Name) and method in documented.get(b.id, ()) for b in node.bases)


def _public_functions(tree: ast.Module):
    """(name, node) of each public module function and each public method that neither has a docstring
    nor overrides a documented method of a base class in the same module."""
    documented = _documented_methods(tree)
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.name.startswith("_"):
            yield node.name, node
        elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            for item in node.body:
                if (isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and not item.name.startswith("_")
                        and not _inherits_doc(node, item.name, documented)):
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


def test_an_override_inherits_its_base_docstring_but_a_new_method_does_not():
    tree = ast.parse("class A:\n    def f(self):\n        \"Said.\"\n\nclass B(A):\n    def f(self):\n"
                     "        pass\n    def h(self):\n        pass\n")
    assert [name for name, node in _public_functions(tree) if not ast.get_docstring(node)] == ["B.h"]
