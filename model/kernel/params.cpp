// Registry rows of the kernel paths (kernel/*.cpp): the sysctl, sysfs and cgroup knobs they
// read, and their fitted costs (cycles are divided by machine.cpu_freq, ns are wall time).
#include "scenario/param_table.hpp"

#include <algorithm>

#include "mm/types.hpp"
#include "scenario/kernel_versions.hpp"

namespace swapsim::scenario {
namespace {

// kernel.mthp.enabled: the anon folio orders set to "always", highest first.
std::vector<unsigned> folio_orders(const Config& cfg, const ParamDef& d, const Settings&)
{
    std::vector<unsigned> orders;
    for (double sz : cfg.list(d.name)) {
        unsigned order = 0;
        while ((mm::PAGE_SIZE << order) < uint64_t(sz))
            order++;
        if (order)
            orders.push_back(order);
    }
    std::sort(orders.rbegin(), orders.rend());
    return orders;
}

bool per_package(const Config& cfg, const ParamDef& d, const Settings&) { return cfg.s(d.name) == "per_package"; }

double percent(const Config& cfg, const ParamDef& d, const Settings&) { return cfg.num(d.name) / 100; }

}  // namespace

void add_kernel_params(Table& t)
{
    // memcontrol.cpp
    t.size(Category::Kernel, "kernel.memcg.high", "max", 0, 1e15, "memory.high of the workload's cgroup", "cgroup v2 default: max", true).to(section::kernel, &kernel::KConfig::memcg_high, Conv::Pages);
    t.size(Category::Kernel, "kernel.memcg.max", "max", 0, 1e15, "memory.max of the workload's cgroup", "cgroup v2 default: max", true).to(section::kernel, &kernel::KConfig::memcg_max, Conv::Pages);
    t.size(Category::Kernel, "kernel.memcg.swap_max", "max", 0, 1e15, "memory.swap.max of the workload's cgroup", "cgroup v2 default: max", true).to(section::kernel, &kernel::KConfig::memcg_swap_max, Conv::Pages);
    // page_alloc.cpp: zone watermarks, kswapd, direct reclaim
    t.integer(Category::Kernel, "kernel.vm.min_free_kbytes", "KiB", 0, 0, 67108864, "vm.min_free_kbytes: the min watermark summed over nodes (0: the kernel's default from RAM)", "mm/page_alloc.c init_per_zone_wmark_min: int_sqrt(lowmem_kbytes * 16), clamped to 128..262144").to(section::kernel, &kernel::KConfig::min_free_kbytes);
    t.integer(Category::Kernel, "kernel.vm.watermark_scale_factor", "1/10000", 10, 1, 3000, "vm.watermark_scale_factor: low - min = high - low = max(min/4, managed x factor / 10000)", "mm/page_alloc.c default 10, range 1-3000").to(section::kernel, &kernel::KConfig::watermark_scale_factor);
    // fault.cpp and swap.cpp: folio sizes and swap
    t.p({"kernel.mthp.enabled", Kind::SizeList, "bytes", nlohmann::json::array(), 0, 2 * MiB, false, false, {},
         "anonymous folio sizes set to 'always' in /sys/kernel/mm/transparent_hugepage/hugepages-<size>kB/enabled (empty: 4K only)",
         "kernel default: all mTHP sizes never", Category::Kernel}).to(section::kernel, &kernel::KConfig::mthp_orders, folio_orders);
    t.real(Category::Kernel, "kernel.mthp.alloc_fail_percent", "%", 0, 0, 100, "what-if: share of large-folio allocations (faults and swap-in) that find no free block of their order (fragmented memory); they fall back an order", "default: memory not fragmented").to(section::kernel, &kernel::KConfig::mthp_alloc_fail, percent);
    t.flag(Category::Kernel, "kernel.thp_swap", true, "CONFIG_THP_SWAP: allocate contiguous swap slots for a large folio instead of splitting it", "mm/Kconfig: def_bool y on x86-64").to(section::kernel, &kernel::KConfig::thp_swap);
    t.flag(Category::Kernel, "kernel.mthp_swapout", true, "with CONFIG_THP_SWAP, a large folio below PMD size is swapped out whole too (false: split, as before v6.10)", "v6.10 'mm: swap: swap-out small-sized THP without splitting' (Ryan Roberts)").to(section::kernel, &kernel::KConfig::mthp_swapout);
    t.integer(Category::Kernel, "kernel.swappiness", "", 60, 0, 200, "vm.swappiness (anon vs file scan balance)", "kernel default 60").to(section::kernel, &kernel::KConfig::swappiness);
    t.integer(Category::Kernel, "kernel.hz", "Hz", 1000, 100, 1000, "CONFIG_HZ: jiffy length for memory.high throttling", "x86_64_defconfig: CONFIG_HZ_1000").to(section::kernel, &kernel::KConfig::hz_jiffies);
    t.integer(Category::Kernel, "kernel.page_cluster", "", 3, 0, 5, "vm.page-cluster: swap readahead window is up to 2^page_cluster pages", "kernel default 3").to(section::kernel, &kernel::KConfig::page_cluster);
    t.flag(Category::Kernel, "kernel.vma_ra_enabled", true, "/sys/kernel/mm/swap/vma_ra_enabled: VMA-based swap readahead", "kernel default true").to(section::kernel, &kernel::KConfig::vma_ra);
    t.choice(Category::Kernel, "kernel.version", "none", kernel_version_names(), "preset: the defaults of the keys that changed between these kernels (swapsim params lists them); keys the scenario sets win; none: the registry defaults", "scenario/kernel_versions.cpp: each change with its series and release").no_field("scenario/kernel_versions.cpp: sets the defaults of other keys at load");
    t.choice(Category::Kernel, "kernel.swap_cache", "xarray", {"xarray", "swap_table"}, "swap cache: XArray per 64 MiB (<= v6.17) or per-cluster swap table (v6.18)", "seed 000 kernel: mm-unstable 2024-09 (XArray)").to(section::kernel, &kernel::KConfig::swap_cache);
    t.choice(Category::Kernel, "kernel.swap_alloc", "si_lock", {"si_lock", "cluster_lock"}, "slot allocator locking: device-wide si->lock (v6.12) or per-cluster locks (v6.14+)", "seed 000 kernel: v6.12-era allocator").to(section::kernel, &kernel::KConfig::swap_alloc);
    t.flag(Category::Kernel, "kernel.swap_slot_cache", true, "per-CPU swap slot cache for order-0 slots (removed in v6.15)", "seed 000 kernel: v6.12").to(section::kernel, &kernel::KConfig::slot_cache);
    t.integer(Category::Kernel, "kernel.swap_batch", "slots", 64, 1, 512, "SWAP_BATCH: order-0 slots fetched per slot-cache refill", "include/linux/swap.h: SWAP_BATCH 64").to(section::kernel, &kernel::KConfig::swap_batch);
    t.integer(Category::Kernel, "kernel.lru_add_batch", "folios", 31, 1, 64, "folios gathered per CPU before lru_add_drain takes lru_lock", "include/linux/pagevec.h: PAGEVEC_SIZE 31").to(section::kernel, &kernel::KConfig::lru_add_batch);
    // swap.cpp: zswap, iaa_crypto, zsmalloc
    t.flag(Category::Kernel, "kernel.zswap.enabled", true, "zswap enabled", "seed 000: zswap runs").to(section::kernel, &kernel::KConfig::zswap);
    t.flag(Category::Kernel, "kernel.zswap.ever_enabled", false, "zswap was enabled at some time since boot (a distro default, a test run) though it is off now: zswap_never_enabled() is false, so a SWP_SYNCHRONOUS_IO swap-in takes no large folio (v6.12+ alloc_swap_folio)", "default: never enabled; measured on a v6.18 VM: 0 of 128,000 16K swap-ins large once zswap had been on (calibration/measurements/swapinout-vm-zram-lz4-16k.md)").to(section::kernel, &kernel::KConfig::zswap_ever);
    t.choice(Category::Kernel, "kernel.zswap.compressor", "zstd", {"zstd", "lz4", "lzo-rle", "deflate-iaa", "deflate-iaa-canned"}, "zswap compressor (deflate-iaa: IAA fixed Huffman; deflate-iaa-canned: IAA canned tables)", "seed 000 zstd columns (Kconfig default is lzo)").to(section::compressor, &kernel::CompressorModel::name);
    t.integer(Category::Kernel, "kernel.zswap.max_pool_percent", "%", 20, 0, 100, "zswap pool limit as a share of RAM", "mm/zswap.c default 20").to(section::kernel, &kernel::KConfig::max_pool_percent);
    t.integer(Category::Kernel, "kernel.zswap.accept_threshold_percent", "%", 90, 0, 100, "after hitting the limit, accept again below this share of it", "mm/zswap.c default 90").to(section::kernel, &kernel::KConfig::accept_threshold_percent);
    t.flag(Category::Kernel, "kernel.zswap.large_folios", true, "zswap_store() accepts large folios (v6.13); false: v6.12 rejects them to the swap device", "seed 000 'after' kernel (zswap-mTHP v7)").to(section::kernel, &kernel::KConfig::zswap_large);
    t.flag(Category::Kernel, "kernel.zswap.writeback", true, "memory.zswap.writeback: a rejected folio may go to the swap device", "cgroup default 1").to(section::kernel, &kernel::KConfig::zswap_writeback);
    t.integer(Category::Kernel, "kernel.zswap.entry_charge", "bytes", 0, 0, 65536,
           "what-if: bytes charged to the memcg per zswap entry besides its compressed length (as if struct zswap_entry or its tree and zsmalloc metadata were accounted)",
           "mm/zswap.c v6.12: zswap_store charges obj_cgroup_charge_zswap(objcg, entry->length) only").to(section::kernel, &kernel::KConfig::zswap_entry_charge);
    t.integer(Category::Kernel, "kernel.zswap.batch_size", "pages", 1, 1, 8, "pages of a folio compressed per batch (ZSWAP_MAX_BATCH_SIZE); 1: mainline, 8: IAA batching series", "mainline zswap_store: page by page").to(section::kernel, &kernel::KConfig::zswap_batch);
    t.choice(Category::Kernel, "kernel.iaa.sync_mode", "sync", {"sync", "async", "async_irq"}, "iaa_crypto sync_mode: busy-poll, submit-then-poll (batching), or sleep for the IRQ", "iaa_crypto default sync (seed 000 v7 runs)").to(section::iaa, &kernel::IaaConfig::mode);
    t.flag(Category::Kernel, "kernel.iaa.verify_compress", true, "iaa_crypto verify_compress: decompress every result and compare CRCs", "iaa_crypto default 1; seed 000: enabled in the v7 runs").to(section::iaa, &kernel::IaaConfig::verify);
    t.choice(Category::Kernel, "kernel.iaa.distribute", "per_cpu", {"per_cpu", "per_package"}, "CPU-to-IAA mapping: the 6.x driver's per-CPU wq_table, or compress jobs spread over the socket's devices", "iaa_crypto 6.x: per-CPU mapping").to(section::iaa_dev, &hw::IaaParams::per_package, per_package);
    t.integer(Category::Kernel, "kernel.zsmalloc.chain_size", "pages", 8, 4, 16, "CONFIG_ZSMALLOC_CHAIN_SIZE: max pages per zspage", "mm/Kconfig default 8").to(section::kernel, &kernel::KConfig::zs_chain_size);
}

// Simulation control of the kernel paths.
void add_kernel_sim_params(Table& t)
{
    t.time(Category::Sim, "sim.reclaim_slice", 2e-3, 1e-6, 1, "planned kernel time after which a task in reclaim or munmap runs it before going on (interleaves concurrent tasks)", "swapsim: bench/run_granularity.sh: from 0.25 to 4 ms the 64K column moves < 1%, the 2M column < 3% in throughput and < 1% in sys").to(section::kernel, &kernel::KConfig::reclaim_slice);
    t.integer(Category::Sim, "sim.page_unit", "pages", 1, 1, 32, "pages one simulated page stands for (a power of two; order-0 folios only): sizes in pages divided by it, per-page costs multiplied, batches kept in pages (kernel/config.hpp apply_page_unit)", "swapsim: tests/unit/test_kbuild.cpp: halving it on a tight kernel-build row moves sys and real < 3%").to(section::kernel, &kernel::KConfig::page_unit);
}

void add_kernel_costs(Table& t)
{
    // fault.cpp: do_anonymous_page, folio allocation, charge, lru_add
    t.cycles("cost.fault.base", 1500, "page fault entry/exit + handle_mm_fault, per fault", "will-it-scale page_fault1: ~1 us per 4K fault incl. clearing").to(section::costs, &kernel::Costs::fault);
    t.cycles("cost.fault.per_pte", 20, "set_ptes / rmap / counters per page mapped by a fault", est).to(section::costs, &kernel::Costs::fault_per_pte);
    t.cycles("cost.alloc.folio", 500, "folio allocation from the pcp lists or buddy, per folio", est).to(section::costs, &kernel::Costs::alloc_folio);
    t.cycles("cost.alloc.per_page", 15, "struct page initialisation per page of a large folio", est).to(section::costs, &kernel::Costs::alloc_per_page);
    t.cycles("cost.zone.lock_hold_batch", 2000, "zone->lock section refilling or draining a pcp batch of 64 pages", est).to(section::costs, &kernel::Costs::zone_lock_batch);
    t.cycles("cost.zone.lock_hold_buddy", 400, "zone->lock section of one non-pcp (e.g. 64K) folio allocation or free", est).to(section::costs, &kernel::Costs::zone_lock_buddy);
    t.cycles("cost.zone.free_one_page", 400, "free_pcppages_bulk: one page back to the buddy lists (__free_one_page: its buddy's struct page read, the merge up the orders, the free-list writes), under zone->lock",
             "range: a merge whose struct pages are cache-hot, ~40 ns (100 cycles), to three cold misses of ~200 ns on a loaded 2-socket server (1,500 cycles); the pages freed at munmap were last touched seconds before", 100, 1500).to(section::costs, &kernel::Costs::free_one_page);
    t.rate(Category::Cost, "cost.mem.clear_bw", 12e9, "bytes/s one thread clears a new folio (clear_page_erms)", "Sapphire Rapids: rep stosb ~10-15 GB/s per core", true).to(section::costs, &kernel::Costs::zero_bw);
    t.cycles("cost.memcg.charge", 300, "try_charge_memcg page-counter path (stock miss)", est).to(section::costs, &kernel::Costs::charge);
    t.cycles("cost.memcg.charge_stock", 40, "consume_stock hit", est).to(section::costs, &kernel::Costs::charge_stock);
    t.nanos("cost.memcg.counter_hold_ns", 80, "page_counter cache line held by one atomic update under contention", "x86 cross-core cache-line transfer ~50-150 ns").to(section::costs, &kernel::Costs::counter_hold);
    t.cycles("cost.oom.kill", 20000, "out_of_memory: select_bad_process (oom_badness of every task), dump_header off, SIGKILL and oom_reaper wakeup", "range from the path length: ~100 tasks x ~100 cycles of oom_evaluate_task plus the kill; ~8 us", 2000, 100000).to(section::costs, &kernel::Costs::oom_kill);
    // shrinker.cpp: the dentry and inode caches and the shrinkers (per object or call, not per page)
    t.cycles("cost.slab.lookup_alloc", 5000, "path lookup of an entry not in the dentry cache: d_alloc_parallel, the file system's ->lookup (ext4_lookup: the directory block's hash search) and iget_locked of an inode not cached (inode allocation, the on-disk inode read from a cached inode-table block), both objects' memcg charge",
             "range from v6.12 fs/namei.c lookup_slow and fs/ext4/namei.c, inode.c with the blocks in the buffer cache: ~0.5 us (a hash hit in a small directory) to ~20 us (a large directory's htree walk and an inode-table block found cold); a cold stat() of a cached-block ext4 file measures 1-5 us", 1250, 50000).to(section::costs, &kernel::Costs::slab_lookup_alloc);
    t.cycles("cost.slab.lookup_dentry", 2000, "path lookup of an entry whose dentry was pruned but whose inode is still cached: d_alloc_parallel, ->lookup's directory search and iget finding the inode in the inode hash",
             "range as cost.slab.lookup_alloc without the inode's allocation and read: 0.2-4 us", 500, 10000).to(section::costs, &kernel::Costs::slab_lookup_dentry);
    t.cycles("cost.slab.isolate", 100, "list_lru: one dentry or inode added (d_lru_add), deleted (iget) or walked by the shrinker (dentry_lru_isolate / inode_lru_isolate), under the memcg-node list's spinlock",
             "range from v6.12 mm/list_lru.c: list_add / list_del of lines written by this CPU or another one, 20-200 ns", 50, 500).to(section::costs, &kernel::Costs::slab_isolate);
    t.cycles("cost.slab.free_dentry", 600, "prune_dcache_sb per dentry freed: shrink_dentry_list's __dentry_kill (d_lockref, the parent's count, dentry_unlink_inode's iput that puts the inode on its LRU), d_free by RCU and the object's uncharge",
             "range from v6.12 fs/dcache.c: 4-8 lines (dentry, inode, parent), 0.1-1.2 us", 250, 3000).to(section::costs, &kernel::Costs::slab_free_dentry);
    t.cycles("cost.slab.free_inode", 1500, "prune_icache_sb per inode freed: dispose_list's evict (ext4_evict_inode of a clean linked inode: truncate_inode_pages_final of an empty mapping, ext4_clear_inode), destroy_inode by RCU and the uncharge",
             "range from v6.12 fs/inode.c and fs/ext4/inode.c: 0.2-4 us (the i_lock, the hash and sb list unlinks, the file system's clear)", 500, 10000).to(section::costs, &kernel::Costs::slab_free_inode);
    t.cycles("cost.slab.shrinker_call", 300, "do_shrink_slab per shrinker called: count_objects (list_lru_shrink_count of the lists) and the nr_deferred exchange and add",
             "range from v6.12 mm/shrinker.c: two atomics and a few list_lru counters, 40-400 ns", 100, 1000).to(section::costs, &kernel::Costs::slab_shrinker_call);
    t.size(Category::Kernel, "kernel.memcg.root_lru", "max", 0, 1e15, "LRU pages charged to the root memcg itself, which count_shadow_nodes weighs the swap cache's shadow nodes against in global reclaim (they are on the root's list); max: the workload runs in the root memcg, so its own LRU pages count",
             "mm/workingset.c count_shadow_nodes (lruvec_page_state_local of the root); a workload in a child memcg (a login session's scope) leaves the root only the system's pages, some 100 MB", true).to(section::kernel, &kernel::KConfig::root_lru_pages, Conv::Pages);
    // vmscan.cpp: shrink_inactive_list, rmap, TLB flush, add_to_swap, swap slots and cache
    t.cycles("cost.lru.lock_base", 200, "lruvec->lru_lock section, fixed part", est).to(section::costs, &kernel::Costs::lru_lock_base);
    t.cycles("cost.lru.add_per_folio", 60, "lru_add_fn per folio in a drained batch: lruvec_add_folio links it before the list's first folio",
             "range from v6.12 mm/swap.c and include/linux/mm_inline.h: the folio's own line is hot (this CPU faulted it); list_add writes the first folio's lru, last written by the CPU that added it: ~60 cycles cache-hot, to two lines from another core or DRAM at 100-130 ns, 650 cycles at 2.5 GHz", 60, 650).to(section::costs, &kernel::Costs::lru_add_per_folio);
    t.cycles("cost.lru.isolate_per_folio", 80, "isolate_lru_folios per folio: folio_try_get, folio_test_clear_lru and list_move",
             "range from v6.12 mm/vmscan.c: all on the folio's struct page line (and its neighbour's lru), last written by the task that faulted it on another CPU: ~80 cycles cache-hot, to two lines from another core or DRAM at 100-130 ns, 650 cycles at 2.5 GHz", 80, 650).to(section::costs, &kernel::Costs::isolate_per_folio);
    t.cycles("cost.lru.putback_per_folio", 80, "move_folios_to_lru per folio",
             "range from v6.12 mm/vmscan.c: lruvec_add_folio of a folio this CPU isolated (hot) before a first folio another CPU linked: ~80 cycles cache-hot, to two lines from another core or DRAM at 100-130 ns, 650 cycles", 80, 650).to(section::costs, &kernel::Costs::putback_per_folio);
    t.cycles("cost.reclaim.entry", 3000,
             "per try_to_free_mem_cgroup_pages call: setup, psi, memcg iteration, stats flush, shrink_slab, vmpressure, and the spinning on their shared state when dozens of tasks reclaim at once",
             "fitted stand-in (no mechanism yet). range: from the path length alone, ~1 us (2,500 cycles), to the largest per-call cost seed 000's Case 1 allows: its 64K columns spend 32-144 s more sys than its 2M columns on the same evicted pages with 7-9x the memcg_high events, 0.3-1.1 ms per call (2.75M cycles)",
             2500, 2.75e6).to(section::costs, &kernel::Costs::reclaim_entry);
    t.cycles("cost.reclaim.round", 1000, "shrink_inactive_list fixed part per SWAP_CLUSTER_MAX round", est).to(section::costs, &kernel::Costs::shrink_round);
    t.cycles("cost.rmap.walk", 1500, "folio_referenced / try_to_unmap: anon_vma lock and walk, per folio",
             "range: rmap_walk_anon of a folio mapped once (anon_vma read lock, one VMA, page_vma_mapped_walk down four table levels, the PTE update): ~300 instructions cache-hot, 0.2 us (500 cycles), to a ~100 ns miss per level, on the anon_vma and its lock's line, 2 us (5,000 cycles)", 500, 5000).to(section::costs, &kernel::Costs::rmap_walk);
    t.cycles("cost.rmap.per_pte", 30, "per PTE visited by an rmap walk", est).to(section::costs, &kernel::Costs::rmap_per_pte);
    t.nanos("cost.tlb.shootdown_ns", 2000, "try_to_unmap_flush_dirty: IPI to the owner's CPU and wait for it", "x86 TLB shootdown round trip ~1-3 us").to(section::costs, &kernel::Costs::tlb_flush);
    t.nanos("cost.tlb.irq_ns", 800, "flush_tlb_func on the interrupted CPU (or a local flush)", est).to(section::costs, &kernel::Costs::tlb_irq);
    t.cycles("cost.swap.add_to_swap", 800, "folio_alloc_swap + mem_cgroup_try_charge_swap outside locks", est).to(section::costs, &kernel::Costs::add_to_swap);
    t.cycles("cost.swap.lock_hold", 500, "get_swap_pages / swap_entry_range_free under si->lock, fixed", est).to(section::costs, &kernel::Costs::si_lock_hold);
    t.cycles("cost.swap.lock_per_slot", 20, "... per slot scanned, refilled or freed", est).to(section::costs, &kernel::Costs::si_lock_per_slot);
    t.cycles("cost.swap.alloc_per_range", 250,
             "... per range allocated (a slot-cache refill allocates its 64 slots one by one): cluster lock, swap_map, swap_range_alloc's atomic on nr_swap_pages",
             "estimate from v6.12 cluster_alloc_range/swap_range_alloc: two cross-CPU cache lines (cluster, nr_swap_pages) at ~100 cycles each").to(section::costs, &kernel::Costs::si_alloc_per_range);
    t.cycles("cost.swap.free_per_range", 1000,
             "... per range freed (swapcache_free_entries frees its 64 slots one by one): cluster lock, mem_cgroup_uncharge_swap, swap_range_free's clear_shadow_from_swap_cache and nr_swap_pages atomic",
             "estimate from v6.12 swap_entry_range_free: ~8 cache lines written by other CPUs (cluster, swap_cgroup and its ctrl->lock, memcg->swap counter and id ref, zeromap, swap cache xa_lock and node, nr_swap_pages) at 100-150 cycles each").to(section::costs, &kernel::Costs::si_free_per_range);
    t.cycles("cost.swapcache.add", 300, "add_to_swap_cache under xa_lock, fixed", est).to(section::costs, &kernel::Costs::swap_cache_add);
    t.cycles("cost.swapcache.del", 300, "__delete_from_swap_cache under xa_lock, fixed", est).to(section::costs, &kernel::Costs::swap_cache_del);
    t.cycles("cost.swapcache.per_page", 40, "per slot stored or erased in the swap cache", est).to(section::costs, &kernel::Costs::swap_cache_per_page);
    t.cycles("cost.swapcache.lookup", 200, "swap_cache_get_folio", est).to(section::costs, &kernel::Costs::swap_cache_lookup);
    // The XArray swap cache (v6.17) against the swap table (v6.18): path lengths from the code.
    t.cycles("cost.swapcache.xa_clear_walk", 150, "XArray: clear_shadow_from_swap_cache of a freed range, part of cost.swap.free_per_range: the space's xa_lock_irq and the walk down to the range (3 levels for 64 MiB); the swap table saves it",
             "range from v6.17 mm/swap_state.c: irq off/on ~30 cycles + 3 dependent xa_node loads at 20-60 cycles (L2/LLC)", 60, 400).to(section::costs, &kernel::Costs::xa_clear_walk);
    t.cycles("cost.swapcache.xa_clear_per_slot", 30, "XArray: ... per slot, also part of cost.swap.free_per_range: xas_for_each step, xas_store(NULL) of the shadow, node counts",
             "range from v6.17 xas_store: slot write + node count update ~20-60 cycles on a line already fetched", 20, 60).to(section::costs, &kernel::Costs::xa_clear_per_slot);
    t.cycles("cost.swaptable.add", 150, "swap table: swap_cache_add_folio under the cluster lock, fixed (folio flags and refs, NR_FILE_PAGES / NR_SWAPCACHE stats); no tree walk, no irq-off",
             "range from v6.18 mm/swap_state.c: cost.swapcache.add less the XArray's walk (3 levels x ~40 cycles) and irq save/restore", 60, 300).to(section::costs, &kernel::Costs::table_add);
    t.cycles("cost.swaptable.del", 150, "swap table: __swap_cache_del_folio under the cluster lock, fixed", "range as cost.swaptable.add", 60, 300).to(section::costs, &kernel::Costs::table_del);
    t.cycles("cost.swaptable.per_slot", 10, "swap table: one atomic_long store into the cluster's table (insert, delete with shadow, or clear at free)",
             "range from v6.18 mm/swap_table.h __swap_table_set/xchg: one store to a line the cluster lock holder already owns, 5-20 cycles", 5, 20).to(section::costs, &kernel::Costs::table_per_slot);
    t.cycles("cost.swaptable.lookup", 60, "swap table: swap_cache_get_folio, rcu_read_lock + one atomic_long_read of the table + folio_try_get",
             "range from v6.18 swap_cache_get_folio: one dependent load (20-60 cycles from L2/LLC) + the folio refcount atomic, against cost.swapcache.lookup's 3-level walk", 20, 120).to(section::costs, &kernel::Costs::table_lookup);
    t.cycles("cost.folio.free", 600, "free_unref_folios + memcg uncharge, per folio", est).to(section::costs, &kernel::Costs::free_folio);
    t.cycles("cost.folio.split_per_page", 300, "split_folio_to_list per page", est).to(section::costs, &kernel::Costs::split_folio);
    // swap.cpp: zswap_store / zswap_load over zsmalloc, swap writeback, swap-in
    t.cycles("cost.zswap.store_folio", 1500, "zswap_store fixed part: pool, objcg, limits, stats", est).to(section::costs, &kernel::Costs::zswap_store_folio);
    t.cycles("cost.zswap.store_page", 800, "zswap_store_page outside locks and compression: entry, request, stats, and the cache-line traffic on shared pool and memcg state when many CPUs store at once",
             "fitted stand-in (no mechanism yet). range: the path alone (zswap_entry_cache_alloc, obj_cgroup_charge_zswap from the objcg stock, the stats atomics), ~0.3 us (800 cycles), to what seed 000's Case 1 zstd leaves for it: 75 us of published sys per stored page, less zstd-3's measured 14.9 us x 1.2 (docs/compressors.md 4.6) and the SSD baselines' whole swap-out path, 10 us per page: 46 us (115,000 cycles)", 800, 115000).to(section::costs, &kernel::Costs::zswap_store_page);
    t.cycles("cost.zswap.invalidate_page", 800, "zswap_invalidate outside locks: entry free, uncharge, stats, and the cache-line traffic on shared pool, swap and memcg state when many CPUs free at once (munmap of many processes)", est).to(section::costs, &kernel::Costs::zswap_invalidate_page);
    t.cycles("cost.zswap.tree_hold", 250, "xa_store / xa_erase under the zswap tree lock", est).to(section::costs, &kernel::Costs::zswap_tree_hold);
    t.cycles("cost.zsmalloc.class_hold", 400, "zs_malloc / zs_free under the size-class lock",
             "range: obj_malloc's freelist pop and fix_fullness_group, or obj_free's link write, under the class spinlock: ~40 ns cache-hot (100 cycles) to ~400 ns with three ~100 ns misses (1,000 cycles)", 100, 1000).to(section::costs, &kernel::Costs::zs_class_hold);
    t.cycles("cost.zsmalloc.free_cold", 0, "zs_free's extra time under the class lock: obj_free and fix_fullness_group touch a zspage, its page and the object's link long out of cache",
             "what-if, off in the committed model: ~550 cycles (2 DRAM misses x ~110 ns on Sapphire Rapids at 2.5 GHz) is the physical estimate; with it, refits traded throughput for sys time and a change sign (README, 'What the model does not get right yet')").to(section::costs, &kernel::Costs::zs_free_cold);
    t.rate(Category::Cost, "cost.zsmalloc.copy_bw", 5e9, "bytes/s copying a compressed object into its zspage", "estimate: kmap + memcpy of < 4 KiB", true).to(section::costs, &kernel::Costs::zs_copy_bw);
    t.cycles("cost.workingset.shadow_list", 650,
             "XArray swap cache: workingset_update_node's list_lru_add_obj / list_lru_del_obj of an xa_node on the shadow_nodes list (the root memcg's list of its NUMA node, since swap-cache nodes are not memcg-accounted), held under that list's spinlock; taken when a node's last folio becomes a shadow and when a folio enters an all-shadow node, i.e. about twice per page swapped out",
             "range from v6.17 mm/list_lru.c and mm/workingset.c: list_add_tail / list_del write the list head, nr_items and one or two neighbouring xa_nodes' private_list, each last written by another CPU: 2-4 lines at 100-300 ns (remote LLC or the other socket), 0.2-1.2 us (500-3,000 cycles); cache-hot it would be ~150 cycles (cost.list_lru.hold)", 150, 3000).to(section::costs, &kernel::Costs::shadow_list_hold);
    t.cycles("cost.list_lru.hold", 150, "zswap_lru_add / zswap_lru_del: list_lru_add / list_lru_del under the zswap_list_lru node's spinlock (v6.12: one nlru->lock per NUMA node for every memcg's list)",
             "range from v6.12 mm/list_lru.c: list_add_tail / list_del write the memcg list's head, its nr_items, nlru->nr_items and the neighbouring zswap_entry's lru, each last written by another CPU when many store at once: 2-4 lines at 100-300 ns, 0.2-1.2 us (500-3,000 cycles); cache-hot ~150 cycles", 150, 3000).to(section::costs, &kernel::Costs::list_lru_hold);
    t.cycles("cost.zswap.load_page", 1500, "zswap_load outside decompression", est).to(section::costs, &kernel::Costs::zswap_load_page);
    t.cycles("cost.bio.submit", 4000, "bio + request allocation, submit_bio, driver, per request", est).to(section::costs, &kernel::Costs::bio_submit);
    t.cycles("cost.bio.per_folio", 1000, "__swap_writepage per folio: writeback flags, bio_add_folio, events", est).to(section::costs, &kernel::Costs::bio_per_folio);
    t.rate(Category::Cost, "cost.pmem.bw", 10e9, "bytes/s of a pmem swap read or write (memcpy)", "DRAM-backed pmem: memcpy ~10 GB/s per core", true).to(section::costs, &kernel::Costs::pmem_bw);
    t.cycles("cost.swapin.fault", 2000, "do_swap_page fixed part", est).to(section::costs, &kernel::Costs::swapin_fault);
    // exit.cpp: zap_pte_range and exit_mmap
    t.cycles("cost.zap.per_pte", 20, "zap_pte_range per present PTE", est).to(section::costs, &kernel::Costs::zap_per_pte);
    t.cycles("cost.zap.per_folio", 300, "folio release at unmap", est).to(section::costs, &kernel::Costs::zap_per_folio);
    t.cycles("cost.zap.per_swap", 150, "free_swap_and_cache_nr per swap PTE outside locks", est).to(section::costs, &kernel::Costs::zap_per_swap);
    t.nanos("cost.zap.cold_line_ns", 100,
            "zap_pte_range's free of a run of swap entries (munmap, exit): each metadata cache line it touches, last written at swap-out long before (swap_cgroup, swap_map, the cluster, zeromap; the XArray's xa_lock, parent slot and leaf xa_node lines, or the swap table's lines), read from DRAM or another CPU's cache; counted per run by Kernel::zap_swap_lines",
            "range: an LLC hit (~30 ns) to a remote-socket DRAM load (~200 ns); Intel MLC idle latency on 2-socket Ice Lake / Sapphire Rapids servers: ~100-120 ns local DRAM, ~170-200 ns remote",
            30, 200).to(section::costs, &kernel::Costs::cold_line);
    t.cycles("cost.exit.mm", 50000, "exit_mmap fixed part", est).to(section::costs, &kernel::Costs::exit_mm);
    // fork.cpp: copy_page_range, do_wp_page; the anon_vma walk per VMA
    t.cycles("cost.fork.mm", 100000, "dup_mm fixed part: mm_struct, VMA and anon_vma copies", "estimate: fork of a small process ~100 us incl. exec-side work, of which ~40 us dup_mm").to(section::costs, &kernel::Costs::fork_mm);
    t.cycles("cost.fork.per_pte", 150, "copy_present_pte per present PTE: folio_try_dup_anon_rmap, wrprotect both PTEs, rss counters", "design workloads-and-reclaim.md 4.4: fork copies page tables at 10-20 ms per GB with THP off = 38-76 ns per PTE; 150 cycles = 60 ns at 2.5 GHz").to(section::costs, &kernel::Costs::fork_per_pte);
    t.cycles("cost.fork.per_swap_pte", 250, "copy_nonpresent_pte per swap PTE: swap_duplicate under the cluster lock, MM_SWAPENTS", "estimate: one locked cache-line update plus the PTE copy, ~100 ns").to(section::costs, &kernel::Costs::fork_per_swap_pte);
    t.rate(Category::Cost, "cost.mem.cow_copy_bw", 6e9, "bytes/s of copy_mc_user_highpage in wp_page_copy (4 KiB read + 4 KiB written, counted once)", "estimate: half of clear_page bandwidth, a copy moves twice the bytes", true).to(section::costs, &kernel::Costs::cow_copy_bw);
    t.cycles("cost.rmap.per_vma", 300, "rmap walk per further VMA of a forked anon_vma (anon_vma_interval_tree step + page_vma_mapped_walk)", "estimate: a few cache misses per VMA visited").to(section::costs, &kernel::Costs::rmap_per_vma);
    // hw/lock: every spinlock above
    t.nanos("cost.lock.handoff_ns", 100, "qspinlock cache-line handoff when the lock is contended", "x86 cross-core cache-line transfer ~50-150 ns (range: 20-300 ns)", 20, 300).to(section::costs, &kernel::Costs::lock_handoff);
}

void add_compressor_costs(Table& t)
{
    // zram and compressor costs by block size and data kind (calibration/compressors/table.json).
    t.real(Category::Cost, "cost.compress.kernel_factor", "", 1.6, 1.2, 1.6, "in-kernel compressor time over the user-space library time of calibration/compressors/table.json (crypto/zcomp call, per-CPU stream, older in-kernel builds); not applied to usemem data, whose costs are the fitted cost.compress.*.usemem_*",
           "range: docs/compressors.md 4.6, Glover's in-kernel zram costs are 1.2-1.6x the library's. Value fitted (the only cost fitted there) on the seed-003 table's four times, sum of log errors squared: 0.50 at 1.2, 0.34 at 1.3, 0.07 at 1.6, the bound: the model lacks swap-in work or the seed's machine is slower than 2.5 GHz Sapphire Rapids", true).to(section::zram_settings, &ZramSettings::kernel_factor);
    t.nanos("cost.zram.same_check_hit_ns", 500, "page_same_filled on a same-filled 4 KiB page (scans it all)", "compressors.md 4.5 (design note): 498 ns per zero page; range: 4 KiB read cache-hot at ~40 GB/s (100 ns) to streamed from DRAM at ~2 GB/s (2,000 ns)", 100, 2000).to(section::zram, &kernel::ZramConfig::same_hit);
    t.nanos("cost.zram.same_check_miss_ns", 30, "page_same_filled on a normal page (stops at the first differing word)", "compressors.md 4.5 (design note): 26-31 ns on usemem, elf, text, random pages; range: a few instructions on a cached line (5 ns) to two DRAM misses (200 ns)", 5, 200).to(section::zram, &kernel::ZramConfig::same_miss);
    t.cycles("cost.zram.write_page", 1000, "zram_write_page outside compression and zs_malloc: slot lock, zram_free_page of the old data, table entry, stats, bio segment", "estimate from kernel code size and x86 latencies; range: cache-hot to a ~100 ns miss on each line it touches", 200, 5000).to(section::zram, &kernel::ZramConfig::write_page);
    t.cycles("cost.zram.read_page", 800, "zram_read_page outside decompression: slot lock, zs_map_object / zs_unmap_object, stats, bio segment", "estimate from kernel code size and x86 latencies; range: cache-hot to a ~100 ns miss on each line it touches", 200, 5000).to(section::zram, &kernel::ZramConfig::read_page);
    t.cycles("cost.zram.free_page", 300, "zram_slot_free_notify / zram_free_page outside zs_free: slot trylock, flags, stats", "estimate from kernel code size and x86 latencies; range: cache-hot to a ~100 ns miss on each line it touches", 100, 3000).to(section::zram, &kernel::ZramConfig::free_page);
    // Compressors on the usemem data pattern (each 8-byte word holds its index), per 4 KiB page.
    // Sizes are measured, not fitted; CPU costs are user-space library times x 1.3 (in-kernel
    // overhead, compressors.md 4.6) at 2.5 GHz.
    const char* meas = "docs/compressors.md App. A.6 / 4.2: usemem data, 4 KiB calls";
    t.real(Category::Cost, "cost.compress.zstd.usemem_len", "bytes", 565, 1, 4096, "zstd-3 compressed size of one usemem page", meas).to(section::zstd, &kernel::CompressorModel::comp_len);
    t.cycles("cost.compress.zstd.usemem_comp", 48300, "zstd-3 compression of one usemem page", "docs/compressors.md 4.2: 14.9 us x 1.3 kernel factor at 2.5 GHz; range: the kernel factor's 1.2-1.6 (compressors.md 4.6), 44,700-59,600 cycles", 44700, 59600).to(section::zstd, &kernel::CompressorModel::comp_s);
    t.cycles("cost.compress.zstd.usemem_decomp", 20200, "zstd-3 decompression of one usemem page", "docs/compressors.md 4.2: 6.2 us x 1.3 at 2.5 GHz").to(section::zstd, &kernel::CompressorModel::decomp_s);
    t.real(Category::Cost, "cost.compress.lz4.usemem_len", "bytes", 2056, 1, 4096, "lz4 compressed size of one usemem page", meas).to(section::lz4, &kernel::CompressorModel::comp_len);
    t.cycles("cost.compress.lz4.usemem_comp", 21100, "lz4 compression of one usemem page", "docs/compressors.md 4.2: 6.5 us x 1.3 at 2.5 GHz; checked in a v6.18 kernel (4.6): 5.75-6.0 us on a CPU 1.67x as fast, 9.6-10.0 us here").to(section::lz4, &kernel::CompressorModel::comp_s);
    t.cycles("cost.compress.lz4.usemem_decomp", 16700, "lz4 decompression of one usemem page", "docs/compressors.md 4.2: 5.1 us x 1.3 at 2.5 GHz").to(section::lz4, &kernel::CompressorModel::decomp_s);
    // IAA: a job holds an engine for base + per KiB of uncompressed data.
    const char* zan = "Zanussi iaa_crypto v2 cover: sync 3,177 ns compress / 2,235 ns decompress per 4 KiB incl. submission";
    const char* glo = "Glover canned-mode cover: by_1 34,493 / 20,038 ns per 64 KiB job";
    t.nanos("cost.iaa.fixed.comp_base_ns", 1200, "IAA fixed-Huffman compress job, fixed part",
            "Zanussi iaa_crypto v2 cover: sync 3,177 ns per 4 KiB compress incl. submission; range: at least the descriptor's and completion record's two fabric round trips (~150 ns each, 300 ns), at most the 3,177 ns less the submission (200 ns) and 4 KiB streamed at ~8 GB/s (480 ns): 2,500 ns", 300, 2500).to(section::iaa_fixed, &IaaJobNs::comp_base, Conv::Raw);
    t.nanos("cost.iaa.fixed.comp_ns_per_kb", 425, "IAA fixed-Huffman compress job, per KiB of input", zan).to(section::iaa_fixed, &IaaJobNs::comp_per_kb, Conv::Raw);
    t.nanos("cost.iaa.fixed.decomp_base_ns", 800, "IAA decompress job (fixed-Huffman data), fixed part", zan).to(section::iaa_fixed, &IaaJobNs::decomp_base, Conv::Raw);
    t.nanos("cost.iaa.fixed.decomp_ns_per_kb", 300, "IAA decompress job, per KiB of output", zan).to(section::iaa_fixed, &IaaJobNs::decomp_per_kb, Conv::Raw);
    t.nanos("cost.iaa.canned.comp_base_ns", 700, "IAA canned-mode compress job, fixed part", glo).to(section::iaa_canned, &IaaJobNs::comp_base, Conv::Raw);
    t.nanos("cost.iaa.canned.comp_ns_per_kb", 340, "IAA canned-mode compress job, per KiB of input", glo).to(section::iaa_canned, &IaaJobNs::comp_per_kb, Conv::Raw);
    t.nanos("cost.iaa.canned.decomp_base_ns", 450, "IAA decompress job (canned data), fixed part", glo).to(section::iaa_canned, &IaaJobNs::decomp_base, Conv::Raw);
    t.nanos("cost.iaa.canned.decomp_ns_per_kb", 200, "IAA canned-mode decompress job, per KiB of output", glo).to(section::iaa_canned, &IaaJobNs::decomp_per_kb, Conv::Raw);
    t.nanos("cost.iaa.submit_ns", 200, "iaa_crypto: prepare and submit one descriptor (movdir64b/enqcmds)", zan).to(section::iaa, &kernel::IaaConfig::submit);
    t.nanos("cost.iaa.crc_ns", 100, "verify_compress: compare the CRCs of one page", est).to(section::iaa, &kernel::IaaConfig::crc);
    t.nanos("cost.iaa.irq_wake_ns", 3700, "async_irq: completion interrupt to the task running again", "Zanussi v2: async_irq 6,847 ns vs sync 3,177 ns per compress").to(section::iaa, &kernel::IaaConfig::irq_wake);
    t.nanos("cost.iaa.irq_cpu_ns", 1500, "async_irq: CPU time of the IRQ thread and the wakeup", est).to(section::iaa, &kernel::IaaConfig::irq_cpu);
    const char* zmeas = "measured here: zlib deflate Z_FIXED, 4 KiB window, on usemem pages (tools/usemem_ratios.c)";
    t.real(Category::Cost, "cost.compress.deflate-iaa.usemem_len", "bytes", 1378, 1, 8192, "IAA fixed-Huffman (4 KiB history) compressed size of one usemem page", zmeas).to(section::deflate_iaa, &kernel::CompressorModel::comp_len);
    t.real(Category::Cost, "cost.compress.deflate-iaa-canned.usemem_len", "bytes", 1139, 1, 8192, "IAA canned-mode compressed size of one usemem page",
           "measured here: the fixed mode's LZ77 symbols priced with the canned Huffman table of Glover's iaa_crypto canned-mode patch (tools/iaa_canned_len.py)").to(section::deflate_iaa_canned, &kernel::CompressorModel::comp_len);
    t.real(Category::Cost, "cost.compress.lzo-rle.usemem_len", "bytes", 1560, 1, 4096, "lzo-rle compressed size of one usemem page (lzo1x-1 measured)", meas).to(section::lzo_rle, &kernel::CompressorModel::comp_len);
    t.cycles("cost.compress.lzo-rle.usemem_comp", 22300, "lzo-rle compression of one usemem page", "docs/compressors.md 4.2: lzo1x-1 6.9 us x 1.3 at 2.5 GHz; checked in a v6.18 kernel (4.6): 4.6-5.0 us on a CPU 1.67x as fast, 7.7-8.4 us here").to(section::lzo_rle, &kernel::CompressorModel::comp_s);
    t.cycles("cost.compress.lzo-rle.usemem_decomp", 11200, "lzo-rle decompression of one usemem page", "docs/compressors.md 4.2: lzo1x-1 3.4 us x 1.3 at 2.5 GHz").to(section::lzo_rle, &kernel::CompressorModel::decomp_s);
}

}  // namespace swapsim::scenario
