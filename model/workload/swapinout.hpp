// A swap-out / swap-in loop, as seed 003's "swapping out and swapping in 100MiB of typical
// anonymous data 100 times": one process; each round mmaps `size` bytes of private anonymous
// memory, writes data of the scenario's kind (faulting folios of the enabled mTHP sizes),
// pages it all out with madvise(MADV_PAGEOUT), reads it all back (swap-in faults), munmaps.
// Metrics: the time of the MADV_PAGEOUT calls (swap-out) and of the read pass (swap-in),
// summed over rounds, and the compression ratio: the swap device's compressed bytes over
// the bytes it stored, summed over rounds after each page-out (zram: compr_data_size /
// orig_data_size of mm_stat).
// Granularity: the write and read passes advance sim.write_chunk bytes per step.
// Leaves out: the program's own footprint, timing-call overhead.
#pragma once

#include <cstdint>

#include "kernel/kernel.hpp"
#include "mm/zram.hpp"

namespace swapsim::workload {

struct SwapinoutConfig {
    uint64_t size = 100ull << 20;
    int rounds = 100;
    uint64_t chunk = 256 * 1024;
    double user_bw = 1e10;        // bytes/s of the user write and read loops
    int cpu = 0;
};

struct SwapinoutResult {
    double write_s = 0, swap_out_s = 0, swap_in_s = 0, t_end = 0;
    uint64_t orig_bytes = 0, compr_bytes = 0;   // summed over rounds, after each page-out
    mm::ZramStats zram_after_pageout;           // mm_stat after the last page-out
    uint64_t zram_mem_used_after_pageout = 0;   // bytes
    uint64_t memcg_after_pageout = 0, ram_after_pageout = 0;   // bytes
    kernel::Kernel::Census census_after_pageout;   // where the written pages are, last round
};

class Swapinout {
public:
    Swapinout(kernel::Kernel& k, const SwapinoutConfig& cfg);
    void run(kernel::Clock& clk);
    int pid() const { return pid_; }
    const SwapinoutConfig& cfg() const { return cfg_; }
    const SwapinoutResult& result() const { return res_; }

private:
    void pass(kernel::Ctx& c, bool write);
    kernel::Kernel& k_;
    SwapinoutConfig cfg_;
    int pid_ = 0;
    uint32_t mm_ = 0;
    SwapinoutResult res_;
};

}  // namespace swapsim::workload
