#!/bin/bash
# Sys time per swapped-out page under memcg reclaim against global reclaim, on the machine it
# runs on (root, cgroup v1 memory controller at /sys/fs/cgroup/memory, swap already on).
#   memcg:  usemem in a cgroup with memory.limit_in_bytes = LIMIT
#   global: no limit; an mlocked usemem -M of HOG bytes takes RAM away first (pick HOG so that
#           what is left plus swap holds the run: zram keeps its pool in RAM, and the kernel
#           OOM-kills the hog, the largest task, when it does not fit: check dmesg)
# usage: tools/measure_memcg_vs_global.sh memcg|global NPROC SIZE LIMIT|HOG OUTDIR
# Writes OUTDIR/um.out (usemem's lines and "TIME elapsed user sys" of the whole process tree)
# and OUTDIR/delta (/proc/vmstat differences; kswapd0's sys time in clock ticks). USEMEM names
# vm-scalability's usemem binary. docs/open-work.md has the runs of 2026-12-03.
set -eu
mode=$1; n=$2; size=$3; arg=$4; out=$5
U=${USEMEM:-usemem}
mkdir -p "$out"
snap() { grep -E "^(pswpout|pswpin|pgscan_direct|pgscan_kswapd|pgsteal_direct|pgsteal_kswapd|allocstall_normal|allocstall_movable|pgfault|pgmajfault) " /proc/vmstat; }
kss() { awk '{print $15}' "/proc/$(pgrep -x kswapd0)/stat"; }
hogpid=
if [ "$mode" = global ]; then
  "$U" -M -s 100000 "$arg" > "$out/hog.out" 2>&1 &
  hogpid=$!
  want=$(( $(numfmt --from=iec "$arg") * 98 / 100 / 1024 ))
  for _ in $(seq 1 600); do
    sleep 0.5
    [ "$(awk '/^Mlocked/{print $2}' /proc/meminfo)" -gt "$want" ] && break
  done
  grep -E "MemFree|Mlocked" /proc/meminfo > "$out/meminfo"
fi
CG=/sys/fs/cgroup/memory/swapsim_measure
mkdir -p $CG
if [ "$mode" = memcg ]; then echo "$arg" > $CG/memory.limit_in_bytes; else echo -1 > $CG/memory.limit_in_bytes; fi
k0=$(kss); snap > "$out/v0"
bash -c "echo \$\$ > $CG/cgroup.procs; exec /usr/bin/time -f 'TIME %e %U %S' $U --init-time -O -y -x -n $n $size" > "$out/um.out" 2>&1
snap > "$out/v1"; k1=$(kss)
if [ -n "$hogpid" ]; then kill "$hogpid" 2>/dev/null || echo "the hog had exited (OOM-killed?): the run is not valid" >&2; wait "$hogpid" 2>/dev/null || true; fi
paste "$out/v0" "$out/v1" | awk '{printf "%s %d\n",$1,$4-$2}' > "$out/delta"
echo "kswapd_ticks $((k1 - k0))" >> "$out/delta"
grep TIME "$out/um.out"; cat "$out/delta"
