#include "workload/swapinout.hpp"

#include <algorithm>

namespace swapsim::workload {

using namespace kernel;

Swapinout::Swapinout(Kernel& k, const SwapinoutConfig& cfg) : k_(k), cfg_(cfg), proc_(
    [&]() -> Process { k.set_allowed_cpus({cfg.cpu}); return Process(k, cfg.cpu); }())
{
    pid_ = proc_.pid();
    mm_ = proc_.mm();
    proc_.mmap_anon(cfg.size / mm::PAGE_SIZE);
}

// Write (or read) every page of the mapping in order, faulting what is not present.
void Swapinout::pass(Ctx& c, bool write)
{
    proc_.access(c, 0, 0, cfg_.size / mm::PAGE_SIZE, !write, write, cfg_.user_bw, cfg_.chunk);
}

void Swapinout::run(Clock& clk)
{
    Task& t = k_.task(pid_);
    Ctx c(k_, t, clk);
    const uint32_t pages = uint32_t(cfg_.size / mm::PAGE_SIZE);
    for (int r = 0; r < cfg_.rounds; r++) {
        Vma& v = k_.mms[mm_].vmas[0];   // a fresh mmap each round
        v.data_gen = uint32_t(r);
        v.ra_addr = kernel::Vma::RA_NONE;
        v.ra_win = v.ra_hits = 0;
        double t0 = clk.now();
        pass(c, true);
        double t1 = clk.now();
        k_.madvise_pageout(c, mm_, 0, 0, pages);
        c.flush();
        double t2 = clk.now();
        if (k_.zram) {
            const mm::ZramStats& z = k_.zram->stats();
            res_.orig_bytes += z.pages_stored * mm::PAGE_SIZE;
            res_.compr_bytes += z.compr_data_size;
            res_.zram_after_pageout = z;
            res_.zram_mem_used_after_pageout = k_.zram->pool().pool_pages() * mm::PAGE_SIZE;
        } else {
            mm::MemcgStat s = k_.memcg.stat();
            res_.orig_bytes += s.zswapped;
            res_.compr_bytes += s.zswap;
        }
        res_.memcg_after_pageout = uint64_t(k_.memcg.memory.usage) * mm::PAGE_SIZE;
        res_.ram_after_pageout = k_.ram_pages() * mm::PAGE_SIZE;
        res_.census_after_pageout = k_.census({mm_});
        pass(c, false);
        double t3 = clk.now();
        proc_.munmap(c, 0);
        res_.write_s += t1 - t0;
        res_.swap_out_s += t2 - t1;
        res_.swap_in_s += t3 - t2;
    }
    proc_.exit(c);
    res_.t_end = clk.now();
}

}  // namespace swapsim::workload
