#!/usr/bin/env python3
"""Compressed size of a usemem page in IAA canned mode, from the canned Huffman table itself.

IAA's fixed and canned modes differ only in the Huffman codes: both emit the same LZ77
symbols, fixed with RFC 1951's fixed codes, canned with a table compiled into iaa_crypto
(Andre Glover's "crypto: iaa - add canned compression mode" series, the mode of seed 000's
"IAA Canned" columns). The canned stream carries no code table (the decompressor loads it).

So: take the LZ77 parse that zlib makes with a 4 KiB window (the parse behind
cost.compress.deflate-iaa.usemem_len, see tools/usemem_ratios.c), decode its fixed-Huffman
stream back into symbols, and price each symbol with the canned code lengths.

The table is GPL kernel code and is not part of this repository. Pass the file from that
patch series:

  python3 tools/iaa_canned_len.py drivers/crypto/intel/iaa/iaa_crypto_comp_canned.c

Prints the mean bytes per page under the fixed codes (a check: it must equal zlib's own
output size) and under the canned codes, over pages sampled across the first GiB.
"""
import re
import sys
import zlib

# RFC 1951 length and distance code bases and extra bits.
LEN_BASE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99,
            115, 131, 163, 195, 227, 258]
LEN_EXTRA = [0] * 8 + [1] * 4 + [2] * 4 + [3] * 4 + [4] * 4 + [5] * 4 + [0]
DIST_BASE = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025,
             1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577]
DIST_EXTRA = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11,
              12, 12, 13, 13]
# RFC 1951's fixed code lengths (literal/length, distance): IAA's fixed mode.
FIXED_LL = [8] * 144 + [9] * 112 + [7] * 24 + [8] * 6
FIXED_D = [5] * 30


def fixed_stream(data):
    """zlib's fixed-Huffman raw deflate of one page, 4 KiB window (as tools/usemem_ratios.c)."""
    c = zlib.compressobj(6, zlib.DEFLATED, -12, 8, zlib.Z_FIXED)
    return c.compress(data) + c.flush()


def code_lengths(path):
    """Code lengths of canned_ll_iaa[286] and canned_d_iaa[30]: each entry is len << 15 | code."""
    text = open(path).read()
    out = []
    for name, n in (("canned_ll_iaa", 286), ("canned_d_iaa", 30)):
        m = re.search(name + r"\[\d+\]\s*=\s*\{([^}]*)\}", text)
        if not m:
            sys.exit(f"{path}: no {name}[] table found; pass iaa_crypto_comp_canned.c")
        vals = [int(v, 16) for v in re.findall(r"0x[0-9a-fA-F]+|\b0\b", m.group(1))]
        if len(vals) != n:
            sys.exit(f"{path}: {name} has {len(vals)} entries, expected {n}")
        out.append([v >> 15 for v in vals])
    return out


class Bits:
    def __init__(self, data):
        self.data, self.pos = data, 0

    def get(self, n):
        v = 0
        for i in range(n):
            byte = self.data[(self.pos) >> 3]
            v |= ((byte >> (self.pos & 7)) & 1) << i
            self.pos += 1
        return v

    def huff(self, nbits):   # Huffman codes are stored most significant bit first
        v = 0
        for _ in range(nbits):
            v = (v << 1) | self.get(1)
        return v


def fixed_symbols(stream):
    """Decode a raw deflate stream of fixed-Huffman blocks into (kind, value, extra_bits) tuples."""
    b = Bits(stream)
    syms = []
    while True:
        final = b.get(1)
        btype = b.get(2)
        if btype != 1:
            sys.exit(f"block type {btype}: expected fixed Huffman only")
        while True:
            code = b.huff(7)
            if code <= 0b0010111:
                sym = 256 + code
            else:
                code = (code << 1) | b.get(1)
                if 0b00110000 <= code <= 0b10111111:
                    sym = code - 0b00110000
                elif 0b11000000 <= code <= 0b11000111:
                    sym = 280 + code - 0b11000000
                else:
                    code = (code << 1) | b.get(1)
                    sym = 144 + code - 0b110010000
            if sym < 256:
                syms.append(("lit", sym))
                continue
            if sym == 256:
                break
            li = sym - 257
            length = LEN_BASE[li] + b.get(LEN_EXTRA[li])
            dcode = b.huff(5)
            dist = DIST_BASE[dcode] + b.get(DIST_EXTRA[dcode])
            syms.append(("match", length, dist))
        if final:
            return syms


def len_code(length):
    for i in range(len(LEN_BASE) - 1, -1, -1):
        if length >= LEN_BASE[i]:
            return i
    raise ValueError(length)


def dist_code(dist):
    for i in range(len(DIST_BASE) - 1, -1, -1):
        if dist >= DIST_BASE[i]:
            return i
    raise ValueError(dist)


def cost_bits(syms, ll, dl):
    """Bits of the symbol stream plus end-of-block under code lengths ll/dl (0 = unusable)."""
    bits = 0
    for s in syms:
        if s[0] == "lit":
            if not ll[s[1]]:
                raise ValueError(f"literal {s[1]} has no code")
            bits += ll[s[1]]
            continue
        _, length, dist = s
        # A length whose symbol has no code is sent as shorter matches that have one.
        while length:
            take = length
            while not ll[257 + len_code(take)] or (take != length and length - take < 3):
                take -= 1
                if take < 3:
                    raise ValueError(f"match length {length} cannot be coded")
            li, di = len_code(take), dist_code(dist)
            if not dl[di]:
                raise ValueError(f"distance {dist} has no code")
            bits += ll[257 + li] + LEN_EXTRA[li] + dl[di] + DIST_EXTRA[di]
            length -= take
    return bits + ll[256]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    ll_canned, d_canned = code_lengths(sys.argv[1])
    words_per_page = 512
    n = fixed_total = zlib_total = canned_total = 0
    for page in range(0, (1 << 27) // words_per_page, 997):   # as tools/usemem_ratios.c
        first = page * words_per_page
        data = b"".join((first + i).to_bytes(8, "little") for i in range(words_per_page))
        stream = fixed_stream(data)
        syms = fixed_symbols(stream)
        zlib_total += len(stream)
        fixed_total += (3 + cost_bits(syms, FIXED_LL, FIXED_D) + 7) // 8
        canned_total += (cost_bits(syms, ll_canned, d_canned) + 7) // 8
        n += 1
    print(f"pages sampled: {n}")
    print(f"zlib fixed-Huffman output:        {zlib_total / n:.1f} B")
    print(f"same symbols, fixed codes:        {fixed_total / n:.1f} B")
    print(f"same symbols, IAA canned codes:   {canned_total / n:.1f} B")


if __name__ == "__main__":
    main()
