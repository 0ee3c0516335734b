// Registry rows of the platform the engine builds (engine/sim.hpp): SMT and memory bandwidth.
#include "scenario/param_table.hpp"

namespace swapsim::scenario {

void add_platform_costs(Table& t)
{
    t.real(Category::Cost, "cost.cpu.smt_yield", "", 1.23, 1.0, 2.0, "throughput of a core with both SMT threads busy, relative to one thread",
           "Intel Hyper-Threading: typically +15-30%; 1.23 is where the fits up to 857251f settled inside that range. Not fitted since busy-waiting stopped taking a share of the core: a fit then ran it to 1.0 (no gain), to make up a spread between processes that the model lacks (README)", true).to(section::platform, &engine::PlatformSpec::smt_yield);
    t.rate(Category::Cost, "cost.mem.socket_bw", 200e9, "bytes/s of clear and write traffic one socket's memory controllers sustain", "Sapphire Rapids: 8 x DDR5-4800 = 307 GB/s peak per socket; ~2/3 for writes", true).to(section::platform, &engine::PlatformSpec::dram_bw);
}

}  // namespace swapsim::scenario
