#!/usr/bin/env python3
"""Check the runtime's module graph: no cycles between modules, no upward imports between layers.

Reads every runtime/src/**/*.rs, takes each `crate::…` and `super::…` path outside the file's
`#[cfg(test)]` items, and builds a graph of file-level modules (`server::session`,
`client::http::sse`, …). Two rules, the ones ARCHITECTURE.md states:

1. No two modules import each other, directly or through others (no strongly connected
   component larger than one module). A parent and its own children count like any two
   modules: a parent that reaches into a child (`child::x(..)`, `use child::X;`,
   `self::child::X`, `crate::…::child::X`) imports it, and a child that names `super::X` imports
   its parent. The tree itself is not an import: `mod child;` lines and re-exports
   (`pub use child::X;`, `pub(crate) use …;`) are passed over, so a `mod.rs` that only declares
   and re-exports its children stands above them.
2. A layer imports only layers below it (the LAYERS list, bottom first, which ARCHITECTURE.md
   shows). `__private` is the top: it may import anything, and nothing imports it.

    python3 scripts/layers.py          # exit 1 and a report when a rule is broken
    python3 scripts/layers.py --dot    # the layer graph in Graphviz dot, for the docs
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "runtime", "src")
# The lowest layers live in a crate of their own, `toolwire-protocol` (ARCHITECTURE.md says
# why): its helper modules are the layers of the same names, and the rest of it (its lib.rs
# and the modules beside it) is the layer `protocol`, as `runtime/src/protocol.rs` brings it in.
PROTOCOL_ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "protocol", "src")
PROTOCOL_HELPERS = ("sync", "base64", "swar", "by_name", "json")

# Bottom first. A module at index i may import modules at indexes < i only.
LAYERS = [
    "sync", "base64", "swar", "by_name", "json", "protocol", "race", "random", "log_hold", "schema", "schema_gen", "args", "state", "principal", "context", "tool", "inject",
    "paths", "complete", "resource", "prompt", "registry", "skills", "server", "transport", "redis", "spec", "cli", "client",
    "testing", "approvals", "otel", "__private",
]


def module_of(path, root=ROOT):
    rel = os.path.relpath(path, root)[:-3].split(os.sep)
    if rel[-1] in ("mod", "lib"):
        rel = rel[:-1]
    if root == PROTOCOL_ROOT and not (rel and rel[0] in PROTOCOL_HELPERS):
        rel = ["protocol"] + rel
    return tuple(rel)


def protocol_crate_path(segs):
    """`crate::x` in toolwire-protocol: a helper at the root, else a module of `protocol`."""
    return segs if segs and segs[0] in PROTOCOL_HELPERS else ["protocol"] + segs


# `#[cfg(test)]`, and `#[cfg(all(test, …))]` (a test that needs a feature).
TEST_ATTR = re.compile(r"#\[cfg\((?:test|all\(test\b[^\]]*)\)\]")


def strip_tests(text):
    """Drop `#[cfg(test)]` and `#[cfg(all(test, …))]` items (a `mod tests { … }` or a single item) by brace matching."""
    out, i = [], 0
    while True:
        m = TEST_ATTR.search(text, i)
        if not m:
            out.append(text[i:])
            return "".join(out)
        j = m.start()
        out.append(text[i:j])
        k = m.end()
        semi, brace = text.find(";", k), text.find("{", k)
        if brace < 0 or (0 <= semi < brace):
            i = semi + 1
            continue
        depth, k = 0, brace
        while k < len(text):
            if text[k] == "{":
                depth += 1
            elif text[k] == "}":
                depth -= 1
                if depth == 0:
                    break
            k += 1
        i = k + 1


def strip_comments(text):
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    # `pub(in crate::wire)` names where an item may be seen, not what it uses.
    return re.sub(r"\bpub\(in [^)]*\)", "pub(crate)", text)


PATH = re.compile(r"\b(crate|super)((?:::[A-Za-z_][A-Za-z0-9_]*)+)")
GROUP = re.compile(r"\b(crate|super)((?:::[A-Za-z_][A-Za-z0-9_]*)*)::\{")
# `mod child;` (any visibility, attributes before it stripped with the comments' lines kept).
CHILD = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+([a-z_][a-z0-9_]*)\s*;", re.M)
# A re-export: `pub use …;`, `pub(crate) use …;`, `pub(super) use …;`.
REEXPORT = re.compile(r"\bpub(?:\([^)]*\))?\s+use\b[^;]*;", re.S)


def relative_paths(text, children):
    """Paths into a module's own children written relative to it: `child::x`, `self::child::x`,
    and the items of `use child::{a, b::C}`; `(child, [segments…])` for each."""
    if not children:
        return []
    names = "|".join(sorted(children))
    found = []
    for m in re.finditer(r"(?<![\w:])(?:self::)?(" + names + r")((?:::[A-Za-z_][A-Za-z0-9_]*)*)(::\{)?", text):
        child, rest, group = m.group(1), m.group(2), m.group(3)
        if not rest and not group:
            continue  # a bare word (a field, a variable) is not a path
        found.append((child, [s for s in rest.split("::") if s]))
    return found


def resolve(mod, modules, head, segs, is_dir, crate_root=None):
    # `super` is the parent module, whether this module is a file or a `mod.rs`.
    if head == "crate" and crate_root is not None:
        segs = crate_root(segs)
    base = () if head == "crate" else mod if head == "self" else mod[:-1]
    while segs and segs[0] == "super":
        base, segs = base[:-1], segs[1:]
    cand = base + tuple(segs)
    # The longest prefix that is a known module.
    for n in range(len(cand), 0, -1):
        if cand[:n] in modules:
            return cand[:n]
    return None


def main():
    files, protocol_crate = {}, set()
    for root in (ROOT, PROTOCOL_ROOT):
        for dirpath, _, names in os.walk(root):
            for n in names:
                if n.endswith(".rs"):
                    p = os.path.join(dirpath, n)
                    files[module_of(p, root)] = p
                    if root == PROTOCOL_ROOT:
                        protocol_crate.add(module_of(p, root))
    modules = set(files)
    edges = {m: set() for m in modules}
    for mod, path in files.items():
        text = strip_comments(strip_tests(open(path, encoding="utf-8").read()))
        is_dir = os.path.basename(path) in ("mod.rs", "lib.rs")
        found = [(h, s) for h, s in PATH.findall(text)]
        # `use crate::{a::B, c};` and `use super::{x, y}`: take the first segment of each item.
        for m in GROUP.finditer(text):
            depth, k, start = 1, m.end(), m.end()
            while k < len(text) and depth:
                depth += {"{": 1, "}": -1}.get(text[k], 0)
                k += 1
            inner = re.sub(r"\{[^{}]*\}", "", text[start:k - 1])
            for item in inner.split(","):
                item = item.strip().split(" as ")[0]
                if item and item != "self":
                    found.append((m.group(1), m.group(2) + "::" + item))
        # What stays once the tree's own lines (re-exports) are passed over: a path into a
        # descendant counts only when it is found here.
        body = REEXPORT.sub("", text)
        into = {(h, r) for h, r in PATH.findall(body)}
        for head, rest in found:
            segs = [s for s in rest.split("::") if s]
            crate_root = protocol_crate_path if mod in protocol_crate else None
            target = resolve(mod, modules, head, segs, is_dir, crate_root)
            if target is None or target == mod:
                continue
            if target[: len(mod)] == mod and (head, rest) not in into:
                continue  # a re-export of a descendant: the tree, not an import
            # An import of an ancestor `mod.rs` counts as an import of that module.
            edges[mod].add(target)
        # A parent reaching into its own children by a relative path.
        children = {c for c in CHILD.findall(text) if mod + (c,) in modules}
        for child, segs in relative_paths(body, children):
            target = resolve(mod, modules, "self", [child] + segs, is_dir)
            if target is not None and target != mod:
                edges[mod].add(target)

    problems = []
    # Rule 1: cycles (Tarjan's SCC).
    index, low, stack, on, sccs, counter = {}, {}, [], set(), [], [0]

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(comp)

    sys.setrecursionlimit(10000)
    for v in sorted(modules):
        if v not in index:
            strong(v)
    for comp in sccs:
        names = sorted("::".join(c) or "crate" for c in comp)
        problems.append("cycle: " + " <-> ".join(names))

    # Rule 2: layers.
    def layer(m):
        return LAYERS.index(m[0]) if m and m[0] in LAYERS else None

    top_edges = set()
    for a, targets in edges.items():
        for b in targets:
            if not a or not b or a[0] == b[0]:
                continue
            la, lb = layer(a), layer(b)
            if la is None or lb is None:
                missing = a[0] if la is None else b[0]
                problems.append(f"module `{missing}` is in no layer: add it to LAYERS in scripts/layers.py and ARCHITECTURE.md")
                continue
            top_edges.add((a[0], b[0]))
            if lb >= la:
                problems.append(f"upward import: {'::'.join(a)} -> {'::'.join(b)} (`{a[0]}` is below `{b[0]}`)")

    if "--dot" in sys.argv:
        print("digraph layers {\n  rankdir=BT;")
        for a, b in sorted(top_edges):
            print(f'  "{a}" -> "{b}";')
        print("}")
    if "--edges" in sys.argv:
        for a, b in sorted(top_edges, key=lambda e: (LAYERS.index(e[0]), LAYERS.index(e[1]))):
            print(f"{a} -> {b}")
    for p in sorted(set(problems)):
        print(p)
    n_edges = sum(len(t) for t in edges.values())
    if problems:
        print(f"scripts/layers.py: {len(set(problems))} problem(s) in {len(modules)} modules, {n_edges} imports", file=sys.stderr)
        return 1
    print(f"scripts/layers.py: {len(modules)} modules, {n_edges} imports: no cycles, no upward imports")
    return 0


if __name__ == "__main__":
    sys.exit(main())
