#!/usr/bin/env bash
# Measures how often a kernel compile job touches its memory again (workload.kbuild.heap_reuse):
# each sampled compile unit's cc1 runs under valgrind's lackey (every data access), and
# tools/page_reuse.cpp cuts the job's life into 8 equal segments of accesses (the model's
# workload.kbuild.steps) and counts, per segment, the distinct pages touched again. Also records
# cc1's peak RSS without valgrind (GNU time). Writes calibration/workloads/kbuild-heap-reuse-6.1.json.
# Needs: a prepared tree (tools/measure_kbuild.sh's WORK_DIR, after `make prepare`), valgrind,
# time. About 3-10 CPU-minutes per unit (lackey runs ~100x slower than native).
# Usage: tools/measure_heap_reuse.sh [WORK_DIR] [UNIT.o ...]
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-/tmp/kb}
shift || true
units=("$@")
[ ${#units[@]} -gt 0 ] || units=(lib/string.o kernel/pid.o mm/mmap.o fs/ext4/inode.o kernel/sched/fair.o)
tree="$work/linux-source-6.1"
g++ -O2 -std=c++17 -o "$work/page_reuse" "$repo/tools/page_reuse.cpp"
cat > "$work/cc1wrap" <<'W'
#!/bin/sh
# gcc -wrapper: trace cc1 only (as and the rest run as they are).
case "$1" in
  */cc1)
    /usr/bin/time -a -o "$REUSE_OUT.rss" -f "%M" "$@" || exit $?
    valgrind --tool=lackey --trace-mem=yes --log-fd=3 "$@" 3>&1 1>&2 | "$REUSE_TOOL" 8 > "$REUSE_OUT.json"
    ;;
  *) exec "$@" ;;
esac
W
chmod +x "$work/cc1wrap"
out="$work/reuse"
mkdir -p "$out"
cd "$tree"
for u in "${units[@]}"; do
  name=${u//\//_}
  rm -f "$out/$name".*
  # The unit's exact compile command (make V=1), replayed with the wrapper: a changed KCFLAGS
  # would make make rebuild (and trace) the prepare steps too.
  make "$u" > /dev/null 2>&1 && rm -f "$u"
  cmd=$(make V=1 "$u" 2>&1 | grep -E -- " -c -o $u " | head -1)
  [ -n "$cmd" ] || { echo "no compile command for $u" >&2; exit 1; }
  REUSE_TOOL="$work/page_reuse" REUSE_OUT="$out/$name" \
    sh -c "${cmd/gcc /gcc -wrapper $work/cc1wrap }" > "$out/$name.log" 2>&1
  echo "$u: $(cat "$out/$name.json")  rss_kib $(tail -1 "$out/$name.rss")"
done
/usr/bin/python3 - "$out" "$repo/calibration/workloads/kbuild-heap-reuse-6.1.json" "${units[@]}" <<'P'
import json, math, sys
out, dest, units = sys.argv[1], sys.argv[2], sys.argv[3:]
rows = []
for u in units:
    n = u.replace('/', '_')
    r = json.load(open(f"{out}/{n}.json"))
    r["unit"] = u
    r["cc1_maxrss_kib"] = int(open(f"{out}/{n}.rss").read().split()[-1])
    rows.append(r)
# Pool the units weighted by their pages (the model applies one value to every job).
sh = sa = 0.0
for r in rows:
    have = 0
    for f, a in zip(r["fresh"], r["again"]):
        sh += have; sa += a; have += f
frac = sa / sh
json.dump({
    "what": "how often a compile job (cc1) touches its pages again: workload.kbuild.heap_reuse",
    "made_by": "tools/measure_heap_reuse.sh (valgrind lackey + tools/page_reuse.cpp, this machine)",
    "kernel_source": "Debian linux-source-6.1, x86-64 defconfig",
    "definition": "life cut into 8 equal segments of data accesses; again[s] = distinct pages touched in segment s that were first touched before it; heap_reuse = -8 ln(1 - sum(again) / sum(pages existing before each segment)), the model's estimator (workload/kbuild.cpp draws heap_reuse x have / 8 pages per step, uniformly); carried[s] = pages touched in segments s and s - 1; live_segments[k] = pages touched in k + 1 distinct segments; windows_in_segment[k] = (page, segment) pairs touched in 2^k to 2^(k+1) - 1 of the segment's windows",
    "caveat": "all data pages of cc1 count (stack, .data/.bss and libc's too, a few hundred pages against tens of thousands of heap pages); windows of 65,536 accesses",
    "units": rows,
    "pooled": {"again_fraction": round(frac, 4), "heap_reuse": round(-8 * math.log(1 - frac), 3)},
}, open(dest, "w"), indent=1)
print("pooled heap_reuse", round(-8 * math.log(1 - frac), 3))
P
