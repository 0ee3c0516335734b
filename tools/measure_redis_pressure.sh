#!/bin/bash
# Redis GET throughput under memory pressure on the machine it runs on, as seed 001's Redis tables
# (root, cgroup v1 memory controller, swap already on): redis-server in a cgroup with
# memory.limit_in_bytes = LIMIT, loaded by `redis-benchmark -t set -r K -n K -d 1024` (the
# population the scenarios infer), then `redis-benchmark -t get -r K -n K -d 1024 -c 12 -P 32`.
# Prints the GET and SET rates, used_memory, the key count and the cgroup's major faults during
# the GETs (zram swap-ins are not in pswpin on v6.18).
# BGSAVE=1 starts a BGSAVE (RDB under OUTPREFIX.dir) just before the GETs, as the BGSAVE columns.
# usage: [BGSAVE=1] tools/measure_redis_pressure.sh K LIMIT OUTPREFIX
set -u
K=$1; LIM=$2; OUT=$3; PORT=6391
CG=/sys/fs/cgroup/memory/swapsim_redis
mkdir -p $CG
echo "$LIM" > $CG/memory.limit_in_bytes
mkdir -p "$OUT.dir"
bash -c "echo \$\$ > $CG/cgroup.procs; exec redis-server --port $PORT --save '' --appendonly no --maxmemory 2500mb --dir $OUT.dir" > "$OUT.server.log" 2>&1 &
for _ in $(seq 1 50); do redis-cli -p $PORT ping >/dev/null 2>&1 && break; sleep 0.1; done
redis-benchmark -p $PORT -t set -r "$K" -n "$K" -d 1024 -c 12 -P 32 -q > "$OUT.set.txt" 2>&1
f0=$(awk '/^total_pgmajfault/{print $2}' $CG/memory.stat)
[ "${BGSAVE:-0}" = 1 ] && redis-cli -p $PORT bgsave
redis-benchmark -p $PORT -t get -r "$K" -n "$K" -d 1024 -c 12 -P 32 -q > "$OUT.get.txt" 2>&1
f1=$(awk '/^total_pgmajfault/{print $2}' $CG/memory.stat)
redis-cli -p $PORT info memory | grep -E "^used_memory:"
echo "keys:$(redis-cli -p $PORT dbsize)"
[ "${BGSAVE:-0}" = 1 ] && redis-cli -p $PORT info persistence | grep -E "^rdb_(bgsave_in_progress|last_bgsave_time_sec|last_cow_size):"
redis-cli -p $PORT shutdown nosave >/dev/null 2>&1
rm -rf "$OUT.dir"
wait
echo "pgmajfault_get:$((f1 - f0))"
tr '\r' '\n' < "$OUT.set.txt" | grep "requests per second"
tr '\r' '\n' < "$OUT.get.txt" | grep "requests per second"
