#!/usr/bin/env python3
"""The house rules of the source tree, checked from the code itself.

A module is foo.c with foo.h (and foo_int.h, its private header) in one
folder; a file foo_bar.c or foo_bar.h of that folder that includes
foo_int.h, or that foo_int.h includes, is a part of module foo too (the
reduce module's phases: reduce_claims.c with its reduce_claims.h).  Module A depends on module B when a file of A includes B's header.
This checks, and prints what it finds:

  - no include circle among the modules of common/, proto/, node/,
    coordinator/ (strongly connected components of more than one module);
  - every arrow between folders is one the top-level README's layout
    section allows (its lines "folder -> a, b, c");
  - no source file over 1,500 lines, the job driver (reduce.c) under 1,200;
  - no function over 150 lines (from its signature to its closing brace);
  - at most 15 .c files directly in coordinator/;
  - a phase's state is its own (coordinator/reduce/README.md): the job's
    struct (reduce_int.h) embeds each phase's struct as a member marked
    "owned by FILE.c[, FILE.c ...]" (every .c file its comment names), and
    only those files reach its fields
    (`r->verify.step`, `&r->claims`); every other file calls the phase's
    functions (reduce_verify.h, ...).

Usage: check_layout.py SOURCE_DIR [--map] (--map prints the folder arrows).
Exit 0 when every rule holds, 1 otherwise.
"""
import os
import re
import sys

ROOTS = ("common", "proto", "node", "coordinator")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
MAX_LINES = 1500
DRIVER = ("coordinator/reduce/reduce.c", 1200)
MAX_TOP_C = 15
MAX_FUNC = 150
JOB_STRUCT = ("coordinator/reduce/reduce_int.h", "wh_reduction")
OWNED = re.compile(r"^\s*struct\s+\w+\s+(\w+);\s*/\*\s*owned by\s+(.*?)\*/", re.M | re.S)


def sources(src):
    for root in ROOTS:
        for d, _, files in os.walk(os.path.join(src, root)):
            for f in files:
                if f.endswith((".c", ".h")):
                    yield os.path.relpath(os.path.join(d, f), src)


def module_of(path):
    d, f = os.path.split(path)
    base = f[:-2]
    if base.endswith("_int") and f.endswith(".h"):
        base = base[:-4]
    return os.path.join(d, base)


def parts(src, files):
    """{file: module} for the parts of a module with a private header: foo_bar.c
    or foo_bar.h beside foo_int.h that includes it or that it includes."""
    out = {}
    ints = {p: set(os.path.basename(i) for i in INCLUDE.findall(read(src, p)))
            for p in files if p.endswith("_int.h")}
    for p in files:
        d, f = os.path.split(p)
        for ip, incs in ints.items():
            base = os.path.basename(ip)[:-len("_int.h")]
            if os.path.dirname(ip) != d or not f.startswith(base + "_") or p == ip:
                continue
            if os.path.basename(ip) in INCLUDE.findall(read(src, p)) or f in incs:
                out[p] = os.path.join(d, base)
    return out


def read(src, p):
    with open(os.path.join(src, p), encoding="utf-8", errors="replace") as fh:
        return fh.read()


def graph(src):
    files = sorted(sources(src))
    part = parts(src, files)

    def mod(p):
        return part.get(p) or module_of(p)

    headers = {}
    for p in files:
        if p.endswith(".h"):
            headers.setdefault(os.path.basename(p), []).append(p)
    edges = {}
    for p in files:
        m = mod(p)
        edges.setdefault(m, set())
        for inc in INCLUDE.findall(read(src, p)):
            name = os.path.basename(inc)
            cands = headers.get(name, [])
            if not cands:
                continue
            # A header of the same folder wins, as the compiler's "" search does.
            same = [c for c in cands if os.path.dirname(c) == os.path.dirname(p)]
            target = mod((same or cands)[0])
            if target != m:
                edges[m].add(target)
    return files, edges


def sccs(edges):
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
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
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def long_functions(text):
    """(name, lines) of each function longer than MAX_FUNC lines. The house
    style puts a function's opening brace alone in column 0 and its closing
    brace in column 0; the signature starts at the last line before the
    brace that begins in column 0."""
    lines = text.split("\n")
    out = []
    i = 0
    while i < len(lines):
        if lines[i] == "{":
            start = i - 1
            while start > 0 and (not lines[start] or lines[start][0] in " \t)"):
                start -= 1
            j = i + 1
            while j < len(lines) and lines[j] != "}" and not lines[j].startswith("};"):
                j += 1
            m = re.search(r"(\w+)\s*\(", lines[start])
            n = j - start + 1
            if n > MAX_FUNC and m:
                out.append((m.group(1), n))
            i = j
        i += 1
    return out


def owned_members(src):
    """{member: [files]} of the job struct's members marked "owned by"."""
    path, name = JOB_STRUCT
    try:
        text = read(src, path)
    except OSError:
        return {}
    m = re.search(r"^struct\s+" + name + r"\s*\{(.*?)^\};", text, re.M | re.S)
    if not m:
        return {}
    out = {}
    for member, owners in OWNED.findall(m.group(1)):
        out[member] = re.findall(r"[\w.]+\.c\b", owners)
    return out


def phase_trespass(src, files):
    """(file, member, line) where a file of the job driver (one that includes
    reduce_int.h) reaches a phase's state that is not its own: a field through the member (x->member.field), or the member's
    address (&x->member)."""
    owned = owned_members(src)
    folder = os.path.dirname(JOB_STRUCT[0])
    out = []
    for p in files:
        if os.path.dirname(p) != folder or not p.endswith(".c"):
            continue
        text = read(src, p)
        if os.path.basename(JOB_STRUCT[0]) not in INCLUDE.findall(text):
            continue  # not a part of the job driver: another struct's member
        lines = text.split("\n")
        for member, owners in sorted(owned.items()):
            if os.path.basename(p) in owners:
                continue
            pat = re.compile(r"\w\s*->\s*" + member + r"\s*\.|&\s*\w+\s*->\s*" + member + r"\b")
            for i, line in enumerate(lines):
                if pat.search(line):
                    out.append((p, member, i + 1))
    return out


def allowed_arrows(src):
    """Lines of the README's layout section: `folder -> a, b, c`."""
    allowed = {}
    with open(os.path.join(src, "README.md"), encoding="utf-8") as fh:
        text = fh.read()
    for m in re.finditer(r"^\s*[-*]?\s*`?([a-z/]+)/?`?\s*->\s*(.+)$", text, re.M):
        frm = m.group(1).rstrip("/")
        tos = [t.strip().strip("`").rstrip("/") for t in m.group(2).split(",")]
        allowed.setdefault(frm, set()).update(t for t in tos if t and t != "nothing")
    return allowed


def main():
    if len(sys.argv) < 2:
        print("usage: check_layout.py SOURCE_DIR [--map]", file=sys.stderr)
        return 2
    src = sys.argv[1]
    files, edges = graph(src)
    bad = 0

    for comp in sccs(edges):
        print("include circle: " + " -> ".join(comp + [comp[0]]))
        bad += 1

    arrows = {}
    for a, tos in edges.items():
        for b in tos:
            fa, fb = os.path.dirname(a), os.path.dirname(b)
            if fa != fb:
                arrows.setdefault(fa, {}).setdefault(fb, set()).add((a, b))
    allowed = allowed_arrows(src)
    if "--map" in sys.argv:
        for fa in sorted(arrows):
            print(f"{fa} -> {', '.join(sorted(arrows[fa]))}")
    for fa in sorted(arrows):
        for fb in sorted(arrows[fa]):
            if fb not in allowed.get(fa, set()):
                a, b = sorted(arrows[fa][fb])[0]
                print(f"arrow not allowed by README.md: {fa} -> {fb} ({a} includes {b})")
                bad += 1

    for p in files:
        with open(os.path.join(src, p), encoding="utf-8", errors="replace") as fh:
            n = sum(1 for _ in fh)
        limit = DRIVER[1] if p == DRIVER[0] else MAX_LINES
        if n > limit:
            print(f"file too long: {p} has {n} lines (limit {limit})")
            bad += 1
        if p.endswith(".c"):
            with open(os.path.join(src, p), encoding="utf-8", errors="replace") as fh:
                for name, k in long_functions(fh.read()):
                    print(f"function too long: {name} in {p} has {k} lines (limit {MAX_FUNC})")
                    bad += 1
    for p, member, line in phase_trespass(src, files):
        owners = ", ".join(owned_members(src)[member])
        print(f"phase state not its own: {p}:{line} reaches r->{member} (owned by {owners})")
        bad += 1
    top = [f for f in os.listdir(os.path.join(src, "coordinator")) if f.endswith(".c")]
    if len(top) > MAX_TOP_C:
        print(f"coordinator/ has {len(top)} .c files directly in it (limit {MAX_TOP_C})")
        bad += 1
    modules = len(edges)
    print(f"layout: {modules} modules, {len(files)} files, {bad} problem(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
