// The SimGrid adapter: the only code that includes <simgrid/s4u.hpp>.
//
// Platform: one SimGrid host per physical core. With SMT the host's speed is the core's
// combined throughput (smt_yield x clock) and every exec is bounded by the clock, so one
// busy thread runs at full clock and two busy siblings share the core (SimGrid's max-min
// sharing). Streaming memory work (clearing and writing pages) books its socket's DRAM
// bandwidth (engine/membw.hpp), at most the core's own rate, and sleeps until it is done: a
// SimGrid host for the memory controllers cost ~2 us more per transfer with dozens of
// writers sharing it (a sixth of a 70-process run's wall time).
// Time: seconds of simulated time; cpu(s) runs `s` seconds of work at full single-thread
// speed, sleep_for(s) blocks without using a CPU.
// One Engine per process (SimGrid 3.32 cannot re-create it): run one simulation per process.
#pragma once

#include <functional>
#include <string>

namespace swapsim::engine {

struct PlatformSpec {
    int sockets = 1, cores_per_socket = 1, threads_per_core = 1;
    double hz = 2.5e9;
    double smt_yield = 1.3;   // combined throughput of two busy siblings, relative to one thread
    double dram_bw = 250e9;   // bytes/s a socket's memory controllers sustain for streaming writes
};

class Sim {
public:
    // argv may carry SimGrid's own --cfg=... and --log=... options; quiet unless verbose.
    Sim(int* argc, char** argv, const PlatformSpec& p, bool verbose);
    ~Sim();
    Sim(const Sim&) = delete;
    Sim& operator=(const Sim&) = delete;

    // Start an actor on logical CPU `cpu` (its core's host).
    void spawn(const std::string& name, int cpu, std::function<void()> body);
    // An actor killed when every ordinary actor has ended (a watchdog).
    void spawn_daemon(const std::string& name, int cpu, std::function<void()> body);
    // Run to completion. Throws the first exception an actor raised, or on deadlock.
    void run();

    static double now();
    // Called from actors.
    static void cpu(double seconds);          // busy for `seconds` of full-speed work
    // Same, on logical CPU `cpu`'s core.
    void cpu_on(int cpu, double seconds);
    // `bytes` of streaming memory traffic from logical CPU `cpu`, at most `rate` bytes/s.
    void mem_on(int cpu, double bytes, double rate);
    static void sleep_for(double seconds);
    static void sleep_until(double t);

    static const char* simgrid_version();
    const PlatformSpec& spec() const { return spec_; }

    // A rendezvous of `n` actors (s4u::Barrier), created on first use inside an actor.
    class Barrier {
    public:
        explicit Barrier(int n);
        ~Barrier();
        void wait();

    private:
        struct Impl;
        Impl* impl_;
        int n_;
    };

    // Block the calling actor until unpark(id) (one s4u::Semaphore per id, made on first use).
    void park(int id);
    void unpark(int id);

private:
    struct Impl;
    Impl* impl_;
    PlatformSpec spec_;
};

}  // namespace swapsim::engine
