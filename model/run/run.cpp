#include "run/run.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
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

nlohmann::json run_scenario(const Config& cfg, const std::string& scenario_text, const RunOptions& opt)
{
    auto wall0 = std::chrono::steady_clock::now();
    const scenario::Settings set = scenario::fill_settings(cfg);
    const kernel::KConfig& kc = set.kernel;
    const engine::PlatformSpec& ps = set.platform;
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
    // The invariants at every yield point (Kernel::check_yields): on in the test suite.
    k.check_yields = opt.check_yields || std::getenv("SWAPSIM_CHECK_YIELDS") != nullptr;
    EngineClock clock(sim);
    const double time_limit = set.time_limit;
    // Run the spawned tasks under a watchdog: a run that passes the time limit is a model
    // bug or a hopeless scenario. Then check the end-of-run invariants.
    auto run_watched = [&] {
        bool timed_out = false;
        sim.spawn_daemon("watchdog", 0, [&] {
            engine::Sim::sleep_until(time_limit);
            timed_out = true;
            throw std::runtime_error(scenario::time_limit_message(cfg));
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
                    std::fprintf(stderr, "\r%s ", scenario::progress_message(cfg, engine::Sim::now()).c_str());
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
        if (opt.yield_checks)
            *opt.yield_checks = k.yield_checks;
        if (opt.check_invariants) {
            std::string bad = k.check_invariants();
            if (!bad.empty())
                throw std::runtime_error("invariant violated at end of run: " + bad);
        }
    };
    if (set.workload == scenario::WorkloadType::Swapinout) {
        workload::Swapinout si(k, set.swapinout);
        sim.spawn("swapinout", set.swapinout.cpu, [&] { si.run(clock); });
        run_watched();
        double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
        return report::build_result(cfg, scenario_text, k, si, wall);
    }
    const workload::UsememConfig& uc = set.usemem;
    std::vector<int> cpus = hw::place_tasks(kc.topo, set.cpus, uc.nproc);
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
    run_watched();
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    return report::build_result(cfg, scenario_text, k, um, wall);
}

}  // namespace swapsim::run
