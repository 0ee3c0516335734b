#!/usr/bin/env python3
"""Measures how zram's codecs compress redis-server's anonymous memory after the seed-001 load
(`redis-benchmark -t set -r K -n K -d 1024`), for the data kind `redis-1024` of table.json.

Starts a private redis-server on 127.0.0.1 (no persistence), loads it with redis-benchmark
as the seed does (redis-benchmark's value is `-d` bytes of 'x': src/redis-benchmark.c fills
it with memset(data, 'x', datasize), so every value is byte-identical), then copies every
present page (/proc/PID/pagemap bit 63) of its private anonymous mappings (no file: the
jemalloc arenas, [heap]; not [stack], [vdso], [vvar]) out of /proc/PID/mem in address order,
and runs pagebench (pagebench.c beside this script) on that dump and on usemem data.

Costs: pagebench's CPU times are this machine's. The table's times are those of the design
note's machine (compressors.md section 2), which the model scales by cost.compress.kernel_factor
at 2.5 GHz. Both machines ran the same libraries on usemem data (u64 word i := i, an exact
recipe: pagebench reproduces the note's usemem ratios to the byte), so a Redis time is taken
to the note's machine by the note's usemem time over this machine's, per codec and direction
(the median of the four block sizes' quotients). Ratios are measured, not scaled.

Writes JSON (the measurement, the scale and the converted per-block rows that
tools/compressor_table.py copies into table.json) to stdout.
Needs: apt-get install redis-server redis-tools libzstd-dev liblz4-dev liblzo2-dev.
Usage: /usr/bin/python3 calibration/compressors/measure_redis_pages.py [--keys K] [--rounds R] > redis-1024.json
"""
import argparse
import json
import os
import statistics
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
import measure_redis as mr  # noqa: E402  (start_server, cli)

PORT = 6391
NOTE_USEMEM = {  # compressors.md A.1, usemem, CPU ns per 4 KiB (comp, decomp): the reference
    "zstd": {"4K": (14873, 6233), "16K": (12499, 5995), "64K": (12323, 5640), "2M": (12508, 5555)},
    "lz4": {"4K": (6495, 5128), "16K": (6224, 5120), "64K": (6189, 5133), "2M": (6367, 5237)},
    "lzo-rle": {"4K": (6875, 3432), "16K": (6687, 3658), "64K": (6706, 3730), "2M": (6234, 3315)},
}


def anon_ranges(pid):
    out = []
    for line in open(f"/proc/{pid}/maps"):
        f = line.split()
        lo, hi = (int(x, 16) for x in f[0].split("-"))
        perms, inode = f[1], f[4]
        name = f[5] if len(f) > 5 else ""
        if "w" not in perms or perms[3] != "p" or inode != "0":
            continue
        if name and name != "[heap]":
            continue
        out.append((lo, hi, name or "anon"))
    return out


def dump_pages(pid, path):
    """Present pages of the private anonymous mappings, in address order."""
    n = 0
    with open(f"/proc/{pid}/pagemap", "rb") as pm, open(f"/proc/{pid}/mem", "rb") as mem, \
            open(path, "wb") as out:
        for lo, hi, _ in anon_ranges(pid):
            pm.seek(lo // 4096 * 8)
            ent = pm.read((hi - lo) // 4096 * 8)
            for i in range((hi - lo) // 4096):
                if struct.unpack_from("<Q", ent, 8 * i)[0] >> 63:
                    mem.seek(lo + 4096 * i)
                    out.write(mem.read(4096))
                    n += 1
    return n


def pagebench(exe, args, rounds):
    return json.loads(subprocess.run(["nice", "-n", "5", exe, *args, str(rounds)], check=True,
                                     capture_output=True, text=True).stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--keys", type=int, default=200000)
    ap.add_argument("--size", type=int, default=1024)
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp()
    exe = os.path.join(tmp, "pagebench")
    subprocess.run(["cc", "-O2", "-o", exe, os.path.join(HERE, "pagebench.c"), "-lzstd", "-llz4", "-llzo2"],
                   check=True)
    srv = mr.start_server(tmp, PORT)
    try:
        cmd = ["redis-benchmark", "-p", str(PORT), "-t", "set", "-r", str(a.keys), "-n", str(a.keys),
               "-d", str(a.size), "-q"]
        subprocess.run(cmd, check=True, capture_output=True)
        keys = int(mr.cli("DBSIZE").strip())
        used = int(next(l.split(":")[1] for l in mr.cli("INFO", "memory").splitlines() if l.startswith("used_memory:")))
        ranges = anon_ranges(srv.pid)
        dump = os.path.join(tmp, "pages")
        pages = dump_pages(srv.pid, dump)
        server = subprocess.run(["redis-server", "--version"], capture_output=True, text=True).stdout.strip()
    finally:
        srv.terminate()
        srv.wait()
    redis = pagebench(exe, [dump], a.rounds)
    usemem = pagebench(exe, ["--usemem", str(64 << 20)], a.rounds)
    os.unlink(dump)
    scale = {}
    for c, blocks in NOTE_USEMEM.items():
        scale[c] = {
            "comp": statistics.median(blocks[b][0] / usemem["codecs"][c][b]["comp_ns_per_4k"] for b in blocks),
            "decomp": statistics.median(blocks[b][1] / usemem["codecs"][c][b]["decomp_ns_per_4k"] for b in blocks),
        }
    kind = f"redis-{a.size}"
    rows = {c: {b: {"block_bytes": r["block_bytes"], "ratio": r["ratio"],
                    "comp_ns_per_4k": round(r["comp_ns_per_4k"] * scale[c]["comp"]),
                    "decomp_ns_per_4k": round(r["decomp_ns_per_4k"] * scale[c]["decomp"])}
                for b, r in blocks.items()}
            for c, blocks in redis["codecs"].items()}
    doc = {
        "what": f"zram's codecs on redis-server's anonymous pages after `{' '.join(cmd[:1] + cmd[3:])}`",
        "made_by": "calibration/compressors/measure_redis_pages.py with pagebench.c (this machine)",
        "server": server,
        "cpu": next(l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")),
        "keys": keys, "used_memory_bytes": used,
        "mappings": [{"start": hex(lo), "bytes": hi - lo, "name": n} for lo, hi, n in ranges],
        "pages": pages,
        "same_filled_share": redis["same_filled_pages"] / redis["pages"],
        "zero_share": redis["zero_pages"] / redis["pages"],
        "measured_here": {"redis": redis, "usemem": usemem},
        "scale_to_note_machine": scale,
        "kind": kind,
        "codecs": rows,
    }
    json.dump(doc, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
