#!/usr/bin/env python3
"""Measure a usemem run on a real Linux machine and write it as a swapsim measurement file.

The file has the schema of calibration/published/seed-tables.json (one table, one column per
run), so `swapsim compare --published FILE --targets T.json` and `swapsim calibrate --published
FILE` use it like the published tables.

Run as root on the machine to measure (cgroup v2, swap or zswap configured as you want it):

  tools/measure_usemem.py --table my/usemem-64k --column zstd --memory-high 40G \\
      --usemem /path/to/usemem -- --init-time -w -O -s 10 -n 70 1g  > measured.json

It creates a cgroup, sets memory.high, snapshots /proc/vmstat, memory.stat, memory.events,
memory.swap.events and the per-size mTHP stats, runs usemem in the cgroup (under `perf stat`
when perf is installed, for elapsed and sys time), snapshots again and writes the differences
under the kernel names swapsim uses. --append FILE adds a column to an existing file.
"""
import argparse
import glob
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

USEMEM_LINE = re.compile(r"^(\d+) bytes / (\d+) usecs = (\d+) KB/s$")
FREE_LINE = re.compile(r"^(\d+) usecs to free memory$")
# perf stat -x, lines: value,unit,event,...  and the plain "seconds sys" summary.
PERF_ELAPSED = re.compile(r"^\s*([\d.]+) seconds time elapsed")
PERF_SYS = re.compile(r"^\s*([\d.]+) seconds sys")
PERF_USER = re.compile(r"^\s*([\d.]+) seconds user")

VMSTAT_KEYS = ["pswpin", "pswpout", "zswpin", "zswpout", "zswpwb", "thp_swpout", "thp_swpout_fallback",
               "pgmajfault", "pgfault", "swap_ra", "swap_ra_hit", "pgscan_direct", "pgsteal_direct"]


def parse_usemem_output(text):
    """Per-process throughputs (KB/s) and free latencies (us) from usemem's stdout."""
    tp, free = [], []
    for line in text.splitlines():
        line = line.strip()
        m = USEMEM_LINE.match(line)
        if m:
            tp.append(int(m.group(3)))
            continue
        m = FREE_LINE.match(line)
        if m:
            free.append(int(m.group(1)))
    return tp, free


def parse_perf_stat(text):
    """elapsed, sys and user seconds from `perf stat` output (None when absent)."""
    out = {}
    for line in text.splitlines():
        for key, rx in (("elapsed_s", PERF_ELAPSED), ("sys_s", PERF_SYS), ("user_s", PERF_USER)):
            m = rx.match(line)
            if m:
                out[key] = float(m.group(1))
    return out


def parse_kv(text):
    """`key value` lines (/proc/vmstat, memory.stat, memory.events) into a dict of ints."""
    out = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and re.fullmatch(r"-?\d+", parts[1]):
            out[parts[0]] = int(parts[1])
    return out


def diff(before, after):
    return {k: after[k] - before.get(k, 0) for k in after}


def metrics_from(tp, free, perf, vmstat_d, events_d, swap_events_d, mthp_d):
    """The metrics of one run under swapsim's names (see README: What the outputs mean)."""
    m = {}
    if tp:
        m["throughput_kbps"] = sum(tp) / len(tp)
        m["throughput_kbps_sum"] = sum(tp)
    if free:
        m["free_latency_us"] = sum(free) / len(free)
    m.update(perf)
    for k in VMSTAT_KEYS:
        if k in vmstat_d:
            m[k] = vmstat_d[k]
    for name, key in (("high", "memcg_high"), ("max", "memcg_max"), ("oom", "memcg_oom")):
        if name in events_d:
            m[key] = events_d[name]
    for name, key in (("high", "memcg_swap_high"), ("fail", "memcg_swap_fail")):
        if name in swap_events_d:
            m[key] = swap_events_d[name]
    for (size, stat), v in mthp_d.items():
        if stat in ("zswpout", "swpout", "swpout_fallback"):
            m[f"{stat}_{size}"] = v
    return m


def table_json(table_id, column, metrics, command, existing=None):
    """Add `column` with `metrics` to table `table_id` (seed-tables.json schema)."""
    doc = existing or {"tables": []}
    t = next((x for x in doc["tables"] if x["id"] == table_id), None)
    if t is None:
        t = {"id": table_id, "kind": "benchmark_table", "title": f"measured with tools/measure_usemem.py",
             "columns": [], "rows": [], "workload": {"command": command}}
        doc["tables"].append(t)
    if any(c["key"] == column for c in t["columns"]):
        raise SystemExit(f"measure_usemem: column {column} already in table {table_id}")
    t["columns"].append({"key": column, "label": column})
    rows = {r["metric"]: r for r in t["rows"]}
    for r in t["rows"]:
        r["values"].append(metrics.get(r["metric"]))
    for k in sorted(metrics):
        if k not in rows:
            t["rows"].append({"metric": k, "published_label": k,
                              "values": [None] * (len(t["columns"]) - 1) + [metrics[k]]})
    return doc


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def mthp_stats():
    out = {}
    for d in glob.glob("/sys/kernel/mm/transparent_hugepage/hugepages-*kB"):
        size = os.path.basename(d)[len("hugepages-"):]
        for f in glob.glob(os.path.join(d, "stats", "*")):
            try:
                out[(size, os.path.basename(f))] = int(read(f).strip() or 0)
            except ValueError:
                pass
    return out


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--table", required=True, help="table id, e.g. my/usemem-64k")
    ap.add_argument("--column", required=True, help="column key for this run, e.g. zstd")
    ap.add_argument("--memory-high", required=True, help="memory.high of the cgroup, e.g. 40G")
    ap.add_argument("--usemem", default="usemem", help="path of vm-scalability's usemem")
    ap.add_argument("--cgroup", default="/sys/fs/cgroup/swapsim-measure")
    ap.add_argument("--append", help="add the column to this measurement file")
    ap.add_argument("usemem_args", nargs=argparse.REMAINDER)
    a = ap.parse_args(argv)
    args = [x for x in a.usemem_args if x != "--"]
    os.makedirs(a.cgroup, exist_ok=True)
    with open(os.path.join(a.cgroup, "memory.high"), "w") as f:
        f.write(a.memory_high)
    snap = lambda: (parse_kv(read("/proc/vmstat")), parse_kv(read(os.path.join(a.cgroup, "memory.events"))),
                    parse_kv(read(os.path.join(a.cgroup, "memory.swap.events"))), mthp_stats())
    before = snap()
    cmd = [a.usemem] + args
    perf = shutil.which("perf")
    with tempfile.NamedTemporaryFile("r", suffix=".perf") as pf:
        full = ([perf, "stat", "-o", pf.name, "--"] if perf else []) + cmd
        # Enter the cgroup in the child before exec.
        procs = os.path.join(a.cgroup, "cgroup.procs")
        t0 = time.monotonic()
        ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        p = subprocess.run(full, capture_output=True, text=True,
                           preexec_fn=lambda: open(procs, "w").write(str(os.getpid())))
        elapsed = time.monotonic() - t0
        ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        perf_out = parse_perf_stat(pf.read()) if perf else {}
    if p.returncode != 0:
        sys.stderr.write(p.stderr)
        raise SystemExit(f"measure_usemem: usemem exited with status {p.returncode}")
    after = snap()
    perf_out.setdefault("elapsed_s", elapsed)
    perf_out.setdefault("sys_s", ru1.ru_stime - ru0.ru_stime)
    perf_out.setdefault("user_s", ru1.ru_utime - ru0.ru_utime)
    tp, free = parse_usemem_output(p.stdout)
    m = metrics_from(tp, free, perf_out, diff(before[0], after[0]), diff(before[1], after[1]),
                     diff(before[2], after[2]), {k: after[3][k] - before[3].get(k, 0) for k in after[3]})
    existing = json.load(open(a.append)) if a.append else None
    print(json.dumps(table_json(a.table, a.column, m, " ".join(cmd), existing), indent=2))


if __name__ == "__main__":
    main(sys.argv[1:])
