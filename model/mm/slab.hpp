// One superblock's dentry and inode caches (fs/dcache.c, fs/inode.c) as a workload's path
// lookups fill them, on the superblock's list_lrus (s_dentry_lru, s_inode_lru) that its
// shrinker (super_cache_scan) walks.
//
// Models: an entry of the file system (a file or directory the workload looks up) is uncached,
// cached as a dentry that pins its inode, or, after prune_dcache_sb freed its dentry, an unused
// inode on the inode LRU (iput_final -> inode_add_lru, I_REFERENCED set). A lookup of a cached
// dentry marks it DCACHE_REFERENCED (the dput that follows); a lookup of an entry whose inode is
// cached allocates a dentry and takes the inode off the inode LRU (iget); an uncached one
// allocates both (d_alloc_parallel + ->lookup's iget_locked). Unused dentries sit on their
// node's dentry LRU from the first dput, newest at the head. prune_dcache_sb walks the tail:
// a DCACHE_REFERENCED dentry is rotated to the head with the flag cleared (dentry_lru_isolate's
// LRU_ROTATE), any other is freed (__dentry_kill) and its inode goes to the inode LRU;
// prune_icache_sb does the same with I_REFERENCED (inode_lru_isolate) and frees the inode
// (evict). A pinned cache (tmpfs: the dentries hold a reference while the file exists) keeps no
// LRU and never frees.
// Granularity: per entry; object sizes in bytes (the memcg charge is per object,
// obj_cgroup_charge). Leaves out: negative dentries (a kernel tree's include-path misses leave
// none: calibration/workloads/kbuild-slab-6.1.json), dentries in use (a lookup's reference is
// dropped at once), the inode's own page cache, per-memcg lists besides the workload's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace swapsim::mm {

class Dcache {
public:
    enum State : uint8_t { Uncached, Dentry, Inode };
    static constexpr uint32_t NONE = 0xffffffffu;

    Dcache(uint32_t entries, int nodes, bool pinned);

    uint32_t entries() const { return uint32_t(state_.size()); }
    State state(uint32_t e) const { return State(state_[e]); }
    bool pinned() const { return pinned_; }
    // The lookup's effect: a cached dentry is referenced; otherwise a dentry (and, if the inode
    // is not cached, an inode) is made, on node `nid`'s dentry LRU. Returns the state before.
    State lookup(uint32_t e, int nid);
    // prune_dcache_sb / prune_icache_sb on node nid: walk up to nr_to_scan objects from the
    // tail. Returns the objects freed; `rotated` counts the referenced ones moved to the head.
    uint64_t prune_dentries(int nid, uint64_t nr_to_scan, uint64_t& rotated);
    uint64_t prune_inodes(int nid, uint64_t nr_to_scan, uint64_t& rotated);
    // list_lru_shrink_count of each list.
    uint64_t nr_dentries(int nid) const { return lists_[std::size_t(nid)][0].n; }
    uint64_t nr_inodes(int nid) const { return lists_[std::size_t(nid)][1].n; }
    uint64_t cached_dentries() const { return dentries_; }
    uint64_t cached_inodes() const { return inodes_; }   // with a dentry or on the inode LRU

private:
    struct List {
        uint32_t head = NONE, tail = NONE;
        uint64_t n = 0;
    };
    void add_head(int nid, int which, uint32_t e);
    void del(int nid, int which, uint32_t e);
    uint64_t prune(int nid, int which, uint64_t nr_to_scan, uint64_t& rotated);
    std::vector<uint8_t> state_, referenced_, node_;
    std::vector<uint32_t> prev_, next_;
    std::vector<std::vector<List>> lists_;   // [node][0 dentry, 1 inode]
    uint64_t dentries_ = 0, inodes_ = 0;
    bool pinned_;
};

}  // namespace swapsim::mm
