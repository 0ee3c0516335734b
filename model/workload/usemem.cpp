#include "workload/usemem.hpp"

#include <algorithm>
#include <random>

namespace swapsim::workload {

uint64_t credited_bytes(uint64_t size, int repeat, bool read_again)
{
    return size / 8 + size * uint64_t(std::max(0, repeat) + (read_again ? 1 : 0));
}

using namespace kernel;

namespace {
constexpr uint32_t VMA_MAIN = 0;          // the usemem mapping; the footprint VMAs follow
constexpr uint64_t MISC_VMA_PAGES = 3;    // stack, heap, libc and ld.so data: small VMAs
}

Usemem::Usemem(Kernel& k, const UsememConfig& cfg, const std::vector<int>& cpus)
    : k_(k), cfg_(cfg), written_(size_t(cfg.nproc), 0)
{
    // The parent forks the children one after the other; each fork's duration varies.
    // Then it wakes them, one after the other, from the start pipe's wait queue.
    std::mt19937_64 rng(cfg.seed);
    auto jittered = [&](double cost) {
        double u = double(rng() >> 11) * 0x1.0p-52 - 1.0;   // [-1, 1), the same on every libc
        return cost * (1.0 + cfg.fork_jitter * u);
    };
    auto one_after_another = [&](double cost) {
        std::vector<double> done;
        double t = 0;
        for (int i = 0; i < cfg.nproc; i++)
            done.push_back(t += jittered(cost));
        return done;
    };
    fork_done_ = one_after_another(cfg.fork_cost);
    woken_after_ = one_after_another(cfg.wakeup_cost);
    std::vector<int> allowed(cpus);
    std::sort(allowed.begin(), allowed.end());
    allowed.erase(std::unique(allowed.begin(), allowed.end()), allowed.end());
    k.set_allowed_cpus(allowed);
    for (int i = 0; i < cfg.nproc; i++) {
        int cpu = cpus[size_t(i)];
        Process proc(k, cpu);
        int pid = proc.pid();
        proc.mmap_anon(cfg.size / mm::PAGE_SIZE);
        for (uint64_t left = (cfg.misc_anon + mm::PAGE_SIZE - 1) / mm::PAGE_SIZE; left;) {
            uint64_t n = std::min(left, MISC_VMA_PAGES);
            proc.mmap_anon(n);
            left -= n;
        }
        proc_.push_back(proc);
        pids_.push_back(pid);
        UsememProc p;
        p.pid = pid;
        p.cpu = cpu;
        procs_.push_back(p);
    }
}

void Usemem::touch_range(Ctx& c, int i, uint32_t vma, uint64_t first, uint64_t npages, bool read, bool write)
{
    proc_[size_t(i)].access(c, vma, first, npages, read, write, cfg_.user_write_bw, cfg_.write_chunk);
}

void Usemem::run_child(int i, Clock& clk, Barrier& start_barrier, Barrier* free_barrier)
{
    UsememProc& pr = procs_[size_t(i)];
    Task& t = k_.task(pids_[size_t(i)]);
    clk.sleep_until(fork_done_[size_t(i)]);
    pr.t_start = clk.now();
    Ctx c(k_, t, clk);
    uint64_t pages = cfg_.size / mm::PAGE_SIZE;
    auto touch_footprint = [&](bool read) {
        const auto& vmas = k_.mms[t.mm].vmas;
        for (uint32_t v = VMA_MAIN + 1; v < vmas.size(); v++)
            touch_range(c, i, v, 0, vmas[v].pte.size(), read, true);
    };

    // Waits in user space (pipe reads, sleeps): the oom_reaper may reap the task meanwhile.
    auto user_wait = [&](auto&& wait) {
        t.user_wait = true;
        c.block(wait);
        t.user_wait = false;
    };
    // An OOM-killed child prints nothing; its pipes close, so the others' waits still end
    // (modelled as the killed child passing the rendezvous without work).
    auto alive = [&] { return !t.oom_victim; };

    touch_footprint(false);
    // ready(): poll() on the start pipe until the parent, having forked all, writes "GO".
    user_wait([&] { start_barrier.wait(); });
    c.block_until(clk.now() + woken_after_[size_t(i)]);
    for (int rep = 0; rep < cfg_.repeat && alive(); rep++)   // later passes verify each word before rewriting it
        touch_range(c, i, VMA_MAIN, 0, pages, rep > 0, true);
    if (cfg_.read_again && alive())
        touch_range(c, i, VMA_MAIN, 0, pages, true, false);
    c.flush();
    if (alive()) {
        // output_statistics: the time is taken, then printing touches stack and libc data.
        pr.t_done = clk.now();
        uint64_t usecs = std::max<uint64_t>(1, uint64_t(pr.t_done * 1e6));
        pr.rw_bytes = credited_bytes(cfg_.size, cfg_.repeat, cfg_.read_again);
        pr.throughput_kbps = ((pr.rw_bytes * 1000000ull) >> 10) / usecs;
        written_[size_t(i)] = 1;
    }
    if (++writes_done_ == cfg_.nproc) {
        at_writes_done_ = k_.memcg.stat();
        std::vector<uint32_t> mms;
        for (int j = 0; j < cfg_.nproc; j++)   // a child OOM-killed after its writes is being reaped
            if (written_[size_t(j)] && !k_.task(pids_[size_t(j)]).oom_victim)
                mms.push_back(k_.task(pids_[size_t(j)]).mm);
        census_at_writes_done_ = k_.census(mms);
    }
    if (alive()) {
        touch_footprint(true);
        double until = clk.now() + cfg_.sleep_s;
        c.flush();
        if (until > clk.now())
            user_wait([&] { clk.sleep_until(until); });
    }
    pr.killed = t.oom_victim;
    if (pr.killed) {   // SIGKILL: do_exit at once; the pipes it leaves closed end the others' waits
        written_[size_t(i)] = 0;
        k_.exit_mmap(c, t.mm);
        c.flush();
        k_.task_exited(t);
        if (free_barrier)
            c.block([&] { free_barrier->wait(); });
        pr.t_exit = clk.now();
        k_.sched_sleep(t);
        return;
    }
    if (free_barrier)
        user_wait([&] { free_barrier->wait(); });
    double t0 = clk.now();
    written_[size_t(i)] = 0;
    proc_[size_t(i)].munmap(c, VMA_MAIN);
    pr.free_us = (clk.now() - t0) * 1e6;
    proc_[size_t(i)].exit(c);
    pr.t_exit = clk.now();
}

}  // namespace swapsim::workload
