// The parameter table. Defaults describe the machine and kernel of seed 000 (Sapphire Rapids
// 2S x 56C, 503 GiB, 823G SSD swap, mm-unstable 2024-09-23) unless a source says otherwise.
// Costs are marked fitted: the calibrator may tune them, scenarios that reproduce a table may not.
#include "scenario/registry.hpp"

namespace swapsim::scenario {
namespace {

constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double KiB = 1024.0, MiB = 1024.0 * KiB, GiB = 1024.0 * MiB;

struct Table {
    Registry r;
    void p(ParamDef d) { r.add(std::move(d)); }

    void meta(const char* n, Kind k, nlohmann::json def, const char* doc)
    {
        p({n, k, "", std::move(def), -inf, inf, false, false, {}, doc, "swapsim", Category::Meta});
    }
    void integer(Category c, const char* n, const char* unit, int64_t def, double lo, double hi,
                 const char* doc, const char* src, bool fitted = false)
    {
        p({n, Kind::Int, unit, def, lo, hi, false, false, {}, doc, src, c, fitted});
    }
    void real(Category c, const char* n, const char* unit, double def, double lo, double hi,
              const char* doc, const char* src, bool fitted = false, bool lo_excl = false)
    {
        p({n, Kind::Real, unit, def, lo, hi, lo_excl, false, {}, doc, src, c, fitted});
    }
    void flag(Category c, const char* n, bool def, const char* doc, const char* src)
    {
        p({n, Kind::Bool, "", def, -inf, inf, false, false, {}, doc, src, c});
    }
    void choice(Category c, const char* n, const char* def, std::vector<std::string> opts,
                const char* doc, const char* src)
    {
        p({n, Kind::Enum, "", def, -inf, inf, false, false, std::move(opts), doc, src, c});
    }
    void size(Category c, const char* n, nlohmann::json def, double lo, double hi, const char* doc,
              const char* src, bool allow_max = false, bool fitted = false)
    {
        p({n, Kind::Size, "bytes", std::move(def), lo, hi, lo == 0, allow_max, {}, doc, src, c, fitted});
    }
    void time(Category c, const char* n, double def, double lo, double hi, const char* doc,
              const char* src, bool fitted = false)
    {
        p({n, Kind::Time, "s", def, lo, hi, false, false, {}, doc, src, c, fitted});
    }
    void rate(Category c, const char* n, double def, const char* doc, const char* src, bool fitted)
    {
        p({n, Kind::Rate, "bytes/s", def, 0, inf, true, false, {}, doc, src, c, fitted});
    }
    // A fitted CPU cost in cycles (scaled by machine.cpu_freq).
    void cycles(const char* n, double def, const char* doc, const char* src, double lo = 0, double hi = 1e9)
    {
        real(Category::Cost, n, "cycles", def, lo, hi, doc, src, true);
    }
    // A fitted wall-clock cost in ns (not scaled by the clock: memory, device or IPI latency).
    void nanos(const char* n, double def, const char* doc, const char* src, double lo = 0, double hi = 1e9)
    {
        real(Category::Cost, n, "ns", def, lo, hi, doc, src, true);
    }
};

// The costs `swapsim calibrate` frees by default: those no data sheet gives whose 1.65x step
// moved a Case 1 throughput or sys time by 5% or more (BOBYQA's first 2n+1 points over 11
// candidates), plus the in-kernel zstd cost, whose default has a guessed kernel factor.
// cost.cpu.smt_yield has a data-sheet range and is held inside it (its source says why).
const char* const kFitDefault[] = {
    "cost.rmap.walk", "cost.zswap.store_page", "cost.zsmalloc.class_hold",
    "cost.lock.handoff_ns", "cost.iaa.fixed.comp_base_ns", "cost.compress.zstd.usemem_comp",
    "cost.reclaim.entry",
};

Registry build()
{
    Table t;
    using C = Category;

    // ---- scenario metadata ----
    t.meta("name", Kind::String, "", "short name of the scenario, printed as the column header");
    t.meta("description", Kind::String, "", "what the scenario reproduces or asks");
    t.integer(C::Meta, "seed", "", 1, 0, 4294967295.0, "random seed; same scenario and seed give a byte-identical result.json", "swapsim");

    // ---- machine ----
    t.integer(C::Machine, "machine.sockets", "", 2, 1, 16, "CPU sockets (one NUMA node each)", "seed 000: dual-socket Sapphire Rapids");
    t.integer(C::Machine, "machine.cores_per_socket", "", 56, 1, 512, "physical cores per socket", "seed 000: 56 cores per socket");
    t.integer(C::Machine, "machine.threads_per_core", "", 2, 1, 2, "hardware threads per core (SMT)", "Sapphire Rapids: Hyper-Threading, 2 threads per core");
    t.p({"machine.cpu_freq", Kind::Freq, "Hz", 2.5e9, 0, 10e9, true, false, {}, "core clock; cycle costs are divided by it", "seed 000: core frequency fixed at 2500MHz", C::Machine});
    t.size(C::Machine, "machine.dram", 503 * GiB, 0, 1e15, "installed memory (zswap max_pool_percent is a share of it)", "seed 000: 503 GiB RAM");

    // ---- Intel IAA ----
    t.integer(C::Machine, "machine.iaa.devices_per_socket", "devices", 4, 0, 16, "IAA devices per socket (0: none)", "seed 000: \"4 IAA devices per socket\" (Sapphire Rapids)");
    t.integer(C::Machine, "machine.iaa.comp_engines", "engines", 2, 1, 64, "compress engines per IAA device", "IAA batching RFC v1: 2 compress engines per device");
    t.integer(C::Machine, "machine.iaa.decomp_engines", "engines", 8, 1, 64, "decompress engines per IAA device", "IAA batching RFC v1: 8 decompress engines per device");
    t.integer(C::Machine, "machine.iaa.wq_size", "descriptors", 128, 1, 4096, "work-queue entries per IAA device (all its WQs)", "IAA batching v13 cover: 128 WQ entries per device");
    t.p({"machine.iaa.offline", Kind::String, "", "", -inf, inf, false, false, {}, "IAA device ids taken offline, e.g. \"0,3\" (their CPUs are remapped)", "default: all online", C::Machine});

    // ---- swap device ----
    t.choice(C::Swap, "swap.device", "ssd", {"ssd", "pmem", "zram", "none"}, "backing swap device (zswap sits in front of it); zram: compressed RAM block device, SWP_SYNCHRONOUS_IO", "seed 000: 823G SSD disk partition swap");
    t.size(C::Swap, "swap.size", 823.0 * GiB, 0, 1e15, "swap partition size", "seed 000: 823G SSD partition");
    t.p({"swap.swapfile_free", Kind::Size, "bytes", 0, 0, 1e12, false, false, {},
         "free space of a swap file with higher priority than the device (e.g. a distro /swap.img swapped on at boot): it takes order-0 slots first, and no large folio gets slots while it has room",
         "default: none", C::Swap});
    t.rate(C::Swap, "swap.ssd.write_bw", 530e6, "sustained sequential write bandwidth of the SSD", "data sheet class: SATA III SSD (~530 MB/s); seed 000 SSD columns move ~0.55 GB/s", true);
    t.rate(C::Swap, "swap.ssd.read_bw", 550e6, "sustained read bandwidth of the SSD", "data sheet class: SATA III SSD (~550 MB/s)", true);
    t.time(C::Swap, "swap.ssd.latency", 60e-6, 0, 1, "fixed per-request latency added to the transfer time", "data sheet class: SATA SSD 4K write/read latency 50-90 us", true);
    t.integer(C::Swap, "swap.ssd.nr_requests", "requests", 64, 1, 65536, "block-layer requests that may be in flight; submit_bio sleeps when all are taken", "blk-mq: nr_requests = 2 x queue depth (SATA NCQ depth 32)");
    t.size(C::Swap, "swap.ssd.max_request", 1280 * KiB, 4096, 64 * MiB, "largest request after merging adjacent swap bios in one plug", "block layer: default max_sectors_kb 1280 (BLK_DEF_MAX_SECTORS_CAP)");

    // zram (drivers/block/zram): its pool is not charged to any memcg, but it is RAM.
    t.size(C::Swap, "swap.zram.disksize", 8 * GiB, 0, 1e15, "zram disksize: swap slots of the zram device (swap.size is the SSD's)", "zramctl-style setting; not stated in the seeds");
    t.choice(C::Swap, "swap.zram.comp_algorithm", "lzo-rle", {"lzo-rle", "lz4", "zstd"}, "zram comp_algorithm (per-CPU zcomp streams)", "drivers/block/zram/Kconfig: ZRAM_DEF_COMP_LZORLE");
    t.flag(C::Swap, "swap.zram.multi_pages", false, "CONFIG_ZSMALLOC_MULTI_PAGES: a large folio is compressed in blocks of 2^multi_pages_order pages (Barry Song / Tangquan Zheng RFC, not merged)", "mainline: no multi-page objects");
    t.integer(C::Swap, "swap.zram.multi_pages_order", "", 2, 1, 9, "CONFIG_ZSMALLOC_MULTI_PAGES_ORDER: pages per multi-page object = 2^order (folios of lower order stay 4 KiB objects)", "RFC v2/v3 mm/Kconfig: default 2, range 1-9");

    // ---- kernel configuration ----
    t.size(C::Kernel, "kernel.memcg.high", "max", 0, 1e15, "memory.high of the workload's cgroup", "cgroup v2 default: max", true);
    t.size(C::Kernel, "kernel.memcg.max", "max", 0, 1e15, "memory.max of the workload's cgroup", "cgroup v2 default: max", true);
    t.size(C::Kernel, "kernel.memcg.swap_max", "max", 0, 1e15, "memory.swap.max of the workload's cgroup", "cgroup v2 default: max", true);
    t.p({"kernel.mthp.enabled", Kind::SizeList, "bytes", nlohmann::json::array(), 0, 2 * MiB, false, false, {},
         "anonymous folio sizes set to 'always' in /sys/kernel/mm/transparent_hugepage/hugepages-<size>kB/enabled (empty: 4K only)",
         "kernel default: all mTHP sizes never", C::Kernel});
    t.real(C::Kernel, "kernel.mthp.alloc_fail_percent", "%", 0, 0, 100, "what-if: share of large-folio allocations (faults and swap-in) that find no free block of their order (fragmented memory); they fall back an order", "default: memory not fragmented");
    t.flag(C::Kernel, "kernel.thp_swap", true, "CONFIG_THP_SWAP: allocate contiguous swap slots for a large folio instead of splitting it", "mm/Kconfig: def_bool y on x86-64");
    t.integer(C::Kernel, "kernel.swappiness", "", 60, 0, 200, "vm.swappiness (anon vs file scan balance)", "kernel default 60");
    t.integer(C::Kernel, "kernel.hz", "Hz", 1000, 100, 1000, "CONFIG_HZ: jiffy length for memory.high throttling", "x86_64_defconfig: CONFIG_HZ_1000");
    t.integer(C::Kernel, "kernel.page_cluster", "", 3, 0, 5, "vm.page-cluster: swap readahead window is up to 2^page_cluster pages", "kernel default 3");
    t.flag(C::Kernel, "kernel.vma_ra_enabled", true, "/sys/kernel/mm/swap/vma_ra_enabled: VMA-based swap readahead", "kernel default true");
    t.choice(C::Kernel, "kernel.swap_cache", "xarray", {"xarray", "swap_table"}, "swap cache: XArray per 64 MiB (<= v6.17) or per-cluster swap table (v6.18)", "seed 000 kernel: mm-unstable 2024-09 (XArray)");
    t.choice(C::Kernel, "kernel.swap_alloc", "si_lock", {"si_lock", "cluster_lock"}, "slot allocator locking: device-wide si->lock (v6.12) or per-cluster locks (v6.14+)", "seed 000 kernel: v6.12-era allocator");
    t.flag(C::Kernel, "kernel.swap_slot_cache", true, "per-CPU swap slot cache for order-0 slots (removed in v6.15)", "seed 000 kernel: v6.12");
    t.integer(C::Kernel, "kernel.swap_batch", "slots", 64, 1, 512, "SWAP_BATCH: order-0 slots fetched per slot-cache refill", "include/linux/swap.h: SWAP_BATCH 64");
    t.integer(C::Kernel, "kernel.lru_add_batch", "folios", 31, 1, 64, "folios gathered per CPU before lru_add_drain takes lru_lock", "include/linux/pagevec.h: PAGEVEC_SIZE 31");
    t.flag(C::Kernel, "kernel.zswap.enabled", true, "zswap enabled", "seed 000: zswap runs");
    t.choice(C::Kernel, "kernel.zswap.compressor", "zstd", {"zstd", "lz4", "lzo-rle", "deflate-iaa", "deflate-iaa-canned"}, "zswap compressor (deflate-iaa: IAA fixed Huffman; deflate-iaa-canned: IAA canned tables)", "seed 000 zstd columns (Kconfig default is lzo)");
    t.integer(C::Kernel, "kernel.zswap.max_pool_percent", "%", 20, 0, 100, "zswap pool limit as a share of RAM", "mm/zswap.c default 20");
    t.integer(C::Kernel, "kernel.zswap.accept_threshold_percent", "%", 90, 0, 100, "after hitting the limit, accept again below this share of it", "mm/zswap.c default 90");
    t.flag(C::Kernel, "kernel.zswap.large_folios", true, "zswap_store() accepts large folios (v6.13); false: v6.12 rejects them to the swap device", "seed 000 'after' kernel (zswap-mTHP v7)");
    t.flag(C::Kernel, "kernel.zswap.writeback", true, "memory.zswap.writeback: a rejected folio may go to the swap device", "cgroup default 1");
    t.integer(C::Kernel, "kernel.zswap.entry_charge", "bytes", 0, 0, 65536,
           "what-if: bytes charged to the memcg per zswap entry besides its compressed length (as if struct zswap_entry or its tree and zsmalloc metadata were accounted)",
           "mm/zswap.c v6.12: zswap_store charges obj_cgroup_charge_zswap(objcg, entry->length) only");
    t.integer(C::Kernel, "kernel.zswap.batch_size", "pages", 1, 1, 8, "pages of a folio compressed per batch (ZSWAP_MAX_BATCH_SIZE); 1: mainline, 8: IAA batching series", "mainline zswap_store: page by page");
    t.choice(C::Kernel, "kernel.iaa.sync_mode", "sync", {"sync", "async", "async_irq"}, "iaa_crypto sync_mode: busy-poll, submit-then-poll (batching), or sleep for the IRQ", "iaa_crypto default sync (seed 000 v7 runs)");
    t.flag(C::Kernel, "kernel.iaa.verify_compress", true, "iaa_crypto verify_compress: decompress every result and compare CRCs", "iaa_crypto default 1; seed 000: enabled in the v7 runs");
    t.choice(C::Kernel, "kernel.iaa.distribute", "per_cpu", {"per_cpu", "per_package"}, "CPU-to-IAA mapping: the 6.x driver's per-CPU wq_table, or compress jobs spread over the socket's devices", "iaa_crypto 6.x: per-CPU mapping");
    t.integer(C::Kernel, "kernel.zsmalloc.chain_size", "pages", 8, 4, 16, "CONFIG_ZSMALLOC_CHAIN_SIZE: max pages per zspage", "mm/Kconfig default 8");

    // ---- workload: vm-scalability usemem ----
    t.choice(C::Workload, "workload.type", "usemem", {"usemem", "swapinout"}, "workload model: vm-scalability usemem, or a swap-out/swap-in loop (MADV_PAGEOUT, then read back)", "swapsim");
    t.size(C::Workload, "workload.swapinout.size", 100 * MiB, 4096, 1e13, "swapinout: bytes mapped, written, paged out (MADV_PAGEOUT) and read back per round", "seed 003: 100MiB");
    t.integer(C::Workload, "workload.swapinout.rounds", "", 100, 1, 100000, "swapinout: rounds of mmap, write, MADV_PAGEOUT, read, munmap", "seed 003: 100 times");
    t.choice(C::Workload, "workload.swapinout.data", "mixed", {"usemem", "mixed", "elf", "text", "random", "zero"}, "swapinout: data kind written (compressors.md section 3; its measured ratio and cost per codec and block size)", "compressors.md section 6: mixed is the default typical anonymous page");
    t.real(C::Workload, "workload.swapinout.zero_pages", "%", 0, 0, 100, "swapinout: share of the written pages left zero (same-filled), spread over the mapping", "default: none besides the data kind's own");
    t.integer(C::Workload, "workload.usemem.nproc", "processes", 70, 1, 100000, "usemem -n: processes, one mapping each", "seed 000: usemem -n 70");
    t.size(C::Workload, "workload.usemem.size", 1.0 * GiB, 0, 1e14, "usemem size: bytes mapped and written per process", "seed 000: usemem 1g");
    t.time(C::Workload, "workload.usemem.sleep", 10, 0, 86400, "usemem -s: sleep after writing, memory still mapped", "seed 000: usemem -s 10");
    t.flag(C::Workload, "workload.usemem.init_time", true, "usemem --init-time: time from just before fork", "seed 000: --init-time");
    t.flag(C::Workload, "workload.usemem.sync_rw", false, "usemem -y: each task mmaps before, not after, the start rendezvous (mmap is not timed: the same run)", "usemem default off");
    t.flag(C::Workload, "workload.usemem.sync_free", false, "usemem -x: all tasks munmap together", "usemem default off");
    t.flag(C::Workload, "workload.usemem.anonymous", true, "usemem -O: MAP_PRIVATE|MAP_ANONYMOUS", "seed 000: -O");
    t.integer(C::Workload, "workload.usemem.repeat", "", 1, 1, 1000, "usemem -r: passes; later passes read back (verify) then rewrite each word", "usemem default 1");
    t.flag(C::Workload, "workload.usemem.read_again", false, "usemem -Z: read the whole mapping after writing it", "usemem default off");
    t.size(C::Workload, "workload.usemem.misc_anon", 48 * KiB, 0, 1 * GiB, "private anon memory per process besides the mapping (stack, heap, libc data), touched at start and exit", "estimate: small static C program");
    t.p({"workload.cpus", Kind::CpuList, "", "all", -inf, inf, false, false, {}, "logical CPUs the tasks may run on (taskset/numactl -C)", "default: all CPUs", C::Workload});
    t.integer(C::Workload, "workload.membind", "node", -1, -1, 15, "NUMA node for all memory (numactl -m), -1: local to the faulting CPU", "default: local allocation");


    // ---- model costs (fitted: the calibrator tunes them; reproduction scenarios never set them) ----
    const char* est = "estimate from kernel code size and x86 latencies; fitted by swapsim calibrate";
    t.real(C::Cost, "cost.cpu.smt_yield", "", 1.23, 1.0, 2.0, "throughput of a core with both SMT threads busy, relative to one thread",
           "Intel Hyper-Threading: typically +15-30%; 1.23 is where the fits up to 857251f settled inside that range. Not fitted since busy-waiting stopped taking a share of the core: a fit then ran it to 1.0 (no gain), to make up a spread between processes that the model lacks (README)", true);
    t.cycles("cost.fault.base", 1500, "page fault entry/exit + handle_mm_fault, per fault", "will-it-scale page_fault1: ~1 us per 4K fault incl. clearing");
    t.cycles("cost.fault.per_pte", 20, "set_ptes / rmap / counters per page mapped by a fault", est);
    t.cycles("cost.alloc.folio", 500, "folio allocation from the pcp lists or buddy, per folio", est);
    t.cycles("cost.alloc.per_page", 15, "struct page initialisation per page of a large folio", est);
    t.cycles("cost.zone.lock_hold_batch", 2000, "zone->lock section refilling or draining a pcp batch of 64 pages", est);
    t.cycles("cost.zone.lock_hold_buddy", 400, "zone->lock section of one non-pcp (e.g. 64K) folio allocation or free", est);
    t.rate(C::Cost, "cost.mem.clear_bw", 12e9, "bytes/s one thread clears a new folio (clear_page_erms)", "Sapphire Rapids: rep stosb ~10-15 GB/s per core", true);
    t.rate(C::Cost, "cost.mem.socket_bw", 200e9, "bytes/s of clear and write traffic one socket's memory controllers sustain", "Sapphire Rapids: 8 x DDR5-4800 = 307 GB/s peak per socket; ~2/3 for writes", true);
    t.rate(C::Cost, "cost.user.write_bw", 10e9, "bytes/s of usemem's store loop into freshly cleared pages", "estimate: cache-resident stores, 1 x 8 B per cycle peak", true);
    t.cycles("cost.memcg.charge", 300, "try_charge_memcg page-counter path (stock miss)", est);
    t.cycles("cost.memcg.charge_stock", 40, "consume_stock hit", est);
    t.nanos("cost.memcg.counter_hold_ns", 80, "page_counter cache line held by one atomic update under contention", "x86 cross-core cache-line transfer ~50-150 ns");
    t.cycles("cost.lru.lock_base", 200, "lruvec->lru_lock section, fixed part", est);
    t.cycles("cost.lru.add_per_folio", 60, "lru_add_fn per folio in a drained batch", est);
    t.cycles("cost.lru.isolate_per_folio", 80, "isolate_lru_folios per folio", est);
    t.cycles("cost.lru.putback_per_folio", 80, "move_folios_to_lru per folio", est);
    t.cycles("cost.reclaim.entry", 3000,
             "per try_to_free_mem_cgroup_pages call: setup, psi, memcg iteration, stats flush, shrink_slab, vmpressure, and the spinning on their shared state when dozens of tasks reclaim at once",
             "path length alone: ~1 us; fitted by swapsim calibrate (Case 1's 64K columns spend 32-144 s more sys than its 2M columns on the same evicted pages with 7-9x the memcg_high events: 0.3-1.1 ms per call)");
    t.cycles("cost.reclaim.round", 1000, "shrink_inactive_list fixed part per SWAP_CLUSTER_MAX round", est);
    t.cycles("cost.rmap.walk", 1500, "folio_referenced / try_to_unmap: anon_vma lock and walk, per folio", est);
    t.cycles("cost.rmap.per_pte", 30, "per PTE visited by an rmap walk", est);
    t.nanos("cost.tlb.shootdown_ns", 2000, "try_to_unmap_flush_dirty: IPI to the owner's CPU and wait for it", "x86 TLB shootdown round trip ~1-3 us");
    t.nanos("cost.tlb.irq_ns", 800, "flush_tlb_func on the interrupted CPU (or a local flush)", est);
    t.cycles("cost.swap.add_to_swap", 800, "folio_alloc_swap + mem_cgroup_try_charge_swap outside locks", est);
    t.cycles("cost.swap.lock_hold", 500, "get_swap_pages / swap_entry_range_free under si->lock, fixed", est);
    t.cycles("cost.swap.lock_per_slot", 20, "... per slot scanned, refilled or freed", est);
    t.cycles("cost.swap.alloc_per_range", 250,
             "... per range allocated (a slot-cache refill allocates its 64 slots one by one): cluster lock, swap_map, swap_range_alloc's atomic on nr_swap_pages",
             "estimate from v6.12 cluster_alloc_range/swap_range_alloc: two cross-CPU cache lines (cluster, nr_swap_pages) at ~100 cycles each");
    t.cycles("cost.swap.free_per_range", 1000,
             "... per range freed (swapcache_free_entries frees its 64 slots one by one): cluster lock, mem_cgroup_uncharge_swap, swap_range_free's clear_shadow_from_swap_cache and nr_swap_pages atomic",
             "estimate from v6.12 swap_entry_range_free: ~8 cache lines written by other CPUs (cluster, swap_cgroup and its ctrl->lock, memcg->swap counter and id ref, zeromap, swap cache xa_lock and node, nr_swap_pages) at 100-150 cycles each");
    t.cycles("cost.swapcache.add", 300, "add_to_swap_cache under xa_lock, fixed", est);
    t.cycles("cost.swapcache.del", 300, "__delete_from_swap_cache under xa_lock, fixed", est);
    t.cycles("cost.swapcache.per_page", 40, "per slot stored or erased in the swap cache", est);
    t.cycles("cost.swapcache.lookup", 200, "swap_cache_get_folio", est);
    t.cycles("cost.folio.free", 600, "free_unref_folios + memcg uncharge, per folio", est);
    t.cycles("cost.folio.split_per_page", 300, "split_folio_to_list per page", est);
    t.cycles("cost.zswap.store_folio", 1500, "zswap_store fixed part: pool, objcg, limits, stats", est);
    t.cycles("cost.zswap.store_page", 800, "zswap_store_page outside locks and compression: entry, request, stats, and the cache-line traffic on shared pool and memcg state when many CPUs store at once", est);
    t.cycles("cost.zswap.invalidate_page", 800, "zswap_invalidate outside locks: entry free, uncharge, stats, and the cache-line traffic on shared pool, swap and memcg state when many CPUs free at once (munmap of many processes)", est);
    t.cycles("cost.zswap.tree_hold", 250, "xa_store / xa_erase under the zswap tree lock", est);
    t.cycles("cost.zsmalloc.class_hold", 400, "zs_malloc / zs_free under the size-class lock", est, 100, 1000);
    t.cycles("cost.zsmalloc.free_cold", 0, "zs_free's extra time under the class lock: obj_free and fix_fullness_group touch a zspage, its page and the object's link long out of cache",
             "what-if, off in the committed model: ~550 cycles (2 DRAM misses x ~110 ns on Sapphire Rapids at 2.5 GHz) is the physical estimate; with it, refits traded throughput for sys time and a change sign (README, 'What the model does not get right yet')");
    t.rate(C::Cost, "cost.zsmalloc.copy_bw", 5e9, "bytes/s copying a compressed object into its zspage", "estimate: kmap + memcpy of < 4 KiB", true);
    t.cycles("cost.list_lru.hold", 150, "list_lru_add / del under the zswap memcg-node list lock", est);
    t.cycles("cost.zswap.load_page", 1500, "zswap_load outside decompression", est);
    t.cycles("cost.bio.submit", 4000, "bio + request allocation, submit_bio, driver, per request", est);
    t.cycles("cost.bio.per_folio", 1000, "__swap_writepage per folio: writeback flags, bio_add_folio, events", est);
    t.rate(C::Cost, "cost.pmem.bw", 10e9, "bytes/s of a pmem swap read or write (memcpy)", "DRAM-backed pmem: memcpy ~10 GB/s per core", true);
    t.cycles("cost.swapin.fault", 2000, "do_swap_page fixed part", est);
    t.cycles("cost.zap.per_pte", 20, "zap_pte_range per present PTE", est);
    t.cycles("cost.zap.per_folio", 300, "folio release at unmap", est);
    t.cycles("cost.zap.per_swap", 150, "free_swap_and_cache_nr per swap PTE outside locks", est);
    t.cycles("cost.exit.mm", 50000, "exit_mmap fixed part", est);
    t.nanos("cost.fork_ns", 100000, "fork() of one usemem child by the parent", "estimate: fork of a small process ~100 us");
    t.nanos("cost.wakeup_ns", 1500, "the parent's wakeup of one child polling the start pipe (try_to_wake_up of an idle CPU's task)", "estimate: remote wakeup via the wakelist IPI costs the waker ~1-2 us");
    t.nanos("cost.lock.handoff_ns", 100, "qspinlock cache-line handoff when the lock is contended", "x86 cross-core cache-line transfer ~50-150 ns (range: 20-300 ns)", 20, 300);
    // Compressors on the usemem data pattern (each 8-byte word holds its index), per 4 KiB page.
    // Sizes are measured, not fitted; CPU costs are user-space library times x 1.3 (in-kernel
    // overhead, docs/compressors.md 4.6) at 2.5 GHz.
    const char* meas = "docs/compressors.md App. A.6 / 4.2: usemem data, 4 KiB calls";
    t.real(C::Cost, "cost.compress.zstd.usemem_len", "bytes", 565, 1, 4096, "zstd-3 compressed size of one usemem page", meas);
    t.cycles("cost.compress.zstd.usemem_comp", 48300, "zstd-3 compression of one usemem page", "docs/compressors.md 4.2: 14.9 us x 1.3 kernel factor at 2.5 GHz");
    t.cycles("cost.compress.zstd.usemem_decomp", 20200, "zstd-3 decompression of one usemem page", "docs/compressors.md 4.2: 6.2 us x 1.3 at 2.5 GHz");
    t.real(C::Cost, "cost.compress.lz4.usemem_len", "bytes", 2056, 1, 4096, "lz4 compressed size of one usemem page", meas);
    t.cycles("cost.compress.lz4.usemem_comp", 21100, "lz4 compression of one usemem page", "docs/compressors.md 4.2: 6.5 us x 1.3 at 2.5 GHz");
    t.cycles("cost.compress.lz4.usemem_decomp", 16700, "lz4 decompression of one usemem page", "docs/compressors.md 4.2: 5.1 us x 1.3 at 2.5 GHz");
    // zram and compressor costs by block size and data kind (calibration/compressors/table.json).
    t.real(C::Cost, "cost.compress.kernel_factor", "", 1.6, 1.2, 1.6, "in-kernel compressor time over the user-space library time of calibration/compressors/table.json (crypto/zcomp call, per-CPU stream, older in-kernel builds); not applied to usemem data, whose costs are the fitted cost.compress.*.usemem_*",
           "range: docs/compressors.md 4.6, Glover's in-kernel zram costs are 1.2-1.6x the library's. Value fitted (the only cost fitted there) on the seed-003 table's four times, sum of log errors squared: 0.50 at 1.2, 0.34 at 1.3, 0.07 at 1.6, the bound: the model lacks swap-in work or the seed's machine is slower than 2.5 GHz Sapphire Rapids", true);
    t.nanos("cost.zram.same_check_hit_ns", 500, "page_same_filled on a same-filled 4 KiB page (scans it all)", "compressors.md 4.5 (design note): 498 ns per zero page", 100, 2000);
    t.nanos("cost.zram.same_check_miss_ns", 30, "page_same_filled on a normal page (stops at the first differing word)", "compressors.md 4.5 (design note): 26-31 ns on usemem, elf, text, random pages", 5, 200);
    t.cycles("cost.zram.write_page", 1000, "zram_write_page outside compression and zs_malloc: slot lock, zram_free_page of the old data, table entry, stats, bio segment", est, 200, 5000);
    t.cycles("cost.zram.read_page", 800, "zram_read_page outside decompression: slot lock, zs_map_object / zs_unmap_object, stats, bio segment", est, 200, 5000);
    t.cycles("cost.zram.free_page", 300, "zram_slot_free_notify / zram_free_page outside zs_free: slot trylock, flags, stats", est, 100, 3000);
    // IAA: a job holds an engine for base + per KiB of uncompressed data.
    const char* zan = "Zanussi iaa_crypto v2 cover: sync 3,177 ns compress / 2,235 ns decompress per 4 KiB incl. submission";
    const char* glo = "Glover canned-mode cover: by_1 34,493 / 20,038 ns per 64 KiB job";
    t.nanos("cost.iaa.fixed.comp_base_ns", 1200, "IAA fixed-Huffman compress job, fixed part", zan);
    t.nanos("cost.iaa.fixed.comp_ns_per_kb", 425, "IAA fixed-Huffman compress job, per KiB of input", zan);
    t.nanos("cost.iaa.fixed.decomp_base_ns", 800, "IAA decompress job (fixed-Huffman data), fixed part", zan);
    t.nanos("cost.iaa.fixed.decomp_ns_per_kb", 300, "IAA decompress job, per KiB of output", zan);
    t.nanos("cost.iaa.canned.comp_base_ns", 700, "IAA canned-mode compress job, fixed part", glo);
    t.nanos("cost.iaa.canned.comp_ns_per_kb", 340, "IAA canned-mode compress job, per KiB of input", glo);
    t.nanos("cost.iaa.canned.decomp_base_ns", 450, "IAA decompress job (canned data), fixed part", glo);
    t.nanos("cost.iaa.canned.decomp_ns_per_kb", 200, "IAA canned-mode decompress job, per KiB of output", glo);
    t.nanos("cost.iaa.submit_ns", 200, "iaa_crypto: prepare and submit one descriptor (movdir64b/enqcmds)", zan);
    t.nanos("cost.iaa.crc_ns", 100, "verify_compress: compare the CRCs of one page", est);
    t.nanos("cost.iaa.irq_wake_ns", 3700, "async_irq: completion interrupt to the task running again", "Zanussi v2: async_irq 6,847 ns vs sync 3,177 ns per compress");
    t.nanos("cost.iaa.irq_cpu_ns", 1500, "async_irq: CPU time of the IRQ thread and the wakeup", est);
    const char* zmeas = "measured here: zlib deflate Z_FIXED, 4 KiB window, on usemem pages (tools/usemem_ratios.c)";
    t.real(C::Cost, "cost.compress.deflate-iaa.usemem_len", "bytes", 1378, 1, 8192, "IAA fixed-Huffman (4 KiB history) compressed size of one usemem page", zmeas);
    t.real(C::Cost, "cost.compress.deflate-iaa-canned.usemem_len", "bytes", 1139, 1, 8192, "IAA canned-mode compressed size of one usemem page",
           "measured here: the fixed mode's LZ77 symbols priced with the canned Huffman table of Glover's iaa_crypto canned-mode patch (tools/iaa_canned_len.py)");
    t.real(C::Cost, "cost.compress.lzo-rle.usemem_len", "bytes", 1560, 1, 4096, "lzo-rle compressed size of one usemem page (lzo1x-1 measured)", meas);
    t.cycles("cost.compress.lzo-rle.usemem_comp", 22300, "lzo-rle compression of one usemem page", "docs/compressors.md 4.2: lzo1x-1 6.9 us x 1.3 at 2.5 GHz");
    t.cycles("cost.compress.lzo-rle.usemem_decomp", 11200, "lzo-rle decompression of one usemem page", "docs/compressors.md 4.2: lzo1x-1 3.4 us x 1.3 at 2.5 GHz");

    // ---- simulation control ----
    t.size(C::Sim, "sim.write_chunk", 256 * KiB, 4096, 64 * MiB, "pages a task writes per simulated step when it owes no reclaim (accuracy vs speed)", "swapsim: halving it moves metrics < 2% (tests)");
    t.real(C::Sim, "sim.fork_jitter", "", 0.5, 0, 0.99, "spread of each fork's and start wakeup's duration around cost.fork_ns and cost.wakeup_ns, drawn from `seed`: seeds sample the timing noise between real runs", "swapsim: fork of a small process varies by tens of percent");
    t.time(C::Sim, "sim.reclaim_slice", 2e-3, 1e-6, 1, "planned kernel time after which a task in reclaim or munmap runs it before going on (interleaves concurrent tasks)", "swapsim: bench/run_granularity.sh: from 0.25 to 4 ms the 64K column moves < 1%, the 2M column < 3% in throughput and < 1% in sys");
    t.time(C::Sim, "sim.time_limit", 3600, 1, 1e7, "abort the run if simulated time passes this", "swapsim");

    Registry r;
    size_t marked = 0;
    for (ParamDef d : t.r.all()) {
        for (const char* n : kFitDefault)
            if (d.name == n) {
                d.fit_default = true;
                marked++;
            }
        r.add(std::move(d));
    }
    if (marked != std::size(kFitDefault))
        throw std::logic_error("kFitDefault names a parameter that is not registered");
    return r;
}

}  // namespace

const Registry& registry()
{
    static const Registry r = build();
    return r;
}

}  // namespace swapsim::scenario
