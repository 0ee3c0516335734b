#include "workload/usemem.hpp"

#include <algorithm>
#include <cstring>
#include <random>

namespace swapsim::workload {

uint64_t credited_bytes(uint64_t size, int repeat, bool read_again)
{
    return size / 8 + size * uint64_t(std::max(0, repeat) + (read_again ? 1 : 0));
}

using namespace kernel;

namespace {
constexpr uint32_t VMA_MAIN = 0;          // the usemem mapping; the footprint VMAs follow
// The child's private anon pages besides the mapping, VMA by VMA in address order, as measured
// (calibration/workloads/usemem-footprint.json, tools/measure_usemem_footprint.py): 'h' a page
// the write loop keeps touching (do_access's call frames on the stack, usemem's globals, TLS),
// 'e' a page touched again only after the writes (statistics, munmap, exit: libc and ld.so
// data and bss), '.' no page. usemem .data, the TLS block, libc .data, libc .bss, an anon
// page of libc, ld.so .data, the stack. Pages still shared with the parent (the RELRO
// segments, 36 KiB) are not the child's and are left out: the first child to touch one swaps
// it in for all 71 mappers, a handful of faults a run.
constexpr const char* MISC_LAYOUT[] = {"h", "he.", "ee", "e...eee......", "e.", "ee",
                                       "...............................hh"};
constexpr uint64_t HOT_TOUCH_PAGES = mm::HPAGE_PMD_NR;
}

uint64_t misc_layout_pages()
{
    uint64_t n = 0;
    for (const char* v : MISC_LAYOUT)
        for (const char* p = v; *p; p++)
            n += *p != '.';
    return n;
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
        // The measured layout, repeated or cut to misc_anon's pages.
        std::vector<std::vector<char>> layout;
        for (uint64_t left = (cfg.misc_anon + mm::PAGE_SIZE - 1) / mm::PAGE_SIZE; left;) {
            for (const char* v : MISC_LAYOUT) {
                if (!left)
                    break;
                std::vector<char> roles;
                for (const char* p = v; *p && left; p++) {
                    roles.push_back(*p);
                    left -= *p != '.';
                }
                uint32_t vi = proc.mmap_anon(roles.size());
                k.mms[proc.mm()].vmas[vi].small_folios = true;   // copied from the parent at fork
                layout.push_back(std::move(roles));
            }
        }
        misc_.push_back(std::move(layout));
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
    // The footprint pages of the given roles ("he": all), VMA by VMA in address order.
    const auto& layout = misc_[size_t(i)];
    auto touch_footprint = [&](bool read, const char* roles) {
        for (size_t v = 0; v < layout.size() && !t.oom_victim; v++)
            for (size_t p = 0; p < layout[v].size() && !t.oom_victim; p++)
                if (layout[v][p] != '.' && std::strchr(roles, layout[v][p]))
                    touch_range(c, i, VMA_MAIN + 1 + uint32_t(v), p, 1, read, true);
    };
    // The write loop keeps its hot pages referenced (do_access is a call per word: its frame
    // is on the stack). The model touches them after every 2 MiB written, a PMD and so a step
    // boundary whatever the folio size and the write step (sim.write_chunk); a touch of a
    // present page costs nothing.
    auto write_pass = [&](bool verify) {
        for (uint64_t first = 0; first < pages && !t.oom_victim; first += HOT_TOUCH_PAGES) {
            touch_range(c, i, VMA_MAIN, first, std::min(HOT_TOUCH_PAGES, pages - first), verify, true);
            for (size_t v = 0; v < layout.size() && !t.oom_victim; v++)
                for (size_t p = 0; p < layout[v].size(); p++)
                    if (layout[v][p] == 'h')
                        proc_[size_t(i)].touch(c, VMA_MAIN + 1 + uint32_t(v), p, true);
        }
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

    touch_footprint(false, "he");
    // ready(): poll() on the start pipe until the parent, having forked all, writes "GO".
    user_wait([&] { start_barrier.wait(); });
    c.block_until(clk.now() + woken_after_[size_t(i)]);
    for (int rep = 0; rep < cfg_.repeat && alive(); rep++)   // later passes verify each word before rewriting it
        write_pass(rep > 0);
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
        touch_footprint(true, "e");
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
