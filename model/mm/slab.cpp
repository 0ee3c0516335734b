#include "mm/slab.hpp"

namespace swapsim::mm {

Dcache::Dcache(uint32_t entries, int nodes, bool pinned)
    : state_(entries, Uncached), referenced_(entries, 0), node_(entries, 0), prev_(entries, NONE),
      next_(entries, NONE), lists_(std::size_t(nodes < 1 ? 1 : nodes), std::vector<List>(2)), pinned_(pinned)
{
}

void Dcache::add_head(int nid, int which, uint32_t e)
{
    List& l = lists_[std::size_t(nid)][std::size_t(which)];
    prev_[e] = NONE;
    next_[e] = l.head;
    if (l.head != NONE)
        prev_[l.head] = e;
    l.head = e;
    if (l.tail == NONE)
        l.tail = e;
    l.n++;
    node_[e] = uint8_t(nid);
}

void Dcache::del(int nid, int which, uint32_t e)
{
    List& l = lists_[std::size_t(nid)][std::size_t(which)];
    if (prev_[e] != NONE)
        next_[prev_[e]] = next_[e];
    else
        l.head = next_[e];
    if (next_[e] != NONE)
        prev_[next_[e]] = prev_[e];
    else
        l.tail = prev_[e];
    prev_[e] = next_[e] = NONE;
    l.n--;
}

Dcache::State Dcache::lookup(uint32_t e, int nid)
{
    const State was = state(e);
    if (was == Dentry) {
        referenced_[e] = 1;   // dput of a dentry already on the LRU: DCACHE_REFERENCED
        return was;
    }
    if (was == Inode) {
        if (!pinned_)
            del(node_[e], 1, e);   // iget: in use, off the inode LRU
    } else {
        inodes_++;
    }
    dentries_++;
    state_[e] = Dentry;
    referenced_[e] = 0;   // d_lru_add on the first dput: not referenced yet
    if (!pinned_)
        add_head(nid, 0, e);
    else
        node_[e] = uint8_t(nid);
    return was;
}

uint64_t Dcache::prune(int nid, int which, uint64_t nr_to_scan, uint64_t& rotated)
{
    if (pinned_)
        return 0;
    List& l = lists_[std::size_t(nid)][std::size_t(which)];
    uint64_t freed = 0;
    for (uint64_t scanned = 0; scanned < nr_to_scan && l.tail != NONE; scanned++) {
        uint32_t e = l.tail;
        del(nid, which, e);
        if (referenced_[e]) {   // LRU_ROTATE: a second chance
            referenced_[e] = 0;
            add_head(nid, which, e);
            rotated++;
            continue;
        }
        freed++;
        if (which == 0) {   // __dentry_kill; iput_final keeps the inode, I_REFERENCED
            dentries_--;
            state_[e] = Inode;
            referenced_[e] = 1;
            add_head(nid, 1, e);
        } else {            // evict
            inodes_--;
            state_[e] = Uncached;
        }
    }
    return freed;
}

uint64_t Dcache::prune_dentries(int nid, uint64_t nr_to_scan, uint64_t& rotated)
{
    return prune(nid, 0, nr_to_scan, rotated);
}

uint64_t Dcache::prune_inodes(int nid, uint64_t nr_to_scan, uint64_t& rotated)
{
    return prune(nid, 1, nr_to_scan, rotated);
}

}  // namespace swapsim::mm
