#!/usr/bin/env bash
# Granularity check: sim.reclaim_slice from 0.25 ms to 4 ms, and seeds 1-3 at the default, on
# the 64K and 2M zswap-mTHP zstd columns of case1. Prints throughput, elapsed, sys, zswpout and
# the spread of reclaimed pages between processes (min / median / max).
# Usage: bench/run_granularity.sh [BUILD_DIR]
set -euo pipefail
build=${1:-build}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "| scenario | reclaim_slice | seed | throughput_kbps | elapsed_s | sys_s | zswpout | reclaimed pages per process (min / median / max) |"
echo "|---|---|---|---|---|---|---|---|"
for sc in case1-64k case1-2m; do
  scenario=scenarios/zswap-mthp-v7/$sc/zswap_mthp_zstd.json
  for run in 0.25ms:1 0.5ms:1 1ms:1 2ms:1 4ms:1 2ms:2 2ms:3; do
    slice=${run%%:*} seed=${run##*:}
    "$build/swapsim" run "$scenario" --set sim.reclaim_slice="$slice" --set seed="$seed" --out "$out/r" > /dev/null
    python3 - "$out/r/result.json" "$sc" "$slice" "$seed" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
m = r["metrics"]
rec = sorted(p["reclaimed_pages"] for p in r["per_process"])
print(f'| {sys.argv[2]} | {sys.argv[3]} | {sys.argv[4]} | {m["throughput_kbps"]:,.0f} | {m["elapsed_s"]:.2f} | '
      f'{m["sys_s"]:.1f} | {m["zswpout"]:,.0f} | {rec[0]:,} / {rec[len(rec) // 2]:,} / {rec[-1]:,} |')
PY
  done
done
