#!/usr/bin/env python3
"""Where a WebAssembly module's bytes go: code per crate (from the function names in the module's
`name` section), the largest functions, and the data segments.

Usage: python3 scripts/wasm_sizes.py MODULE.wasm [TOP]
Use the module cargo wrote (target/wasm32-unknown-unknown/release/NAME.wasm): wasm-bindgen and
wasm-opt drop the names from the one in dist/. Each crate's code is also gzipped on its own
(level 6) as a rough guide to its share of the download; brotli on the whole module is lower.
No dependency beyond the standard library."""
import re
import sys
import zlib


def leb(buf, pos):
    result = shift = 0
    while True:
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return result, pos


def sections(buf):
    assert buf[:4] == b"\0asm", "not a WebAssembly module"
    pos = 8
    while pos < len(buf):
        kind = buf[pos]
        size, start = leb(buf, pos + 1)
        yield kind, start, start + size
        pos = start + size


def imported_functions(buf, start):
    count, pos = leb(buf, start)
    funcs = 0
    for _ in range(count):
        for _ in range(2):  # module and field names
            n, pos = leb(buf, pos)
            pos += n
        kind = buf[pos]
        pos += 1
        if kind == 0:
            _, pos = leb(buf, pos)
            funcs += 1
        elif kind == 1:  # table: reftype, limits
            pos += 1
            flags, pos = leb(buf, pos)
            _, pos = leb(buf, pos)
            if flags & 1:
                _, pos = leb(buf, pos)
        elif kind == 2:  # memory: limits
            flags, pos = leb(buf, pos)
            _, pos = leb(buf, pos)
            if flags & 1:
                _, pos = leb(buf, pos)
        elif kind == 3:  # global: type, mutability
            pos += 2
        elif kind == 4:  # tag
            pos += 1
            _, pos = leb(buf, pos)
    return funcs


def function_names(buf, start, end):
    n, pos = leb(buf, start)
    if buf[pos : pos + n] != b"name":
        return None
    pos += n
    names = {}
    while pos < end:
        sub = buf[pos]
        size, pos = leb(buf, pos + 1)
        if sub == 1:
            count, p = leb(buf, pos)
            for _ in range(count):
                index, p = leb(buf, p)
                length, p = leb(buf, p)
                names[index] = buf[p : p + length].decode("utf-8", "replace")
                p += length
        pos += size
    return names


CRATE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)::")


LEGACY_ESCAPES = {"$LT$": "<", "$GT$": ">", "$u20$": " ", "$RF$": "&", "$BP$": "*", "$C$": ",", "$LP$": "(", "$RP$": ")", "$u7b$": "{", "$u7d$": "}"}


def readable(name):
    """The path part of a Rust legacy-mangled name (`_ZN3foo3bar17h...E` -> `foo::bar`)."""
    if not name.startswith("_ZN"):
        return name
    parts, pos = [], 3
    while pos < len(name) and name[pos].isdigit():
        digits = re.match(r"\d+", name[pos:]).group()
        pos += len(digits)
        part = name[pos : pos + int(digits)]
        pos += int(digits)
        for code, text in LEGACY_ESCAPES.items():
            part = part.replace(code, text)
        parts.append(part.replace("..", "::").lstrip("_") if part.startswith("_<") else part)
    return "::".join(p for p in parts if not re.fullmatch(r"h[0-9a-f]{16}", p))


def crate_of(name):
    """The first path segment: `<alloc::vec::Vec<T> as Drop>::drop` is alloc's, `<T as
    tachys::view::Render>::build` is tachys'. Names without a path (C code such as tree-sitter's,
    wasm-bindgen's shims) are grouped together."""
    m = CRATE.search(readable(name))
    if not m:
        return "(no path: C code, shims)"
    crate = m.group(1)
    return "rust std (core, alloc, std)" if crate in ("core", "alloc", "std") else crate


def main():
    path = sys.argv[1]
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    buf = open(path, "rb").read()
    imports = 0
    bodies = []
    names = None
    data = custom = other = 0
    for kind, start, end in sections(buf):
        if kind == 2:
            imports = imported_functions(buf, start)
        elif kind == 10:
            count, pos = leb(buf, start)
            for _ in range(count):
                size, body = leb(buf, pos)
                bodies.append((body, body + size))
                pos = body + size
        elif kind == 11:
            data += end - start
        elif kind == 0:
            got = function_names(buf, start, end)
            if got is not None:
                names = got
            custom += end - start
        else:
            other += end - start
    if names is None:
        sys.exit(f"{path} has no name section: use the module cargo wrote, before wasm-bindgen")
    code = sum(e - s for s, e in bodies)
    print(f"{path}: {len(buf) / 1e6:.2f} MB; code {code / 1e6:.2f} MB in {len(bodies)} functions, "
          f"data {data / 1e6:.2f} MB, custom sections (names, producers) {custom / 1e6:.2f} MB, other {other / 1e6:.2f} MB")
    per_crate = {}
    functions = []
    for i, (s, e) in enumerate(bodies):
        name = names.get(imports + i, f"function {imports + i}")
        functions.append((e - s, readable(name)))
        per_crate.setdefault(crate_of(name), []).append(buf[s:e])
    rows = sorted(((sum(map(len, parts)), crate, parts) for crate, parts in per_crate.items()), reverse=True)
    print(f"\n| crate | code | share of code | gzip alone |\n|---|---:|---:|---:|")
    for size, crate, parts in rows[:top]:
        gz = len(zlib.compress(b"".join(parts), 6))
        print(f"| {crate} | {size / 1e3:.0f} KB | {100 * size / code:.1f}% | {gz / 1e3:.0f} KB |")
    rest = sum(r[0] for r in rows[top:])
    print(f"| {len(rows) - top} other crates | {rest / 1e3:.0f} KB | {100 * rest / code:.1f}% | |")
    print(f"\n| largest functions | code |\n|---|---:|")
    for size, name in sorted(functions, reverse=True)[:top]:
        print(f"| `{name[:110]}` | {size / 1e3:.1f} KB |")


if __name__ == "__main__":
    main()
