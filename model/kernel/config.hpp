// Typed kernel configuration and model costs, filled from the scenario by model/run.
// Times are seconds (cycle costs already divided by the clock).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "hw/blockdev.hpp"
#include "hw/iaa.hpp"
#include "hw/topology.hpp"
#include "mm/types.hpp"

namespace swapsim::kernel {

enum class SwapCacheImpl { XArray, SwapTable };
enum class SwapAllocLock { SiLock, ClusterLock };
enum class SwapDev { Ssd, Pmem, Zram, None, Hdd };

// One compressor on the workload's data: per 4 KiB page. For IAA (hw) the times are the
// engines' job times; the CPU's share depends on the driver mode.
struct CompressorModel {
    std::string name;
    unsigned comp_len = 4096;   // compressed bytes per page
    double comp_s = 0;          // time to compress one page (CPU, or an IAA engine job)
    double decomp_s = 0;        // time to decompress one page
    bool hw = false;            // runs on IAA
};

// A compressor on the data written, per 4 KiB page of input, when it compresses blocks of
// 2^order pages (zram): measured ratio and costs (calibration/compressors/table.json).
struct BlockCost {
    double ratio = 1;       // compressed / original bytes
    double comp_s = 0, decomp_s = 0;
};

// What the workload writes: a data kind, and a share of its pages left zero (same-filled),
// spread over the mapping (page i of generation g is zero when frac((i + g * n) * phi) < share).
struct DataModel {
    std::array<BlockCost, 10> kind, zero;   // by block order 0..HPAGE_PMD_ORDER
    double zero_share = 0;
};

// zram as the swap device (SWP_SYNCHRONOUS_IO).
struct ZramConfig {
    unsigned multi_order = 0;     // CONFIG_ZSMALLOC_MULTI_PAGES_ORDER, 0 = no multi-page objects
    DataModel data;               // swap.zram.comp_algorithm on the workload's data
    double same_hit = 0, same_miss = 0;   // page_same_filled on a same-filled / normal page
    double write_page = 0, read_page = 0, free_page = 0;
};

enum class IaaMode { Sync, Async, AsyncIrq };

// iaa_crypto as zswap drives it.
struct IaaConfig {
    hw::IaaParams dev;
    IaaMode mode = IaaMode::Sync;
    bool verify = true;         // verify_compress: decompress each result and compare CRCs
    double submit = 0;          // CPU time to prepare and submit one descriptor
    double crc = 0;             // CPU time of the verify comparison
    double irq_wake = 0;        // async_irq: completion interrupt to running task (latency)
    double irq_cpu = 0;         // async_irq: CPU time of the IRQ thread work and wakeup
};

struct Costs {
    // page fault and allocation
    double fault = 0;               // exception entry/exit + handle_mm_fault, per fault
    double fault_per_pte = 0;       // set_ptes per page mapped
    double alloc_folio = 0;         // buddy/pcp allocation of one folio
    double alloc_per_page = 0;      // struct page init per page of a large folio
    double zone_lock_batch = 0;     // zone->lock section per pcp batch of 64 pages
    double zone_lock_buddy = 0;     // zone->lock section per non-pcp folio alloc or free
    double free_one_page = 0;       // free_pcppages_bulk: __free_one_page's buddy merge, per page, under zone->lock
    double zero_bw = 1e10;          // bytes/s clearing a new folio (clear_page)
    double charge = 0;              // try_charge_memcg page-counter path
    double charge_stock = 0;        // consume_stock hit
    double counter_hold = 0;        // page_counter cache line held per atomic update
    double lru_add_per_folio = 0;   // lru_add_fn under lru_lock
    // reclaim
    double reclaim_entry = 0;       // try_to_free_mem_cgroup_pages + do_try_to_free_pages setup
    double shrink_round = 0;        // shrink_inactive_list fixed part (lru_add_drain, stats)
    double lru_lock_base = 0;       // lru_lock section fixed part
    double isolate_per_folio = 0;   // isolate_lru_folios per folio, under lru_lock
    double putback_per_folio = 0;   // move_folios_to_lru per folio, under lru_lock
    double rmap_walk = 0;           // folio_referenced / try_to_unmap: anon_vma + walk setup
    double rmap_per_pte = 0;        // per PTE visited
    double tlb_flush = 0;           // try_to_unmap_flush_dirty: shootdown IPI round trip (wall)
    double tlb_irq = 0;             // flush_tlb_func on the target CPU (stolen from its task)
    double add_to_swap = 0;         // folio_alloc_swap + mem_cgroup_try_charge_swap, outside locks
    double si_lock_hold = 0;        // get_swap_pages / swap_entry_range_free section, fixed
    double si_lock_per_slot = 0;    // ... per slot scanned or freed
    double si_alloc_per_range = 0;  // ... per cluster_alloc_range (an order-0 refill: per slot)
    double si_free_per_range = 0;   // ... per swap_entry_range_free (from the cache: per slot)
    double swap_cache_add = 0;      // add_to_swap_cache section under xa_lock, fixed
    double swap_cache_del = 0;      // __delete_from_swap_cache section, fixed
    double swap_cache_per_page = 0; // per slot stored/erased
    double free_folio = 0;          // free_unref_folios + uncharge, per folio
    double split_folio = 0;         // split_folio_to_list, per page
    // zswap
    double zswap_store_folio = 0;   // zswap_store fixed part: pool, objcg, limits, charge
    double zswap_store_page = 0;    // zswap_store_page outside locks: entry alloc, lengths
    double zswap_invalidate_page = 0;   // zswap_invalidate outside locks
    double zswap_tree_hold = 0;     // xa_store / xa_erase under the zswap tree lock
    double zs_class_hold = 0;       // zs_malloc / zs_free under the size-class lock
    double zs_free_cold = 0;        // zs_free: cache misses on the cold zspage under that lock
    double zs_copy_bw = 1e10;       // bytes/s copying the compressed object into its zspage
    double list_lru_hold = 0;       // list_lru_add / del under the memcg-node list lock
    double shadow_list_hold = 0;    // XArray: shadow_nodes list_lru_add_obj / del_obj (workingset_update_node)
    double zswap_load_page = 0;     // zswap_load outside decompression
    // block I/O
    double bio_submit = 0;          // bio alloc + submit_bio + driver, per request
    double bio_per_folio = 0;       // bio_add_folio + writeback flags, per folio
    double pmem_bw = 1e10;          // bytes/s of a pmem (memcpy) swap write/read
    // swap-in and exit
    double swapin_fault = 0;        // do_swap_page fixed part
    double swap_cache_lookup = 0;   // swap_cache_get_folio (XArray: xas_load's walk + folio_try_get)
    double xa_clear_walk = 0;       // XArray: clear_shadow_from_swap_cache's lock and walk, per range freed
    double xa_clear_per_slot = 0;   // ... per slot whose shadow is erased (both part of si_free_per_range)
    double table_add = 0;           // swap table: swap_cache_add_folio under the cluster lock, fixed
    double table_del = 0;           // swap table: __swap_cache_del_folio, fixed
    double table_per_slot = 0;      // swap table: one atomic store into the cluster's table
    double table_lookup = 0;        // swap table: swap_cache_get_folio, one atomic load + folio_try_get
    double zap_per_pte = 0;         // zap_pte_range per present PTE
    double zap_per_folio = 0;       // folio release at unmap
    double zap_per_swap = 0;        // free_swap_and_cache_nr per swap PTE, outside locks
    double cold_line = 0;           // zap's swap-entry free: one metadata cache line long out of cache
    double exit_mm = 0;             // exit_mmap fixed part
    double fork_mm = 0;             // dup_mm fixed part (mm_struct, VMA copies)
    double fork_per_pte = 0;        // copy_present_pte: rmap dup, wrprotect, per PTE
    double fork_per_swap_pte = 0;   // copy_nonpresent_pte: swap_duplicate, per swap PTE
    double cow_copy_bw = 1e10;      // bytes/s copying a page in wp_page_copy (read + write)
    double rmap_per_vma = 0;        // an rmap walk's cost per further VMA of the anon_vma
    // locks
    double lock_handoff = 0;        // qspinlock cache-line handoff when contended
    // global reclaim and OOM (page_alloc.cpp)
    double oom_kill = 0;            // out_of_memory: select_bad_process over the tasks, signal
    // slab caches and shrinkers (shrinker.cpp): per object or per call, not scaled by sim.page_unit
    double slab_lookup_alloc = 0;   // lookup of an uncached entry: d_alloc + ->lookup + iget_locked, both objects charged
    double slab_lookup_dentry = 0;  // lookup of an entry whose inode is cached: d_alloc + ->lookup finding it (iget)
    double slab_isolate = 0;        // list_lru: one object added, deleted or walked, under the list's lock
    double slab_free_dentry = 0;    // prune_dcache_sb: __dentry_kill, d_free (RCU) and the uncharge, per dentry
    double slab_free_inode = 0;     // prune_icache_sb: evict, destroy_inode (RCU) and the uncharge, per inode
    double slab_shrinker_call = 0;  // do_shrink_slab: count_objects and the nr_deferred exchange, per shrinker call

    double zs_free_hold() const { return zs_class_hold + zs_free_cold; }   // zs_free's class-lock hold
};

struct KConfig {
    hw::Topology topo;
    double hz = 2.5e9;
    double reclaim_slice = 1e-3;          // sim.reclaim_slice
    // sim.page_unit: pages one simulated page stands for (scenario/settings.cpp derive_page_unit). Page counts below
    // are in units; the batches the kernel sizes in pages are scaled to the same page count.
    unsigned page_unit = 1;
    unsigned charge_batch = mm::MEMCG_CHARGE_BATCH;    // pages (units) per memcg stock refill
    unsigned swap_cluster_max = mm::SWAP_CLUSTER_MAX;  // pages (units) per reclaim round
    unsigned free_batch = 31;                          // folios per free_unref_folios uncharge
    uint64_t dram_pages = 0;
    // Zone watermarks (page_alloc.cpp): vm.min_free_kbytes (0: the kernel's default,
    // int_sqrt(RAM in KiB x 16) clamped to 128..262144) and vm.watermark_scale_factor.
    uint64_t min_free_kbytes = 0;
    unsigned watermark_scale_factor = 10;
    // memcg (pages; UINT64_MAX = max)
    uint64_t memcg_high = UINT64_MAX, memcg_max = UINT64_MAX, memcg_swap_max = UINT64_MAX;
    int membind = -1;                     // node for all memory, -1 = local
    int mem_nodes = 0;                    // nodes holding dram_pages (0: every socket)
    std::vector<unsigned> mthp_orders;    // enabled anon folio orders, highest first
    double mthp_alloc_fail = 0;           // what-if: share of large-folio allocations that fail
    bool thp_swap = true;
    bool mthp_swapout = true;     // v6.10+: slots for any large folio (else only a PMD THP's)
    unsigned swappiness = 60;
    unsigned hz_jiffies = 1000;
    unsigned page_cluster = 3;
    bool vma_ra = true;
    SwapCacheImpl swap_cache = SwapCacheImpl::XArray;
    SwapAllocLock swap_alloc = SwapAllocLock::SiLock;
    bool slot_cache = true;
    unsigned swap_batch = 64;
    unsigned lru_add_batch = 31;
    // zswap
    bool zswap = true;
    bool zswap_ever = false;      // zswap enabled earlier since boot (kernel.zswap.ever_enabled)
    CompressorModel comp;
    unsigned max_pool_percent = 20, accept_threshold_percent = 90;
    bool zswap_large = true;
    bool zswap_writeback = true;
    unsigned zs_chain_size = 8;
    unsigned zswap_batch = 1;             // ZSWAP_MAX_BATCH_SIZE (IAA batching series: 8)
    unsigned zswap_entry_charge = 0;      // what-if: charged bytes per entry beyond its length
    IaaConfig iaa;
    // swap device
    SwapDev dev = SwapDev::Ssd;
    uint64_t swap_slots = 0;
    uint64_t swapfile_slots = 0;          // free slots of a higher-priority swap file in front
    ZramConfig zram;
    hw::BlockDevParams ssd;
    hw::BlockDevParams rootdev;           // the files' device (machine.disk.*; kernel/filemap.cpp)
    hw::HddParams hdd;                    // swap.device = hdd: positioning (bandwidth in hdd_bw)
    double hdd_bw = 160e6;
    // count_shadow_nodes for the root memcg in global reclaim: the root's own LRU pages (the
    // swap cache's xa_nodes are on the root's shadow_nodes list; the workload's memcg is a child).
    uint64_t root_lru_pages = UINT64_MAX;   // kernel.memcg.root_lru; max: the workload is the root memcg
    Costs c;
};

}  // namespace swapsim::kernel
