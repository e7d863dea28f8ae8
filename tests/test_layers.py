"""lessonkit in layers: each module imports only from its own layer or lower ones, with no circles.

Every module under lessonkit/ is parsed (function-level imports included) and placed in a layer by
LAYERS below. A new module must be placed there before this test passes. Layers 0-2 never import
torch when they are imported, so the catalogs and the VRAM formulas work without it.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

# The one map of lessonkit's layers, lowest first. Keys are module names relative to the package
# ("__init__" is lessonkit itself); a subpackage's modules inherit their package's layer unless listed.
LAYERS: dict[str, int] = {
    # 0 base: argument checks, the JSON data reader, byte units and dtypes, course links, progress bars
    "__init__": 0,
    "_checks": 0,
    "_data": 0,
    "units": 0,
    "course": 0,
    "progress": 0,
    "i18n": 0,  # the language lessonkit speaks (gettext catalogs in lessonkit/locale)
    "plotfont": 0,  # a CJK font for matplotlib when an edition sets its language (imports matplotlib lazily)
    # 1 catalogs: GPUs, models, glossary, recorded results, prices (JSON in lessonkit/data, read lazily)
    "gpus": 1,
    "models": 1,
    "hf_config": 1,  # a Hugging Face config.json read into ModelConfig's fields, for models
    "glossary": 1,
    "reference": 1,
    "prices": 1,
    # 2 formulas, no torch: lesson 03's weights and units, memory parts, the VRAM estimator
    "vram": 2,
    "memparts": 2,
    "estimate": 2,
    # 3 torch: devices, timing, byte counting, the reference Transformer, the toy problem, data parallelism
    "device": 3,
    "gpu_tools": 3,  # the vendors' tools (nvidia-smi, amd-smi, rocm-smi), read for device and the doctor
    "_host": 3,  # what the OS says about this computer, for device and gpu_tools
    "timing": 3,
    "bytecount": 3,
    "transformer": 3,
    "spirals": 3,
    "distributed": 3,
    # 4 presentation: the calculator, the exercises, the doctor and the command line
    "calculator": 4,
    "exercises": 4,
    "doctor": 4,
    "_doctor_text": 4,
    "__main__": 4,
}
LAYER_NAMES = {0: "base", 1: "catalogs", 2: "formulas", 3: "torch", 4: "presentation"}
NO_TORCH_BELOW = 3  # layers under this one never import torch at module level

PACKAGE = Path(__file__).resolve().parent.parent / "lessonkit"


@dataclass(frozen=True)
class Import:
    source: str  # the importing module, e.g. "estimate.results"
    target: str  # the imported lessonkit module, e.g. "vram"
    line: int


def module_name(path: Path, root: Path = PACKAGE) -> str:
    """'vram' for lessonkit/vram.py, 'estimate' for lessonkit/estimate/__init__.py, '__init__' for lessonkit."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts.pop()
    return ".".join(parts)


def find_modules(root: Path = PACKAGE) -> dict[str, Path]:
    """Every lessonkit module by name, subpackages included."""
    return {module_name(p, root): p for p in sorted(root.rglob("*.py")) if "__pycache__" not in p.parts}


def layer_of(name: str) -> int | None:
    """The layer of a module: its own entry, else its closest listed package's."""
    parts = name.split(".")
    for n in range(len(parts), 0, -1):
        key = ".".join(parts[:n])
        if key in LAYERS:
            return LAYERS[key]
    return None


def describe(name: str) -> str:
    layer = layer_of(name)
    return f"lessonkit.{name} (layer {layer} {LAYER_NAMES.get(layer, '?')})" if name != "__init__" else "lessonkit"


def _resolve(dotted: str, modules: dict[str, Path]) -> str:
    """The module a dotted name relative to lessonkit refers to: itself, else its longest existing prefix."""
    if dotted == "":
        return "__init__"
    parts = dotted.split(".")
    for n in range(len(parts), 0, -1):
        candidate = ".".join(parts[:n])
        if candidate in modules:
            return candidate
    return dotted  # does not exist: reported as a module missing from LAYERS


def lessonkit_imports(name: str, path: Path, modules: dict[str, Path]) -> list[Import]:
    """Every import of a lessonkit module in `path`, wherever it stands in the file."""
    found = []
    # the package a relative import starts from: a package's own name, else the module's parent ("" is lessonkit)
    own_package = "" if name == "__init__" else name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text("utf-8"), filename=str(path))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "lessonkit" or alias.name.startswith("lessonkit."):
                    targets.append(_resolve(alias.name.removeprefix("lessonkit").lstrip("."), modules))
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: from . import x, from .x import y, from ..x import y
                base = own_package.split(".") if own_package else []
                base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
                origin = ".".join([*base, *([node.module] if node.module else [])])
            elif node.module == "lessonkit" or (node.module or "").startswith("lessonkit."):
                origin = node.module.removeprefix("lessonkit").lstrip(".")
            else:
                continue
            for alias in node.names:
                submodule = f"{origin}.{alias.name}" if origin else alias.name
                targets.append(submodule if submodule in modules else _resolve(origin, modules))
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", getattr(node.func, "id", None)) == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
            and node.args[0].value.startswith("lessonkit")
        ):
            targets.append(_resolve(node.args[0].value.removeprefix("lessonkit").lstrip("."), modules))
        found += [Import(name, t, node.lineno) for t in dict.fromkeys(targets) if t != name]
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def module_level_imports(tree: ast.AST) -> list[tuple[str, int]]:
    """(module, line) of each import run when the module is imported: not in functions or TYPE_CHECKING."""
    found = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.extend((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.append((node.module, node.lineno))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def check_layers(root: Path = PACKAGE) -> list[str]:
    """Every breach of the layering, one line each: unplaced modules, upward imports, circles."""
    modules = find_modules(root)
    problems = [
        f"{path.relative_to(root.parent)}: lessonkit.{name} is in no layer: add it to LAYERS in tests/test_layers.py"
        for name, path in modules.items()
        if layer_of(name) is None
    ]
    edges: dict[str, list[Import]] = {name: [] for name in modules}
    for name, path in modules.items():
        for imp in lessonkit_imports(name, path, modules):
            edges[name].append(imp)
            where = f"{path.relative_to(root.parent)}:{imp.line}"
            if imp.target not in modules or layer_of(imp.target) is None:
                problems.append(f"{where}: imports lessonkit.{imp.target}, which is in no layer (or does not exist)")
            elif layer_of(name) is not None and layer_of(imp.target) > layer_of(name):
                problems.append(f"{where}: {describe(name)} imports the higher {describe(imp.target)}")
        if layer_of(name) is not None and layer_of(name) < NO_TORCH_BELOW:
            tree = ast.parse(path.read_text("utf-8"))
            for module, line in module_level_imports(tree):
                if module == "torch" or module.startswith("torch."):
                    where = f"{path.relative_to(root.parent)}:{line}"
                    problems.append(f"{where}: {describe(name)} imports {module} at module level")
    problems += [_describe_circle(circle, root, modules) for circle in find_circles(edges)]
    return problems


def find_circles(edges: dict[str, list[Import]]) -> list[list[Import]]:
    """One circle of imports per group of modules that reach each other (Tarjan's components)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[set[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for imp in edges.get(v, []):
            w = imp.target
            if w not in edges:
                continue
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = set()
            while True:
                w = stack.pop()
                group.add(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(group)

    for v in sorted(edges):
        if v not in index:
            connect(v)
    return [_one_circle(sorted(group)[0], group, edges) for group in groups]


def _one_circle(start: str, group: set[str], edges: dict[str, list[Import]]) -> list[Import]:
    """A path of imports from `start` back to itself inside `group` (breadth first: the shortest)."""
    paths: dict[str, list[Import]] = {start: []}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for imp in edges[v]:
            if imp.target == start:
                return paths[v] + [imp]
            if imp.target in group and imp.target not in paths:
                paths[imp.target] = paths[v] + [imp]
                queue.append(imp.target)
    raise AssertionError(f"no circle through {start}")  # a strongly connected group always has one


def _describe_circle(circle: list[Import], root: Path, modules: dict[str, Path]) -> str:
    steps = " -> ".join(
        f"lessonkit.{imp.source} ({modules[imp.source].relative_to(root.parent)}:{imp.line})" for imp in circle
    )
    return f"import circle: {steps} -> lessonkit.{circle[0].source}"


# --- the tests -----------------------------------------------------------------------------------


def test_lessonkit_is_layered_without_circles():
    problems = check_layers()
    assert not problems, "lessonkit's layers are broken:\n" + "\n".join(problems)


def test_every_layer_is_used_and_listed_in_order():
    assert sorted(set(LAYERS.values())) == sorted(LAYER_NAMES)
    modules = find_modules()
    placed = {layer_of(name) for name in modules}
    assert set(LAYER_NAMES) <= placed, f"each layer holds at least one module, got {placed}"
    stale = sorted(set(LAYERS) - set(modules))
    assert not stale, f"LAYERS lists modules that no longer exist: {stale}"


# The checker itself, on small packages written for the purpose.


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "lessonkit"
    for name, text in {"__init__.py": "", **files}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_an_upward_import_inside_a_function_is_named_with_its_line(tmp_path):
    root = _package(
        tmp_path,
        {"gpus.py": "import json\n\n\ndef f():\n    from lessonkit.device import pick_device\n", "device.py": ""},
    )
    assert check_layers(root) == [
        "lessonkit/gpus.py:5: lessonkit.gpus (layer 1 catalogs) imports the higher lessonkit.device (layer 3 torch)"
    ]


@pytest.mark.parametrize(
    "statement",
    [
        "import lessonkit.device",
        "from lessonkit import device",
        "from lessonkit.device import pick_device",
        "from . import device",
        "from .device import pick_device",
        "import importlib\nimportlib.import_module('lessonkit.device')",
    ],
)
def test_every_spelling_of_an_import_is_seen(tmp_path, statement):
    root = _package(tmp_path, {"vram.py": statement + "\n", "device.py": ""})
    assert [p.split(": ", 1)[0] for p in check_layers(root)] == [f"lessonkit/vram.py:{statement.count(chr(10)) + 1}"]


def test_relative_imports_in_a_subpackage_and_inherited_layers(tmp_path):
    root = _package(
        tmp_path,
        {
            "estimate/__init__.py": "from .results import Estimate\n",
            "estimate/results.py": "from ..vram import format_bytes\nfrom ..calculator import x\n",
            "vram.py": "",
            "calculator.py": "",
        },
    )
    assert check_layers(root) == [
        "lessonkit/estimate/results.py:2: lessonkit.estimate.results (layer 2 formulas) imports the higher "
        "lessonkit.calculator (layer 4 presentation)"
    ]


def test_a_circle_within_one_layer_and_an_unplaced_module(tmp_path):
    root = _package(
        tmp_path,
        {
            "vram.py": "def f():\n    from lessonkit import memparts\n",
            "memparts.py": "from lessonkit.vram import f\n",
            "newthing.py": "",
        },
    )
    problems = check_layers(root)
    assert problems[0].startswith("lessonkit/newthing.py: lessonkit.newthing is in no layer")
    assert problems[1:] == [
        "import circle: lessonkit.memparts (lessonkit/memparts.py:1) -> lessonkit.vram (lessonkit/vram.py:2) "
        "-> lessonkit.memparts"
    ]


def test_torch_at_module_level_is_refused_below_the_torch_layer(tmp_path):
    root = _package(
        tmp_path,
        {
            "models.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import torch\n\n\n"
            "def f():\n    import torch\n",
            "memparts.py": "try:\n    import torch.nn\nexcept ImportError:\n    pass\n",
            "device.py": "import torch\n",
        },
    )
    assert check_layers(root) == [
        "lessonkit/memparts.py:2: lessonkit.memparts (layer 2 formulas) imports torch.nn at module level"
    ]


# --- the notebooks' imports of the lowest layers ----------------------------------------------------

NOTEBOOKS = PACKAGE.parent / "notebooks"


def _names_imported_from(module: str) -> dict[str, set[str]]:
    """Notebook -> names its code cells import with `from lessonkit.<module> import ...`."""
    import json

    found: dict[str, set[str]] = {}
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        for cell in json.loads(path.read_text("utf-8"))["cells"]:
            if cell["cell_type"] != "code":
                continue
            source = "".join(cell["source"])
            lines = [line for line in source.splitlines() if not line.lstrip().startswith(("!", "%"))]
            try:
                tree = ast.parse("\n".join(lines))
            except SyntaxError:
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and node.module == f"lessonkit.{module}":
                    found.setdefault(path.name, set()).update(a.name for a in node.names)
    return found


def test_what_the_notebooks_import_from_vram_is_defined_there_not_borrowed():
    import lessonkit.vram as vram

    imported = _names_imported_from("vram")
    assert imported, "the lessons import lessonkit.vram's helpers (lesson 03)"
    tree = ast.parse((PACKAGE / "vram.py").read_text("utf-8"))
    defined = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    for notebook, names in imported.items():
        assert names <= defined, f"{notebook} imports {sorted(names - defined)} that lessonkit.vram does not define"
        assert all(callable(getattr(vram, n)) for n in names)
    assert not hasattr(vram, "__getattr__"), "vram re-exports nothing lazily: the estimator lives above it"
