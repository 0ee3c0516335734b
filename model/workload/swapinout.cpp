#include "workload/swapinout.hpp"

#include <algorithm>

namespace swapsim::workload {

using namespace kernel;

Swapinout::Swapinout(Kernel& k, const SwapinoutConfig& cfg) : k_(k), cfg_(cfg)
{
    k.set_allowed_cpus({cfg.cpu});
    pid_ = int(k.nr_tasks());
    mm_ = k.mm_create(pid_, cfg.cpu);
    k.task_create(cfg.cpu, mm_);
    k.vma_create(mm_, cfg.size / mm::PAGE_SIZE);
}

// Write (or read) every page of the mapping in order, faulting what is not present.
void Swapinout::pass(Ctx& c, bool write)
{
    Task& t = c.task;
    const uint64_t pages = cfg_.size / mm::PAGE_SIZE;
    const uint64_t chunk = std::max<uint64_t>(1, cfg_.chunk / mm::PAGE_SIZE);
    for (uint64_t p = 0; p < pages;) {
        uint64_t step_end = std::min(pages, p + chunk);
        while (p < step_end) {
            pte_t pte = k_.mms[mm_].vmas[0].pte[p];
            uint64_t covered;
            if (pte == PTE_NONE || pte_swap(pte)) {
                covered = k_.handle_mm_fault(c, mm_, 0, uint32_t(p), write);
                if (t.memcg_nr_pages_over_high) {
                    c.flush();
                    k_.resume_user_mode(c);
                }
            } else {
                covered = k_.touch_present(mm_, 0, uint32_t(p));
            }
            covered = std::min(covered, pages - p);
            c.mem(double(covered * mm::PAGE_SIZE), cfg_.user_bw, false);
            p += covered;
        }
        c.flush();
    }
}

void Swapinout::run(Clock& clk)
{
    Task& t = k_.task(pid_);
    Ctx c(k_, t, clk);
    const uint32_t pages = uint32_t(cfg_.size / mm::PAGE_SIZE);
    for (int r = 0; r < cfg_.rounds; r++) {
        Vma& v = k_.mms[mm_].vmas[0];   // a fresh mmap each round
        v.data_gen = uint32_t(r);
        v.ra_addr = v.ra_win = v.ra_hits = 0;
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
        k_.exit_mmap_vma(c, mm_, 0);
        c.flush();
        res_.write_s += t1 - t0;
        res_.swap_out_s += t2 - t1;
        res_.swap_in_s += t3 - t2;
    }
    k_.exit_mmap(c, mm_);
    c.flush();
    res_.t_end = clk.now();
    k_.sched_sleep(t);
}

}  // namespace swapsim::workload
