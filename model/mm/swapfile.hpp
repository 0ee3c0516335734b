// struct swap_info_struct for one swap device: slot allocator, swap_map, per-slot swap cache
// and zswap entry.
//
// Models (mm/swapfile.c v6.12, Chris Li's cluster allocator): clusters of SWAPFILE_CLUSTER
// slots dedicated to one order at a time; the free list in setup_clusters' column order (one
// cluster per 64 MiB address space before the next column); nonfull and frag lists per order;
// per-CPU next[order]; cluster_alloc_swap_entry's search order (per-CPU cluster, free list,
// nonfull, frag, order-0 stealing from higher orders); naturally aligned runs for large
// folios; dec_cluster_info_page on free; the per-CPU order-0 swap slot cache (swap_slots.c:
// refill SWAP_BATCH slots under si->lock, free in batches). swap_map counts with
// SWAP_HAS_CACHE. The swap cache's folio per slot (both the XArray and the swap table keep
// this state; they differ in lock domain, see lock_domain()) and zswap's entry length per slot
// live in per-cluster slot arrays allocated on first use, so memory grows with used clusters.
// Optionally a swap file of higher priority sits in front of the device (get_swap_pages walks
// swap_avail_heads by priority): its free slots serve order-0 requests first, and while it is
// on the avail list every large request fails, because get_swap_pages tries only the first
// area for size > 1 and scan_swap_map_slots gives a file (!SWP_BLKDEV) no large entries. Its
// slots follow the device's in one offset space.
// Granularity: every slot. Leaves out: discard, SWP_PAGE_DISCARD, vm_swap_full() cache
// reclaim, the file's own clusters (its slots go out lowest first) and its own si->lock,
// swap count continuation (counts fit in a byte).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "mm/types.hpp"

namespace swapsim::mm {

constexpr uint8_t SWAP_HAS_CACHE = 0x40;
constexpr uint8_t SWAP_MAP_BAD = 0x3f;

enum ClusterFlag : uint8_t { CLUSTER_FREE = 1, CLUSTER_NONFULL = 2, CLUSTER_FRAG = 4, CLUSTER_FULL = 8 };

// What one allocation or free did, for the timed layer to price and lock.
struct SwapAllocTrace {
    bool took_si_lock = false;      // get_swap_pages ran (large folio, or slot-cache refill)
    unsigned slots_scanned = 0;     // candidate runs tested by cluster_scan_range
    unsigned clusters_tried = 0;    // clusters alloc_swap_scan_cluster looked at
    unsigned refilled = 0;          // order-0 slots fetched into the slot cache
    unsigned ranges = 0;            // cluster_alloc_range / swap_range_alloc calls
};
struct SwapFreeTrace {
    bool took_si_lock = false;      // swap_entry_range_free / swapcache_free_entries ran
    unsigned slots_freed = 0;       // slots returned to clusters
    unsigned ranges = 0;            // swap_entry_range_free calls (one per entry from the cache)
    void freed(unsigned slots, unsigned nr_ranges)
    {
        took_si_lock = true;
        slots_freed += slots;
        ranges += nr_ranges;
    }
};

class SwapDevice {
public:
    // file_slots: free slots of a higher-priority swap file in front of the device (0: none).
    // shuffle: setup_clusters' column order (v6.17 and before; the swap table removed it).
    // solidstate: SWP_SOLIDSTATE; without it (a rotational disk) every CPU allocates from one
    // global cluster (si->global_cluster) instead of its per-CPU one.
    SwapDevice(uint64_t nr_slots, int nr_cpus, bool slot_cache, unsigned swap_batch,
               uint64_t file_slots = 0, bool shuffle = true, bool solidstate = true);

    // folio_alloc_swap's slot part: order-0 from the per-CPU slot cache (if enabled), large
    // orders through get_swap_pages(1, order). Returns NO_SWAP on failure. Slots come back
    // with SWAP_HAS_CACHE set (the caller adds the folio to the swap cache).
    swp_offset_t alloc(int cpu, unsigned order, SwapAllocTrace* tr = nullptr);

    // The reference of one PTE (swap_duplicate) and its drop (swap_free / zap). Dropping the
    // last reference of a slot with no cached folio frees it. Returns slots freed.
    void dup(swp_offset_t off, unsigned nr);
    unsigned put_ref(swp_offset_t off, unsigned nr, int cpu, SwapFreeTrace* tr = nullptr);
    // swapcache_prepare: pin a referenced slot for a folio being read in. False if cached.
    bool swapcache_prepare(swp_offset_t off);
    // put_swap_folio: drop SWAP_HAS_CACHE (folio left the swap cache); frees unreferenced slots.
    unsigned put_cache(swp_offset_t off, unsigned nr, int cpu, SwapFreeTrace* tr = nullptr);
    void flush_free_cache(int cpu, SwapFreeTrace* tr = nullptr);   // swapcache_free_entries

    uint8_t count(swp_offset_t off) const;          // swap_map & ~SWAP_HAS_CACHE
    bool has_cache(swp_offset_t off) const;
    folio_t cache_folio(swp_offset_t off) const;    // swap cache: folio at this slot, or NO_FOLIO
    void set_cache_folio(swp_offset_t off, folio_t f);
    // zswap entry: compressed length, 0 = none.
    uint16_t zswap_len(swp_offset_t off) const;
    void set_zswap_len(swp_offset_t off, uint16_t len);

    // Called for every slot as swap_range_free releases it (zswap_invalidate, swap uncharge).
    void set_free_hook(std::function<void(swp_offset_t)> hook) { free_hook_ = std::move(hook); }
    // Slots allocated but not charged to any folio: held in per-CPU slot caches.
    uint64_t cached_slots() const;

    uint64_t nr_slots() const { return nr_slots_; }
    bool in_file(swp_offset_t off) const { return off >= nr_slots_; }
    uint64_t file_free() const { return file_free_.size(); }
    uint64_t inuse_pages() const { return inuse_; }
    uint64_t nr_clusters() const { return clusters_.size(); }
    unsigned cluster_order(uint32_t ci) const { return clusters_[ci].order; }
    uint8_t cluster_flags(uint32_t ci) const { return clusters_[ci].flags; }
    uint16_t cluster_count(uint32_t ci) const { return clusters_[ci].count; }
    size_t list_len_free() const { return lists_[FREE_LIST].n; }
    size_t list_len_nonfull(unsigned order) const { return lists_[NONFULL0 + order].n; }
    size_t list_len_frag(unsigned order) const { return lists_[FRAG0 + order].n; }
    size_t slot_cache_len(int cpu) const { return pcp_[size_t(cpu)].cache.size(); }
    uint64_t bytes_allocated() const;   // slot arrays allocated (memory check)

private:
    struct Cluster {
        uint32_t prev = UINT32_MAX, next = UINT32_MAX;
        uint16_t count = 0;
        uint8_t flags = 0;
        uint8_t order = 0;
        uint8_t list = 0xff;
    };
    // A cluster's zswap lengths: one length and a bitmap of the slots that have it while they
    // all have the same (a run's pages of one data kind compress alike), else one per slot.
    struct ZswapLens {
        std::array<uint64_t, SWAPFILE_CLUSTER / 64> has{};
        std::unique_ptr<std::array<uint16_t, SWAPFILE_CLUSTER>> each;
        uint16_t len = 0;
        uint16_t nr = 0;   // bits set
        uint16_t get(unsigned k) const
        {
            return each ? (*each)[k] : (has[k / 64] >> (k % 64) & 1) ? len : 0;
        }
        void set(unsigned k, uint16_t v);
    };
    // A cluster's swap cache entries are allocated while it has any: folios pass through the
    // swap cache on their way out, so at any time few clusters hold one.
    struct SlotData {
        std::array<uint8_t, SWAPFILE_CLUSTER> map{};
        ZswapLens zlen;
        std::unique_ptr<std::array<folio_t, SWAPFILE_CLUSTER>> cache;
        uint16_t nr_cached = 0;
        void clear_cache(unsigned k);
    };
    struct List {
        uint32_t head = UINT32_MAX, tail = UINT32_MAX;
        size_t n = 0;
    };
    enum : unsigned { FREE_LIST = 0, FULL_LIST = 1, NONFULL0 = 2, FRAG0 = NONFULL0 + NR_ORDERS,
                      NR_LISTS = FRAG0 + NR_ORDERS };
    struct PerCpu {
        std::array<swp_offset_t, NR_ORDERS> next{};   // percpu_cluster->next[order], 0 = none
        std::vector<swp_offset_t> cache;             // swap_slots_cache.slots (order 0)
        std::vector<swp_offset_t> ret;               // swap_slots_cache.slots_ret
    };

    SlotData& slots(uint32_t ci);
    const SlotData* slots_if(uint32_t ci) const { return slot_data_[ci].get(); }
    void list_del(uint32_t ci);
    void list_add_tail(uint32_t ci, unsigned list);
    void cluster_move(uint32_t ci, unsigned list, uint8_t flags);
    bool cluster_scan_range(uint32_t ci, unsigned start, unsigned nr) const;
    void cluster_alloc_range(uint32_t ci, unsigned start, unsigned order);
    swp_offset_t alloc_swap_scan_cluster(swp_offset_t offset, unsigned order, swp_offset_t* found,
                                         SwapAllocTrace* tr);
    swp_offset_t cluster_alloc_swap_entry(int cpu, unsigned order, SwapAllocTrace* tr);
    void dec_cluster_info_page(uint32_t ci, unsigned nr);
    void swap_entry_range_free(swp_offset_t off, unsigned nr);
    unsigned free_if_unused(swp_offset_t off, unsigned nr, int cpu, SwapFreeTrace* tr);

    swp_offset_t alloc_order0(int cpu, SwapAllocTrace* tr);

    uint64_t nr_slots_;
    uint64_t inuse_ = 0;
    std::vector<swp_offset_t> file_free_;   // the file's free slots, lowest at the back
    bool slot_cache_;
    unsigned swap_batch_;
    bool solidstate_;
    std::vector<Cluster> clusters_;
    std::vector<std::unique_ptr<SlotData>> slot_data_;
    std::array<List, NR_LISTS> lists_{};
    std::array<size_t, NR_ORDERS> frag_cluster_nr_{};
    std::vector<PerCpu> pcp_;
    std::function<void(swp_offset_t)> free_hook_;
};

}  // namespace swapsim::mm
