#include "run/run.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <stdexcept>

#include <sys/resource.h>

#include <fmt/format.h>

#include "engine/sim.hpp"
#include "kernel/kernel.hpp"
#include "report/result.hpp"
#include "run/trace.hpp"
#include "scenario/compressors.hpp"
#include "workload/swapinout.hpp"
#include "workload/usemem.hpp"

namespace swapsim::run {

using scenario::Config;

namespace {

uint64_t pages_or_max(double bytes)
{
    if (std::isinf(bytes))
        return UINT64_MAX;
    return uint64_t(bytes) / mm::PAGE_SIZE;
}

// Clock over the SimGrid engine: CPU time as execs on the task's core, sleeps as sleeps.
class EngineClock final : public kernel::Clock {
public:
    explicit EngineClock(engine::Sim& s) : sim_(s) {}
    double now() const override { return engine::Sim::now(); }
    void cpu(int cpu, double s) override { sim_.cpu_on(cpu, s); }
    void mem(int cpu, double bytes, double rate) override { sim_.mem_on(cpu, bytes, rate); }
    void sleep_until(double t) override { engine::Sim::sleep_until(t); }
    void park(int pid) override { sim_.park(pid); }
    void unpark(int pid) override { sim_.unpark(pid); }

private:
    engine::Sim& sim_;
};

class EngineBarrier final : public workload::Barrier {
public:
    explicit EngineBarrier(int n) : b_(n) {}
    void wait() override { b_.wait(); }

private:
    engine::Sim::Barrier b_;
};

}  // namespace

// zram: its codec on the workload's data, per block order, from the measured table; usemem
// data keeps the fitted 4 KiB costs of cost.compress.<codec>.usemem_* and scales them by the
// table's block-size trend.
static void zram_config(const Config& cfg, kernel::KConfig& k)
{
    kernel::ZramConfig& z = k.zram;
    z.multi_order = cfg.b("swap.zram.multi_pages") ? unsigned(cfg.i("swap.zram.multi_pages_order")) : 0;
    z.same_hit = cfg.num("cost.zram.same_check_hit_ns") * 1e-9;
    z.same_miss = cfg.num("cost.zram.same_check_miss_ns") * 1e-9;
    z.write_page = cfg.num("cost.zram.write_page") / k.hz;
    z.read_page = cfg.num("cost.zram.read_page") / k.hz;
    z.free_page = cfg.num("cost.zram.free_page") / k.hz;
    const bool usemem = cfg.s("workload.type") == "usemem";
    const std::string codec = cfg.s("swap.zram.comp_algorithm");
    const std::string kind = usemem ? "usemem" : cfg.s("workload.swapinout.data");
    z.data.zero_share = usemem ? 0 : cfg.num("workload.swapinout.zero_pages") / 100;
    // Table ns on one vCPU of the measurement VM, taken at 2.5 GHz as the usemem costs are.
    const double s_per_ns = cfg.num("cost.compress.kernel_factor") * 1e-9 * 2.5e9 / k.hz;
    const scenario::CodecPoint base = scenario::codec_point(codec, kind, 0);
    double len_scale = 1, comp_scale = s_per_ns, decomp_scale = s_per_ns;
    if (kind == "usemem") {
        std::string p = "cost.compress." + codec + ".usemem_";
        len_scale = cfg.num(p + "len") / (base.ratio * double(mm::PAGE_SIZE));
        comp_scale = cfg.num(p + "comp") / k.hz / (base.comp_ns);
        decomp_scale = cfg.num(p + "decomp") / k.hz / (base.decomp_ns);
    }
    for (unsigned o = 0; o < z.data.kind.size(); o++) {
        scenario::CodecPoint a = scenario::codec_point(codec, kind, o), zp = scenario::codec_point(codec, "zero", o);
        z.data.kind[o] = {a.ratio * len_scale, a.comp_ns * comp_scale, a.decomp_ns * decomp_scale};
        z.data.zero[o] = {zp.ratio, zp.comp_ns * s_per_ns, zp.decomp_ns * s_per_ns};
    }
}

kernel::KConfig kernel_config(const Config& cfg)
{
    kernel::KConfig k;
    k.topo.sockets = int(cfg.i("machine.sockets"));
    k.topo.cores_per_socket = int(cfg.i("machine.cores_per_socket"));
    k.topo.threads_per_core = int(cfg.i("machine.threads_per_core"));
    k.hz = cfg.num("machine.cpu_freq");
    k.reclaim_slice = cfg.num("sim.reclaim_slice");
    k.dram_pages = pages_or_max(cfg.num("machine.dram"));
    k.memcg_high = pages_or_max(cfg.num("kernel.memcg.high"));
    k.memcg_max = pages_or_max(cfg.num("kernel.memcg.max"));
    k.memcg_swap_max = pages_or_max(cfg.num("kernel.memcg.swap_max"));
    k.membind = int(cfg.i("workload.membind"));
    for (double sz : cfg.list("kernel.mthp.enabled")) {
        unsigned order = 0;
        while ((mm::PAGE_SIZE << order) < uint64_t(sz))
            order++;
        if (order)
            k.mthp_orders.push_back(order);
    }
    std::sort(k.mthp_orders.rbegin(), k.mthp_orders.rend());
    k.thp_swap = cfg.b("kernel.thp_swap");
    k.swappiness = unsigned(cfg.i("kernel.swappiness"));
    k.hz_jiffies = unsigned(cfg.i("kernel.hz"));
    k.page_cluster = unsigned(cfg.i("kernel.page_cluster"));
    k.vma_ra = cfg.b("kernel.vma_ra_enabled");
    k.swap_cache = cfg.s("kernel.swap_cache") == "swap_table" ? kernel::SwapCacheImpl::SwapTable
                                                               : kernel::SwapCacheImpl::XArray;
    k.swap_alloc = cfg.s("kernel.swap_alloc") == "cluster_lock" ? kernel::SwapAllocLock::ClusterLock
                                                                 : kernel::SwapAllocLock::SiLock;
    k.slot_cache = cfg.b("kernel.swap_slot_cache");
    k.swap_batch = unsigned(cfg.i("kernel.swap_batch"));
    k.lru_add_batch = unsigned(cfg.i("kernel.lru_add_batch"));
    k.zswap = cfg.b("kernel.zswap.enabled");
    k.max_pool_percent = unsigned(cfg.i("kernel.zswap.max_pool_percent"));
    k.accept_threshold_percent = unsigned(cfg.i("kernel.zswap.accept_threshold_percent"));
    k.zswap_large = cfg.b("kernel.zswap.large_folios");
    k.zswap_writeback = cfg.b("kernel.zswap.writeback");
    k.zswap_entry_charge = unsigned(cfg.i("kernel.zswap.entry_charge"));
    k.zs_chain_size = unsigned(cfg.i("kernel.zsmalloc.chain_size"));
    const std::string& dev = cfg.s("swap.device");
    k.dev = dev == "pmem" ? kernel::SwapDev::Pmem : dev == "none" ? kernel::SwapDev::None
          : dev == "zram" ? kernel::SwapDev::Zram : kernel::SwapDev::Ssd;
    k.swap_slots = pages_or_max(cfg.num(k.dev == kernel::SwapDev::Zram ? "swap.zram.disksize" : "swap.size"));
    k.mthp_alloc_fail = cfg.num("kernel.mthp.alloc_fail_percent") / 100;
    k.swapfile_slots = uint64_t(cfg.num("swap.swapfile_free") / double(mm::PAGE_SIZE));
    k.ssd.write_bw = cfg.num("swap.ssd.write_bw");
    k.ssd.read_bw = cfg.num("swap.ssd.read_bw");
    k.ssd.latency = cfg.num("swap.ssd.latency");
    k.ssd.nr_requests = int(cfg.i("swap.ssd.nr_requests"));
    k.ssd.max_request = uint64_t(cfg.num("swap.ssd.max_request"));

    const double hz = k.hz;
    auto cyc = [&](const char* n) { return cfg.num(n) / hz; };
    auto ns = [&](const char* n) { return cfg.num(n) * 1e-9; };
    kernel::Costs& c = k.c;
    c.fault = cyc("cost.fault.base");
    c.fault_per_pte = cyc("cost.fault.per_pte");
    c.alloc_folio = cyc("cost.alloc.folio");
    c.alloc_per_page = cyc("cost.alloc.per_page");
    c.zone_lock_batch = cyc("cost.zone.lock_hold_batch");
    c.zone_lock_buddy = cyc("cost.zone.lock_hold_buddy");
    c.zero_bw = cfg.num("cost.mem.clear_bw");
    c.user_write_bw = cfg.num("cost.user.write_bw");
    c.charge = cyc("cost.memcg.charge");
    c.charge_stock = cyc("cost.memcg.charge_stock");
    c.counter_hold = ns("cost.memcg.counter_hold_ns");
    c.lru_lock_base = cyc("cost.lru.lock_base");
    c.lru_add_per_folio = cyc("cost.lru.add_per_folio");
    c.isolate_per_folio = cyc("cost.lru.isolate_per_folio");
    c.putback_per_folio = cyc("cost.lru.putback_per_folio");
    c.reclaim_entry = cyc("cost.reclaim.entry");
    c.shrink_round = cyc("cost.reclaim.round");
    c.rmap_walk = cyc("cost.rmap.walk");
    c.rmap_per_pte = cyc("cost.rmap.per_pte");
    c.tlb_flush = ns("cost.tlb.shootdown_ns");
    c.tlb_irq = ns("cost.tlb.irq_ns");
    c.add_to_swap = cyc("cost.swap.add_to_swap");
    c.si_lock_hold = cyc("cost.swap.lock_hold");
    c.si_lock_per_slot = cyc("cost.swap.lock_per_slot");
    c.si_alloc_per_range = cyc("cost.swap.alloc_per_range");
    c.si_free_per_range = cyc("cost.swap.free_per_range");
    c.swap_cache_add = cyc("cost.swapcache.add");
    c.swap_cache_del = cyc("cost.swapcache.del");
    c.swap_cache_per_page = cyc("cost.swapcache.per_page");
    c.swap_cache_lookup = cyc("cost.swapcache.lookup");
    c.free_folio = cyc("cost.folio.free");
    c.split_folio = cyc("cost.folio.split_per_page");
    c.zswap_store_folio = cyc("cost.zswap.store_folio");
    c.zswap_store_page = cyc("cost.zswap.store_page");
    c.zswap_invalidate_page = cyc("cost.zswap.invalidate_page");
    c.zswap_tree_hold = cyc("cost.zswap.tree_hold");
    c.zs_class_hold = cyc("cost.zsmalloc.class_hold");
    c.zs_free_cold = cyc("cost.zsmalloc.free_cold");
    c.zs_copy_bw = cfg.num("cost.zsmalloc.copy_bw");
    c.list_lru_hold = cyc("cost.list_lru.hold");
    c.zswap_load_page = cyc("cost.zswap.load_page");
    c.bio_submit = cyc("cost.bio.submit");
    c.bio_per_folio = cyc("cost.bio.per_folio");
    c.pmem_bw = cfg.num("cost.pmem.bw");
    c.swapin_fault = cyc("cost.swapin.fault");
    c.zap_per_pte = cyc("cost.zap.per_pte");
    c.zap_per_folio = cyc("cost.zap.per_folio");
    c.zap_per_swap = cyc("cost.zap.per_swap");
    c.exit_mm = cyc("cost.exit.mm");
    c.lock_handoff = ns("cost.lock.handoff_ns");

    // The compressor on the workload's data (usemem writes each word's index).
    const std::string& comp = cfg.s("kernel.zswap.compressor");
    k.comp.name = comp;
    if (comp == "zstd" || comp == "lz4" || comp == "lzo-rle") {
        std::string base = "cost.compress." + comp + ".usemem_";
        k.comp.comp_len = unsigned(cfg.num(base + "len"));
        k.comp.comp_s = cfg.num(base + "comp") / hz;
        k.comp.decomp_s = cfg.num(base + "decomp") / hz;
    } else {
        // IAA: fixed Huffman (deflate-iaa) or canned tables; engine job times per 4 KiB page.
        std::string mode = comp == "deflate-iaa-canned" ? "canned" : "fixed";
        std::string c = "cost.iaa." + mode + ".";
        k.comp.hw = true;
        k.comp.comp_len = unsigned(cfg.num("cost.compress." + comp + ".usemem_len"));
        k.comp.comp_s = (cfg.num(c + "comp_base_ns") + 4 * cfg.num(c + "comp_ns_per_kb")) * 1e-9;
        k.comp.decomp_s = (cfg.num(c + "decomp_base_ns") + 4 * cfg.num(c + "decomp_ns_per_kb")) * 1e-9;
    }
    zram_config(cfg, k);
    k.zswap_batch = unsigned(cfg.i("kernel.zswap.batch_size"));
    kernel::IaaConfig& ic = k.iaa;
    ic.dev.devices_per_socket = int(cfg.i("machine.iaa.devices_per_socket"));
    ic.dev.comp_engines = int(cfg.i("machine.iaa.comp_engines"));
    ic.dev.decomp_engines = int(cfg.i("machine.iaa.decomp_engines"));
    ic.dev.wq_size = int(cfg.i("machine.iaa.wq_size"));
    ic.dev.per_package = cfg.s("kernel.iaa.distribute") == "per_package";
    if (!cfg.s("machine.iaa.offline").empty())
        ic.dev.offline = scenario::parse_cpulist(cfg.s("machine.iaa.offline"), ic.dev.devices_per_socket * k.topo.sockets);
    const std::string& sm = cfg.s("kernel.iaa.sync_mode");
    ic.mode = sm == "async" ? kernel::IaaMode::Async : sm == "async_irq" ? kernel::IaaMode::AsyncIrq : kernel::IaaMode::Sync;
    ic.verify = cfg.b("kernel.iaa.verify_compress");
    ic.submit = ns("cost.iaa.submit_ns");
    ic.crc = ns("cost.iaa.crc_ns");
    ic.irq_wake = ns("cost.iaa.irq_wake_ns");
    ic.irq_cpu = ns("cost.iaa.irq_cpu_ns");
    if (k.comp.hw && k.zswap && int(ic.dev.offline.size()) >= ic.dev.devices_per_socket * k.topo.sockets)
        throw std::runtime_error("every IAA device is offline: deflate-iaa has no device");
    return k;
}

nlohmann::json run_scenario(const Config& cfg, const std::string& scenario_text, const RunOptions& opt)
{
    auto wall0 = std::chrono::steady_clock::now();
    kernel::KConfig kc = kernel_config(cfg);

    engine::PlatformSpec ps;
    ps.sockets = kc.topo.sockets;
    ps.cores_per_socket = kc.topo.cores_per_socket;
    ps.threads_per_core = kc.topo.threads_per_core;
    ps.hz = kc.hz;
    ps.smt_yield = cfg.num("cost.cpu.smt_yield");
    ps.dram_bw = cfg.num("cost.mem.socket_bw");
    std::vector<std::string> args = {"swapsim"};
    args.insert(args.end(), opt.simgrid_args.begin(), opt.simgrid_args.end());
    std::vector<char*> argv;
    for (auto& a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    int argc = int(args.size());
    engine::Sim sim(&argc, argv.data(), ps, opt.verbose);

    kernel::Kernel k(kc);
    k.profile = opt.profile;
    EngineClock clock(sim);
    double time_limit = cfg.num("sim.time_limit");
    // Run the spawned tasks under a watchdog: a run that passes the time limit is a model
    // bug or a hopeless scenario. Then check the end-of-run invariants.
    auto run_watched = [&](const std::string& what) {
        bool timed_out = false;
        sim.spawn_daemon("watchdog", 0, [&] {
            engine::Sim::sleep_until(time_limit);
            timed_out = true;
            throw std::runtime_error(fmt::format("simulated time passed sim.time_limit ({}) before {}",
                                                 cfg.show("sim.time_limit"), what));
        });
        // Observers: they only read state, so the run is the same with them.
        std::unique_ptr<Tracer> tracer;
        if (!opt.trace.empty()) {
            tracer = std::make_unique<Tracer>(k, opt.trace);
            sim.spawn_daemon("trace", 0, [&] {
                for (long n = 0;; n++) {
                    engine::Sim::sleep_until(double(n) * opt.trace_step);
                    tracer->sample(double(n) * opt.trace_step);
                }
            });
        }
        if (opt.progress) {
            sim.spawn_daemon("progress", 0, [&] {
                auto last = std::chrono::steady_clock::now() - std::chrono::seconds(1);   // the first at once
                for (long n = 1;; n++) {
                    engine::Sim::sleep_until(double(n) * 0.05);
                    auto now = std::chrono::steady_clock::now();
                    if (now - last < std::chrono::milliseconds(200))
                        continue;
                    last = now;
                    std::fprintf(stderr, "\r%s: simulated %.1f s of at most %s (sim.time_limit) ", cfg.s("name").c_str(),
                                 engine::Sim::now(), cfg.show("sim.time_limit").c_str());
                    std::fflush(stderr);
                }
            });
        }
        sim.run();
        if (opt.progress) {
            std::fputs("\r\033[K", stderr);
            std::fflush(stderr);
        }
        if (tracer)
            tracer->sample(engine::Sim::now());
        if (timed_out)
            throw std::runtime_error("simulated time limit reached");
        if (opt.check_invariants) {
            std::string bad = k.check_invariants();
            if (!bad.empty())
                throw std::runtime_error("invariant violated at end of run: " + bad);
        }
    };
    if (cfg.s("workload.type") == "swapinout") {
        workload::SwapinoutConfig sc;
        sc.size = uint64_t(cfg.num("workload.swapinout.size")) / mm::PAGE_SIZE * mm::PAGE_SIZE;
        sc.rounds = int(cfg.i("workload.swapinout.rounds"));
        sc.chunk = uint64_t(cfg.num("sim.write_chunk"));
        sc.user_bw = kc.c.user_write_bw;
        sc.cpu = scenario::parse_cpulist(cfg.s("workload.cpus"), kc.topo.nr_cpus()).front();
        workload::Swapinout si(k, sc);
        sim.spawn("swapinout", sc.cpu, [&] { si.run(clock); });
        run_watched("the swapinout rounds finished");
        double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
        return report::build_result(cfg, scenario_text, k, si, wall);
    }
    workload::UsememConfig uc;
    uc.nproc = int(cfg.i("workload.usemem.nproc"));
    uc.size = uint64_t(cfg.num("workload.usemem.size")) / mm::PAGE_SIZE * mm::PAGE_SIZE;
    uc.sleep_s = cfg.num("workload.usemem.sleep");
    uc.sync_free = cfg.b("workload.usemem.sync_free");
    uc.repeat = int(cfg.i("workload.usemem.repeat"));
    uc.read_again = cfg.b("workload.usemem.read_again");
    uc.misc_anon = uint64_t(cfg.num("workload.usemem.misc_anon"));
    uc.write_chunk = uint64_t(cfg.num("sim.write_chunk"));
    uc.user_write_bw = kc.c.user_write_bw;
    uc.fork_cost = cfg.num("cost.fork_ns") * 1e-9;
    uc.wakeup_cost = cfg.num("cost.wakeup_ns") * 1e-9;
    uc.fork_jitter = cfg.num("sim.fork_jitter");
    uc.seed = uint64_t(cfg.i("seed"));
    std::vector<int> allowed = scenario::parse_cpulist(cfg.s("workload.cpus"), kc.topo.nr_cpus());
    std::vector<int> cpus = hw::place_tasks(kc.topo, allowed, uc.nproc);
    workload::Usemem um(k, uc, cpus);

    EngineBarrier start_b(uc.nproc);   // usemem rendezvous before writing, -y or not
    std::unique_ptr<EngineBarrier> free_b;
    if (uc.sync_free)
        free_b = std::make_unique<EngineBarrier>(uc.nproc);
    for (int i = 0; i < uc.nproc; i++) {
        sim.spawn("usemem-" + std::to_string(i), cpus[size_t(i)], [&, i] {
            um.run_child(i, clock, start_b, free_b.get());
        });
    }
    run_watched(fmt::format("the {} usemem processes finished (memory.high {}, {} each); give the cgroup more room or "
                            "raise sim.time_limit",
                            uc.nproc, cfg.show("kernel.memcg.high"), cfg.show("workload.usemem.size")));
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    return report::build_result(cfg, scenario_text, k, um, wall);
}

}  // namespace swapsim::run
