#!/usr/bin/env python3
"""Summarises a kernel build's per-job log (one GNU time line per compiler job:
elapsed user sys maxrss_kib output) into the workload profile that the kbuild model reads.
Written by tools/measure_kbuild.sh; standard library only."""
import argparse
import json
import statistics
import sys


def quantiles(xs, qs=(0.1, 0.25, 0.5, 0.75, 0.9, 0.99)):
    s = sorted(xs)
    return {f"p{int(q * 100)}": s[min(len(s) - 1, int(q * len(s)))] for q in qs}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("log")
    for k in ("version", "sample", "gcc", "cpu"):
        ap.add_argument("--" + k, required=True)
    ap.add_argument("--note", default="")
    for k in ("units", "tree-bytes", "tree-files", "obj-bytes", "obj-files"):
        ap.add_argument("--" + k, type=int, required=True)
    a = ap.parse_args()
    jobs = []
    for line in open(a.log):
        f = line.split()
        # GNU time adds "Command exited with non-zero status" lines; keep object compiles only
        if len(f) != 5 or not f[4].endswith(".o"):
            continue
        try:
            e, u, s, rss = float(f[0]), float(f[1]), float(f[2]), int(f[3])
        except ValueError:
            continue
        jobs.append({"obj": f[4], "elapsed_s": e, "user_s": u, "sys_s": s, "maxrss_kib": rss})
    if not jobs:
        sys.exit(f"{a.log}: no compiler jobs found")
    cpu = [j["user_s"] + j["sys_s"] for j in jobs]
    out = {
        "what": "per-job profile of `make vmlinux` (x86-64 defconfig) without memory pressure",
        "made_by": "tools/measure_kbuild.sh (this machine), summarised by tools/kbuild_profile.py",
        "kernel_source": f"Debian linux-source-{a.version}",
        "compiler": a.gcc,
        "cpu": a.cpu,
        "note": a.note,
        "compile_units": a.units,
        "compile_units_how": "compiler invocations with -c -o in `make -n -k vmlinux` after make prepare",
        "tree": {"bytes": a.tree_bytes, "files": a.tree_files},
        "sample": {
            "directories": a.sample.split(),
            "jobs": len(jobs),
            "object_bytes": a.obj_bytes,
            "object_files": a.obj_files,
            "object_bytes_mean": round(a.obj_bytes / max(1, a.obj_files)),
        },
        "per_job": {
            "user_s_mean": round(statistics.mean(j["user_s"] for j in jobs), 4),
            "sys_s_mean": round(statistics.mean(j["sys_s"] for j in jobs), 4),
            "cpu_s": {k: round(v, 3) for k, v in quantiles(cpu).items()},
            "maxrss_kib_mean": round(statistics.mean(j["maxrss_kib"] for j in jobs)),
            "maxrss_kib": quantiles([j["maxrss_kib"] for j in jobs]),
        },
        "jobs": [[j["user_s"], j["sys_s"], j["maxrss_kib"]] for j in jobs],
        "jobs_columns": ["user_s", "sys_s", "maxrss_kib"],
    }
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
