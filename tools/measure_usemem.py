#!/usr/bin/env python3
"""Measure a usemem run on a real Linux machine and write it as a swapsim measurement file.

The file has the schema of calibration/published/seed-tables.json (one table, one column per
run), so `swapsim compare --published FILE --targets T.json` and `swapsim calibrate --published
FILE` use it like the published tables.

Run as root on the machine to measure (cgroup v2, swap or zswap configured as you want it):

  tools/measure_usemem.py --table my/usemem-64k --column zstd --memory-high 40G \\
      --scenario my-zstd.json --targets my-targets.json \\
      --usemem /path/to/usemem -- --init-time -w -O -s 10 -n 70 1g  > measured.json

--memory-max sets memory.max (with or without --memory-high); --cgroup-v1 measures under cgroup
v1's memory controller (memory.limit_in_bytes; no memory.high or event counters, and v1 charges
no zswap pool, which the model does); --no-cgroup runs usemem under
global memory pressure, without a cgroup (then no memcg counters). --scenario writes the
machine's scenario for the run (tools/machine_scenario.py: CPUs, RAM, /proc/swaps, zswap, zram
and mTHP settings, with the usemem command line as its workload), and --targets adds the
target that maps the measured column to it: `swapsim compare --published measured.json
--targets my-targets.json` and `swapsim calibrate --published measured.json --targets
my-targets.json --train my/usemem-64k --free-preset zswap-zstd --out fit.json` then work.

It creates a cgroup, sets memory.high, snapshots /proc/vmstat, memory.events,
memory.swap.events and the per-size mTHP stats, runs usemem in the cgroup (under `perf stat`
when perf is installed, for elapsed and sys time), snapshots again and writes the differences
under the kernel names swapsim uses. --append FILE adds a column to an existing file.

It also records what the model's open questions need (README, "What a measurement settles"):
memory.current and memory.stat when the last process has printed its statistics (all writes
done; with -s every mapping is still resident), memory.peak, the throughput of the slowest and
fastest process, how many processes shared an SMT core while all were writing (sampled every
0.1 s from /proc/PID/stat), and, in the table's workload, /proc/swaps and memory.numa_stat's
anon per node at that moment.
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
import threading
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
    if tp:
        m["throughput_kbps_min"] = min(tp)
        m["throughput_kbps_max"] = max(tp)
    return m


# memory.stat lines reported with memory.current when the writes are done (bytes).
MEMSTAT_AT_WRITES_DONE = ["anon", "kernel", "pagetables", "zswap", "zswapped"]


def writes_done_metrics(current, memstat):
    """memory.current and memory.stat lines under swapsim's `*_at_writes_done` names."""
    m = {"memory_current_at_writes_done": current}
    for k in MEMSTAT_AT_WRITES_DONE:
        if k in memstat:
            m[f"{k}_at_writes_done"] = memstat[k]
    return m


def parse_swaps(text):
    """/proc/swaps rows: filename, type, size and used (KiB), priority."""
    rows = []
    for line in text.splitlines()[1:]:
        f = line.split()
        if len(f) == 5:
            rows.append({"filename": f[0], "type": f[1], "size_kb": int(f[2]), "used_kb": int(f[3]),
                         "priority": int(f[4])})
    return rows


def parse_numa_anon(text):
    """memory.numa_stat's anon line: bytes per node, e.g. {"N0": 123, "N1": 0}."""
    for line in text.splitlines():
        f = line.split()
        if f and f[0] == "anon":
            return {k: int(v) for k, v in (x.split("=") for x in f[1:])}
    return {}


# cgroup v1's memory controller under v2's names: the files read, and memory.stat's keys
# (total_*: the group and its children, bytes). v1 has no memory.high, memory.events or zswap lines.
V1_FILES = {"memory.max": "memory.limit_in_bytes", "memory.current": "memory.usage_in_bytes",
            "memory.peak": "memory.max_usage_in_bytes"}
V1_STAT = {"total_rss": "anon"}


def v1_memstat(stat):
    """v1 memory.stat in v2's names (only the lines writes_done_metrics reads)."""
    return {V1_STAT[k]: v for k, v in stat.items() if k in V1_STAT}


def v1_numa_anon(text, page_size=4096):
    """v1 memory.numa_stat's anon line (pages: "anon=T N0=a N1=b") in v2's form (bytes per node)."""
    for line in text.splitlines():
        f = line.split()
        if f and f[0].startswith("anon="):
            return {k: int(v) * page_size for k, v in (x.split("=") for x in f[1:])}
    return {}


def parse_proc_stat(text):
    """(state, processor) from /proc/PID/stat; comm may hold spaces and parentheses."""
    rest = text[text.rindex(")") + 2:].split()
    return rest[0], int(rest[36])   # fields 3 and 39


def smt_shared(cpus, core_of):
    """How many of the tasks running on `cpus` share their core with another of them."""
    per_core = {}
    for c in cpus:
        per_core[core_of[c]] = per_core.get(core_of[c], 0) + 1
    return sum(1 for c in cpus if per_core[core_of[c]] > 1)


def cpu_cores():
    """Logical CPU -> (package, core) from sysfs."""
    out = {}
    for d in glob.glob("/sys/devices/system/cpu/cpu[0-9]*/topology"):
        cpu = int(re.search(r"cpu(\d+)/topology", d).group(1))
        out[cpu] = (read(os.path.join(d, "physical_package_id")).strip(), read(os.path.join(d, "core_id")).strip())
    return out


def table_json(table_id, column, metrics, command, existing=None, machine=None):
    """Add `column` with `metrics` to table `table_id` (seed-tables.json schema). `machine`:
    what the run saw that is not a metric (/proc/swaps, anon per node), kept per column."""
    doc = existing or {"tables": []}
    t = next((x for x in doc["tables"] if x["id"] == table_id), None)
    if t is None:
        t = {"id": table_id, "kind": "benchmark_table", "title": f"measured with tools/measure_usemem.py",
             "columns": [], "rows": [], "workload": {"command": command}}
        doc["tables"].append(t)
    if any(c["key"] == column for c in t["columns"]):
        raise SystemExit(f"measure_usemem: column {column} already in table {table_id}")
    t["columns"].append({"key": column, "label": column})
    if machine:
        t["workload"].setdefault("machine", {})[column] = machine
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
    ap.add_argument("--memory-high", help="memory.high of the cgroup, e.g. 40G")
    ap.add_argument("--memory-max", help="memory.max of the cgroup, e.g. 4G")
    ap.add_argument("--no-cgroup", action="store_true",
                    help="run usemem where this script runs (global memory pressure): no memcg counters")
    ap.add_argument("--scenario", help="also write this machine's scenario for the run (tools/machine_scenario.py)")
    ap.add_argument("--targets", help="add a target (table, column, that scenario) to this targets file")
    ap.add_argument("--machine-root", default="/", help="read the machine's files for --scenario under DIR (tests)")
    ap.add_argument("--usemem", default="usemem", help="path of vm-scalability's usemem")
    ap.add_argument("--cgroup", help="the cgroup directory (default /sys/fs/cgroup/swapsim-measure, or "
                    "/sys/fs/cgroup/memory/swapsim-measure with --cgroup-v1)")
    ap.add_argument("--cgroup-v1", action="store_true",
                    help="the memory controller is cgroup v1's: --memory-max sets memory.limit_in_bytes "
                         "(no memory.high, no memcg event counters; v1 does not charge zswap's pool)")
    ap.add_argument("--append", help="add the column to this measurement file")
    ap.add_argument("usemem_args", nargs=argparse.REMAINDER)
    a = ap.parse_args(argv)
    args = [x for x in a.usemem_args if x != "--"]
    if a.no_cgroup == bool(a.memory_high or a.memory_max):
        ap.error("give --memory-high and/or --memory-max (a memcg run), or --no-cgroup (global pressure)")
    if a.cgroup_v1 and a.memory_high:
        ap.error("--memory-high needs cgroup v2: cgroup v1's memory controller has no memory.high")
    if a.cgroup is None:
        a.cgroup = "/sys/fs/cgroup/memory/swapsim-measure" if a.cgroup_v1 else "/sys/fs/cgroup/swapsim-measure"
    if a.targets and not a.scenario:
        ap.error("--targets needs --scenario: the target names the scenario written for the run")
    if not a.no_cgroup:
        try:
            os.rmdir(a.cgroup)   # a fresh cgroup, so memory.peak is this run's (fails if in use: kept)
        except OSError:
            pass
        os.makedirs(a.cgroup, exist_ok=True)
        for key, value in (("memory.high", a.memory_high), ("memory.max", a.memory_max)):
            if value:
                with open(os.path.join(a.cgroup, V1_FILES.get(key, key) if a.cgroup_v1 else key), "w") as f:
                    f.write(value)
    cg = lambda name: "" if a.no_cgroup else read(os.path.join(a.cgroup, V1_FILES.get(name, name) if a.cgroup_v1 else name))
    snap = lambda: (parse_kv(read("/proc/vmstat")), parse_kv(cg("memory.events")), parse_kv(cg("memory.swap.events")),
                    mthp_stats())
    swaps = parse_swaps(read("/proc/swaps"))
    core_of = cpu_cores()
    before = snap()
    cmd = [a.usemem] + args
    perf = shutil.which("perf")
    with tempfile.NamedTemporaryFile("r", suffix=".perf") as pf, tempfile.TemporaryFile("w+") as errf:
        full = ([perf, "stat", "-o", pf.name, "--"] if perf else []) + cmd
        # Enter the cgroup in the child before exec.
        procs = os.path.join(a.cgroup, "cgroup.procs")
        t0 = time.monotonic()
        ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        # stderr to a file: a full pipe nobody reads would stall usemem.
        enter = None if a.no_cgroup else (lambda: open(procs, "w").write(str(os.getpid())))
        p = subprocess.Popen(full, stdout=subprocess.PIPE, stderr=errf, text=True, preexec_fn=enter)
        # While every process writes (no statistics line yet), sample which CPUs run them.
        writing = threading.Event()
        writing.set()
        shared = []

        def sample():
            while writing.is_set() and p.poll() is None:
                cpus = []
                for pid in (cg("cgroup.procs") if not a.no_cgroup else str(p.pid)).split():
                    try:
                        state, cpu = parse_proc_stat(read(f"/proc/{pid}/stat"))
                    except (ValueError, IndexError):
                        continue
                    if state == "R" and cpu in core_of:
                        cpus.append(cpu)
                if len(cpus) > 1:
                    shared.append(smt_shared(cpus, core_of))
                time.sleep(0.1)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        out_lines, at_done, numa = [], {}, {}
        for line in p.stdout:
            out_lines.append(line)
            if USEMEM_LINE.match(line.strip()):
                writing.clear()
                # The last statistics line leaves the snapshot of all writes done.
                if not a.no_cgroup:
                    stat = parse_kv(cg("memory.stat"))
                    at_done = writes_done_metrics(int(cg("memory.current").strip() or 0),
                                                  v1_memstat(stat) if a.cgroup_v1 else stat)
                numa = (v1_numa_anon if a.cgroup_v1 else parse_numa_anon)(cg("memory.numa_stat"))
        p.wait()
        errf.seek(0)
        err = errf.read()
        writing.clear()
        sampler.join()
        elapsed = time.monotonic() - t0
        ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        perf_out = parse_perf_stat(pf.read()) if perf else {}
    if p.returncode != 0:
        sys.stderr.write(err)
        raise SystemExit(f"measure_usemem: usemem exited with status {p.returncode}")
    after = snap()
    perf_out.setdefault("elapsed_s", elapsed)
    perf_out.setdefault("sys_s", ru1.ru_stime - ru0.ru_stime)
    perf_out.setdefault("user_s", ru1.ru_utime - ru0.ru_utime)
    tp, free = parse_usemem_output("".join(out_lines))
    m = metrics_from(tp, free, perf_out, diff(before[0], after[0]), diff(before[1], after[1]),
                     diff(before[2], after[2]), {k: after[3][k] - before[3].get(k, 0) for k in after[3]})
    m.update(at_done)
    peak = cg("memory.peak").strip()
    if peak.isdigit():
        m["memory_peak"] = int(peak)
    if shared:
        m["smt_shared_tasks"] = sum(shared) / len(shared)
    existing = json.load(open(a.append)) if a.append else None
    machine = {"swaps": swaps, "anon_per_node_at_writes_done": numa}
    if a.scenario:
        write_scenario(a, args)
    print(json.dumps(table_json(a.table, a.column, m, " ".join(cmd), existing, machine), indent=2))


USEMEM_OPTS = {"-n": "nproc", "-s": "sleep"}


def usemem_workload(args):
    """The scenario's workload from usemem's command line (the options swapsim models)."""
    u, src, i = {}, {}, 0
    flags = {"--init-time": "init_time", "-O": "anonymous", "-y": "sync_rw", "-x": "sync_free"}
    while i < len(args):
        x = args[i]
        if x in USEMEM_OPTS and i + 1 < len(args):
            key = USEMEM_OPTS[x]
            u[key] = int(args[i + 1]) if key == "nproc" else args[i + 1] + "s"
            i += 2
            continue
        if x in flags:
            u[flags[x]] = True
        elif not x.startswith("-"):
            u["size"] = x.upper() if x[-1:].lower() in "kmgt" else x
        i += 1
    u.setdefault("sleep", "0s")
    for k in u:
        src[f"workload.usemem.{k}"] = "the measured run's command line: usemem " + " ".join(args)
    return {"workload": {"type": "usemem", "usemem": u}, "sources": src}


def write_scenario(a, args):
    """This machine's scenario for the run, and its target when --targets is given."""
    import machine_scenario
    name = f"{a.table.replace('/', '-')}-{a.column}"
    s = machine_scenario.scenario(a.machine_root, name, usemem_workload(args), a.memory_high, a.memory_max)
    with open(a.scenario, "w") as f:
        json.dump(s, f, indent=2)
        f.write("\n")
    if a.targets:
        doc = json.load(open(a.targets)) if os.path.exists(a.targets) else {"targets": []}
        doc["targets"] = [t for t in doc["targets"] if (t["table"], t["column"]) != (a.table, a.column)]
        doc["targets"].append({"table": a.table, "column": a.column, "scenario": a.scenario,
                               "metrics": ["throughput_kbps", "elapsed_s", "sys_s", "zswpout", "pswpout",
                                           "memcg_high", "pgmajfault"]})
        with open(a.targets, "w") as f:
            json.dump(doc, f, indent=2)
            f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1:])
