#!/usr/bin/env bash
# Speed of the kernel build workload: make -j48 (seed 001's j48-3G-zswap row, before), run N
# times. Reports the median wall and CPU time, peak RSS and simulated-real / wall ratio.
# Usage: bench/run_kbuild.sh [BUILD_DIR] [RUNS] [SCENARIO]
set -euo pipefail
build=${1:-build}
runs=${2:-3}
scenario=${3:-scenarios/swap-table-p1-v4/kbuild-matrix-zram-zswap/j48-3G-zswap/before.json}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for i in $(seq "$runs"); do
  /usr/bin/time -f "%U" -o "$out/cpu$i" "$build/swapsim" run "$scenario" --out "$out/$i" > /dev/null
  python3 - "$out/$i/result.json" "$out/cpu$i" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
w = r["wall_clock"]
print(f'{w["wall_s"]:.2f} {open(sys.argv[2]).read().strip()} {w["peak_rss_kb"]} {r["metrics"]["real_s"]:.2f} {w["sim_to_wall"]:.2f}')
PY
done | sort -n | awk -v runs="$runs" -v s="$scenario" '
  { wall[NR]=$1; cpu[NR]=$2; rss[NR]=$3; sim[NR]=$4; ratio[NR]=$5; if ($3 > maxrss) maxrss=$3 }
  END {
    m = int((NR + 1) / 2)
    printf "%s, %d runs\n", s, runs
    printf "  wall time: median %.2f s (min %.2f, max %.2f), CPU %.2f s\n", wall[m], wall[1], wall[NR], cpu[m]
    printf "  peak RSS:  %.0f MiB (max over runs)\n", maxrss / 1024
    printf "  simulated real %.2f s, simulated/wall ratio %.2f (median run)\n", sim[m], ratio[m]
  }'
