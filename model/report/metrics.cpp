#include "report/metrics.hpp"

#include <regex>

namespace swapsim::report {

const std::vector<MetricDoc>& metric_docs()
{
    static const std::vector<MetricDoc> docs = {
        // usemem and perf stat
        {"throughput_kbps", "KB/s", "usemem stdout: ((size*9/8*10^6)>>10)/usecs per process, averaged",
         "each task's write time from the shared start (workload/usemem.cpp)"},
        {"throughput_kbps_sum", "KB/s", "usemem stdout, summed over processes (what LKP reports)",
         "as throughput_kbps (workload/usemem.cpp)"},
        {"throughput_kbps_min", "KB/s", "usemem stdout: the slowest process", "workload/usemem.cpp"},
        {"throughput_kbps_max", "KB/s", "usemem stdout: the fastest process", "workload/usemem.cpp"},
        {"elapsed_s", "s", "perf stat: seconds time elapsed (last process exit)",
         "fork, writes, sleep and munmap of every task (workload/usemem.cpp)"},
        {"sys_s", "s", "perf stat: seconds sys (task stime, summed over the usemem processes)",
         "kernel code priced per call and run on the task's CPU at each flush (Ctx, kernel/kernel.cpp)"},
        {"user_s", "s", "perf stat: seconds user (task utime, summed)",
         "usemem's write loop (Ctx::user, workload/usemem.cpp)"},
        {"free_latency_us", "us", "usemem -s: munmap time per process, averaged",
         "munmap: zap_pte_range, swap and zswap entry frees (kernel/exit.cpp)"},
        {"smt_shared_tasks", "tasks", "none (placement): tasks on a core running another usemem task",
         "fork balancing and select_idle_sibling (kernel/kernel.cpp, hw/topology.cpp)"},
        {"ram_used_peak", "bytes", "none (machine RAM, e.g. MemTotal - MemFree at its lowest): folios, page tables, zswap and zram pools",
         "zram's pool is charged to no memcg, so it shows here and not in memory.peak (kernel/zram.cpp)"},
        // swapinout workload (seed 003)
        {"swap_out_time_ms", "ms", "the benchmark's swap-out time: MADV_PAGEOUT calls, summed over rounds",
         "madvise_pageout -> reclaim_pages -> shrink_folio_list (kernel/madvise.cpp, workload/swapinout.cpp)"},
        {"swap_in_time_ms", "ms", "the benchmark's swap-in time: the read pass after each page-out, summed",
         "do_swap_page faults and the read loop (kernel/fault.cpp, workload/swapinout.cpp)"},
        {"write_time_ms", "ms", "the write pass of each round, summed", "do_anonymous_page faults and the write loop"},
        {"compression_ratio_pct", "%", "zram mm_stat compr_data_size / orig_data_size after each page-out, summed over rounds",
         "zram_write_folio per block (kernel/zram.cpp)"},
        {"memory_current_after_pageout", "bytes", "memory.current after the last page-out", "mm/memcg.cpp"},
        {"ram_used_after_pageout", "bytes", "machine RAM in use after the last page-out (zram pool included)",
         "Kernel::ram_pages (kernel/zram.cpp)"},
        // memory cgroup files
        {"memory_peak", "bytes", "memory.peak", "page_counter watermark (mm/memcg.cpp)"},
        {"memory_current_at_writes_done", "bytes", "memory.current, when the last process finished writing",
         "page_counter usage (mm/memcg.cpp)"},
        {"anon_at_writes_done", "bytes", "memory.stat anon, when the last process finished writing",
         "resident anon folios (mm/memcg.cpp)"},
        {"kernel_at_writes_done", "bytes", "memory.stat kernel (zswap's charge and page tables)",
         "obj_cgroup_charge_zswap and GFP_PGTABLE_USER charges (mm/memcg.cpp)"},
        {"pagetables_at_writes_done", "bytes", "memory.stat pagetables", "__pte_alloc charges (kernel/fault.cpp)"},
        {"zswap_at_writes_done", "bytes", "memory.stat zswap (compressed bytes)", "zswap_store (kernel/swap.cpp)"},
        {"zswapped_at_writes_done", "bytes", "memory.stat zswapped (pages stored, as bytes)",
         "zswap_store (kernel/swap.cpp)"},
        {"memcg_high", "events", "memory.events high (MEMCG_HIGH)",
         "one per reclaim_high call from mem_cgroup_handle_over_high (kernel/memcontrol.cpp)"},
        {"memcg_max", "events", "memory.events max", "a charge that hit memory.max (kernel/memcontrol.cpp)"},
        {"memcg_oom", "events", "memory.events oom", "memory.max reclaim that failed (kernel/memcontrol.cpp)"},
        {"memcg_swap_high", "events", "memory.swap.events high", "swap charge above memory.swap.high (mm/memcg.cpp)"},
        {"memcg_swap_fail", "events", "memory.swap.events fail",
         "folio_alloc_swap failing a large folio's slots, or swap.max (mm/memcg.cpp, kernel/vmscan.cpp)"},
        // /proc/vmstat
        {"pswpin", "pages", "/proc/vmstat pswpin", "swap_read_folio from the block device (kernel/fault.cpp)"},
        {"pswpout", "pages", "/proc/vmstat pswpout", "swap_writepage to the block device (kernel/swap.cpp)"},
        {"zswpin", "pages", "/proc/vmstat zswpin", "zswap_load on a swap-in fault (kernel/swap.cpp)"},
        {"zswpout", "pages", "/proc/vmstat zswpout", "zswap_store of each page of a folio (kernel/swap.cpp)"},
        {"thp_swpout", "folios", "/proc/vmstat thp_swpout (PMD-size folios swapped out whole)",
         "swap_writepage of a 2M folio (kernel/swap.cpp)"},
        {"thp_swpout_fallback", "folios", "/proc/vmstat thp_swpout_fallback (PMD-size folios split first)",
         "shrink_folio_list when folio_alloc_swap fails (kernel/vmscan.cpp)"},
        {"pgmajfault", "events", "/proc/vmstat pgmajfault", "do_swap_page that reads from the device (kernel/fault.cpp)"},
        {"pgfault", "events", "/proc/vmstat pgfault", "handle_mm_fault (kernel/fault.cpp)"},
        {"swap_ra", "pages", "/proc/vmstat swap_ra", "swap_cluster_readahead (kernel/fault.cpp)"},
        {"swap_ra_hit", "pages", "/proc/vmstat swap_ra_hit", "a fault finding a readahead folio (kernel/fault.cpp)"},
        {"pgscan_direct", "pages", "/proc/vmstat pgscan_direct", "shrink_inactive_list isolations (kernel/vmscan.cpp)"},
        {"pgsteal_direct", "pages", "/proc/vmstat pgsteal_direct", "shrink_folio_list frees (kernel/vmscan.cpp)"},
        {"pgscan_kswapd", "pages", "/proc/vmstat pgscan_kswapd", "kswapd's shrink_inactive_list isolations (kernel/page_alloc.cpp, vmscan.cpp)"},
        {"pgsteal_kswapd", "pages", "/proc/vmstat pgsteal_kswapd", "kswapd's shrink_folio_list frees (kernel/page_alloc.cpp, vmscan.cpp)"},
        {"allocstall", "events", "/proc/vmstat allocstall_normal (summed over zones)", "direct reclaim in the allocator's slow path below the min watermark (kernel/page_alloc.cpp)"},
        {"oom_kill", "events", "/proc/vmstat oom_kill", "out_of_memory kills (kernel/page_alloc.cpp)"},
        {"oom_killed_tasks", "tasks", "none (dmesg: Killed process)", "usemem processes the OOM killer took; they print no statistics (workload/usemem.cpp)"},
        {"kswapd_sys_s", "s", "kswapd0..N stime (ps)", "balance_pgdat's CPU time, not in sys_s (kernel/page_alloc.cpp)"},
        {"sum_throughput_mbps", "MB/s", "usemem 'Sum Throughput' (seed 001): throughput_kbps_sum / 1024", "workload/usemem.cpp"},
        {"single_process_throughput_mbps", "MB/s", "usemem 'Single process Throughput' (seed 001): the per-process mean, / 1024", "workload/usemem.cpp"},
        {"pgactivate", "pages", "/proc/vmstat pgactivate", "referenced folios put back active (kernel/vmscan.cpp)"},
        {"pgdeactivate", "pages", "/proc/vmstat pgdeactivate", "shrink_active_list (kernel/vmscan.cpp)"},
        {"pgrotated", "pages", "/proc/vmstat pgrotated", "folio_rotate_reclaimable after writeback (kernel/vmscan.cpp)"},
        {"thp_fault_alloc", "folios", "/proc/vmstat thp_fault_alloc", "do_huge_pmd_anonymous_page (kernel/fault.cpp)"},
        {"thp_fault_fallback", "events", "/proc/vmstat thp_fault_fallback", "a 2M fault falling back (kernel/fault.cpp)"},
        {"thp_fault_fallback_charge", "events", "/proc/vmstat thp_fault_fallback_charge",
         "a 2M fault whose memcg charge failed (kernel/fault.cpp)"},
        {"thp_split_page", "folios", "/proc/vmstat thp_split_page", "split_folio of a 2M folio (kernel/swap.cpp)"},
        // /sys/kernel/mm/transparent_hugepage/hugepages-<size>/stats/
        {"anon_fault_alloc_<size>", "folios", "hugepages-<size>/stats/anon_fault_alloc",
         "alloc_anon_folio (kernel/fault.cpp)"},
        {"anon_fault_fallback_<size>", "events", "hugepages-<size>/stats/anon_fault_fallback",
         "alloc_anon_folio falling back an order (kernel/fault.cpp)"},
        {"anon_fault_fallback_charge_<size>", "events", "hugepages-<size>/stats/anon_fault_fallback_charge",
         "a large folio's memcg charge failing (kernel/fault.cpp)"},
        {"zswpout_<size>", "folios", "hugepages-<size>/stats/zswpout", "zswap_store of a whole folio (kernel/swap.cpp)"},
        {"swpout_<size>", "folios", "hugepages-<size>/stats/swpout", "swap_writepage of a whole folio (kernel/swap.cpp)"},
        {"swpout_fallback_<size>", "folios", "hugepages-<size>/stats/swpout_fallback",
         "shrink_folio_list splitting when folio_alloc_swap fails (kernel/vmscan.cpp)"},
        {"swpin_<size>", "folios", "hugepages-<size>/stats/swpin (v6.12 swaps in large folios only from SWP_SYNCHRONOUS_IO: pmem, zram)",
         "do_swap_page -> alloc_swap_folio (kernel/fault.cpp)"},
        {"swpin_fallback_<size>", "events", "hugepages-<size>/stats/swpin_fallback",
         "alloc_swap_folio: allocation or memcg charge of the large folio failed, next order (kernel/fault.cpp)"},
        {"swpin_fallback_charge_<size>", "events", "hugepages-<size>/stats/swpin_fallback_charge",
         "alloc_swap_folio: mem_cgroup_swapin_charge_folio failed (kernel/fault.cpp)"},
        {"split_<size>", "folios", "hugepages-<size>/stats/split", "split_folio (kernel/swap.cpp)"},
    };
    return docs;
}

const MetricDoc* find_metric_doc(const std::string& name)
{
    static const std::regex size("_[0-9]+kB$");
    std::string key = std::regex_replace(name, size, "_<size>");
    for (const MetricDoc& d : metric_docs())
        if (d.name == key)
            return &d;
    return nullptr;
}

}  // namespace swapsim::report
