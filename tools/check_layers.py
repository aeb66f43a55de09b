#!/usr/bin/env python3
"""Fails when a module of src/ uses one above it, or when files import each
other in a cycle.

The layers and what each may use are in LAYERS below (docs/architecture.md
draws them). A use is any `crate::NAME` path in code (comments are skipped),
so `use` lines and paths written out in place both count. Inside a layer,
`crate::LAYER::FILE` and `super::FILE` paths give a graph of its files, which
must have no cycle either.

Usage: python3 tools/check_layers.py [SRC_DIR]   (default: src)
       python3 tools/check_layers.py --self-test  (it catches what it should)
"""

import os
import re
import sys

# What each top-level module of src/ may use besides itself. Modules not
# listed (lib.rs, main.rs, startup.rs, bin/) wire everything together.
LAYERS = {
    "rules": set(),
    "ai": {"rules"},
    "table": {"rules"},
    "api": {"table", "rules"},
    "config": set(),
    "clock": set(),
    "telemetry": {"config"},
    "metrics": set(),
    "notify": set(),
    "auth": {"config", "rules"},
    "store": {"table", "rules", "config", "notify", "metrics"},
    "app": {
        "store", "ai", "api", "table", "rules", "auth", "notify", "metrics",
        "clock", "config",
    },
    "jobs": {
        "app", "store", "ai", "api", "table", "rules", "auth", "notify",
        "metrics", "clock", "config",
    },
    "http": {
        "app", "jobs", "api", "table", "rules", "auth", "notify", "metrics",
        "clock", "config", "store",
    },
}

# The store is below the application: http may name its types (a pool, an
# error to map), but no use case lives in http, so http may not call the
# store's query functions. Those modules of the store http may use:
HTTP_STORE_ALLOWED = {"Store", "StoreError", "Backend", "unavailable", "Error"}

WIRING = {"lib", "main", "startup", "bin"}

LINE_COMMENT = re.compile(r"//.*$")
BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.S)
STRING = re.compile(r'"(?:\\.|[^"\\])*"')
CRATE_PATH = re.compile(r"\bcrate::(\w+)((?:::\w+)*)")
USE_GROUP = re.compile(r"\buse\s+crate::(\w+)::\{([^;]*)\};", re.S)
SUPER_PATH = re.compile(r"\bsuper::(\w+)")


def code_of(text):
    """The text without comments and string literals."""
    text = BLOCK_COMMENT.sub("", text)
    text = STRING.sub('""', text)
    return "\n".join(LINE_COMMENT.sub("", line) for line in text.splitlines())


def module_path(src, path):
    """The module path of a file below src, e.g. ['http', 'change']."""
    rel = os.path.relpath(path, src)[: -len(".rs")].split(os.sep)
    if rel[-1] == "mod":
        rel = rel[:-1]
    return rel


def files_of(src):
    for root, _, names in os.walk(src):
        for name in sorted(names):
            if name.endswith(".rs"):
                yield os.path.join(root, name)


def strongly_connected(graph):
    """Tarjan's algorithm: the components of more than one node, and nodes
    that import themselves."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    counter = [0]

    def visit(node):
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for succ in graph.get(node, ()):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                item = stack.pop()
                on_stack.discard(item)
                component.append(item)
                if item == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(10000)
    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def self_test():
    """Runs the check on small trees: a use pointing up, a cycle of files,
    a use hidden in a comment, and a clean tree."""
    import subprocess
    import tempfile

    cases = {
        "a use pointing up": ({"rules/mod.rs": "use crate::table::Game;\n", "table/mod.rs": ""}, 1),
        "a cycle of files": (
            {
                "app/mod.rs": "pub mod a;\npub mod b;\n",
                "app/a.rs": "use super::b::x;\n",
                "app/b.rs": "use crate::app::a::y;\n",
            },
            1,
        ),
        "a use in a comment only": ({"rules/mod.rs": "// see crate::table\n", "table/mod.rs": ""}, 0),
        "uses pointing down": ({"table/mod.rs": "use crate::rules::Seat;\n", "rules/mod.rs": ""}, 0),
    }
    failed = 0
    for name, (files, expected) in cases.items():
        with tempfile.TemporaryDirectory() as root:
            for rel, text in files.items():
                os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
                with open(os.path.join(root, rel), "w", encoding="utf-8") as out:
                    out.write(text)
            got = subprocess.run(
                [sys.executable, __file__, root], capture_output=True, check=False
            ).returncode
        if got != expected:
            print(f"self-test: {name}: exit {got}, expected {expected}")
            failed += 1
    print(f"{len(cases) - failed} passed, {failed} failed")
    return 1 if failed else 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    src = sys.argv[1] if len(sys.argv) > 1 else "src"
    problems = []
    graph = {}
    known = {tuple(module_path(src, p)) for p in files_of(src)}
    for path in files_of(src):
        mod = module_path(src, path)
        top = mod[0]
        code = code_of(open(path, encoding="utf-8").read())
        node = "::".join(mod)
        edges = graph.setdefault(node, set())
        paths = [(m.group(1), m.group(2)) for m in CRATE_PATH.finditer(code)]
        for group in USE_GROUP.finditer(code):
            for item in re.split(r",\s*", group.group(2)):
                item = item.strip()
                if item:
                    paths.append((group.group(1), "::" + item.split("::")[0]))
        for used, rest in paths:
            if used == top or top in WIRING:
                target = [used] + [p for p in rest.split("::") if p]
                # The longest prefix that is a file of ours.
                while target and tuple(target) not in known:
                    target.pop()
                if target and used == top and "::".join(target) != node:
                    edges.add("::".join(target))
                continue
            allowed = LAYERS.get(top)
            if allowed is None:
                continue
            if used not in allowed:
                problems.append(f"{path}: `{top}` uses `crate::{used}`, a module above it or beside it")
            elif top == "http" and used == "store":
                item = [p for p in rest.split("::") if p][:1]
                if item and item[0] not in HTTP_STORE_ALLOWED:
                    problems.append(
                        f"{path}: http calls the store (`crate::store{rest}`): go through a use case in src/app"
                    )
        # super:: paths name siblings of this file's parent module.
        parent = mod[:-1]
        for m in SUPER_PATH.finditer(code):
            sibling = tuple(parent + [m.group(1)])
            if sibling in known and "::".join(sibling) != node:
                edges.add("::".join(sibling))
    for component in strongly_connected(graph):
        # A module file and the files below it (mod.rs declaring `pub mod x`
        # while x uses `super::Item`) are one unit: only cycles between
        # files neither of which contains the other count.
        nested = all(
            any(a != b and (a.startswith(b + "::") or b.startswith(a + "::")) for b in component)
            for a in component
        )
        if not nested:
            problems.append("files import each other in a cycle: " + " -> ".join(component))
    problems = list(dict.fromkeys(problems))
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} layering problem(s); see docs/architecture.md for the layers")
        return 1
    print(f"layers: {len(graph)} files, every use points down, no cycles")
    return 0


if __name__ == "__main__":
    sys.exit(main())
