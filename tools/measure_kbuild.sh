#!/usr/bin/env bash
# Measures the per-job profile of a kernel build (defconfig, x86-64) on this machine, without
# memory pressure: the number of compile units of vmlinux, and for a fixed sample of
# directories each compiler job's user and sys CPU time and peak RSS (GNU time), the source
# tree's size and the objects' sizes. Writes calibration/workloads/kbuild-defconfig-<ver>.json
# through tools/kbuild_profile.py.
# Needs: apt-get install linux-source-6.1 bc flex bison libelf-dev libssl-dev time
# Usage: [NOTE=text] tools/measure_kbuild.sh [WORK_DIR]     (about 10 CPU-minutes; WORK_DIR default /tmp/kb)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-/tmp/kb}
ver=6.1
sample="kernel/ mm/ fs/ext4/ net/ipv4/ drivers/base/ lib/"
mkdir -p "$work"
cd "$work"
[ -d "linux-source-$ver" ] || tar xJf "/usr/src/linux-source-$ver.tar.xz"
cd "linux-source-$ver"
tree_bytes=$(tar tvJf "/usr/src/linux-source-$ver.tar.xz" | awk '$1 !~ /^d/ {s+=$3} END {print s}')
tree_files=$(tar tJf "/usr/src/linux-source-$ver.tar.xz" | grep -vc /$)
make defconfig > "$work/defconfig.log"
make -j"$(nproc)" prepare > "$work/prepare.log"
# Compile units of vmlinux: the compiler invocations a dry run of the whole build prints.
units=$(make -n -k vmlinux 2>/dev/null | grep -c -- ' -c -o ')
cat > "$work/ccwrap" <<'W'
#!/bin/sh
out=""; prev=""
for a in "$@"; do [ "$prev" = "-o" ] && out="$a"; prev="$a"; done
exec /usr/bin/time -a -o "$CCLOG" -f "%e %U %S %M $out" gcc "$@"
W
chmod +x "$work/ccwrap"
rm -f "$work/cc.log"
# shellcheck disable=SC2086
CCLOG="$work/cc.log" make -j"$(nproc)" CC="$work/ccwrap" $sample > "$work/build.log" 2>&1
# shellcheck disable=SC2086
obj_bytes=$(find $sample -name '*.o' -printf '%s\n' | awk '{s+=$1} END {print s}')
obj_files=$(find $sample -name '*.o' | wc -l)
/usr/bin/python3 "$repo/tools/kbuild_profile.py" "$work/cc.log" \
  --version "$ver" --units "$units" --sample "$sample" \
  --tree-bytes "$tree_bytes" --tree-files "$tree_files" \
  --obj-bytes "$obj_bytes" --obj-files "$obj_files" \
  --note "${NOTE:-}" --gcc "$(gcc --version | head -1)" --cpu "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')" \
  > "$repo/calibration/workloads/kbuild-defconfig-$ver.json"
echo "wrote calibration/workloads/kbuild-defconfig-$ver.json ($units compile units)"
