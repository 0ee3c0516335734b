#!/usr/bin/env python3
"""Measures usemem's own memory besides its test mapping (workload.usemem.misc_anon and the layout
in model/workload/usemem.cpp): vm-scalability's usemem, built from its source
(gcc -pthread -O -g -o usemem usemem.c usemem_mincore.c usemem_hugepages.c), with THP off.

1. `usemem --init-time -w -O -s 4 -n 2 16m`: while the children sleep, each one's /proc/PID/smaps:
   the Anonymous kB of every mapping except the 16M test mapping, and the file-backed Rss.
2. `usemem --init-time -w -O -s 1 -n 1 2g` under strace, which delays the child's exit_group by 3 s
   (`-e inject=exit_group:delay_enter=`), so its mm can be read at exit: clear_refs during the
   write loop, smaps 0.3 s later (Referenced: the pages the loop itself keeps touching), clear_refs
   again, smaps at exit_group (the pages touched after that: statistics, sleep, munmap, exit), and
   per anon VMA the present pages (pagemap) and Shared_Dirty (pages still shared with the parent).
Writes calibration/workloads/usemem-footprint.json. Needs root or ptrace rights, strace.
Usage: tools/measure_usemem_footprint.py PATH_TO_USEMEM"""
import json, os, platform, re, struct, subprocess, sys, time

usemem = sys.argv[1]


def smaps(pid):
    out = []
    for block in re.split(r"\n(?=[0-9a-f]+-[0-9a-f]+ )", open(f"/proc/{pid}/smaps").read()):
        hdr = block.split("\n")[0].split()
        f = {k: int(v) for k, v in re.findall(r"^(\w+):\s+(\d+) kB", block, re.M)}
        a, b = (int(x, 16) for x in hdr[0].split("-"))
        out.append({"start": a, "end": b, "perm": hdr[1], "name": hdr[5] if len(hdr) > 5 else "", **f})
    return out


def present(pid, a, b):
    fd = os.open(f"/proc/{pid}/pagemap", os.O_RDONLY)
    os.lseek(fd, (a >> 12) * 8, 0)
    d = os.read(fd, ((b - a) >> 12) * 8)
    os.close(fd)
    return "".join("p" if x >> 63 & 1 else "." for x in struct.unpack(f"{len(d) // 8}Q", d))


def children(pid):
    try:
        return [int(x) for x in open(f"/proc/{pid}/task/{pid}/children").read().split()]
    except OSError:
        return []


# 1. the footprint while the children sleep
proc = subprocess.Popen([usemem, "--init-time", "-w", "-O", "-s", "4", "-n", "2", "16m"],
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
time.sleep(2)
rows = []
for pid in children(proc.pid):
    anon = file_rss = test = 0
    for f in smaps(pid):
        if f.get("Size", 0) == 16384 and f.get("Anonymous", 0) >= 8192:
            test += f["Anonymous"]
            continue
        anon += f.get("Anonymous", 0)
        file_rss += f.get("Rss", 0) - f.get("Anonymous", 0)
    rows.append({"pid": pid, "anon_kib_besides_test_mapping": anon, "file_rss_kib": file_rss,
                 "test_mapping_anon_kib": test})
proc.wait()

# 2. which pages the write loop keeps touching, which are touched again only after it
log = "/tmp/usemem_footprint_strace.log"
if os.path.exists(log):
    os.unlink(log)
proc = subprocess.Popen(["strace", "-f", "-qq", "-o", log, "-e", "trace=exit_group",
                         "-e", "inject=exit_group:delay_enter=3000000",
                         usemem, "--init-time", "-w", "-O", "-s", "1", "-n", "1", "2g"],
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
child = None
for _ in range(500):
    time.sleep(0.01)
    for parent in children(proc.pid):
        for c in children(parent):
            child = c
    if child:
        break
time.sleep(0.3)
for v in ("1", "4"):
    open(f"/proc/{child}/clear_refs", "w").write(v)
time.sleep(0.3)
mid = smaps(child)
open(f"/proc/{child}/clear_refs", "w").write("1")
for _ in range(1000):
    time.sleep(0.01)
    if os.path.exists(log) and f"{child} exit_group" in open(log).read():
        break
else:
    sys.exit("the child never reached exit_group")
end = smaps(child)
vmas = []
mid_by_start = {m["start"]: m for m in mid}
for e in end:
    if not e.get("Anonymous") or e["end"] - e["start"] >= 1 << 30:
        continue
    m = mid_by_start.get(e["start"], {})   # none: mapped after the write loop (the heap of printf's buffer)
    vmas.append({"perm": e["perm"], "name": os.path.basename(e["name"]), "size_kib": e["Size"],
                 "anonymous_kib": e["Anonymous"], "shared_dirty_kib": e.get("Shared_Dirty", 0),
                 "private_dirty_kib": e.get("Private_Dirty", 0),
                 "referenced_in_write_loop_kib": m.get("Referenced", 0),
                 "referenced_after_write_loop_kib": e.get("Referenced", 0),
                 "present": present(child, e["start"], e["end"]),
                 "mapped_after_write_loop": not m})
proc.wait()

json.dump({
    "what": "usemem's anonymous memory besides its test mapping, per child (workload.usemem.misc_anon and "
            "the page roles of model/workload/usemem.cpp's MISC_LAYOUT)",
    "made_by": "tools/measure_usemem_footprint.py (this machine)",
    "usemem": "vm-scalability usemem.c (teawater/vm-scalability), gcc -pthread -O -g",
    "libc": platform.libc_ver()[1],
    "command": "usemem --init-time -w -O -s 4 -n 2 16m, smaps read during the sleep",
    "children": rows,
    "layout_command": "usemem --init-time -w -O -s 1 -n 1 2g under strace (exit_group delayed 3 s): "
                      "clear_refs mid-loop, smaps 0.3 s later (referenced_in_write_loop), clear_refs, "
                      "smaps and pagemap at exit_group (referenced_after_write_loop, present)",
    "vmas": vmas,
}, open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "calibration", "workloads",
                     "usemem-footprint.json"), "w"), indent=1)
print(json.dumps(vmas, indent=1))
