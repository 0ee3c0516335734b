// Registry rows of the workloads: usemem (workload/usemem.hpp): its command line, the CPUs it
// may use, its user-space costs and its simulated step; swapinout (workload/swapinout.hpp).
#include "scenario/param_table.hpp"

#include "mm/types.hpp"

namespace swapsim::scenario {
namespace {

// usemem maps whole pages.
uint64_t whole_pages(const Config& cfg, const ParamDef& d, const Settings&)
{
    return uint64_t(cfg.num(d.name)) / mm::PAGE_SIZE * mm::PAGE_SIZE;
}

std::vector<int> allowed_cpus(const Config& cfg, const ParamDef& d, const Settings& s)
{
    return parse_cpulist(cfg.s(d.name), s.kernel.topo.nr_cpus());
}

}  // namespace

void add_workload_params(Table& t)
{
    // ---- vm-scalability usemem ----
    t.choice(Category::Workload, "workload.type", "usemem", {"usemem", "swapinout"}, "workload model: vm-scalability usemem, or a swap-out/swap-in loop (MADV_PAGEOUT, then read back)", "swapsim").to(section::run, &Settings::workload);
    t.size(Category::Workload, "workload.swapinout.size", 100 * MiB, 4096, 1e13, "swapinout: bytes mapped, written, paged out (MADV_PAGEOUT) and read back per round", "seed 003: 100MiB").to(section::swapinout, &workload::SwapinoutConfig::size, whole_pages);
    t.integer(Category::Workload, "workload.swapinout.rounds", "", 100, 1, 100000, "swapinout: rounds of mmap, write, MADV_PAGEOUT, read, munmap", "seed 003: 100 times").to(section::swapinout, &workload::SwapinoutConfig::rounds);
    t.choice(Category::Workload, "workload.swapinout.data", "mixed", {"usemem", "mixed", "elf", "text", "random", "zero"}, "swapinout: data kind written (compressors.md section 3; its measured ratio and cost per codec and block size)", "compressors.md section 6: mixed is the default typical anonymous page").to(section::zram_settings, &ZramSettings::data);
    t.real(Category::Workload, "workload.swapinout.zero_pages", "%", 0, 0, 100, "swapinout: share of the written pages left zero (same-filled), spread over the mapping", "default: none besides the data kind's own").to(section::zram_settings, &ZramSettings::zero_pages_pct);
    t.integer(Category::Workload, "workload.usemem.nproc", "processes", 70, 1, 100000, "usemem -n: processes, one mapping each", "seed 000: usemem -n 70").to(section::usemem, &workload::UsememConfig::nproc);
    t.size(Category::Workload, "workload.usemem.size", 1.0 * GiB, 0, 1e14, "usemem size: bytes mapped and written per process", "seed 000: usemem 1g").to(section::usemem, &workload::UsememConfig::size, whole_pages);
    t.time(Category::Workload, "workload.usemem.sleep", 10, 0, 86400, "usemem -s: sleep after writing, memory still mapped", "seed 000: usemem -s 10").to(section::usemem, &workload::UsememConfig::sleep_s);
    t.flag(Category::Workload, "workload.usemem.init_time", true, "usemem --init-time: time from just before fork", "seed 000: --init-time").no_field("validated only: the model always times from just before the first fork (--init-time)");
    t.flag(Category::Workload, "workload.usemem.sync_rw", false, "usemem -y: each task mmaps before, not after, the start rendezvous (mmap is not timed: the same run)", "usemem default off").no_field("validated only: with or without -y the run is the same (mmap is not timed)");
    t.flag(Category::Workload, "workload.usemem.sync_free", false, "usemem -x: all tasks munmap together", "usemem default off").to(section::usemem, &workload::UsememConfig::sync_free);
    t.flag(Category::Workload, "workload.usemem.anonymous", true, "usemem -O: MAP_PRIVATE|MAP_ANONYMOUS", "seed 000: -O").no_field("validated only: the model maps anonymous memory only (semantics.cpp rejects false)");
    t.integer(Category::Workload, "workload.usemem.repeat", "", 1, 1, 1000, "usemem -r: passes; later passes read back (verify) then rewrite each word", "usemem default 1").to(section::usemem, &workload::UsememConfig::repeat);
    t.flag(Category::Workload, "workload.usemem.read_again", false, "usemem -Z: read the whole mapping after writing it", "usemem default off").to(section::usemem, &workload::UsememConfig::read_again);
    t.size(Category::Workload, "workload.usemem.misc_anon", 48 * KiB, 0, 1 * GiB, "private anon memory per process besides the mapping (stack, heap, libc data), touched at start and exit", "estimate: small static C program").to(section::usemem, &workload::UsememConfig::misc_anon);
    t.p({"workload.cpus", Kind::CpuList, "", "all", -inf, inf, false, false, {}, "logical CPUs the tasks may run on (taskset/numactl -C)", "default: all CPUs", Category::Workload}).to(section::run, &Settings::cpus, allowed_cpus);
    t.integer(Category::Workload, "workload.membind", "node", -1, -1, 15, "NUMA node for all memory (numactl -m), -1: local to the faulting CPU", "default: local allocation").to(section::kernel, &kernel::KConfig::membind);

}

// Simulation control of usemem's steps.
void add_workload_sim_params(Table& t)
{
    t.size(Category::Sim, "sim.write_chunk", 256 * KiB, 4096, 64 * MiB, "pages a task writes per simulated step when it owes no reclaim (accuracy vs speed)", "swapsim: halving it moves metrics < 2% (tests)").to(section::usemem, &workload::UsememConfig::write_chunk);
    t.real(Category::Sim, "sim.fork_jitter", "", 0.5, 0, 0.99, "spread of each fork's and start wakeup's duration around cost.fork_ns and cost.wakeup_ns, drawn from `seed`: seeds sample the timing noise between real runs", "swapsim: fork of a small process varies by tens of percent").to(section::usemem, &workload::UsememConfig::fork_jitter);
}

void add_workload_costs(Table& t)
{
    t.rate(Category::Cost, "cost.user.write_bw", 10e9, "bytes/s of usemem's store loop into freshly cleared pages", "estimate: cache-resident stores, 1 x 8 B per cycle peak", true).to(section::usemem, &workload::UsememConfig::user_write_bw);
    t.nanos("cost.fork_ns", 100000, "fork() of one usemem child by the parent", "estimate: fork of a small process ~100 us").to(section::usemem, &workload::UsememConfig::fork_cost);
    t.nanos("cost.wakeup_ns", 1500, "the parent's wakeup of one child polling the start pipe (try_to_wake_up of an idle CPU's task)", "estimate: remote wakeup via the wakelist IPI costs the waker ~1-2 us").to(section::usemem, &workload::UsememConfig::wakeup_cost);
}

}  // namespace swapsim::scenario
