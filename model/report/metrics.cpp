#include "report/metrics.hpp"

#include <algorithm>
#include <regex>

#include "kernel/kernel.hpp"
#include "mm/vmstat.hpp"
#include "workload/kbuild.hpp"
#include "workload/redis.hpp"
#include "workload/swapinout.hpp"
#include "workload/usemem.hpp"

namespace swapsim::report {

using nlohmann::json;

namespace {

Metric metric(std::string name, std::string unit, Source src, std::string kernel, std::string mechanism, Getter get)
{
    Metric m;
    m.name = std::move(name);
    m.unit = std::move(unit);
    m.source = src;
    m.kernel = std::move(kernel);
    m.mechanism = std::move(mechanism);
    m.get = std::move(get);
    return m;
}

// A /proc/vmstat event, under its kernel name (mm/vmstat.cpp).
Metric vmstat(mm::VmEvent e, std::string unit, std::string mechanism, const std::string& note = "")
{
    std::string name = mm::vm_event_name(e);
    return metric(name, std::move(unit), Source::Vmstat, "/proc/vmstat " + name + (note.empty() ? "" : " (" + note + ")"),
                  std::move(mechanism), [e](const RunView& v, unsigned) { return json(v.k.vm[e]); })
        .label({name});
}

// A per-size mTHP stat, hugepages-<size>/stats/<stat>.
Metric mthp(mm::MthpStat s, std::string unit, std::string mechanism, const std::string& note = "")
{
    std::string stat = mm::mthp_stat_name(s);
    return metric(stat + "_<size>", std::move(unit), Source::MthpStats,
                  "hugepages-<size>/stats/" + stat + (note.empty() ? "" : " (" + note + ")"), std::move(mechanism),
                  [s](const RunView& v, unsigned order) { return json(v.k.vm.mthp[order][s]); });
}

// A memory.events (or memory.swap.events) line.
Metric memcg_event(std::string name, std::string file, uint64_t mm::MemcgEvents::*field, std::string mechanism)
{
    return metric(std::move(name), "events", Source::MemoryEvents, std::move(file), std::move(mechanism),
                  [field](const RunView& v, unsigned) { return json(v.k.memcg.events.*field); });
}

// A memory.stat line (or memory.current) when the last usemem process finished writing.
Metric at_writes_done(std::string name, std::string kernel, uint64_t mm::MemcgStat::*field, std::string mechanism)
{
    Source src = name == "memory_current_at_writes_done" ? Source::MemcgFile : Source::MemoryStat;
    return metric(std::move(name), "bytes", src, std::move(kernel), std::move(mechanism),
                  [field](const RunView& v, unsigned) { return json(v.usemem->stat_at_writes_done().*field); })
        .in(USEMEM);
}

const workload::SwapinoutResult& sio(const RunView& v) { return v.swapinout->result(); }

std::vector<Metric> make_table()
{
    using namespace mm;
    using S = Source;
    // Table order is the run tables' row order (rows_for).
    return {
        // usemem and perf stat
        metric("throughput_kbps", "KB/s", S::Benchmark, "usemem stdout: ((size*9/8*10^6)>>10)/usecs per process, averaged",
               "each task's write time from the shared start (workload/usemem.cpp)",
               [](const RunView& v, unsigned) { return json(v.tp_sum / double(v.nproc)); })
            .in(USEMEM).show(USEMEM, Fmt::Rate).label({"Throughput (KB/s)"}),
        metric("throughput_kbps_sum", "KB/s", S::Benchmark, "usemem stdout, summed over processes (what LKP reports)",
               "as throughput_kbps (workload/usemem.cpp)", [](const RunView& v, unsigned) { return json(v.tp_sum); })
            .in(USEMEM).show(USEMEM, Fmt::Rate),
        metric("sum_throughput_mbps", "MB/s", S::Benchmark, "usemem 'Sum Throughput' (seed 001): throughput_kbps_sum / 1024",
               "as throughput_kbps (workload/usemem.cpp)", [](const RunView& v, unsigned) { return json(v.tp_sum / 1024.0); })
            .in(USEMEM).label({"Sum Throughput"}),
        metric("single_process_throughput_mbps", "MB/s", S::Benchmark,
               "usemem 'Single process Throughput' (seed 001): the per-process mean / 1024", "as throughput_kbps (workload/usemem.cpp)",
               [](const RunView& v, unsigned) { return json(v.tp_sum / 1024.0 / double(v.nproc)); })
            .in(USEMEM).label({"Single process Throughput"}),
        metric("throughput_kbps_min", "KB/s", S::Benchmark, "usemem stdout: the slowest process", "workload/usemem.cpp",
               [](const RunView& v, unsigned) { return json(v.tp_min); })
            .in(USEMEM).show(0, Fmt::Rate),
        metric("throughput_kbps_max", "KB/s", S::Benchmark, "usemem stdout: the fastest process", "workload/usemem.cpp",
               [](const RunView& v, unsigned) { return json(v.tp_max); })
            .in(USEMEM).show(0, Fmt::Rate),
        // swapinout workload (seed 003)
        metric("swap_out_time_ms", "ms", S::Benchmark, "the benchmark's swap-out time: MADV_PAGEOUT calls, summed over rounds",
               "madvise_pageout -> reclaim_pages -> shrink_folio_list (kernel/madvise.cpp, workload/swapinout.cpp)",
               [](const RunView& v, unsigned) { return json(1e3 * sio(v).swap_out_s); })
            .in(SWAPINOUT).show(SWAPINOUT).label({"swap-out time(ms)"}),
        metric("swap_in_time_ms", "ms", S::Benchmark, "the benchmark's swap-in time: the read pass after each page-out, summed",
               "do_swap_page faults and the read loop (kernel/fault.cpp, workload/swapinout.cpp)",
               [](const RunView& v, unsigned) { return json(1e3 * sio(v).swap_in_s); })
            .in(SWAPINOUT).show(SWAPINOUT).label({"swap-in time(ms)"}),
        metric("compression_ratio_pct", "%", S::ZramMmStat,
               "zram mm_stat compr_data_size / orig_data_size after each page-out, summed over rounds",
               "zram_write_folio per block (kernel/zram.cpp)",
               [](const RunView& v, unsigned) {
                   const auto& r = sio(v);
                   return json(r.orig_bytes ? 100.0 * double(r.compr_bytes) / double(r.orig_bytes) : 0.0);
               })
            .in(SWAPINOUT).show(SWAPINOUT, Fmt::Percent).label({"compression ratio"}),
        metric("write_time_ms", "ms", S::Benchmark, "the write pass of each round, summed",
               "do_anonymous_page faults and the write loop", [](const RunView& v, unsigned) { return json(1e3 * sio(v).write_s); })
            .in(SWAPINOUT),
        // kernel build (seed 001): time make
        metric("real_s", "s", S::PerfStat, "time make: real (make start to the last link step's exit)",
               "the job stream under make -jN (workload/kbuild.cpp)",
               [](const RunView& v, unsigned) { return json(v.kbuild->result().real_s); })
            .in(KBUILD).show(KBUILD, Fmt::Seconds).label({"Real before / after", "real time"}),
        metric("jobs_run", "jobs", S::Benchmark, "none: recipes make ran (compile units and link steps)",
               "workload/kbuild.cpp", [](const RunView& v, unsigned) { return json(v.kbuild->result().jobs_run); })
            .in(KBUILD).show(KBUILD),
        metric("jobs_peak", "jobs", S::Benchmark, "none: most recipes running at once (make -j)", "workload/kbuild.cpp",
               [](const RunView& v, unsigned) { return json(v.kbuild->result().peak_concurrency); })
            .in(KBUILD).show(KBUILD),
        // Redis / Valkey under redis-benchmark (seed 001)
        metric("rps", "requests/s", S::Benchmark, "redis-benchmark: requests per second of the GET run",
               "the server's GETs, one client's pipeline per step, faults included (workload/redis.cpp)",
               [](const RunView& v, unsigned) { return json(v.redis->result().rps); })
            .in(REDIS).show(REDIS, Fmt::Rate).label({"RPS", "no BGSAVE", "with BGSAVE"}),
        metric("redis_keys", "keys", S::Benchmark, "INFO keyspace db0 keys", "the populating SET run (workload/redis.cpp)",
               [](const RunView& v, unsigned) { return json(v.redis->result().keys); })
            .in(REDIS).show(REDIS),
        metric("redis_used_memory", "bytes", S::Benchmark, "INFO memory used_memory of the keyspace",
               "Redis 7 / jemalloc layout (workload/redis_layout.hpp)",
               [](const RunView& v, unsigned) { return json(v.redis->result().used_memory); })
            .in(REDIS).show(REDIS),
        metric("keyspace_misses", "requests", S::Benchmark, "INFO stats keyspace_misses of the GET run",
               "GETs of a key the SET run did not load (workload/redis.cpp)",
               [](const RunView& v, unsigned) { return json(v.redis->result().misses); })
            .in(REDIS),
        metric("latest_fork_s", "s", S::Benchmark, "INFO stats latest_fork_usec / 10^6",
               "copy_page_range of the server's mm (kernel/fork.cpp)",
               [](const RunView& v, unsigned) { return json(v.redis->result().fork_s); })
            .in(REDIS).show(REDIS, Fmt::Seconds),
        metric("bgsave_keys", "keys", S::Benchmark, "none: keys the BGSAVE child wrote before the GET run ended",
               "the child's walk in bucket order (workload/redis.cpp)",
               [](const RunView& v, unsigned) { return json(v.redis->result().bgsave_keys); })
            .in(REDIS).show(REDIS),
        metric("cow_copies", "pages", S::Machine, "none: wp_page_copy calls (COW breaks)", "do_wp_page (kernel/fork.cpp)",
               [](const RunView& v, unsigned) { return json(v.k.cow.copies); })
            .in(REDIS).show(REDIS),
        metric("elapsed_s", "s", S::PerfStat, "perf stat: seconds time elapsed (last process exit)",
               "fork, writes, sleep and munmap of every task (workload/usemem.cpp)",
               [](const RunView& v, unsigned) { return json(v.swapinout ? sio(v).t_end : v.elapsed); })
            .show(USEMEM, Fmt::Seconds).label({"elapsed time (sec)"}),
        metric("sys_s", "s", S::PerfStat, "perf stat: seconds sys (task stime, summed over the usemem processes)",
               "kernel code priced per call and run on the task's CPU at each flush (Ctx, kernel/kernel.cpp)",
               [](const RunView& v, unsigned) { return json(v.swapinout ? v.k.task(v.swapinout->pid()).stime : v.sys); })
            .show(ANY, Fmt::Seconds).label({"sys time (sec)", "sys time", "System time", "Sys before / after"}),
        metric("user_s", "s", S::PerfStat, "perf stat: seconds user (task utime, summed)",
               "usemem's write loop (Ctx::user, workload/usemem.cpp)",
               [](const RunView& v, unsigned) { return json(v.swapinout ? v.k.task(v.swapinout->pid()).utime : v.user); })
            .show(USEMEM | KBUILD | REDIS, Fmt::Seconds),
        metric("free_latency_us", "us", S::Benchmark, "usemem -s: munmap time per process, averaged",
               "munmap: zap_pte_range, swap and zswap entry frees (kernel/exit.cpp)",
               [](const RunView& v, unsigned) { return json(v.free_us / double(v.nproc)); })
            .in(USEMEM).label({"Free latency"}),
        metric("smt_shared_tasks", "tasks", S::Machine, "none (placement): tasks on a core running another usemem task",
               "fork balancing and select_idle_sibling (kernel/kernel.cpp, hw/topology.cpp)",
               [](const RunView& v, unsigned) { return json(v.smt_shared); })
            .in(USEMEM),
        // memory cgroup files
        memcg_event("memcg_high", "memory.events high (MEMCG_HIGH)", &MemcgEvents::high,
                    "one per reclaim_high call from mem_cgroup_handle_over_high (kernel/memcontrol.cpp)")
            .show(USEMEM).label({"memcg_high"}),
        memcg_event("memcg_max", "memory.events max", &MemcgEvents::max, "a charge that hit memory.max (kernel/memcontrol.cpp)"),
        memcg_event("memcg_oom", "memory.events oom", &MemcgEvents::oom, "memory.max reclaim that failed (kernel/memcontrol.cpp)"),
        memcg_event("memcg_swap_high", "memory.swap.events high", &MemcgEvents::swap_high,
                    "swap charge above memory.swap.high (mm/memcg.cpp)")
            .label({"memcg_swap_high"}),
        memcg_event("memcg_swap_fail", "memory.swap.events fail", &MemcgEvents::swap_fail,
                    "folio_alloc_swap failing a large folio's slots, or swap.max (mm/memcg.cpp, kernel/vmscan.cpp)")
            .show(USEMEM).label({"memcg_swap_fail"}),
        // /proc/vmstat
        vmstat(PSWPIN, "pages", "swap_read_folio from the block device (kernel/fault.cpp)").show(ANY),
        vmstat(PSWPOUT, "pages", "swap_writepage to the block device (kernel/swap.cpp)").show(ANY),
        vmstat(ZSWPIN, "pages", "zswap_load on a swap-in fault (kernel/swap.cpp)").show(USEMEM),
        vmstat(ZSWPOUT, "pages", "zswap_store of each page of a folio (kernel/swap.cpp)").show(USEMEM),
        vmstat(THP_SWPOUT, "folios", "swap_writepage of a 2M folio (kernel/swap.cpp)",
               "PMD-size folios swapped out whole").show(USEMEM),
        vmstat(THP_SWPOUT_FALLBACK, "folios", "shrink_folio_list when folio_alloc_swap fails (kernel/vmscan.cpp)",
               "PMD-size folios split first").show(USEMEM),
        mthp(MTHP_STAT_SWPOUT_FALLBACK, "folios", "shrink_folio_list splitting when folio_alloc_swap fails (kernel/vmscan.cpp)")
            .show(USEMEM).label({"<size>-mthp_swpout_fallback"}),
        vmstat(PGMAJFAULT, "events", "do_swap_page that reads from the device (kernel/fault.cpp)").show(ANY),
        mthp(MTHP_STAT_ZSWPOUT, "folios", "zswap_store of a whole folio (kernel/swap.cpp)")
            .show(USEMEM).label({"ZSWPOUT-<size>", "ZSWPOUT-<size>-mTHP"}),
        mthp(MTHP_STAT_SWPOUT, "folios", "swap_writepage of a whole folio (kernel/swap.cpp)")
            .show(ANY).label({"SWPOUT-<size>", "SWPOUT-<size>-mTHP"}),
        mthp(MTHP_STAT_SWPIN, "folios", "do_swap_page -> alloc_swap_folio (kernel/fault.cpp)",
             "v6.12 swaps in large folios only from SWP_SYNCHRONOUS_IO: pmem, zram").show(SWAPINOUT),
        mthp(MTHP_STAT_SWPIN_FALLBACK, "events",
             "alloc_swap_folio: allocation or memcg charge of the large folio failed, next order (kernel/fault.cpp)")
            .show(SWAPINOUT),
        mthp(MTHP_STAT_SWPIN_FALLBACK_CHARGE, "events",
             "alloc_swap_folio: mem_cgroup_swapin_charge_folio failed (kernel/fault.cpp)").show(SWAPINOUT),
        vmstat(SWAP_RA, "pages", "swap_cluster_readahead (kernel/fault.cpp)").show(USEMEM),
        vmstat(SWAP_RA_HIT, "pages", "a fault finding a readahead folio (kernel/fault.cpp)").show(USEMEM),
        vmstat(PGFAULT, "events", "handle_mm_fault (kernel/fault.cpp)"),
        vmstat(PGSCAN_DIRECT, "pages", "shrink_inactive_list isolations (kernel/vmscan.cpp)"),
        vmstat(PGSTEAL_DIRECT, "pages", "shrink_folio_list frees (kernel/vmscan.cpp)"),
        vmstat(PGSCAN_KSWAPD, "pages", "kswapd's shrink_inactive_list isolations (kernel/page_alloc.cpp, vmscan.cpp)"),
        vmstat(PGSTEAL_KSWAPD, "pages", "kswapd's shrink_folio_list frees (kernel/page_alloc.cpp, vmscan.cpp)"),
        vmstat(ALLOCSTALL, "events", "direct reclaim in the allocator's slow path below the min watermark (kernel/page_alloc.cpp)",
               "allocstall_normal summed over zones"),
        vmstat(OOM_KILL, "events", "out_of_memory kills (kernel/page_alloc.cpp)"),
        vmstat(WORKINGSET_REFAULT_FILE, "pages", "filemap_fault reading a page with a shadow entry (kernel/filemap.cpp)")
            .in(KBUILD).show(KBUILD),
        vmstat(WORKINGSET_ACTIVATE_FILE, "pages", "workingset_refault within the workingset: read to the active list (kernel/filemap.cpp)")
            .in(KBUILD).show(KBUILD),
        vmstat(PGSTEAL_FILE, "pages", "shrink_folio_list frees of clean file folios (kernel/vmscan.cpp)").in(KBUILD).show(KBUILD),
        metric("oom_killed_tasks", "tasks", S::Machine, "none (dmesg: Killed process)",
               "usemem processes the OOM killer took; they print no statistics (workload/usemem.cpp)",
               [](const RunView& v, unsigned) { return json(v.killed); })
            .in(USEMEM),
        metric("kswapd_sys_s", "s", S::Machine, "kswapd0..N stime (ps)", "balance_pgdat's CPU time, not in sys_s (kernel/page_alloc.cpp)",
               [](const RunView& v, unsigned) {
                   double s = 0;
                   for (const kernel::NodeMem& n : v.k.nodes())
                       s += n.kswapd_sys_s;
                   return json(s);
               }),
        vmstat(PGACTIVATE, "pages", "referenced folios put back active (kernel/vmscan.cpp)"),
        vmstat(PGDEACTIVATE, "pages", "shrink_active_list (kernel/vmscan.cpp)"),
        vmstat(PGROTATED, "pages", "folio_rotate_reclaimable after writeback (kernel/vmscan.cpp)"),
        vmstat(THP_FAULT_ALLOC, "folios", "do_huge_pmd_anonymous_page (kernel/fault.cpp)"),
        vmstat(THP_FAULT_FALLBACK, "events", "a 2M fault falling back (kernel/fault.cpp)"),
        vmstat(THP_FAULT_FALLBACK_CHARGE, "events", "a 2M fault whose memcg charge failed (kernel/fault.cpp)"),
        vmstat(THP_SPLIT_PAGE, "folios", "split_folio of a 2M folio (kernel/swap.cpp)"),
        // /sys/kernel/mm/transparent_hugepage/hugepages-<size>/stats/
        mthp(MTHP_STAT_ANON_FAULT_ALLOC, "folios", "alloc_anon_folio (kernel/fault.cpp)"),
        mthp(MTHP_STAT_ANON_FAULT_FALLBACK, "events", "alloc_anon_folio falling back an order (kernel/fault.cpp)"),
        mthp(MTHP_STAT_ANON_FAULT_FALLBACK_CHARGE, "events", "a large folio's memcg charge failing (kernel/fault.cpp)"),
        mthp(MTHP_STAT_SPLIT, "folios", "split_folio (kernel/swap.cpp)"),
        // machine RAM and memory cgroup files
        metric("ram_used_peak", "bytes", S::Machine,
               "none (machine RAM, e.g. MemTotal - MemFree at its lowest): folios, page tables, zswap and zram pools",
               "zram's pool is charged to no memcg, so it shows here and not in memory.peak (kernel/zram.cpp)",
               [](const RunView& v, unsigned) { return json(v.k.ram_peak_pages() * PAGE_SIZE); })
            .show(SWAPINOUT),
        metric("memory_peak", "bytes", S::MemcgFile, "memory.peak", "page_counter watermark (mm/memcg.cpp)",
               [](const RunView& v, unsigned) { return json(uint64_t(v.k.memcg.memory.watermark) * PAGE_SIZE); })
            .show(SWAPINOUT),
        at_writes_done("memory_current_at_writes_done", "memory.current, when the last process finished writing",
                       &MemcgStat::current, "page_counter usage (mm/memcg.cpp)"),
        at_writes_done("anon_at_writes_done", "memory.stat anon, when the last process finished writing", &MemcgStat::anon,
                       "resident anon folios (mm/memcg.cpp)"),
        at_writes_done("kernel_at_writes_done", "memory.stat kernel (zswap's charge and page tables)", &MemcgStat::kernel,
                       "obj_cgroup_charge_zswap and GFP_PGTABLE_USER charges (mm/memcg.cpp)"),
        at_writes_done("pagetables_at_writes_done", "memory.stat pagetables", &MemcgStat::pagetables,
                       "__pte_alloc charges (kernel/fault.cpp)"),
        at_writes_done("zswap_at_writes_done", "memory.stat zswap (compressed bytes)", &MemcgStat::zswap,
                       "zswap_store (kernel/swap.cpp)"),
        at_writes_done("zswapped_at_writes_done", "memory.stat zswapped (pages stored, as bytes)", &MemcgStat::zswapped,
                       "zswap_store (kernel/swap.cpp)"),
        metric("memory_current_after_pageout", "bytes", S::MemcgFile, "memory.current after the last page-out", "mm/memcg.cpp",
               [](const RunView& v, unsigned) { return json(sio(v).memcg_after_pageout); })
            .in(SWAPINOUT),
        metric("ram_used_after_pageout", "bytes", S::Machine, "machine RAM in use after the last page-out (zram pool included)",
               "Kernel::ram_pages (kernel/zram.cpp)", [](const RunView& v, unsigned) { return json(sio(v).ram_after_pageout); })
            .in(SWAPINOUT),
    };
}

const std::string SIZE = "<size>";

}  // namespace

const char* source_name(Source s)
{
    switch (s) {
    case Source::Benchmark: return "benchmark output";
    case Source::PerfStat: return "perf stat";
    case Source::Machine: return "machine";
    case Source::MemcgFile: return "memory cgroup file";
    case Source::MemoryStat: return "memory.stat";
    case Source::MemoryEvents: return "memory.events";
    case Source::Vmstat: return "/proc/vmstat";
    case Source::MthpStats: return "mTHP sysfs stats";
    case Source::ZramMmStat: return "zram mm_stat";
    }
    return "";
}

const std::vector<Metric>& metrics()
{
    static const std::vector<Metric> table = make_table();
    return table;
}

const Metric* find_metric(const std::string& name)
{
    static const std::regex size("_[0-9]+kB$");
    std::string key = std::regex_replace(name, size, "_" + SIZE);
    for (const Metric& m : metrics())
        if (m.name == key)
            return &m;
    return nullptr;
}

std::string sized(const std::string& name, unsigned order)
{
    std::string out = name;
    size_t at = out.find(SIZE);
    if (at != std::string::npos)
        out.replace(at, SIZE.size(), mm::order_size_name(order));
    return out;
}

bool has_label(const Metric& m, const std::string& metric, const std::string& label)
{
    std::string size;   // "64kB" of zswpout_64kB
    if (m.per_size())
        size = metric.substr(metric.rfind('_') + 1);
    std::vector<std::string> sizes = {size};
    if (size.size() > 2) {   // 2048kB is also printed as 2MB
        long kb = std::atol(size.c_str());
        if (kb >= 1024 && kb % 1024 == 0)
            sizes.push_back(std::to_string(kb / 1024) + "MB");
    }
    for (std::string l : m.labels)
        for (const std::string& s : sizes) {
            std::string x = l;
            size_t at = x.find(SIZE);
            if (at != std::string::npos)
                x.replace(at, SIZE.size(), s);
            if (x == label)
                return true;
        }
    return false;
}

json metric_values(const RunView& v)
{
    json out = json::object();
    const auto& orders = v.k.cfg().mthp_orders;
    for (const Metric& m : metrics()) {
        if (!(m.workloads & v.workload()))
            continue;
        if (!m.per_size()) {
            out[m.name] = m.get(v, 0);
            continue;
        }
        for (unsigned order = 1; order < mm::NR_ORDERS; order++) {
            bool enabled = std::find(orders.begin(), orders.end(), order) != orders.end();
            bool any = false;
            for (uint64_t c : v.k.vm.mthp[order])
                any |= c != 0;
            if (enabled || any)
                out[sized(m.name, order)] = m.get(v, order);
        }
    }
    return out;
}

Fmt fmt_of(const std::string& metric)
{
    if (const Metric* m = find_metric(metric))
        return m->fmt;
    auto ends = [&](const char* s) {
        std::string x(s);
        return metric.size() > x.size() && metric.compare(metric.size() - x.size(), x.size(), x) == 0;
    };
    return ends("_s") ? Fmt::Seconds : ends("_pct") ? Fmt::Percent : Fmt::Count;
}

bool higher_is_better(const std::string& metric)
{
    if (const Metric* m = find_metric(metric))
        return m->fmt == Fmt::Rate;
    // Published-only metrics (no model counter yet): throughputs and requests per second.
    return metric.find("throughput") != std::string::npos || metric == "rps";
}

std::vector<Row> rows_for(const json& result)
{
    const json& res = result.at("metrics");
    // The workload whose own metrics the result holds.
    unsigned w = USEMEM;
    for (const Metric& m : metrics())
        if ((m.workloads == SWAPINOUT || m.workloads == KBUILD || m.workloads == REDIS) && res.contains(m.name))
            w = m.workloads;
    std::vector<const Metric*> shown;
    for (const Metric& m : metrics())
        if (m.shown & w)
            shown.push_back(&m);
    std::vector<Row> rows;
    for (size_t i = 0; i < shown.size();) {
        if (!shown[i]->per_size()) {
            rows.push_back({shown[i]->name, shown[i]->fmt});
            i++;
            continue;
        }
        size_t end = i;
        while (end < shown.size() && shown[end]->per_size())
            end++;
        for (unsigned order = 1; order < mm::NR_ORDERS; order++)
            if (res.contains(sized(shown[i]->name, order)))
                for (size_t j = i; j < end; j++)
                    rows.push_back({sized(shown[j]->name, order), shown[j]->fmt});
        i = end;
    }
    return rows;
}

std::optional<double> model_value(const json& result, const std::string& metric)
{
    const json& m = result.at("metrics");
    if (m.contains(metric))
        return m[metric].get<double>();
    // A per-size mTHP stat of a size that is not enabled: the kernel's counter reads 0.
    for (unsigned st = 0; st < mm::NR_MTHP_STATS; st++) {
        std::string p = std::string(mm::mthp_stat_name(mm::MthpStat(st))) + "_";
        if (metric.rfind(p, 0) == 0 && metric.size() > 2 && metric.compare(metric.size() - 2, 2, "kB") == 0)
            return 0.0;
    }
    return std::nullopt;
}

}  // namespace swapsim::report
