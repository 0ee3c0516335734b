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
#include "scenario/settings.hpp"
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
    kernel::KConfig k = scenario::fill_settings(cfg).kernel;
    // zram and the large-folio allocation what-if are still read by name (rows marked
    // .no_field in their params.cpp): to bind.
    if (k.dev == kernel::SwapDev::Zram)
        k.swap_slots = pages_or_max(cfg.num("swap.zram.disksize"));
    k.mthp_alloc_fail = cfg.num("kernel.mthp.alloc_fail_percent") / 100;
    zram_config(cfg, k);
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
        // kswapd per node and the oom_reaper: parked until global memory pressure wakes them.
        for (kernel::KThread& kt : k.kthreads())
            sim.spawn_daemon(kt.name, kt.cpu, [&clock, body = kt.body] { body(clock); });
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
        sc.user_bw = cfg.num("cost.user.write_bw");
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
    uc.user_write_bw = cfg.num("cost.user.write_bw");
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
