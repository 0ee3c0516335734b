#!/usr/bin/env python3
"""Summarises tools/measure_text_rss.sh's logs into calibration/workloads/kbuild-text-<ver>.json."""
import argparse, json, statistics

# The toolchain's own files: what only the build maps (the system's shared libraries, libc, libm,
# libz, libzstd, are mapped by every process and charged where they were first read).
TOOLCHAIN = ("/cc1", "-as", "/libbfd-2.40-system.so", "/libsframe.so.0.0.0", "/libisl.so.23.2.0",
             "/libmpfr.so.6.2.0", "/libgmp.so.10.4.1", "/libmpc.so.3.3.1")


def toolchain(path):
    return path.endswith(TOOLCHAIN)


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))]


def fincore(path):
    out = {}
    for line in open(path):
        res, size, name = line.split(None, 2)
        out[name.strip()] = (int(res), int(size))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("log")
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--dirs", required=True)
    ap.add_argument("--cc1", required=True)
    ap.add_argument("--gcc", required=True)
    a = ap.parse_args()
    jobs = {"cc1": [], "as": []}
    for line in open(a.log):
        f = line.split()
        kind = "cc1" if f[0] == "cc1" else "as"
        kv = dict(x.split("=", 1) for x in f[1:4])
        maps = {}
        for x in f[4:]:
            name, kb = x.rsplit("=", 1)
            path, perms = name.rsplit(":", 1)
            if "text_rss.so" in path:   # the probe itself
                continue
            maps.setdefault(path, {}).setdefault(perms, 0)
            maps[path][perms] += int(kb)
        file_kb = sum(sum(p.values()) for p in maps.values())
        own_text = sum(kb for path, p in maps.items() for perms, kb in p.items() if "x" in perms and path.endswith(("/cc1", "-as")))
        tool = sum(sum(p.values()) for path, p in maps.items() if toolchain(path))
        jobs[kind].append({"hwm": int(kv["hwm"]), "anon": int(kv["anon"]), "file_status": int(kv["file"]),
                           "file_maps": file_kb, "own_text": own_text, "toolchain": tool})
    def summ(rows, key):
        xs = [r[key] for r in rows]
        return {"mean": round(statistics.mean(xs)), "p10": pct(xs, 10), "p50": pct(xs, 50), "p90": pct(xs, 90)}
    b, af = fincore(a.before), fincore(a.after)
    cache = {n: {"size_bytes": af[n][1], "cached_before_bytes": b[n][0], "cached_after_bytes": af[n][0]} for n in af}
    cc1 = jobs["cc1"]
    out = {
        "what": "toolchain file pages mapped by a kernel-build job, and the toolchain's page cache after a sample of units",
        "made_by": "tools/measure_text_rss.sh (LD_PRELOAD tools/text_rss.c; fincore), summarised by tools/text_rss_summary.py",
        "compiler": a.gcc,
        "sample_directories": a.dirs.split(),
        "cc1_jobs": len(cc1),
        "as_jobs": len(jobs["as"]),
        "units": "kB (smaps and /proc/self/status at the process's exit); page cache in bytes",
        "cc1": {"vm_hwm_kb": summ(cc1, "hwm"), "rss_anon_kb": summ(cc1, "anon"), "rss_file_kb": summ(cc1, "file_status"),
                "cc1_text_rss_kb": summ(cc1, "own_text"), "toolchain_rss_kb": summ(cc1, "toolchain")},
        "as": {"vm_hwm_kb": summ(jobs["as"], "hwm"), "rss_file_kb": summ(jobs["as"], "file_status"),
               "toolchain_rss_kb": summ(jobs["as"], "toolchain")},
        "per_job_toolchain_kb": round(statistics.mean(r["toolchain"] for r in cc1) + statistics.mean(r["toolchain"] for r in jobs["as"])),
        "per_job_toolchain_how": "mean over cc1 of the smaps Rss of its toolchain files (cc1, libisl, libmpfr, libgmp, libmpc) plus the same mean over as (as, libbfd, libsframe): workload.kbuild.text",
        "toolchain_page_cache_bytes": sum(v["cached_after_bytes"] for n, v in cache.items() if toolchain(n)),
        "toolchain_page_cache_how": "fincore after the sample, summed over the toolchain's own files: workload.kbuild.toolchain",
        "page_cache": cache,
        "page_cache_after_bytes": sum(v["cached_after_bytes"] for v in cache.values()),
        "page_cache_before_bytes": sum(v["cached_before_bytes"] for v in cache.values()),
        "notes": [
            "rss_file_kb: RssFile at exit, every file page the process mapped (text, rodata, shared libraries); "
            "file pages are never unmapped before exit, so this is their peak; VmHWM includes them",
            "a mapping's Rss counts the pages faulted and their fault-around neighbours (filemap_map_pages maps up to 16 cached pages around a fault)",
            "page_cache_after: the union over the sample's jobs of what the page cache holds, read-around included; "
            "before: after posix_fadvise(DONTNEED), pages mapped by other processes stay",
        ],
    }
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
