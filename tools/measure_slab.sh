#!/usr/bin/env bash
# Measures the slab (kmem) charge that a kernel build's file-system walk leaves in its memcg:
# dentries and inodes (SLAB_ACCOUNT caches) allocated by stat()/lookups over the source tree,
# and whether memory pressure on the memcg gives them back (the superblock shrinker,
# super_cache_scan -> prune_dcache_sb / prune_icache_sb). Writes
# calibration/workloads/kbuild-slab-6.1.json through an inline summary.
#
# How: Debian's linux-source-6.1 tree is unpacked twice outside the probe memcg: into a tmpfs
# (the seed-001 matrix builds "defconfig on tmpfs") and into a fresh ext4 image on a loop device,
# which is then unmounted and mounted again so that none of its dentries or inodes are cached.
# Each case runs in a new child of this shell's memory cgroup (cgroup v1: memory.kmem.usage_in_bytes
# is the memcg's kernel-memory charge, slab objects included, in bytes) and reads the kmem charge
# before and after; /proc/slabinfo's active objects of the dentry, inode and radix-tree caches are
# read around it as a cross-check (machine-wide: other jobs on the machine add noise there, not in
# the memcg's counter).
#  1. tmpfs_walk:     lstat of every file and directory of the tree on tmpfs
#  2. tmpfs_negative: gcc's include search on tmpfs: for every header include/X, lstat of
#                     arch/x86/include/X and arch/x86/include/generated/X first (the -I order of
#                     an x86 build; most do not exist: negative lookups)
#  3. tmpfs_copy:     cp -a of the tree into the tmpfs from inside the memcg (a tree copied in by the
#                     build's own cgroup: its dentries and shmem inodes, pinned while the files exist)
#  4. ext4_walk:      lstat of every entry on the cold ext4 mount
#  5. ext4_negative:  the include search on ext4 (negative dentries are kept there)
#  6. ext4_pressure:  after 4-5, memory.limit_in_bytes is set to the memcg's usage less half its kmem
#                     charge: reclaim (shrink_slab) must free dentries and inodes to get there.
# Needs root, cgroup v1 memory controller, losetup/mkfs.ext4, /usr/src/linux-source-6.1.tar.xz.
# Usage: tools/measure_slab.sh [WORK_DIR]   (default /tmp/slabprobe; ~3 GB of disk, ~3 GB of tmpfs,
# about 3 CPU-minutes, most of it xz)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-/tmp/slabprobe}
ver=6.1
tarball=/usr/src/linux-source-$ver.tar.xz
out=$repo/calibration/workloads/kbuild-slab-$ver.json
mkdir -p "$work"
self=$(awk -F: '$2 == "memory" {print $3}' /proc/self/cgroup)
cgbase=/sys/fs/cgroup/memory$self
[ -f "$cgbase/memory.kmem.usage_in_bytes" ] || { echo "no cgroup v1 kmem counter at $cgbase" >&2; exit 1; }
shm=$work/tmpfs
img=$work/ext4.img
mnt=$work/ext4
mkdir -p "$shm" "$mnt"
mountpoint -q "$shm" || mount -t tmpfs -o size=4g tmpfs "$shm"
cleanup() {
    set +e
    for d in "$cgbase"/slabprobe-*; do
        [ -d "$d" ] || continue
        while read -r p; do echo "$p" > "$cgbase/cgroup.procs"; done < "$d/cgroup.procs"
        rmdir "$d"
    done
    mountpoint -q "$mnt" && umount "$mnt"
    [ -n "${loopdev:-}" ] && losetup -d "$loopdev"
    mountpoint -q "$shm" && umount "$shm"
    rm -f "$img"
}
trap cleanup EXIT

[ -d "$shm/linux-source-$ver" ] || tar xJf "$tarball" -C "$shm"
tree=$shm/linux-source-$ver
rm -f "$img"
truncate -s 4G "$img"
mkfs.ext4 -q -F -N 200000 "$img"
loopdev=$(losetup --find --show "$img")
mount "$loopdev" "$mnt"
cp -a "$tree" "$mnt/"
umount "$mnt"
mount "$loopdev" "$mnt"   # cold: no dentry or inode of it cached

walker=$work/walk.py
cat > "$walker" <<'EOF'
import os, sys
mode, root = sys.argv[1], sys.argv[2]
n = 0
if mode == "walk":
    for dp, dns, fns in os.walk(root):
        for name in dns + fns:
            os.lstat(os.path.join(dp, name)); n += 1
else:   # gcc's -I search for every header under include/: arch/x86/include/X, .../generated/X first
    inc = os.path.join(root, "include")
    for dp, dns, fns in os.walk(inc):
        for fn in fns:
            rel = os.path.relpath(os.path.join(dp, fn), inc)
            for pre in ("arch/x86/include", "arch/x86/include/generated"):
                try:
                    os.lstat(os.path.join(root, pre, rel))
                except FileNotFoundError:
                    n += 1
print(n)
EOF

slabs() { awk '$1 ~ /^(dentry|ext4_inode_cache|shmem_inode_cache|radix_tree_node|buffer_head)$/ {printf "%s=%s ", $1, $2}' /proc/slabinfo; }
kmem() { cat "$1/memory.kmem.usage_in_bytes"; }

results=$work/results.txt
: > "$results"
# run_case NAME CGROUP COMMAND...: the command runs as a child moved into CGROUP; the kmem charge
# and slabinfo are read before it starts and after it exits.
run_case() {
    local name=$1 cg=$2
    shift 2
    local k0 k1 s0 s1 n
    k0=$(kmem "$cg"); s0=$(slabs)
    n=$(sh -c 'echo $$ > "$1/cgroup.procs"; shift; exec "$@"' sh "$cg" "$@")
    k1=$(kmem "$cg"); s1=$(slabs)
    echo "$name n=$n kmem_before=$k0 kmem_after=$k1 slab_before: $s0 slab_after: $s1" | tee -a "$results"
}
newcg() { local d=$cgbase/slabprobe-$1; mkdir "$d"; echo "$d"; }

files_total=$(find "$tree" -mindepth 1 | wc -l)
files_reg=$(find "$tree" -type f | wc -l)
headers=$(find "$tree/include" -type f | wc -l)

cg=$(newcg tmpfs)
run_case tmpfs_walk "$cg" python3 "$walker" walk "$tree"
run_case tmpfs_negative "$cg" python3 "$walker" neg "$tree"
run_case tmpfs_copy "$cg" sh -c 'cp -a "$1" "$2" && find "$2" -mindepth 1 | wc -l' sh "$tree" "$shm/copy"
cg=$(newcg ext4)
run_case ext4_walk "$cg" python3 "$walker" walk "$mnt/linux-source-$ver"
run_case ext4_negative "$cg" python3 "$walker" neg "$mnt/linux-source-$ver"
# Pressure: limit the memcg to its usage less half its kmem charge; only shrinkers can free slab.
usage=$(cat "$cg/memory.usage_in_bytes"); k=$(kmem "$cg")
limit=$(( usage - k / 2 ))
s0=$(slabs)
echo "$limit" > "$cg/memory.limit_in_bytes" || true
sleep 1
echo "ext4_pressure usage_before=$usage kmem_before=$k limit=$limit usage_after=$(cat "$cg/memory.usage_in_bytes") kmem_after=$(kmem "$cg") failcnt=$(cat "$cg/memory.failcnt") slab_before: $s0 slab_after: $(slabs)" | tee -a "$results"

python3 "$repo/tools/slab_summary.py" "$results" "$files_total" "$files_reg" "$headers" "$(uname -r)" > "$out"
echo "wrote $out"
