#!/usr/bin/env python3
"""hostile.py IN OUT [--payloads c|skel|py|rs] [--raw] — tests/gen/hostile.c's object with its placeholders H(NN) overwritten by
the hostile names below, wherever they stand (ELF string tables, BTF strings, DWARF): each
placeholder becomes the name, a NUL, and filler, so that every string keeps its offset. The
names would run code (touch pwned-*) if a generator wrote them into its output unescaped.
--payloads LANG: only the names that carry code for LANG; the others become plain nNN, so
that nothing but the escaping stands between a payload and a compiler that would otherwise
take the file.
Without --raw, a control byte in a name becomes a space and a byte that is not UTF-8 a '?':
libkiln refuses an object with such names before anything reads it (src/lib/validate*.c), so
the generators meet only printable hostile names; with --raw the names keep every byte, for
the check that the object is refused."""
import re
import sys

PLACEHOLDER = re.compile(rb"HOSTILE_(\d\d)_placeholder[a-z_]*x")

C_RUN = b'int system(const char *); __attribute__((constructor)) static void pw%s(void){system("touch pwned-%s");}'
NAMES = {
    2: b"a$b", 3: b"a_b", 4: b"self", 5: b"class", 6: b"in", 7: b"func", 8: b"_pad0",
    9: b"_fields_", 10: b"x*/y", 11: b"n\nl", 12: b"\xff\xfe", 13: b"int", 14: b"errno",
    15: b"EINVAL", 16: b"type", 17: b"struct",
    18: b"class", 19: b"impl", 20: b"func", 21: b"u8", 22: b"ctypes", 23: b"int", 24: b"Self",
    25: b"a$b", 26: b"a_b",
    27: b'x\nimport os; os.system("touch pwned-py")\n#',
    28: b"y {int a;}; " + C_RUN % (b"t", b"type") + b" struct z",
    29: b'r\n#[used] #[link_section = ".init_array"] static PWN: extern "C" fn() = '
        b'{ extern "C" fn p() { let _ = std::fs::write("pwned-rs", b""); } p };\n//',
    30: b"uint32_t", 31: b"union", 32: b"EINVAL", 33: b"x*/\ny", 35: b"q*/\n\xff", 36: b"x",
    40: b'm1"))) {} system("touch pwned-map"); if (!(1 || ("',
    41: b"a$b", 42: b"a_b",
    44: b'x": None, **(__import__("os").system("touch pwned-pymap") or {}), "y',
    50: b"x*/\n" + C_RUN % (b"s", b"sec") + b"\n/*",
    51: b'p1"))) {} system("touch pwned-prog"); if (!(1 || ("',
    52: b"a\nb*/c", 53: b'p2\\"\n*/', 54: b"p3\xff\xfe", 55: b"int",
}
PAYLOADS = {27: "py", 28: "c", 29: "rs", 40: "skel", 44: "py", 50: "skel", 51: "skel"}


def main():
    data = open(sys.argv[1], "rb").read()
    seen = set()

    payloads = sys.argv[sys.argv.index("--payloads") + 1] if "--payloads" in sys.argv else None
    raw = "--raw" in sys.argv

    def printable(name):
        if raw:
            return name
        out = bytearray()
        for ch in name.decode("utf-8", errors="surrogateescape"):
            o = ord(ch)
            out += b"?" if 0xDC80 <= o <= 0xDCFF else b" " if o < 0x20 or o == 0x7F else ch.encode()
        return bytes(out)

    def put(m):
        n = int(m.group(1))
        name = printable(NAMES[n])
        if payloads and PAYLOADS.get(n) != payloads:
            name = b"n%02d" % n
        assert len(name) < len(m.group(0)), f"name {n} is longer than its placeholder"
        seen.add(n)
        return name + b"\0" + b"_" * (len(m.group(0)) - len(name) - 1)

    out = PLACEHOLDER.sub(put, data)
    missing = set(NAMES) - seen
    assert not missing, f"placeholders not in the object: {sorted(missing)}"
    assert len(out) == len(data)
    open(sys.argv[2], "wb").write(out)


main()
