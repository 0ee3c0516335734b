#!/usr/bin/env python3
"""tools/iaa_canned_len.py: decoding zlib's fixed-Huffman stream and pricing it again must give
back zlib's own size under the fixed codes; a table that gives the used symbols shorter codes
must price the same symbols smaller, and one without codes for them is refused. Run by ctest.
(The kernel's canned table is not in this repository; the tables here are made up.)"""
import os
import random
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import iaa_canned_len as cl  # noqa: E402

LL_FIXED, D_FIXED = cl.FIXED_LL, cl.FIXED_D


def check(cond, what):
    if not cond:
        raise SystemExit("FAILED: " + what)


rng = random.Random(1)
pages = {
    "usemem": b"".join((99 * 512 + i).to_bytes(8, "little") for i in range(512)),
    "text": (b"the quick brown fox jumps over the lazy dog " * 100)[:4096],
    "words": b" ".join(rng.choice([b"swap", b"zswap", b"folio", b"memcg", b"lru", b"slot"])
                       for _ in range(900))[:4096],
}
for name, data in pages.items():
    stream = cl.fixed_stream(data)
    syms = cl.fixed_symbols(stream)
    out = bytearray()   # the symbols must rebuild the page
    for s in syms:
        if s[0] == "lit":
            out.append(s[1])
        else:
            for _ in range(s[1]):
                out.append(out[-s[2]])
    check(bytes(out) == data, f"{name}: decoded symbols do not rebuild the page")
    priced = (3 + cl.cost_bits(syms, LL_FIXED, D_FIXED) + 7) // 8
    check(priced == len(stream), f"{name}: fixed codes price {priced} B, zlib wrote {len(stream)} B")

# A table file in the kernel's format (len << 15 | code): every code one bit shorter.
ll = [max(1, n - 1) for n in LL_FIXED]
d = [max(1, n - 1) for n in D_FIXED]
with tempfile.NamedTemporaryFile("w", suffix=".c", delete=False) as f:
    f.write("static const u32 canned_ll_iaa[286] = {\n")
    f.write(", ".join(hex(n << 15) for n in ll) + ",\n};\n")
    f.write("static const u32 canned_d_iaa[30] = {\n")
    f.write(", ".join(hex(n << 15) for n in d) + ",\n};\n")
    path = f.name
got_ll, got_d = cl.code_lengths(path)
os.unlink(path)
check(got_ll == ll and got_d == d, "code lengths not parsed back from the table file")
syms = cl.fixed_symbols(cl.fixed_stream(pages["usemem"]))
short = cl.cost_bits(syms, ll, d)
full = cl.cost_bits(syms, LL_FIXED, D_FIXED)
check(short < full, f"shorter codes price {short} bits, fixed {full}")
# Lengths without a code are sent as shorter matches; a literal without one is an error.
no_long = LL_FIXED[:280] + [0] * 6
check(cl.cost_bits([("match", 200, 8)], no_long, D_FIXED) > cl.cost_bits([("match", 200, 8)], LL_FIXED, D_FIXED),
      "a 200-byte match without codes 280-285 must cost more")
try:
    cl.cost_bits([("lit", 65)], [0] * 286, D_FIXED)
    check(False, "a literal without a code was priced")
except ValueError:
    pass
print("ok")
