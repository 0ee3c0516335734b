#!/usr/bin/env python3
"""Write a swapsim scenario's machine, swap and kernel sections from the Linux machine it runs on.

  tools/machine_scenario.py [--root DIR] [--workload SCENARIO] [--memory-high SIZE]
                            [--memory-max SIZE] [--name NAME] > my-machine.json

Reads /proc/cpuinfo (sockets, cores per socket, threads per core, nominal clock),
/proc/meminfo (MemTotal), /proc/swaps (the highest-priority swap device: zram, pmem, or a
disk, rotational or not from /sys/block/DEV/queue/rotational; its size), /sys/block/zramN
(disksize, comp_algorithm), /sys/module/zswap/parameters (enabled, compressor,
max_pool_percent, accept_threshold_percent), the mTHP sizes enabled under
/sys/kernel/mm/transparent_hugepage, /proc/sys/vm/swappiness and the kernel release (a
`kernel.version` preset when one matches). Every key it sets is named in "sources" with the
file it came from. --workload copies the workload section of another scenario; --memory-high
and --memory-max set the memcg limits. --root reads those files under DIR instead of /
(recorded fixtures, tests/data/machine/). --pagebench PATH runs a built
calibration/compressors/pagebench.c on usemem pages and sets machine.codec_speed (this CPU's
compressors against the machine of calibration/compressors/table.json).
"""
import argparse
import datetime
import glob
import json
import os
import re
import socket
import sys

PRESETS = ["6.12", "6.13", "6.14", "6.15", "6.17", "6.18"]   # kernel.version values by release
COMPRESSORS = {"zstd", "lz4", "lzo-rle", "deflate-iaa", "deflate-iaa-canned"}


def read(root, path):
    try:
        with open(os.path.join(root, path.lstrip("/"))) as f:
            return f.read()
    except OSError:
        return None


def bracketed(text):
    """The selected word of a sysfs choice line: "[lzo-rle] lz4 zstd" -> "lzo-rle"."""
    m = re.search(r"\[([^\]]+)\]", text or "")
    return m.group(1) if m else (text or "").strip() or None


def cpu_topology(cpuinfo):
    """(sockets, cores per socket, threads per core, GHz or None) from /proc/cpuinfo."""
    procs = [p for p in cpuinfo.strip().split("\n\n") if p.strip()]
    fields = [dict((k.strip(), v.strip()) for k, _, v in (l.partition(":") for l in p.splitlines())) for p in procs]
    sockets = len({f.get("physical id", "0") for f in fields}) or 1
    cores = int(fields[0].get("cpu cores", 0) or 0) or max(1, len(fields) // sockets)
    siblings = int(fields[0].get("siblings", 0) or 0) or cores
    ghz = None
    m = re.search(r"@\s*([\d.]+)\s*GHz", fields[0].get("model name", ""))
    if m:
        ghz = float(m.group(1))
    elif fields[0].get("cpu MHz"):
        ghz = round(float(fields[0]["cpu MHz"]) / 1000, 2)
    return sockets, cores, max(1, siblings // cores), ghz


def swap_device(root, swaps_text):
    """The highest-priority entry of /proc/swaps: (swapsim device, size KiB, what it is, extra)."""
    rows = []
    for line in (swaps_text or "").splitlines()[1:]:
        parts = line.split()
        if len(parts) >= 5:
            rows.append((int(parts[4]), parts[0], parts[1], int(parts[2])))
    if not rows:
        return None
    prio, name, kind, size_kb = max(rows)
    dev = os.path.basename(name)
    extra = {}
    if dev.startswith("zram"):
        extra["disksize"] = int((read(root, f"/sys/block/{dev}/disksize") or "0").strip() or 0)
        extra["comp_algorithm"] = bracketed(read(root, f"/sys/block/{dev}/comp_algorithm"))
        return "zram", size_kb, f"/proc/swaps: {name}", extra
    if dev.startswith("pmem"):
        return "pmem", size_kb, f"/proc/swaps: {name}", extra
    if kind == "partition":
        # The partition's disk: nvme0n1p3 -> nvme0n1, mmcblk0p2 -> mmcblk0, sdb2 -> sdb.
        disk = re.sub(r"p\d+$" if dev.startswith(("nvme", "mmcblk")) else r"\d+$", "", dev)
        rot = (read(root, f"/sys/block/{disk}/queue/rotational") or "").strip()
        if rot:
            return ("hdd" if rot == "1" else "ssd"), size_kb, f"/proc/swaps: {name}, /sys/block/{disk}/queue/rotational = {rot}", extra
    return "ssd", size_kb, f"/proc/swaps: {name} ({kind}; rotational not determined: ssd assumed)", extra


def mthp_sizes(root):
    """Enabled mTHP sizes: "always", or "inherit" while the top-level setting is "always"."""
    top = bracketed(read(root, "/sys/kernel/mm/transparent_hugepage/enabled"))
    sizes = []
    for d in glob.glob(os.path.join(root, "sys/kernel/mm/transparent_hugepage/hugepages-*kB")):
        kb = int(re.search(r"hugepages-(\d+)kB", d).group(1))
        if not os.path.exists(os.path.join(d, "enabled")):   # v6.18: shmem-only sizes (8kB)
            continue
        with open(os.path.join(d, "enabled")) as f:
            mode = bracketed(f.read())
        if mode == "always" or (mode == "inherit" and top == "always"):
            sizes.append(kb)
    return ",".join(f"{kb // 1024}M" if kb >= 1024 else f"{kb}K" for kb in sorted(sizes)) or "none"


def scenario(root, name, workload=None, memory_high=None, memory_max=None):
    host = (read(root, "/proc/sys/kernel/hostname") or socket.gethostname()).strip()
    when = datetime.date.today().isoformat()
    src = lambda what: f"measured: {what} on {host} (tools/machine_scenario.py, {when})"
    s = {"name": name, "description": f"the machine {host} as tools/machine_scenario.py read it",
         "machine": {}, "swap": {}, "kernel": {}, "sources": {}}
    put = lambda section, key, value, why: (s[section].__setitem__(key, value), s["sources"].__setitem__(f"{section}.{key}", why))
    cpuinfo = read(root, "/proc/cpuinfo")
    if cpuinfo:
        sockets, cores, threads, ghz = cpu_topology(cpuinfo)
        put("machine", "sockets", sockets, src("/proc/cpuinfo physical id"))
        put("machine", "cores_per_socket", cores, src("/proc/cpuinfo cpu cores"))
        put("machine", "threads_per_core", min(threads, 2), src("/proc/cpuinfo siblings / cpu cores"))
        if ghz:
            put("machine", "cpu_freq", f"{ghz}GHz", src("/proc/cpuinfo model name (nominal clock)"))
    m = re.search(r"^MemTotal:\s+(\d+) kB", read(root, "/proc/meminfo") or "", re.M)
    if m:
        put("machine", "dram", f"{m.group(1)}K", src("/proc/meminfo MemTotal"))
    dev = swap_device(root, read(root, "/proc/swaps"))
    if dev:
        kind, size_kb, what, extra = dev
        put("swap", "device", kind, src(what))
        put("swap", "size", f"{size_kb}K", src("/proc/swaps Size"))
        if kind == "zram":
            s["swap"]["zram"] = {}
            if extra.get("disksize"):
                s["swap"]["zram"]["disksize"] = f"{extra['disksize'] // 1024}K"
                s["sources"]["swap.zram.disksize"] = src("/sys/block/zram*/disksize")
            if extra.get("comp_algorithm") in ("lzo-rle", "lz4", "zstd"):
                s["swap"]["zram"]["comp_algorithm"] = extra["comp_algorithm"]
                s["sources"]["swap.zram.comp_algorithm"] = src("/sys/block/zram*/comp_algorithm")
    else:
        put("swap", "device", "none", src("/proc/swaps (no swap)"))
    zp = "/sys/module/zswap/parameters/"
    enabled = (read(root, zp + "enabled") or "").strip()
    if enabled:
        z = s["kernel"].setdefault("zswap", {})
        z["enabled"] = enabled in ("Y", "1")
        s["sources"]["kernel.zswap.enabled"] = src(zp + "enabled")
        comp = (read(root, zp + "compressor") or "").strip()
        if z["enabled"] and comp in COMPRESSORS:
            z["compressor"] = comp
            s["sources"]["kernel.zswap.compressor"] = src(zp + "compressor")
        for key in ("max_pool_percent", "accept_threshold_percent"):
            v = (read(root, zp + key) or "").strip()
            if v.isdigit():
                z[key] = int(v)
                s["sources"][f"kernel.zswap.{key}"] = src(zp + key)
    if read(root, "/sys/kernel/mm/transparent_hugepage/enabled") is not None:
        s["kernel"]["mthp"] = {"enabled": mthp_sizes(root)}
        s["sources"]["kernel.mthp.enabled"] = src("/sys/kernel/mm/transparent_hugepage/hugepages-*kB/enabled")
    sw = (read(root, "/proc/sys/vm/swappiness") or "").strip()
    if sw.isdigit():
        put("kernel", "swappiness", int(sw), src("/proc/sys/vm/swappiness"))
    rel = (read(root, "/proc/sys/kernel/osrelease") or "").strip()
    m = re.match(r"(\d+\.\d+)", rel)
    if m and m.group(1) in PRESETS:
        put("kernel", "version", m.group(1), src(f"/proc/sys/kernel/osrelease ({rel})"))
    if memory_high or memory_max:
        mc = s["kernel"].setdefault("memcg", {})
        for key, v in (("high", memory_high), ("max", memory_max)):
            if v:
                mc[key] = v
                s["sources"][f"kernel.memcg.{key}"] = f"the measured run's cgroup memory.{key}"
    if workload:
        s["workload"] = workload["workload"]
        for k, v in workload.get("sources", {}).items():
            if k.startswith("workload."):
                s["sources"][k] = v
    return s


TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "calibration", "compressors", "table.json")


def codec_speed(pagebench_json, cpu_freq_ghz, table=TABLE):
    """machine.codec_speed from `pagebench --usemem` output: the table machine's usemem 4K compress
    times over this machine's, per codec, at the table's 2.5 GHz against this clock; their mean."""
    got = json.loads(pagebench_json)["codecs"]
    ref = json.load(open(table))["codecs"]
    r = [ref[c]["usemem"]["4K"]["comp_ns_per_4k"] / got[c]["4K"]["comp_ns_per_4k"] for c in ("zstd", "lz4", "lzo-rle")]
    return round(sum(r) / len(r) * 2.5 / cpu_freq_ghz, 3)


def add_codec_speed(s, pagebench):
    """Run `pagebench --usemem 64MiB 3` and set machine.codec_speed from it."""
    import subprocess
    out = subprocess.run([pagebench, "--usemem", str(64 << 20), "3"], capture_output=True, text=True, check=True).stdout
    ghz = float(s["machine"].get("cpu_freq", "2.5GHz").rstrip("GHz"))
    s["machine"]["codec_speed"] = codec_speed(out, ghz)
    s["sources"]["machine.codec_speed"] = (f"measured: {pagebench} --usemem against calibration/compressors/table.json "
                                           "(zstd, lz4, lzo-rle usemem 4K compress times, per clock; their mean)")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", default="/", help="read the machine's files under DIR (a recorded fixture)")
    ap.add_argument("--workload", help="a scenario whose workload section to copy")
    ap.add_argument("--memory-high")
    ap.add_argument("--memory-max")
    ap.add_argument("--name", default="my-machine")
    ap.add_argument("--pagebench", help="a built calibration/compressors/pagebench.c: measure machine.codec_speed")
    a = ap.parse_args(argv)
    wl = json.load(open(a.workload)) if a.workload else None
    s = scenario(a.root, a.name, wl, a.memory_high, a.memory_max)
    if a.pagebench:
        add_codec_speed(s, a.pagebench)
    print(json.dumps(s, indent=2))


if __name__ == "__main__":
    main(sys.argv[1:])
