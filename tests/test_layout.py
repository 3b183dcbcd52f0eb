"""The package's shape: no import circles, no module handing on names it does not use, modules of a
readable size, and a public API that imports."""

from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "videodenoise"
MAX_LINES = 520  # "no module much over 500 lines"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def imports_of(path: Path) -> list[tuple[str, list[str]]]:
    """(module, names) for every `import` and `from ... import` of the package, at any depth (an import
    inside a function still makes a dependency)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.level == 0
            and node.module.startswith("videodenoise")
        ):
            names = [alias.name for alias in node.names]
            # `from videodenoise.io import outputs` imports the module videodenoise.io.outputs
            submodules = [f"{node.module}.{name}" for name in names if f"{node.module}.{name}" in MODULES]
            found += [(module, []) for module in submodules]
            if len(submodules) < len(names):
                found.append((node.module, [name for name in names if f"{node.module}.{name}" not in MODULES]))
        elif isinstance(node, ast.ImportFrom) and node.level > 0:
            found.append((f"relative import at line {node.lineno}", []))
        elif isinstance(node, ast.Import):
            found += [(alias.name, []) for alias in node.names if alias.name.startswith("videodenoise")]
    return found


def graph() -> dict[str, set[str]]:
    edges = {}
    for name, path in MODULES.items():
        edges[name] = {module for module, _ in imports_of(path) if module in MODULES and module != name}
    return edges


def test_imports_are_absolute():
    relative = [
        f"{name}: {module}"
        for name, path in MODULES.items()
        for module, _ in imports_of(path)
        if module.startswith("relative")
    ]
    assert relative == []


def find_circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Every circle a depth-first search meets, as the modules along it."""
    state, circles = {}, []

    def visit(node: str, stack: list[str]) -> None:
        state[node] = "open"
        for target in sorted(edges[node]):
            if state.get(target) == "open":
                circles.append(stack[stack.index(target) :] + [target])
            elif target not in state:
                visit(target, stack + [target])
        state[node] = "done"

    for node in sorted(edges):
        if node not in state:
            visit(node, [node])
    return circles


def test_no_import_circles():
    assert find_circles(graph()) == []


def test_a_circle_would_be_found():
    assert find_circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c", "a"]]


def defined_names(tree: ast.Module) -> set[str]:
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {n.id for target in targets for n in ast.walk(target) if isinstance(n, ast.Name)}
    return names


def unused_imports(path: Path) -> list[str]:
    """Names a module imports from the package and never uses: what it only hands on."""
    tree = ast.parse(path.read_text())
    used = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    used |= {
        node.value.id for node in ast.walk(tree) if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
    }
    # names used only in string annotations still count as used
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.isidentifier():
            used.add(node.value)
    for node in ast.walk(tree):
        annotation = getattr(node, "annotation", None) or getattr(node, "returns", None)
        if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
            used |= {n.id for n in ast.walk(ast.parse(annotation.value, mode="eval")) if isinstance(n, ast.Name)}
    unused = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("videodenoise"):
            for alias in node.names:
                if (alias.asname or alias.name) not in used:
                    unused.append(f"{alias.name} from {node.module}")
    return unused


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n != "videodenoise"))
def test_no_module_hands_on_names_it_does_not_use(name):
    assert unused_imports(MODULES[name]) == []


def test_a_shim_would_be_found(tmp_path):
    shim = tmp_path / "shim.py"
    shim.write_text(
        "from videodenoise.errors import ConfigError, ModelError\n\n\ndef f():\n    raise ModelError('x')\n"
    )
    assert unused_imports(shim) == ["ConfigError from videodenoise.errors"]


def test_every_error_class_lives_in_errors():
    errors = ast.parse((PACKAGE / "errors.py").read_text())
    homes = {}
    for name, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef) and node.name.endswith("Error"):
                homes.setdefault(node.name, []).append(name)
    assert {cls: where for cls, where in homes.items() if where != ["videodenoise.errors"]} == {}
    assert len(defined_names(errors)) >= 10


@pytest.mark.parametrize("name", sorted(MODULES))
def test_modules_are_of_a_readable_size(name):
    assert len(MODULES[name].read_text().splitlines()) <= MAX_LINES


def test_the_public_api_imports_and_names_what_it_defines():
    import videodenoise

    assert videodenoise.__all__ and len(videodenoise.__all__) == len(set(videodenoise.__all__))
    for name in videodenoise.__all__:
        value = getattr(videodenoise, name)
        assert getattr(value, "__name__", name) == name or not callable(value)
        # each name comes from the module the table names, which defines it
        defining = importlib.import_module(videodenoise._PUBLIC[name])
        assert name in defined_names(ast.parse(Path(defining.__file__).read_text()))
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        videodenoise.nothing_here  # noqa: B018
    # what the README's library section uses
    for name in ("Denoiser", "PRESETS", "denoise_video", "load_dataset", "RandomClips", "make_noise", "open_video"):
        assert name in videodenoise.__all__


def test_importing_the_package_does_not_load_torch():
    import subprocess

    code = "import sys, videodenoise, videodenoise.cli.app; print('torch' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.stdout.strip() == "False", result.stderr
