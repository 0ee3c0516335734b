#!/usr/bin/env bash
# Measures the header files a kernel build's compile units read: per unit, the headers and their
# pages, and over a random sample of units the union (the build's shared header set) and how
# many units read each header (its popularity). Writes calibration/workloads/kbuild-headers-6.1.json
# through tools/headers_summary.py.
# How: Debian's linux-source-6.1, x86-64 defconfig, `make prepare`; the compile commands of
# `make -n -k vmlinux` (as tools/measure_kbuild.sh counts them); for a seeded sample of them the
# command is rerun as a preprocessor pass (-c -o X replaced by -E -o /dev/null) that keeps kbuild's
# -Wp,-MMD dependency file, which lists every header the unit opened (-nostdinc: all in the tree).
# Needs: linux-source-6.1, bc flex bison libelf-dev libssl-dev. Usage: tools/measure_headers.sh
# [WORK_DIR] [SAMPLE]   (default /tmp/hdr, 200 units; a few CPU-minutes)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-/tmp/hdr}
sample=${2:-200}
ver=6.1
mkdir -p "$work"
cd "$work"
[ -d "linux-source-$ver" ] || tar xJf "/usr/src/linux-source-$ver.tar.xz"
cd "linux-source-$ver"
[ -f .config ] || make defconfig > "$work/defconfig.log"
make -j2 prepare > "$work/prepare.log" 2>&1
make -n -k vmlinux 2>/dev/null | grep -- ' -c -o ' > "$work/commands.txt" || true
mkdir -p "$work/deps"
python3 - "$work/commands.txt" "$work/deps" "$sample" > "$work/run.sh" <<'EOF'
import random, re, shlex, sys
lines = open(sys.argv[1]).read().splitlines()
random.seed(1)
pick = random.sample(range(len(lines)), min(int(sys.argv[3]), len(lines)))
print("set +e")
for n, i in enumerate(sorted(pick)):
    line = lines[i]
    m = re.search(r"\bgcc .*? -c -o (\S+) (\S+\.[cS])\b", line)
    if not m:
        continue
    cmd = m.group(0)
    cmd = re.sub(r"-Wp,-MMD,\S+", f"-Wp,-MMD,{sys.argv[2]}/{n}.d", cmd)
    cmd = cmd.replace(f" -c -o {m.group(1)} ", " -E -o /dev/null ")
    print(cmd)
EOF
bash "$work/run.sh" > "$work/pp.log" 2>&1 || true
python3 "$repo/tools/headers_summary.py" "$work/deps" "$(wc -l < "$work/commands.txt")" "$sample" \
  > "$repo/calibration/workloads/kbuild-headers-$ver.json"
echo "wrote calibration/workloads/kbuild-headers-$ver.json"
