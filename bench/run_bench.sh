#!/usr/bin/env bash
# Speed benchmark: case1-64k zswap-mTHP zstd (70 x 1 GiB usemem, seed 000), run N times.
# Reports the median wall time, peak RSS and simulated-elapsed / wall ratio of each run.
# Usage: bench/run_bench.sh [BUILD_DIR] [RUNS]
set -euo pipefail
build=${1:-build}
runs=${2:-5}
scenario=scenarios/zswap-mthp-v7/case1-64k/zswap_mthp_zstd.json
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for i in $(seq "$runs"); do
  "$build/swapsim" run "$scenario" --out "$out/$i" > /dev/null
  python3 - "$out/$i/result.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
w = r["wall_clock"]
print(f'{w["wall_s"]:.3f} {w["peak_rss_kb"]} {r["metrics"]["elapsed_s"]:.3f} {w["sim_to_wall"]:.2f}')
PY
done | sort -n | awk -v runs="$runs" '
  { wall[NR]=$1; rss[NR]=$2; sim[NR]=$3; ratio[NR]=$4; if ($2 > maxrss) maxrss=$2 }
  END {
    m = int((NR + 1) / 2)
    printf "case1-64k zswap-mTHP zstd, %d runs\n", runs
    printf "  wall time: median %.2f s (min %.2f, max %.2f)\n", wall[m], wall[1], wall[NR]
    printf "  peak RSS:  %.0f MiB (max over runs)\n", maxrss / 1024
    printf "  simulated elapsed %.2f s, simulated/wall ratio %.2f (median run)\n", sim[m], ratio[m]
  }'

# Granularity: the same scenario with the write step halved; the largest relative change of
# any reported metric (counts below 100 compared absolutely).
"$build/swapsim" run "$scenario" --set sim.write_chunk=128K --out "$out/half" > /dev/null
python3 - "$out/1/result.json" "$out/half/result.json" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))["metrics"]
b = json.load(open(sys.argv[2]))["metrics"]
worst = max(((abs(b[k] - a[k]) / max(abs(a[k]), 1e-9), k) for k in a if max(abs(a[k]), abs(b[k])) >= 100))
print(f"  granularity: halving sim.write_chunk moves every metric by at most {100 * worst[0]:.2f}% ({worst[1]})")
PY
