#!/usr/bin/env bash
# A swap device that fills mid-run (#26): 70 x 1G in 40G memory.high, zswap (zstd) in front of
# a 4G SSD (scenarios/swap-full/zswap-ssd-4G.json), against the same run on the seed's 823G
# device (scenarios/default.json). Prints each run's wall time, peak RSS and the counters that
# say what happened (memcg_swap_fail, memcg_high, zswpout, oom_kill), and the wall-time ratio,
# which #26 bounds by 2.
# Usage: bench/run_swap_full.sh [BUILD_DIR]
set -euo pipefail
build=${1:-build}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$build/swapsim" run scenarios/default.json --out "$out/normal" > /dev/null
"$build/swapsim" run scenarios/swap-full/zswap-ssd-4G.json --out "$out/full" > /dev/null
python3 - "$out/normal/result.json" "$out/full/result.json" <<'PY'
import json, sys
runs = [("823G device", json.load(open(sys.argv[1]))), ("4G device", json.load(open(sys.argv[2])))]
print("| run | wall s | peak RSS MiB | elapsed s | throughput KB/s | sys s | zswpout | memcg_swap_fail | memcg_high | oom_kill | throttled s |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for name, r in runs:
    m, w = r["metrics"], r["wall_clock"]
    thr = sum(p["throttled_s"] for p in r["per_process"])
    print(f'| {name} | {w["wall_s"]:.1f} | {w["peak_rss_kb"] / 1024:.0f} | {m["elapsed_s"]:.1f} | {m["throughput_kbps"]:,.0f} | '
          f'{m["sys_s"]:.1f} | {m["zswpout"]:,.0f} | {m["memcg_swap_fail"]:,.0f} | {m["memcg_high"]:,.0f} | '
          f'{m.get("oom_kill", 0):,.0f} | {thr:.1f} |')
ratio = runs[1][1]["wall_clock"]["wall_s"] / runs[0][1]["wall_clock"]["wall_s"]
print(f"wall time, full / normal: {ratio:.2f} (bound 2)")
PY
