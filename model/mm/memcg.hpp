// struct mem_cgroup: page counters, per-CPU charge stocks, events and the memory.high penalty.
//
// Models (mm/memcontrol.c, v6.12): try_charge_memcg's stock/batch logic (consume_stock,
// refill_stock, MEMCG_CHARGE_BATCH), the over-high debt a charging task accrues
// (current->memcg_nr_pages_over_high), memory.max failure, swap charging and MEMCG_SWAP_FAIL,
// obj_cgroup_charge/uncharge with its per-CPU byte stock (zswap's compressed-size charge),
// calculate_overage/calculate_high_delay in the kernel's fixed-point arithmetic, and the
// memory.events / memory.swap.events counters.
// Granularity: one leaf memcg (the workload's), exact page and byte arithmetic per call.
// Leaves out: hierarchy above the leaf, rstat flushing, socket/kmem charges other than zswap.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "mm/types.hpp"

namespace swapsim::mm {

struct PageCounter {
    int64_t usage = 0;       // pages
    int64_t watermark = 0;   // peak usage
    uint64_t high = std::numeric_limits<uint64_t>::max();
    uint64_t max = std::numeric_limits<uint64_t>::max();
    // Pages that forced charges (PF_MEMALLOC, __GFP_NOFAIL) put past max, summed: the peak
    // passes max by at most this (checked at the end of a run).
    uint64_t forced_over_max = 0;
};

// memory.current and the memory.stat lines that say where it goes, in bytes as the kernel
// prints them. kernel: MEMCG_KMEM, i.e. zswap's charged pages and the page tables.
struct MemcgStat {
    uint64_t current = 0, anon = 0, file = 0, kernel = 0, pagetables = 0, zswap = 0, zswapped = 0;
    uint64_t slab_reclaimable = 0, slab_unreclaimable = 0;   // the dentry and inode caches (shrinker.cpp)
};

struct MemcgEvents {
    uint64_t high = 0;        // memory.events high (MEMCG_HIGH)
    uint64_t max = 0;         // memory.events max
    uint64_t oom = 0;
    uint64_t swap_high = 0;   // memory.swap.events high
    uint64_t swap_max = 0;
    uint64_t swap_fail = 0;   // memory.swap.events fail (MEMCG_SWAP_FAIL)
};

struct ChargeResult {
    bool ok = true;
    bool from_stock = false;     // consume_stock hit: no page_counter access, no high check
    unsigned batch = 0;          // pages taken from the page counter
    unsigned over_high = 0;      // pages added to the task's memcg_nr_pages_over_high
};

class MemCgroup {
public:
    MemCgroup(int nr_cpus, uint64_t high_pages, uint64_t max_pages, uint64_t swap_max_pages);

    // try_charge_memcg(memcg, gfp, nr_pages) from `cpu`. Never fails against memory.high; fails
    // against memory.max unless `force` (PF_MEMALLOC / __GFP_NOFAIL: charged past the limit).
    ChargeResult try_charge(int cpu, unsigned nr_pages, bool force);
    // Direct uncharge on folio free (uncharge_batch -> page_counter_uncharge).
    void uncharge(unsigned nr_pages);

    // obj_cgroup_charge_zswap / obj_cgroup_uncharge_zswap: byte-granular charge through the
    // per-CPU obj stock; pages move through try_charge / refill_stock. Also MEMCG_ZSWAP_B and
    // MEMCG_ZSWAPPED stats.
    // Each entry also charges zswap_entry_charge bytes that the zswap line does not show (a
    // what-if; v6.12: 0).
    ChargeResult charge_zswap(int cpu, uint64_t bytes, unsigned nr_entries);
    void uncharge_zswap(int cpu, uint64_t bytes, unsigned nr_entries);

    // mem_cgroup_try_charge_swap: entry==0 means the slot allocation failed (counts swap_fail).
    bool try_charge_swap(bool have_entry, unsigned nr_pages);
    // obj_cgroup_uncharge_pages (a freed kmem page, e.g. a page table): back to the CPU's stock.
    void uncharge_kmem(int cpu, unsigned nr_pages) { refill_stock(cpu, nr_pages); }
    void uncharge_swap(unsigned nr_pages);

    // Kernel arithmetic (mm/memcontrol.c), public for tests.
    static uint64_t calculate_overage(uint64_t usage, uint64_t high);
    static uint64_t calculate_high_delay(unsigned nr_pages, uint64_t max_overage, unsigned hz,
                                         unsigned batch = MEMCG_CHARGE_BATCH);
    // penalty_jiffies for this memcg (memory part + swap part, capped at 2*HZ).
    uint64_t high_delay_jiffies(unsigned nr_pages, unsigned hz) const;

    bool over_high() const { return uint64_t(std::max<int64_t>(memory.usage, 0)) > memory.high; }
    uint64_t margin() const;   // mem_cgroup_margin: pages below memory.max
    void drain_all_stock();    // drain_all_stock: return every CPU's stock to the counter
    int64_t stock_pages() const;
    MemcgStat stat() const;

    PageCounter memory, swap;
    MemcgEvents events;
    uint64_t zswap_entry_charge = 0;   // bytes per zswap entry besides its length (what-if)
    unsigned charge_batch = MEMCG_CHARGE_BATCH;   // MEMCG_CHARGE_BATCH in simulated pages (sim.page_unit)
    uint64_t zswap_bytes = 0;  // memory.stat zswap
    uint64_t zswapped = 0;     // memory.stat zswapped
    int64_t anon_pages = 0, file_pages = 0, kmem_pages = 0;   // file: page cache (NR_FILE_PAGES); kmem: zswap's
    int64_t pagetable_pages = 0;                             // memory.stat pagetables
    // Slab objects charged to the memcg (obj_cgroup_charge), in pages (units) of the byte
    // total rounded up: reclaimable (a shrinker frees them) or not (a tmpfs tree's, pinned).
    int64_t slab_pages = 0;
    uint64_t slab_reclaimable_bytes = 0, slab_unreclaimable_bytes = 0;

private:
    bool consume_stock(int cpu, unsigned nr_pages);
    void refill_stock(int cpu, unsigned nr_pages);
    bool page_counter_try_charge(PageCounter& c, unsigned nr, bool force);
    void refill_obj_stock(int cpu, uint64_t nr_bytes, bool allow_uncharge);

    std::vector<unsigned> stock_;        // memcg_stock_pcp.nr_pages per CPU
    std::vector<uint64_t> obj_stock_;    // obj_stock_pcp.nr_bytes per CPU
};

}  // namespace swapsim::mm
