#!/usr/bin/env python3
"""The data of the seed-003 scenarios: which measured kind, and what share of zero pages.

Seed 003 publishes zstd ratios of 20.49% with 4 KiB blocks and 16.9% with 16 KiB blocks for
"typical anonymous data" (not public). From calibration/compressors/table.json (measured):
  1. the single kind closest at 4 KiB, and how far both columns then miss;
  2. the kind whose 4K -> 16K size step matches the seed's (x0.825), with a share z of
     same-filled pages fitted on the 4 KiB column only (zero pages cost nothing in zram at
     4 KiB: ZRAM_SAME); the 16 KiB column then follows, with no fit.
usage: tools/seed003_data_kind.py [table.json]
"""
import json
import sys

PUB_4K, PUB_16K = 20.49, 16.9


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "calibration/compressors/table.json"
    zstd = json.load(open(path))["codecs"]["zstd"]
    r = {k: (100 * v["4K"]["ratio"], 100 * v["16K"]["ratio"]) for k, v in zstd.items() if k != "zero"}
    print("kind      4K      16K    16K/4K   err 4K   err 16K")
    for k, (a, b) in sorted(r.items(), key=lambda kv: abs(kv[1][0] - PUB_4K)):
        print(f"{k:8} {a:6.2f}% {b:6.2f}%  x{b / a:.3f}  {100 * (a / PUB_4K - 1):+6.1f}%  {100 * (b / PUB_16K - 1):+6.1f}%")
    closest = min(r, key=lambda k: abs(r[k][0] - PUB_4K))
    print(f"closest single kind at 4K: {closest} (both columns miss by more than 10%)")
    step = PUB_16K / PUB_4K
    kind = min(r, key=lambda k: abs(r[k][1] / r[k][0] - step))
    a, b = r[kind]
    zero16 = 100 * zstd["zero"]["16K"]["ratio"]
    z = 1 - PUB_4K / a
    pred16 = (1 - z) * b + z * zero16
    print(f"kind with the seed's 16K/4K step (x{step:.3f}): {kind} (x{b / a:.3f})")
    print(f"zero pages fitted on the 4K column: z = 1 - {PUB_4K} / {a:.2f} = {100 * z:.2f}%")
    print(f"16K column predicted: (1 - z) x {b:.2f}% + z x {zero16:.2f}% = {pred16:.2f}% (published {PUB_16K}%, "
          f"{100 * (pred16 / PUB_16K - 1):+.1f}%)")


if __name__ == "__main__":
    main()
