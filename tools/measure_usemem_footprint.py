#!/usr/bin/env python3
"""Measures usemem's own memory besides its test mapping (workload.usemem.misc_anon): runs
`usemem --init-time -w -O -s 4 -n 2 16m` (vm-scalability's usemem, built from its source:
gcc -pthread -O -g -o usemem usemem.c usemem_mincore.c usemem_hugepages.c), and while the children
sleep reads each one's /proc/PID/smaps: the Anonymous kB of every mapping except the 16M test
mapping (stack, heap, libc and ld.so data, usemem's .data/.bss), and the file-backed Rss beside it.
Writes calibration/workloads/usemem-footprint.json.
Usage: tools/measure_usemem_footprint.py PATH_TO_USEMEM"""
import json, os, platform, re, subprocess, sys, time

usemem = sys.argv[1]
proc = subprocess.Popen([usemem, "--init-time", "-w", "-O", "-s", "4", "-n", "2", "16m"],
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
time.sleep(2)
pids = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout.split()
rows = []
for pid in pids:
    text = open(f"/proc/{pid}/smaps").read()
    anon = file_rss = test = 0
    for block in re.split(r"\n(?=[0-9a-f]+-[0-9a-f]+ )", text):
        f = {k: int(v) for k, v in re.findall(r"^(\w+):\s+(\d+) kB", block, re.M)}
        if f.get("Size", 0) == 16384 and f.get("Anonymous", 0) >= 8192:
            test += f["Anonymous"]
            continue
        anon += f.get("Anonymous", 0)
        file_rss += f.get("Rss", 0) - f.get("Anonymous", 0)
    rows.append({"pid": int(pid), "anon_kib_besides_test_mapping": anon, "file_rss_kib": file_rss,
                 "test_mapping_anon_kib": test})
proc.wait()
json.dump({
    "what": "usemem's private anonymous memory besides its test mapping (workload.usemem.misc_anon), per child",
    "made_by": "tools/measure_usemem_footprint.py (this machine)",
    "usemem": "vm-scalability usemem.c (teawater/vm-scalability 96c9436), gcc -pthread -O -g",
    "libc": platform.libc_ver()[1],
    "command": "usemem --init-time -w -O -s 4 -n 2 16m, smaps read during the sleep",
    "children": rows,
}, open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "calibration", "workloads",
                     "usemem-footprint.json"), "w"), indent=1)
print(rows)
