#!/usr/bin/env python3
"""Side-by-side speed of an older commit and the working tree, on the same scenarios.

Usage: bench/compare_commits.py OLD_COMMIT [--build DIR] [--runs N] [--only NAME,...]

Builds OLD_COMMIT in a git worktree under /tmp (build directory inside it, kept for the next
call), then runs the old binary and DIR/swapsim (default: build) in turn, A B A B ..., on each
scenario. Absolute times on a shared machine move 2-5x with its load; the ratio of one old and
one new run taken back to back does not, so the ratio reported is the median of those pair
ratios. Per scenario and binary: CPU time (user + system of the child), wall time, peak RSS
and simulated/wall (the run's simulated elapsed_s over its wall time), medians over the runs.
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT = "scenarios/default.json"
# name -> (scenario, --set overrides)
SCENARIOS = {
    "default": (DEFAULT, []),
    "4k": (DEFAULT, ["kernel.mthp.enabled=none"]),
    "2m": (DEFAULT, ["kernel.mthp.enabled=2M"]),
    "30x10g": (DEFAULT, ["workload.usemem.nproc=30", "workload.usemem.size=10G", "kernel.memcg.high=150G",
                         "kernel.mthp.enabled=64K", "kernel.zswap.compressor=zstd"]),
    # 4K folios in many small VMAs: the PTE runs stay unfolded there (docs/speed.md)
    "kbuild48": ("scenarios/swap-table-p1-v4/kbuild-matrix-zram-zswap/j48-3G-zswap/before.json", []),
}


def sh(cmd, **kw):
    subprocess.run(cmd, check=True, **kw)


def build_old(commit):
    rev = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short=12", commit], check=True,
                         capture_output=True, text=True).stdout.strip()
    wt = f"/tmp/swapsim-bench-{rev}"
    if not os.path.isdir(wt):
        sh(["git", "-C", ROOT, "worktree", "add", "--detach", wt, rev], stdout=subprocess.DEVNULL)
    build = os.path.join(wt, "build")
    cfg = ["cmake", "-S", wt, "-B", build, "-DCMAKE_BUILD_TYPE=Release"]
    if subprocess.run(["which", "ccache"], capture_output=True).returncode == 0:
        cfg.append("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache")
    sh(cfg, stdout=subprocess.DEVNULL)
    sh(["cmake", "--build", build, "-j2", "--target", "swapsim"], stdout=subprocess.DEVNULL)
    return rev, os.path.join(build, "swapsim")


def run_once(binary, scenario, sets):
    """One run in a child process: (cpu_s, wall_s, peak_rss_mib, simulated_s)."""
    with tempfile.TemporaryDirectory() as out:
        cmd = [binary, "run", os.path.join(ROOT, scenario), "--out", out]
        for s in sets:
            cmd += ["--set", s]
        t0 = time.monotonic()
        pid = os.fork()
        if pid == 0:
            os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
            os.execv(binary, cmd)
        _, status, ru = os.wait4(pid, 0)
        wall = time.monotonic() - t0
        if status != 0:
            sys.exit(f"{' '.join(cmd)}: exit status {status}")
        sim = json.load(open(os.path.join(out, "result.json")))["metrics"]["elapsed_s"]
        return ru.ru_utime + ru.ru_stime, wall, ru.ru_maxrss / 1024, sim


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--only", default=",".join(SCENARIOS))
    a = ap.parse_args()
    rev, old_bin = build_old(a.old)
    new_bin = os.path.join(a.build, "swapsim")
    names = a.only.split(",")
    for n in names:
        if n not in SCENARIOS:
            sys.exit(f"--only: unknown scenario {n!r} (one of {', '.join(SCENARIOS)})")
    print(f"old {rev} vs working tree ({new_bin}), {a.runs} interleaved pairs per scenario")
    print("| scenario | binary | CPU s | wall s | peak RSS MiB | simulated/wall | CPU ratio new/old |")
    print("|---|---|---|---|---|---|---|")
    for n in names:
        scen, sets = SCENARIOS[n]
        runs = {"old": [], "new": []}
        for _ in range(a.runs):
            runs["old"].append(run_once(old_bin, scen, sets))
            runs["new"].append(run_once(new_bin, scen, sets))
        ratio = statistics.median(nw[0] / od[0] for od, nw in zip(runs["old"], runs["new"]))
        wratio = statistics.median(nw[1] / od[1] for od, nw in zip(runs["old"], runs["new"]))
        for b in ("old", "new"):
            r = runs[b]
            med = [statistics.median(x[i] for x in r) for i in range(4)]
            tail = f"{ratio:.3f} (wall {wratio:.3f})" if b == "new" else ""
            print(f"| {n} | {b} | {med[0]:.2f} | {med[1]:.2f} | {max(x[2] for x in r):.0f} | "
                  f"{med[3] / med[1]:.2f} | {tail} |", flush=True)


if __name__ == "__main__":
    main()
