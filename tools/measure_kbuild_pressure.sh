#!/bin/bash
# Kernel-build directories under a memory cgroup on the machine it runs on (root, cgroup v1's memory
# controller, swap already on): deletes the DIRs' objects in a prepared tree (TREE: make defconfig
# and make prepare done, on tmpfs as seed 001's builds), then `make -k -j JOBS DIR...` in a cgroup
# with memory.limit_in_bytes = LIMIT under GNU time (-k: a compile the memcg OOM-kills does not stop
# the rest). Prints real/user/sys, the cgroup's major faults, pswpout, the compile units done and
# the memcg OOM kills (dmesg).
# usage: tools/measure_kbuild_pressure.sh TREE JOBS LIMIT DIR...
set -u
TREE=$1; J=$2; LIM=$3; shift 3
CG=/sys/fs/cgroup/memory/swapsim_kb
mkdir -p $CG
echo "$LIM" > $CG/memory.limit_in_bytes
cd "$TREE" || exit 2
find "$@" \( -name "*.o" -o -name "*.a" -o -name ".*.cmd" \) -delete
k0=$(dmesg | grep -c "Memory cgroup out of memory")
f0=$(awk '/^total_pgmajfault/{print $2}' $CG/memory.stat)
s0=$(awk '/^pswpout /{print $2}' /proc/vmstat)
log=$(mktemp)
bash -c "echo \$\$ > $CG/cgroup.procs; exec /usr/bin/time -f 'TIME real %e user %U sys %S' make -k -j$J $*" > "$log" 2>&1
f1=$(awk '/^total_pgmajfault/{print $2}' $CG/memory.stat)
s1=$(awk '/^pswpout /{print $2}' /proc/vmstat)
k1=$(dmesg | grep -c "Memory cgroup out of memory")
grep TIME "$log"
echo "pgmajfault $((f1 - f0)) pswpout $((s1 - s0)) units $(grep -c ' CC ' "$log") memcg_oom_kills $((k1 - k0))"
rm -f "$log"
