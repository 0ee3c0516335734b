#include "run/run.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>

#include <unistd.h>

#include <sys/resource.h>

#include <fmt/format.h>

#include "engine/sim.hpp"
#include "kernel/kernel.hpp"
#include "report/invariants.hpp"
#include "report/result.hpp"
#include "scenario/settings.hpp"
#include "run/trace.hpp"
#include "scenario/compressors.hpp"
#include "workload/kbuild.hpp"
#include "workload/redis.hpp"
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

// The run's budget of wall-clock time and memory, watched from a thread of its own (a
// runaway simulation may never come back to a point where it could check): past either, the
// caller's clean-up runs, one line names the limit, and the process exits 1.
class Budget {
public:
    Budget(const scenario::Settings& st, const RunOptions& opt, const Config& cfg)
        : wall_(st.wall_limit), rss_(st.rss_limit), opt_(opt), wall_s_(cfg.show("sim.wall_limit")),
          rss_s_(cfg.show("sim.rss_limit")), thread_([this] { watch(); })
    {
    }
    ~Budget()
    {
        {
            std::lock_guard<std::mutex> l(m_);
            stop_ = true;
        }
        cv_.notify_all();
        thread_.join();
    }

private:
    static double rss_bytes()
    {
        long pages = 0, resident = 0;
        if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
            if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2)
                resident = 0;
            std::fclose(f);
        }
        return double(resident) * double(::sysconf(_SC_PAGESIZE));
    }
    [[noreturn]] void exceeded(const std::string& what)
    {
        if (opt_.on_budget)
            opt_.on_budget();
        std::fprintf(stderr, "swapsim run: %s: %s\n", opt_.source.c_str(), what.c_str());
        std::fflush(stderr);
        std::_Exit(1);
    }
    void watch()
    {
        auto t0 = std::chrono::steady_clock::now();
        std::unique_lock<std::mutex> l(m_);
        while (!cv_.wait_for(l, std::chrono::milliseconds(50), [this] { return stop_; })) {
            double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            if (wall > wall_)
                exceeded(fmt::format("$.sim.wall_limit: the run took more than {} of wall-clock time; raise it "
                                     "(--set sim.wall_limit=...) or make the scenario smaller",
                                     wall_s_));
            double rss = rss_bytes();
            if (rss > rss_)
                exceeded(fmt::format("$.sim.rss_limit: the run used more than {} of memory ({:.0f} MiB resident); "
                                     "raise it (--set sim.rss_limit=...) or make the scenario smaller",
                                     rss_s_, rss / 1048576));
        }
    }
    double wall_, rss_;
    const RunOptions& opt_;
    std::string wall_s_, rss_s_;
    std::mutex m_;
    std::condition_variable cv_;
    bool stop_ = false;
    std::thread thread_;   // last: starts once the rest is set
};

// The result's physical invariants (report/invariants.hpp); a broken one is an internal error.
void check_result(const nlohmann::json& r, const kernel::KConfig& kc, size_t cpus)
{
    report::Limits lim;
    lim.cpus = double(cpus);
    const double unit_bytes = double(kc.page_unit) * double(mm::PAGE_SIZE);   // sim.page_unit
    lim.ram_bytes = double(kc.dram_pages) * unit_bytes;
    lim.memcg_max = kc.memcg_max == UINT64_MAX ? INFINITY : double(kc.memcg_max) * unit_bytes;
    std::string bad = report::check_result(r, lim);
    if (!bad.empty())
        throw InternalError("invariant broken at the end of the run: " + bad);
}

}  // namespace

nlohmann::json run_scenario(const Config& cfg, const std::string& scenario_text, const RunOptions& opt)
{
    auto wall0 = std::chrono::steady_clock::now();
    const scenario::Settings set = scenario::fill_settings(cfg);
    Budget budget(set, opt, cfg);
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
        if (tracer) {
            tracer->sample(engine::Sim::now());
            tracer->close();
        }
        if (timed_out)
            throw std::runtime_error("simulated time limit reached");
        if (opt.yield_checks)
            *opt.yield_checks = k.yield_checks;
        if (opt.check_invariants) {
            std::string bad = k.check_invariants();
            if (!bad.empty())
                throw InternalError("invariant broken at the end of the run: " + bad);
        }
    };
    if (set.workload == scenario::WorkloadType::Swapinout) {
        workload::Swapinout si(k, set.swapinout);
        sim.spawn("swapinout", set.swapinout.cpu, [&] { si.run(clock); });
        run_watched();
        double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
        nlohmann::json r = report::build_result(cfg, scenario_text, k, si, wall);
        if (opt.check_invariants)
            check_result(r, set.kernel, 1);
        return r;
    }
    if (set.workload == scenario::WorkloadType::Kbuild) {
        workload::KbuildConfig kb = set.kbuild;
        kb.profile = workload::kbuild_profile();
        kb.object_bytes = workload::kbuild_object_bytes();
        kb.cpus = hw::place_tasks(kc.topo, set.cpus, kb.jobs);
        workload::Kbuild kbuild(k, kb);
        EngineBarrier done(kb.jobs), walked(kb.jobs);
        for (int s = 0; s < kb.jobs; s++)
            sim.spawn("make-slot-" + std::to_string(s), kb.cpus[size_t(s)],
                      [&, s] { kbuild.run_slot(s, clock, done, &walked); });
        run_watched();
        double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
        return report::build_result(cfg, scenario_text, k, kbuild, wall);
    }
    if (set.workload == scenario::WorkloadType::Redis) {
        workload::Redis redis(k, set.redis);
        EngineBarrier forked(2);   // the BGSAVE child's task starts at the server's fork
        sim.spawn("redis-server", set.redis.cpu, [&] { redis.run_server(clock, forked); });
        if (set.redis.bgsave)
            sim.spawn("redis-rdb-bgsave", set.redis.child_cpu, [&] { redis.run_child(clock, forked); });
        run_watched();
        double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
        return report::build_result(cfg, scenario_text, k, redis, wall);
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
    nlohmann::json r = report::build_result(cfg, scenario_text, k, um, wall);
    if (opt.check_invariants)
        check_result(r, set.kernel, set.cpus.size());
    return r;
}

}  // namespace swapsim::run
