// The SimGrid adapter: exact simulated times for hand-computable platforms. One Engine per
// process: ctest runs every TEST_CASE in its own process.
#include <catch2/catch.hpp>

#include <vector>

#include "engine/sim.hpp"

using swapsim::engine::PlatformSpec;
using swapsim::engine::Sim;

namespace {
Sim make(const PlatformSpec& p)
{
    static int argc = 1;
    static char arg0[] = "test";
    static char* argv[] = {arg0, nullptr};
    return Sim(&argc, argv, p, false);
}
}  // namespace

TEST_CASE("engine: one thread runs at the clock, two SMT siblings share the core by smt_yield", "[engine][timed]")
{
    PlatformSpec p;
    p.sockets = 1;
    p.cores_per_socket = 2;
    p.threads_per_core = 2;
    p.hz = 1e9;
    p.smt_yield = 1.3;
    Sim sim = make(p);
    std::vector<double> end(3);
    // CPUs 0 and 2 are the two threads of core 0; CPU 1 is core 1 alone.
    sim.spawn("a", 0, [&] { sim.cpu_on(0, 1.0); end[0] = Sim::now(); });
    sim.spawn("b", 2, [&] { sim.cpu_on(2, 1.0); end[1] = Sim::now(); });
    sim.spawn("c", 1, [&] { sim.cpu_on(1, 1.0); end[2] = Sim::now(); });
    sim.run();
    CHECK(end[0] == Approx(1.0 / 0.65));   // 1.3 shared by two: 0.65 each
    CHECK(end[1] == Approx(1.0 / 0.65));
    CHECK(end[2] == Approx(1.0));
}

TEST_CASE("engine: streaming writers share a socket's DRAM bandwidth", "[engine][timed]")
{
    PlatformSpec p;
    p.sockets = 1;
    p.cores_per_socket = 4;
    p.dram_bw = 10e9;
    Sim sim = make(p);
    std::vector<double> end(4);
    // Each alone would move 100 MB at 5 GB/s in 20 ms; four need 20 GB/s of a 10 GB/s socket.
    // The first two booked run at their full rate; the other two move once they are done.
    for (int i = 0; i < 4; i++)
        sim.spawn("w", i, [&, i] { sim.mem_on(i, 100e6, 5e9); end[size_t(i)] = Sim::now(); });
    sim.run();
    CHECK(end[0] == Approx(0.02));
    CHECK(end[1] == Approx(0.02));
    CHECK(end[2] == Approx(0.04));
    CHECK(end[3] == Approx(0.04));
}

TEST_CASE("engine: an exception in an actor stops the run and reaches the caller", "[engine]")
{
    PlatformSpec p;
    Sim sim = make(p);
    bool later = false;
    sim.spawn("bad", 0, [] { throw std::runtime_error("boom"); });
    sim.spawn("late", 0, [&] { Sim::sleep_for(10); later = true; });
    CHECK_THROWS_WITH(sim.run(), "boom");
    CHECK_FALSE(later);
}
