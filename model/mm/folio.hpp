// struct folio, reduced to what reclaim and swap decide on.
//
// Models: the folio flags reclaim tests (PG_referenced, PG_active, PG_lru, PG_swapbacked,
// PG_swapcache, PG_writeback, PG_reclaim, PG_readahead), the order, the node, the LRU
// linkage, the reverse map of a private anon folio (one mm, one virtual page index) or the
// file page index, and the swap entry while in the swap cache.
// Granularity: one record per folio; a split makes order-0 records for the tail pages.
// mapcount: how many mms map the folio (PG_mapped: at least one; `shared` counts the others). A
// file folio (not PG_swapbacked) is in a file's page cache (owner: the file's VMA, index: the
// page offset) and may be mapped by many processes (Kernel::file_mmap).
// Leaves out: refcounts, dirty file folios, per-page mapcounts (a folio shared by fork is order 0), per-page
// flags, memcg pointer (one memcg).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "mm/chunked.hpp"
#include "mm/types.hpp"

namespace swapsim::mm {

enum FolioFlag : uint16_t {
    PG_referenced = 1u << 0,
    PG_active = 1u << 1,
    PG_lru = 1u << 2,
    PG_swapbacked = 1u << 3,   // anon
    PG_swapcache = 1u << 4,
    PG_writeback = 1u << 5,
    PG_reclaim = 1u << 6,
    PG_readahead = 1u << 7,    // swap readahead page not yet hit (swap_ra_hit accounting)
    PG_young = 1u << 8,        // stands for the accessed bit of the folio's PTEs/PMD
    PG_isolated = 1u << 9,     // off the LRU in a reclaimer's private list
    PG_mapped = 1u << 10,      // mapped by its owner's page table
    PG_dirty = 1u << 11,       // no valid copy in swap (zswap or device) yet
    PG_orphan = 1u << 12,      // unmapped by its exiting owner while isolated: the reclaimer
                               // holds the last reference and frees it
    PG_wrote = 1u << 13,       // swapsim's own: swapped out (zswpout/pswpout) and not freed by
                               // reclaim since (Kernel::SwapoutAccounting)
    PG_workingset = 1u << 14,  // deactivated from the active list once (workingset_eviction's
                               // shadow records it; a refault of it is a WORKINGSET_RESTORE)
    PG_locked = 1u << 15,      // a swap-in's folio while its read is in flight: the faulting
                               // task maps it after; reclaim's folio_trylock fails
};

enum LruList : uint8_t {
    LRU_INACTIVE_ANON = 0,
    LRU_ACTIVE_ANON = 1,
    LRU_INACTIVE_FILE = 2,
    LRU_ACTIVE_FILE = 3,
    NR_LRU_LISTS = 4,
    LRU_NONE = 255,
};

inline LruList folio_lru_list(bool anon, bool active)
{
    return LruList((anon ? 0 : 2) + (active ? 1 : 0));
}

struct Folio {
    uint32_t owner = 0;        // anon: mm id; file: file id
    uint32_t index = 0;        // first page index in the owner's mapping / file
    swp_offset_t swap = NO_SWAP;
    folio_t prev = NO_FOLIO, next = NO_FOLIO;
    uint32_t gen = 0;          // bumped on free: stale references (writeback queue) detect reuse
    uint16_t flags = 0;
    uint8_t order = 0;
    uint8_t nid = 0;
    uint8_t lru = LRU_NONE;
    uint16_t shared = 0;       // mappings besides the first (fork; a file's mappers); mapcount - 1

    unsigned nr_pages() const { return 1u << order; }
    bool test(FolioFlag f) const { return flags & f; }
    void set(FolioFlag f) { flags |= f; }
    void clear(FolioFlag f) { flags &= uint16_t(~f); }
    bool anon() const { return flags & PG_swapbacked; }
};

// Folio records with recycling of freed ids.
class FolioTable {
public:
    folio_t alloc(unsigned order, unsigned nid, bool anon, uint32_t owner, uint32_t index);
    void free(folio_t f);
    Folio& operator[](folio_t f) { return folios_[f]; }
    const Folio& operator[](folio_t f) const { return folios_[f]; }
    size_t live() const { return folios_.size() - folios_.released(); }
    size_t capacity() const { return folios_.size(); }
    // Split a large folio into order-0 folios (split_folio_to_list). Returns the new tail ids
    // in page order (the head keeps id `f`). Flags are copied; LRU linkage is the caller's.
    std::vector<folio_t> split(folio_t f);

private:
    ChunkedTable<Folio> folios_;   // a Folio& stays valid across alloc()
};

}  // namespace swapsim::mm
