// struct zram: a compressed RAM block device used as swap (drivers/block/zram/zram_drv.c).
//
// Models: the per-slot table (zram->table[index]: handle, object size, ZRAM_SAME, ZRAM_HUGE),
// one zsmalloc pool per device (zs_create_pool), the mm_stat counters (orig_data_size =
// pages_stored << PAGE_SHIFT, compr_data_size, mem_used_total = zs_get_total_pages,
// mem_used_max, same_pages, huge_pages, huge_pages_since) and zram_free_page through
// swap_slot_free_notify. With multi-page objects (Barry Song / Tangquan Zheng's RFC) one
// object holds a block of 2^order slots; it is freed when the last of its slots is.
// Granularity: one record per stored block. Leaves out: writeback to a backing device,
// recompression, idle tracking, mem_limit, compaction (pool pages as after compaction).
#pragma once

#include <cstdint>
#include <vector>

#include "mm/chunked.hpp"
#include "mm/types.hpp"
#include "mm/zsmalloc.hpp"

namespace swapsim::mm {

struct ZramStats {
    uint64_t pages_stored = 0, compr_data_size = 0, same_pages = 0, huge_pages = 0, huge_pages_since = 0;
    uint64_t max_used_pages = 0, num_reads = 0, num_writes = 0, notify_free = 0;
    uint64_t objects = 0, multi_objects = 0;   // blocks stored as one object, and those > PAGE_SIZE
};

class Zram {
public:
    Zram(uint64_t nr_slots, unsigned chain_size, unsigned multi_order);

    // Store a block of `nr` slots from `off` (nr = 1, or 2^multi_order): same-filled (no pool
    // space) or one zsmalloc object of `len` bytes (len >= the huge size: stored raw, ZRAM_HUGE).
    // Frees what the slots held before. Returns the class index used (-1: same-filled).
    // `decomp_s`: time to decompress the object (kept for its reads).
    int write(swp_offset_t off, unsigned nr, bool same_filled, unsigned len, double decomp_s = 0);
    // zram_free_page of one slot. Returns the class of the object it freed, else -1.
    int free_slot(swp_offset_t off);
    bool stored(swp_offset_t off) const { return off < slot_.size() && slot_[off] != 0; }
    bool same_filled(swp_offset_t off) const { return slot_[off] == SAME; }
    // The object behind a slot: its first slot, slots covered and compressed length.
    struct Obj {   // 24 bytes: a run keeps one per stored block
        double decomp_s = 0;
        swp_offset_t first = 0;
        uint32_t len = 0;
        uint16_t nr = 0, refs = 0;
        int16_t cls = -1;
        bool huge() const { return len >= nr * PAGE_SIZE; }
    };
    static_assert(sizeof(Obj) == 24, "");
    const Obj* object(swp_offset_t off) const;

    const ZsPool& pool() const { return pool_; }
    const ZramStats& stats() const { return st_; }
    unsigned huge_size(unsigned nr) const { return nr > 1 ? pool_.huge_class_size_multi() : pool_.huge_class_size(); }
    uint64_t nr_slots() const { return slot_.size(); }

private:
    static constexpr uint32_t SAME = UINT32_MAX;   // slot_: 0 none, SAME, else object id + 1
    std::vector<uint32_t> slot_;
    ChunkedTable<Obj> objs_;
    ZsPool pool_;
    ZramStats st_;
};

}  // namespace swapsim::mm
