#!/usr/bin/env python3
"""The parsing half of tools/measure_usemem.py on recorded sample files, and the resulting
measurement file used by `swapsim compare --published`. Run by ctest."""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import measure_usemem as mu  # noqa: E402

D = os.path.join(ROOT, "tests", "data", "measure")


def read(name):
    with open(os.path.join(D, name)) as f:
        return f.read()


def check(cond, what):
    if not cond:
        raise SystemExit("FAILED: " + what)


def measure_usemem(*args):
    """tools/measure_usemem.py ARGS in a child, with no perf on PATH (times from getrusage)."""
    return subprocess.run([sys.executable, os.path.join(ROOT, "tools", "measure_usemem.py"), *args],
                          capture_output=True, text=True, env=dict(os.environ, PATH="/usr/bin:/bin"))


def stand_in(tmp, files, script):
    """A cgroup directory TMP/cg of plain files {name: text} and a fake usemem running `script`
    (a function of the cgroup's path giving the shell lines). Returns (cgroup, usemem)."""
    cg = os.path.join(tmp, "cg")
    os.makedirs(cg)
    for name, text in files.items():
        with open(os.path.join(cg, name), "w") as f:
            f.write(text)
    fake = os.path.join(tmp, "usemem")
    with open(fake, "w") as f:
        f.write("#!/bin/sh\n" + script(cg))
    os.chmod(fake, 0o755)
    return cg, fake


tp, free = mu.parse_usemem_output(read("usemem.out"))
check(tp == [154142, 130889, 91557, 187239], f"throughputs {tp}")
check(free == [10231, 9984, 13012, 11873], f"free latencies {free}")
perf = mu.parse_perf_stat(read("perf.txt"))
check(perf == {"elapsed_s": 23.903112188, "user_s": 1.112458, "sys_s": 46.00123}, f"perf {perf}")
vm = mu.diff(mu.parse_kv(read("vmstat.before")), mu.parse_kv(read("vmstat.after")))
check(vm["zswpout"] == 572000 and vm["pgmajfault"] == 250 and vm["pswpout"] == 0, f"vmstat diff {vm}")
ev = mu.diff(mu.parse_kv(read("events.before")), mu.parse_kv(read("events.after")))
m = mu.metrics_from(tp, free, perf, vm, ev, {"fail": 12}, {("64kB", "zswpout"): 35000, ("64kB", "swpout"): 0})
check(m["throughput_kbps"] == sum(tp) / 4 and m["throughput_kbps_sum"] == sum(tp), "throughput aggregation")
check(m["memcg_high"] == 8500 and m["memcg_swap_fail"] == 12, "memcg events")
check(m["zswpout_64kB"] == 35000 and m["zswpout"] == 572000, "mTHP and vmstat counters")
check(m["throughput_kbps_min"] == 91557 and m["throughput_kbps_max"] == 187239, "slowest and fastest process")

# What the open questions need: memory.stat when the writes are done, /proc/swaps, placement.
done = mu.writes_done_metrics(42949672960, mu.parse_kv(read("memory.stat")))
check(done == {"memory_current_at_writes_done": 42949672960, "anon_at_writes_done": 34171142144,
               "kernel_at_writes_done": 6123421696, "pagetables_at_writes_done": 147914752,
               "zswap_at_writes_done": 5398118400, "zswapped_at_writes_done": 39932796928}, f"at writes done {done}")
swaps = mu.parse_swaps(read("swaps.txt"))
check([(x["filename"], x["type"], x["size_kb"], x["priority"]) for x in swaps] ==
      [("/swap.img", "file", 2097148, -2), ("/dev/nvme0n1p3", "partition", 862969852, -3)], f"swaps {swaps}")
check(mu.parse_numa_anon(read("memory.numa_stat")) == {"N0": 34171142144, "N1": 0}, "numa_stat anon")
check(mu.parse_proc_stat(read("proc_stat.txt")) == ("R", 57), "state and processor behind a comm with ') '")
# CPUs 0-3 are cores 0-3, 4-7 their siblings: 1 and 5 share core 1, 2 and 6 share core 2.
core_of = {c: ("0", str(c % 4)) for c in range(8)}
check(mu.smt_shared([0, 1, 5, 2, 6, 3], core_of) == 4, "tasks sharing a core")
check(mu.smt_shared([0, 1, 2, 3], core_of) == 0, "one task per core")
m.update(done)
doc = mu.table_json("test/measured", "run1", m, "usemem -n 4 1g", machine={"swaps": swaps})
check(doc["tables"][0]["workload"]["machine"]["run1"]["swaps"][0]["type"] == "file", "swaps kept with the column")
doc = mu.table_json("test/measured", "run2", dict(m, sys_s=40.0), "usemem -n 4 1g", doc)
t = doc["tables"][0]
check([c["key"] for c in t["columns"]] == ["run1", "run2"], "two columns")
sys_row = next(r for r in t["rows"] if r["metric"] == "sys_s")
check(sys_row["values"] == [46.00123, 40.0], f"sys row {sys_row}")

# The whole tool on a stand-in: a cgroup directory of plain files and a fake usemem that
# prints two statistics lines, changing memory.current before each and after the last.
with tempfile.TemporaryDirectory() as tmp:
    cg, fake = stand_in(tmp, {"memory.current": "100\n", "memory.stat": read("memory.stat"),
                              "memory.numa_stat": read("memory.numa_stat"), "memory.peak": "43000000000\n",
                              "memory.events": "high 10\n", "cgroup.procs": ""}, lambda cg: f"""\
echo 200 > {cg}/memory.current
echo "1207959552 bytes / 8000000 usecs = 147456 KB/s"
sleep 0.3
echo 300 > {cg}/memory.current
echo "1207959552 bytes / 9000000 usecs = 131072 KB/s"
sleep 1
echo 999 > {cg}/memory.current
echo "high 25" > {cg}/memory.events
echo "8000 usecs to free memory"
""")
    out = measure_usemem("--table", "t/fake", "--column", "c", "--memory-high", "1G", "--cgroup", cg,
                         "--usemem", fake, "--", "-n", "2", "1g")
    check(out.returncode == 0, "measure_usemem on the stand-in failed: " + out.stderr)
    t = json.loads(out.stdout)["tables"][0]
    got = {r["metric"]: r["values"][0] for r in t["rows"]}
    check(open(os.path.join(cg, "memory.high")).read() == "1G", "memory.high written")
    check(got["memory_current_at_writes_done"] == 300, f"snapshot at the last statistics line: {got}")
    check(got["zswapped_at_writes_done"] == 39932796928, "memory.stat at the last line")
    check(got["memory_peak"] == 43000000000 and got["memcg_high"] == 15, f"peak and events: {got}")
    check(got["throughput_kbps"] == (147456 + 131072) / 2 and got["throughput_kbps_min"] == 131072, "throughputs")
    check(got["free_latency_us"] == 8000, "free latency line")
    check(t["workload"]["machine"]["c"]["anon_per_node_at_writes_done"] == {"N0": 34171142144, "N1": 0}, "numa")

# The same under cgroup v1's memory controller: its file names, total_rss as anon, numa_stat in pages.
with tempfile.TemporaryDirectory() as tmp:
    cg, fake = stand_in(tmp, {"memory.usage_in_bytes": "100\n", "memory.stat": "rss 5\ntotal_rss 7000\ntotal_swap 9\n",
                              "memory.numa_stat": "total=3 N0=3 N1=0\nanon=3 N0=2 N1=1\n",
                              "memory.max_usage_in_bytes": "4000\n", "cgroup.procs": ""}, lambda cg: f"""\
echo 300 > {cg}/memory.usage_in_bytes
echo "1207959552 bytes / 8000000 usecs = 147456 KB/s"
sleep 0.3
echo 999 > {cg}/memory.usage_in_bytes
echo "8000 usecs to free memory"
""")
    v1 = ["--table", "t/v1", "--column", "c", "--cgroup-v1", "--cgroup", cg, "--usemem", fake, "--", "-n", "1", "1g"]
    out = measure_usemem("--memory-max", "1G", *v1)
    check(out.returncode == 0, "measure_usemem --cgroup-v1 failed: " + out.stderr)
    got = {r["metric"]: r["values"][0] for r in json.loads(out.stdout)["tables"][0]["rows"]}
    check(open(os.path.join(cg, "memory.limit_in_bytes")).read() == "1G", "v1 limit written")
    check(not os.path.exists(os.path.join(cg, "memory.max")), "no v2 file written under v1")
    check(got["memory_current_at_writes_done"] == 300 and got["anon_at_writes_done"] == 7000, f"v1 snapshot {got}")
    check(got["memory_peak"] == 4000 and "memcg_high" not in got, f"v1 peak, no events {got}")
    t = json.loads(out.stdout)["tables"][0]
    check(t["workload"]["machine"]["c"]["anon_per_node_at_writes_done"] == {"N0": 8192, "N1": 4096}, "v1 numa in bytes")
    bad = measure_usemem("--memory-high", "1G", *v1)
    check(bad.returncode == 2 and "--memory-high needs cgroup v2" in bad.stderr, "v1 refuses memory.high: " + bad.stderr)

# The machine's scenario from recorded files (tests/data/machine: 2 sockets x 2 cores x 2 threads,
# zram0 at priority 100 over a rotational sda2, zswap off, 64K mTHP always, 2M inherit under madvise,
# and v6.18's shmem-only 8kB size, which has no anon "enabled" file).
import machine_scenario as ms  # noqa: E402
MROOT = os.path.join(ROOT, "tests", "data", "machine")
sc = ms.scenario(MROOT, "fx", None, None, "64M")
check(sc["machine"] == {"sockets": 2, "cores_per_socket": 2, "threads_per_core": 2, "cpu_freq": "2.1GHz",
                        "dram": "8039424K"}, f"machine {sc['machine']}")
check(sc["swap"] == {"device": "zram", "size": "4194300K", "zram": {"disksize": "4194304K", "comp_algorithm": "zstd"}},
      f"swap {sc['swap']}")
check(sc["kernel"]["zswap"] == {"enabled": False, "max_pool_percent": 20}, f"zswap {sc['kernel']['zswap']}")
check(sc["kernel"]["mthp"] == {"enabled": "64K"} and sc["kernel"]["swappiness"] == 100, "mTHP sizes and swappiness")
check(sc["kernel"]["version"] == "6.12" and sc["kernel"]["memcg"] == {"max": "64M"}, "kernel preset and memcg")
check(all(k in sc["sources"] for k in ("machine.dram", "swap.device", "kernel.mthp.enabled")), "sources")
# machine.codec_speed from pagebench output: compressing in half the table machine's time at 2.1 GHz
# is 2 x 2.5 / 2.1 per clock.
table = json.load(open(os.path.join(ROOT, "calibration", "compressors", "table.json")))["codecs"]
half = {"codecs": {c: {"4K": {"comp_ns_per_4k": table[c]["usemem"]["4K"]["comp_ns_per_4k"] / 2}}
                   for c in ("zstd", "lz4", "lzo-rle")}}
check(ms.codec_speed(json.dumps(half), 2.1) == round(2 * 2.5 / 2.1, 3), "codec_speed per clock")
half["codecs"]["lz4"]["4K"]["comp_ns_per_4k"] *= 2   # lz4 as fast as the table machine: the mean moves
check(ms.codec_speed(json.dumps(half), 2.5) == round((2 + 1 + 2) / 3, 3), "codec_speed is the codecs' mean")
swaps_hdd = "Filename Type Size Used Priority\n/dev/sda2 partition 8388604 0 -2\n"
check(ms.swap_device(MROOT, swaps_hdd)[0] == "hdd", "a rotational partition is an hdd")
check(ms.swap_device(MROOT, "Filename Type Size Used Priority\n")is None, "no swap")

# swapsim compare reads the measurement file like the published tables.
binary = sys.argv[1]
with tempfile.TemporaryDirectory() as tmp:
    pub = os.path.join(tmp, "measured.json")
    tgt = os.path.join(tmp, "targets.json")
    json.dump(doc, open(pub, "w"))
    json.dump({"targets": [{"table": "test/measured", "column": "run1", "scenario": "tests/data/medium.json",
                            "metrics": ["throughput_kbps", "sys_s", "zswpout", "memcg_high",
                                        "zswapped_at_writes_done", "throughput_kbps_min"]}]}, open(tgt, "w"))
    out = subprocess.run([binary, "compare", "test/measured", "--published", pub, "--targets", tgt, "--json",
                          "--no-write", "-j", "1"], cwd=ROOT, capture_output=True, text=True)
    check(out.returncode == 0, "compare failed: " + out.stderr)
    cells = json.loads(out.stdout[:out.stdout.rindex("]") + 1])
    check(len(cells) == 6, f"{len(cells)} cells")
    zd = next(c for c in cells if c["metric"] == "zswapped_at_writes_done")
    check(zd["published"] == 39932796928 and zd["model"] > 0, f"zswapped cell {zd}")
    z = next(c for c in cells if c["metric"] == "zswpout")
    check(z["published"] == 572000 and z["model"] > 0, f"zswpout cell {z}")
    check(abs(z["rel_error"] - (z["model"] - 572000) / 572000) < 1e-12, "relative error")
# End to end on the stand-in: measure with memory.max, write the machine's scenario and its
# target, compare against it, and calibrate from the committed fit with a device preset.
with tempfile.TemporaryDirectory() as tmp:
    cg, fake = stand_in(tmp, {"memory.current": "100\n", "memory.stat": read("memory.stat"), "memory.events": "",
                              "cgroup.procs": ""},
                        lambda cg: "echo '67108864 bytes / 500000 usecs = 131072 KB/s'\n"
                                   "echo '67108864 bytes / 600000 usecs = 109226 KB/s'\necho '900 usecs to free memory'\n")
    scen, tgt, pub = (os.path.join(tmp, n) for n in ("fx.json", "targets.json", "measured.json"))
    out = measure_usemem("--table", "t/e2e", "--column", "zram", "--memory-max", "48M", "--cgroup", cg,
                         "--usemem", fake, "--scenario", scen, "--targets", tgt, "--machine-root", MROOT,
                         "--", "-n", "2", "32m")
    check(out.returncode == 0, "measure_usemem --memory-max --scenario failed: " + out.stderr)
    open(pub, "w").write(out.stdout)
    check(open(os.path.join(cg, "memory.max")).read() == "48M", "memory.max written")
    check(not os.path.exists(os.path.join(cg, "memory.high")), "no memory.high without --memory-high")
    s = json.load(open(scen))
    check(s["workload"] == {"type": "usemem", "usemem": {"nproc": 2, "size": "32M", "sleep": "0s"}}, f"workload {s['workload']}")
    check(s["kernel"]["memcg"] == {"max": "48M"} and s["swap"]["device"] == "zram", "memcg and device")
    t = json.load(open(tgt))["targets"]
    check(len(t) == 1 and t[0]["scenario"] == scen and t[0]["table"] == "t/e2e", f"targets {t}")
    out = subprocess.run([binary, "validate", scen], cwd=ROOT, capture_output=True, text=True)
    check(out.returncode == 0, "the written scenario does not validate: " + out.stderr + out.stdout)
    out = subprocess.run([binary, "compare", "t/e2e", "--published", pub, "--targets", tgt, "--json", "--no-write",
                          "-j", "1", "--runs", "1"], cwd=ROOT, capture_output=True, text=True)
    check(out.returncode == 0, "compare on the written target failed: " + out.stderr)
    cells = json.loads(out.stdout[:out.stdout.rindex("]") + 1])
    tp = next(c for c in cells if c["metric"] == "throughput_kbps")
    check(tp["published"] == (131072 + 109226) / 2 and tp["model"] > 0, f"throughput cell {tp}")
    committed = {p["name"]: p["default"] for p in json.loads(subprocess.run([binary, "params", "--json"], cwd=ROOT,
                 capture_output=True, text=True).stdout)}
    for extra, start_from in (([], "committed"), (["--no-builtin-params"], "registry")):
        fit = os.path.join(tmp, f"fit-{start_from}.json")
        out = subprocess.run([binary, "calibrate", "--published", pub, "--targets", tgt, "--train", "t/e2e",
                              "--free-preset", "zram", "--max-evals", "2", "-j", "1", "--out", fit] + extra,
                             cwd=ROOT, capture_output=True, text=True)
        check(out.returncode == 0, "calibrate --published failed: " + out.stderr)
        doc = json.load(open(fit))
        check("cost.zram.write_page" in doc["free"] and "cost.reclaim.entry" in doc["free"], f"preset {doc['free']}")
        start = doc["start"]["cost.reclaim.entry"]
        if start_from == "committed":
            check(abs(start - float(committed["cost.reclaim.entry"])) < 1e-6 * start, f"start {start} is not the committed fit")
        else:
            check(abs(start - float(committed["cost.reclaim.entry"])) > 0.01 * start, "--no-builtin-params starts from the committed fit")
    # Every preset names fitted costs with a physical range (cross-validation needs both).
    ranges = {p["name"]: p for p in json.loads(subprocess.run([binary, "params", "--json"], cwd=ROOT,
              capture_output=True, text=True).stdout)}
    for preset in ("zswap-zstd", "zswap-lz4", "zswap-lzo-rle", "zswap-iaa", "zram", "pmem", "ssd", "hdd"):
        fit = os.path.join(tmp, f"fit-{preset}.json")
        out = subprocess.run([binary, "calibrate", "--published", pub, "--targets", tgt, "--train", "t/e2e",
                              "--free-preset", preset, "--max-evals", "1", "-j", "1", "--out", fit],
                             cwd=ROOT, capture_output=True, text=True)
        check(out.returncode == 0, f"--free-preset {preset}: " + out.stderr)
        for name in json.load(open(fit))["free"]:
            r = ranges[name]
            check(r["fitted"] and r["min"] and r["min"] > 0 and r["max"] and r["max"] < 1e12, f"{preset}: {name} range")
    bad = subprocess.run([binary, "calibrate", "--published", pub, "--targets", tgt, "--train", "t/e2e",
                          "--free-preset", "ssdd", "--out", os.path.join(tmp, "x.json")], cwd=ROOT, capture_output=True, text=True)
    check(bad.returncode == 2 and "one of zswap-zstd" in bad.stderr, "an unknown preset: " + bad.stderr)

# profile_reclaim.py's per-page table from a recorded `perf report --children` (the v6.18 VM's zswap
# lzo-rle run, tests/data/perf/): the event count is the run's CPU time, each row children% of it.
import profile_reclaim as pr  # noqa: E402
rows, total_s = pr.per_page(open(os.path.join(ROOT, "tests", "data", "perf", "zswap-lzo-rle-children.txt")).read(),
                            1051850)
byname = {f: (ch, se, us) for f, ch, se, us in rows}
check(abs(total_s - 37.73325) < 1e-9, f"cpu-clock total {total_s}")
check(byname["zswap_store"][:2] == (23.36, 1.36), f"zswap_store row {byname.get('zswap_store')}")
check(abs(byname["zswap_store"][2] - 23.36 / 100 * 37.73325e6 / 1051850) < 1e-9, "us per page out")
check(abs(byname["scomp_acomp_comp_decomp"][2] - 4.968) < 0.001, "the compressor's share")
check("zcomp_compress" not in byname, "a function the report lacks gets no row")
check([r[0] for r in rows] == [f for f in pr.FUNCS if f in byname], "rows in FUNCS order")
print("measure_usemem parsing, the machine's scenario, compare --published and calibrate --published, "
      "profile_reclaim's table: ok")
