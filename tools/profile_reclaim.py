#!/usr/bin/env python3
"""Where the real kernel's reclaim spends its time, per swapped-out page (perf, root).

  tools/profile_reclaim.py --usemem PATH --limit 2G [--out FILE.md] -- --init-time -O -y -x -n 2 3G

Runs usemem in a cgroup v1 memory cgroup with memory.limit_in_bytes = --limit under
`perf record -e cpu-clock -a -g`, then prints, for the kernel functions the model names
(do_try_to_free_pages, zswap_store, the compressors, zs_malloc, the TLB shootdown, ...), their
time with callees (perf's "children") divided by the pages swapped out (zswpout + pswpout from
/proc/vmstat). Swap, zswap or zram must be set up already. `perf report --children` of the
recorded file (kept beside --out) shows the rest. docs/open-work.md has the runs of 2026-12-03.
"""
import argparse
import os
import re
import subprocess
import sys

FUNCS = ["try_to_free_mem_cgroup_pages", "do_try_to_free_pages", "shrink_node", "shrink_lruvec",
         "shrink_folio_list", "try_to_unmap_flush_dirty", "swap_writeout", "zswap_store",
         "scomp_acomp_comp_decomp", "zcomp_compress", "zs_malloc", "zs_obj_write", "xa_store",
         "list_lru_add", "folio_alloc_swap", "swap_cache_add_folio", "__remove_mapping", "try_to_unmap",
         "folio_referenced", "clear_page_erms", "zswap_entry_free", "zs_free", "free_swap_and_cache_nr"]


def per_page(report, pages):
    """Rows (function, children %, self %, us per page out) of `perf report --children --sort
    sym --stdio -g none` text for FUNCS, and the total cpu-clock time in seconds."""
    total_ns = float(re.search(r"Event count \(approx\.\): (\d+)", report).group(1))
    children = {}
    for line in report.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+([\d.]+)%\s+\[[k.]\]\s+(\S+)", line)
        if m:
            children.setdefault(m.group(3), (float(m.group(1)), float(m.group(2))))
    rows = [(f, ch, se, ch / 100 * total_ns / 1e3 / max(pages, 1))
            for f, (ch, se) in ((f, children[f]) for f in FUNCS if f in children)]
    return rows, total_ns / 1e9


def vmstat():
    return {k: int(v) for k, v in (l.split() for l in open("/proc/vmstat"))}


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--usemem", default="usemem")
    ap.add_argument("--limit", required=True)
    ap.add_argument("--out", default="reclaim-profile.md")
    ap.add_argument("args", nargs=argparse.REMAINDER)
    a = ap.parse_args(argv)
    args = a.args[1:] if a.args[:1] == ["--"] else a.args
    cg = "/sys/fs/cgroup/memory/swapsim_profile"
    os.makedirs(cg, exist_ok=True)
    open(os.path.join(cg, "memory.limit_in_bytes"), "w").write(a.limit)
    data = os.path.splitext(a.out)[0] + ".perf.data"
    v0 = vmstat()
    run = subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-a", "-g", "-o", data, "--", "bash", "-c",
                          f"echo $$ > {cg}/cgroup.procs; exec /usr/bin/time -f 'TIME %e %U %S' "
                          + " ".join([a.usemem] + args)], capture_output=True, text=True)
    v1 = vmstat()
    out = run.stdout + run.stderr
    t = re.search(r"TIME ([\d.]+) ([\d.]+) ([\d.]+)", out)
    pages = sum(v1.get(k, 0) - v0.get(k, 0) for k in ("zswpout", "pswpout"))
    rep = subprocess.run(["perf", "report", "-i", data, "--children", "--sort", "sym", "--stdio", "-g", "none"],
                         capture_output=True, text=True).stdout
    rows, total_s = per_page(rep, pages)
    lines = [f"usemem {' '.join(args)} in memory.limit_in_bytes {a.limit} on {os.uname().release}:",
             f"elapsed / user / sys {t.group(1)} / {t.group(2)} / {t.group(3)} s" if t else "no TIME line",
             f"pages swapped out (zswpout + pswpout): {pages:,}; perf cpu-clock over all CPUs {total_s:.1f} s",
             "", "| function | share (with callees) | self | us per page out |", "|---|---|---|---|"]
    lines += [f"| {f} | {ch:.2f}% | {se:.2f}% | {us:.2f} |" for f, ch, se, us in rows]
    text = "\n".join(lines) + "\n"
    open(a.out, "w").write(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main(sys.argv[1:])
