// Slab caches charged to the memcg and the shrinkers that free them.
//
// Models (v6.12, mm/shrinker.c, fs/super.c, fs/dcache.c, fs/inode.c, mm/workingset.c):
// - A file system's dentry and inode caches (mm/slab.hpp): path lookups allocate a dentry and,
//   if its inode is not cached, an inode (SLAB_ACCOUNT: obj_cgroup_charge of the object sizes
//   to the looking-up task's memcg, which may reclaim and counts towards memory.high and max as
//   any charge); d_lru_add / inode_lru_list_del take the superblock's list_lru lock.
// - shrink_slab after shrink_lruvec in every shrink_node pass (shrink_node_memcgs; kswapd's
//   balance_pgdat too), at the pass's priority: the superblock shrinker (SHRINKER_MEMCG_AWARE |
//   NUMA_AWARE, seeks DEFAULT_SEEKS = 2, batch 1024) on the workload memcg's lists of the node.
//   do_shrink_slab: freeable = super_cache_count (dentry + inode LRU lengths, vfs_cache_pressure
//   100), delta = (freeable >> priority) x 4 / seeks, total_scan = (nr_deferred >> priority) +
//   delta capped at 2 x freeable, scanned in batches while total_scan >= batch or >= freeable,
//   nr_deferred = min(nr_deferred + delta - scanned, 2 x freeable) after. So the shrinker scans
//   twice the LRU's share of the slab: the LRU scans size >> priority of each list.
//   super_cache_scan splits a batch between the two lists by their lengths
//   (mult_frac(nr, dentries, total + 1)), prune_dcache_sb first, then prune_icache_sb.
// - The workingset shadow-node shrinker (count_shadow_nodes, scan_shadow_nodes,
//   shadow_lru_isolate): memcg-aware, seeks 0 (delta = freeable / 2 at any priority), batch 128.
//   The swap cache's xa_nodes are not memcg-accounted, so they are on the root memcg's list: a
//   memcg reclaim of the workload's memcg (a child) finds its own list empty; global reclaim
//   (shrink_node_memcgs walks every memcg from the root) calls it for the root, whose count is
//   the nodes above max_nodes = (root's own LRU pages + slab pages) >> (XA_CHUNK_SHIFT - 3)
//   (KConfig::root_lru_pages; the workload's pages are its memcg's, not the root's). Each node
//   reclaimed takes the node's list lock (the lock workingset_update_node takes on swap-out:
//   cost.workingset.shadow_list), then the swap space's xa_lock (xa_trylock; here always got)
//   for xa_delete_node of its shadows.
// - Slab pages freed count towards nr_reclaimed only in global reclaim (flush_reclaim_state).
// Granularity: per object (entry), per batch for the locks; the memcg charge is the byte total
// rounded up to pages (units of sim.page_unit), as the per-CPU obj stock makes it on average.
// Leaves out: other shrinkers (the memcg has no other reclaimable slab here), negative
// dentries, SHRINK_STOP from a failed super_trylock_shared or xa_trylock, the shrinker_rwsem /
// SRCU walk, the shadow nodes of the page cache (the toolchain file's are few), shadow_lru_isolate's
// inode_add_lru, physical slab pages (an object's uncharge frees its bytes at once; kmem_cache
// fragmentation is not modelled).
//
// Yield points: the charge of a lookup's objects (memcontrol.cpp; reclaim, which may run this
// file's shrinkers): the entry is already in its new state and its bytes counted in
// slab_bytes_, the pages charged only after; Kernel::check_at_yield counts the pages charged.

#include <algorithm>
#include <stdexcept>

#include "kernel/kernel.hpp"

namespace swapsim::kernel {

using namespace mm;

namespace {
constexpr unsigned DEFAULT_SEEKS = 2;
constexpr uint64_t SB_SHRINK_BATCH = 1024;   // alloc_super: s_shrink->batch
constexpr uint64_t SHRINK_BATCH = 128;

// do_shrink_slab: take the shrinker's deferred work, scan in batches of `batch` (`scan(n)`
// frees what it can of n objects), defer what was asked for and not scanned.
template <class Scan>
unsigned long do_shrink_slab(uint64_t freeable, uint64_t& deferred, int priority, unsigned seeks, uint64_t batch,
                             Scan&& scan)
{
    const uint64_t nr = deferred;   // xchg_nr_deferred
    deferred = 0;
    uint64_t delta = 0;
    uint64_t total_scan = swapsim::kernel::Kernel::shrinker_total_scan(freeable, nr, priority, seeks, &delta);
    uint64_t scanned = 0;
    unsigned long freed = 0;
    while (total_scan >= batch || total_scan >= freeable) {
        const uint64_t n = std::min(batch, total_scan);
        freed += scan(n);
        total_scan -= n;
        scanned += n;
        if (!total_scan)
            break;
    }
    const int64_t next = std::max<int64_t>(int64_t(nr + delta) - int64_t(scanned), 0);
    deferred += uint64_t(std::min<int64_t>(next, int64_t(2 * freeable)));
    return freed;
}
}  // namespace

uint64_t Kernel::shrinker_total_scan(uint64_t freeable, uint64_t deferred, int priority, unsigned seeks,
                                     uint64_t* delta_out)
{
    uint64_t delta = seeks ? (freeable >> priority) * 4 / seeks : freeable / 2;
    if (delta_out)
        *delta_out = delta;
    return std::min((deferred >> priority) + delta, 2 * freeable);
}

void Kernel::dcache_create(uint32_t entries, uint32_t dentry_bytes, uint32_t inode_bytes, bool reclaimable)
{
    dcache_ = std::make_unique<Dcache>(entries, nr_nodes(), !reclaimable);
    dentry_bytes_ = dentry_bytes;
    inode_bytes_ = inode_bytes;
    sb_deferred_.assign(size_t(nr_nodes()), 0);
    sb_lru_lock_.assign(size_t(nr_nodes()) * 2, hw::Lock(cfg_.c.lock_handoff));
}

void Kernel::slab_charge(Ctx& c, int64_t bytes)
{
    slab_bytes_ += bytes;
    const uint64_t b = uint64_t(std::max<int64_t>(slab_bytes_, 0));
    (dcache_ && dcache_->pinned() ? memcg.slab_unreclaimable_bytes : memcg.slab_reclaimable_bytes) = b;
    const int64_t unit = int64_t(PAGE_SIZE) * std::max(1u, cfg_.page_unit);
    // Move the charged pages to the byte total rounded up; a charge may reclaim, whose
    // shrinkers uncharge in turn, so settle until it holds.
    for (;;) {
        const int64_t target = (slab_bytes_ + unit - 1) / unit;
        if (target > memcg.slab_pages) {
            if (!charge_pages(c, unsigned(target - memcg.slab_pages), memcg.slab_pages))
                throw std::runtime_error("memcg OOM: memory.max reached and reclaim made no progress");
            continue;
        }
        if (target < memcg.slab_pages) {
            const unsigned n = unsigned(memcg.slab_pages - target);
            memcg.uncharge_kmem(c.task.cpu, n);
            memcg.slab_pages -= n;
        }
        break;
    }
}

void Kernel::fs_lookup(Ctx& c, uint32_t e)
{
    if (!dcache_)
        return;
    const Costs& k = cfg_.c;
    slabstat.lookups++;
    const int nid = node_of_cpu(c.task.cpu);
    const Dcache::State was = dcache_->lookup(e, nid);
    if (was == Dcache::Dentry)
        return;   // d_lookup hit: in the job's measured sys time
    int64_t bytes = dentry_bytes_;
    slabstat.alloc_dentries++;
    if (was == Dcache::Uncached) {
        bytes += inode_bytes_;
        slabstat.alloc_inodes++;
        c.sys(k.slab_lookup_alloc);
    } else {
        c.sys(k.slab_lookup_dentry);
    }
    if (!dcache_->pinned()) {
        if (was == Dcache::Inode)   // iget: inode_lru_list_del
            c.lock(sb_lru_lock_[size_t(nid) * 2 + 1], k.slab_isolate);
        c.lock(sb_lru_lock_[size_t(nid) * 2], k.slab_isolate);   // d_lru_add at the dput
    }
    slab_charge(c, bytes);
}

unsigned long Kernel::super_cache_scan(Ctx& c, int nid, uint64_t nr_to_scan)
{
    const Costs& k = cfg_.c;
    const uint64_t dentries = dcache_->nr_dentries(nid), inodes = dcache_->nr_inodes(nid);
    const uint64_t total = dentries + inodes + 1;
    const uint64_t nd = nr_to_scan * dentries / total, ni = nr_to_scan * inodes / total;
    uint64_t rotated = 0;
    // prune_dcache_sb: list_lru_shrink_walk under the dentry list's lock, then the kills.
    const uint64_t fd = dcache_->prune_dentries(nid, nd, rotated);
    if (nd)
        c.lock(sb_lru_lock_[size_t(nid) * 2], k.slab_isolate * double(nd));
    c.sys(k.slab_free_dentry * double(fd));
    const uint64_t fi = dcache_->prune_inodes(nid, ni, rotated);
    if (ni)
        c.lock(sb_lru_lock_[size_t(nid) * 2 + 1], k.slab_isolate * double(ni));
    c.sys(k.slab_free_inode * double(fi));
    slabstat.freed_dentries += fd;
    slabstat.freed_inodes += fi;
    slabstat.rotated += rotated;
    slabstat.slabs_scanned += nd + ni;
    slab_charge(c, -int64_t(fd * dentry_bytes_ + fi * inode_bytes_));
    return fd + fi;
}

unsigned long Kernel::scan_shadow_nodes(Ctx& c, int nid, uint64_t nr_to_scan)
{
    const Costs& k = cfg_.c;
    unsigned long freed = 0;
    // list_lru_walk_one from the list's head (the oldest): each node is isolated under the list
    // lock, which shadow_lru_isolate drops for xa_delete_node under the swap space's xa_lock.
    const size_t nodes = xa_nr_nodes_;
    for (size_t i = 0; i < nodes && nr_to_scan && shadow_on_list_[size_t(nid)]; i++) {
        size_t idx = (shadow_cursor_ + i) % nodes;
        const size_t chunk = idx / kXaPerChunk;
        if (chunk >= xa_nodes_.size() || !xa_nodes_[chunk]) {   // a cluster never stored to
            i += std::min(kXaPerChunk - 1 - idx % kXaPerChunk, nodes - 1 - idx);   // to its end (or the wrap)
            continue;
        }
        XaNode& x = (*xa_nodes_[chunk])[idx % kXaPerChunk];
        if (!x.on_list || x.nid != nid)
            continue;
        nr_to_scan--;
        const unsigned shadows = unsigned(__builtin_popcountll(x.shadows));
        c.lock(shadow_lru_lock_[size_t(nid)], k.shadow_list_hold, 1, 0, "shadow_lru_isolate");
        c.lock(swap_cache_lock(swp_offset_t(idx * XA_CHUNK_SIZE)), k.xa_clear_walk + k.xa_clear_per_slot * shadows, 1, 0,
               "xa_delete_node");
        x.shadows = 0;
        x.on_list = false;
        x.nid = -1;
        shadow_on_list_[size_t(nid)]--;
        freed++;
        shadow_cursor_ = (idx + 1) % nodes;
    }
    slabstat.shadow_scanned += freed;
    slabstat.shadow_nodes_freed += freed;
    return freed;
}

unsigned long Kernel::shrink_slab(Ctx& c, int nid, ScanControl& sc)
{
    const Costs& k = cfg_.c;
    unsigned long freed = 0;
    const int64_t slab_before = memcg.slab_pages;
    // The workload memcg's superblock shrinker (shrink_slab_memcg: its bit is set once the
    // memcg has objects on the lists).
    if (dcache_ && !dcache_->pinned()) {
        const uint64_t freeable = dcache_->nr_dentries(nid) + dcache_->nr_inodes(nid);
        if (freeable) {
            slabstat.shrinker_calls++;
            c.sys(k.slab_shrinker_call);
            freed += do_shrink_slab(freeable, sb_deferred_[size_t(nid)], sc.priority, DEFAULT_SEEKS, SB_SHRINK_BATCH,
                                    [&](uint64_t n) { return super_cache_scan(c, nid, n); });
        }
    }
    // Global reclaim also shrinks the root memcg: the shadow-node shrinker on the root's list.
    if (!sc.memcg_reclaim && xa_nr_nodes_ && shadow_on_list_[size_t(nid)]) {
        slabstat.shadow_calls++;
        c.sys(k.slab_shrinker_call);
        const uint64_t nodes = shadow_on_list_[size_t(nid)];
        // In units: a node of 64 slots stands for 64 x sim.page_unit pages, so the ratio holds.
        uint64_t pages = cfg_.root_lru_pages == UINT64_MAX
                             ? lruvec[size_t(nid)].total_pages() + uint64_t(std::max<int64_t>(memcg.slab_pages, 0)) / uint64_t(nr_nodes())
                             : cfg_.root_lru_pages / uint64_t(nr_nodes());
        const uint64_t max_nodes = pages >> (6 - 3);
        if (nodes > max_nodes) {
            const uint64_t freeable = nodes - max_nodes;
            freed += do_shrink_slab(freeable, shadow_deferred_[size_t(nid)], sc.priority, 0, SHRINK_BATCH,
                                    [&](uint64_t n) { return scan_shadow_nodes(c, nid, n); });
        }
    }
    // flush_reclaim_state: slab pages freed count as reclaimed in global reclaim only.
    if (!sc.memcg_reclaim && memcg.slab_pages < slab_before)
        sc.nr_reclaimed += uint64_t(slab_before - memcg.slab_pages);
    return freed;
}

}  // namespace swapsim::kernel
