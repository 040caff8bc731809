#!/usr/bin/env python3
"""layout.py — the layouts of an object's named structs and unions, from `bpftool -j btf dump file`
(read on stdin), as checks in one language: `layout.py c|python|rust MODULE`. The checks
are written from bpftool's BTF, not from kiln's, so they test kiln gen's output against an
independent reader. Bitfields and anonymous members are left out (kiln gen pads them)."""
import json
import sys

PY_KW = {"in", "from", "is", "as", "if", "or", "and", "not", "for", "def", "class", "pass",
         "with", "del", "try", "global", "lambda", "return", "while", "yield", "import"}
RUST_KW = {"in", "type", "match", "ref", "loop", "fn", "mod", "move", "mut", "pub", "use",
           "where", "let", "impl", "for", "if", "as", "box", "do", "final", "gen", "try"}

lang, module = sys.argv[1], sys.argv[2]
types = json.load(sys.stdin)["types"]
by_id = {t["id"]: t for t in types}


def signed(type_id):
    """True or False for a member that is an integer (through typedefs and modifiers), else
    None (arrays, structs)."""
    t = by_id.get(type_id)
    while t and t["kind"] in ("TYPEDEF", "CONST", "VOLATILE", "RESTRICT"):
        t = by_id.get(t["type_id"])
    if not t or t["kind"] != "INT" or t["name"] == "char":
        return None
    return t["encoding"] == "SIGNED"


out = []
n = 0
for t in types:
    if t["kind"] not in ("STRUCT", "UNION") or t["name"] == "(anon)":
        continue
    tag = "union" if t["kind"] == "UNION" else "struct"
    name, size = t["name"], t["size"]
    n += 1
    if lang == "c":
        out.append(f'_Static_assert(sizeof({tag} {name}) == {size}, "sizeof {name}");')
    elif lang == "python":
        out.append(f"check({module}.{name}, None, {size}, None)")
    elif lang == "rust":
        out.append(f"assert_eq!(std::mem::size_of::<{module}::{name}>(), {size});")
    for m in t["members"]:
        if m["name"] == "(anon)" or m.get("bitfield_size"):
            continue
        f, off = m["name"], m["bits_offset"] // 8
        sg = signed(m["type_id"])
        if lang == "c":
            out.append(f'_Static_assert(offsetof({tag} {name}, {f}) == {off}, "{name}.{f}");')
            if sg is not None:
                out.append(f'_Static_assert(((__typeof__((({tag} {name} *)0)->{f}))-1 < 0) == {int(sg)}, '
                           f'"{name}.{f} signedness");')
        elif lang == "python":
            out.append(f"check({module}.{name}, '{f + '_' if f in PY_KW else f}', {off}, {sg})")
        elif lang == "rust" and tag == "struct":
            rf = f + '_' if f in RUST_KW else f
            out.append(f"assert_eq!(std::mem::offset_of!({module}::{name}, {rf}), {off});")
print("\n".join(out))
print(f"// {n} structs" if lang != "python" else f"# {n} structs")
