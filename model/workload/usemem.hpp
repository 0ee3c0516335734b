// vm-scalability usemem: N processes, each writing its own private anonymous mapping.
//
// Models (usemem.c): the parent forks N children in sequence (start_time taken just before,
// with --init-time); each child touches its small private footprint (stack, libc and ld.so
// data and bss, TLS: the measured layout of usemem.cpp, order-0 pages as fork's copies are)
// and waits in ready() until the parent has forked all and writes "GO" (with -y after its
// mmap, without before: mmap is not timed), then writes every 8-byte word once in order
// (do_rw_once, which keeps the footprint's hot pages referenced), repeats with a verifying
// read first (-r), reads again (-Z), prints its statistics (touching the footprint's other
// pages, in address order), sleeps (-s), optionally rendezvous (-x), and munmaps
// (timing_free) then exits. Left out: the pages still shared with the parent (RELRO), the
// parent's own faults, and the file-backed text (its page-cache misses are pgmajfault too). Throughput is usemem's own: ((bytes * 10^6) >> 10) / usecs with
// bytes = size/8 + size per pass, usecs from start_time.
// Granularity: a task advances `write_chunk` bytes per simulated step, and breaks the step at
// every fault that leaves memory.high debt (paid on return to user mode). The only random
// inputs are the durations of each fork and of each child's wakeup at "GO" (seeded), so that
// seeds sample the run-to-run noise.
// Spoken through workload::Process (process.hpp).
// Leaves out: -R random access, -j steps, threads, file mappings.
#pragma once

#include <cstdint>
#include <vector>

#include "kernel/kernel.hpp"
#include "workload/process.hpp"

namespace swapsim::workload {

struct UsememConfig {
    int nproc = 1;
    uint64_t size = 1ull << 30;
    double sleep_s = 0;
    bool sync_free = false;
    int repeat = 1;
    bool read_again = false;
    uint64_t misc_anon = 0;       // bytes of private footprint besides the mapping
    uint64_t write_chunk = 256 * 1024;
    double user_write_bw = 1e10;  // bytes/s of the write loop
    double fork_cost = 0;         // s per fork in the parent
    double wakeup_cost = 0;       // s per child the parent wakes at the start rendezvous
    double fork_jitter = 0;       // each fork (wakeup) takes fork_cost (wakeup_cost) * (1 + fork_jitter * u), u in [-1, 1)
    uint64_t seed = 1;            // draws u
};

// do_unit's byte credit, which usemem's throughput divides by its time: size/8 for the
// allocation, then size for each write pass (-r) and for the read-again pass (-Z).
uint64_t credited_bytes(uint64_t size, int repeat, bool read_again);

struct UsememProc {
    int pid = 0, cpu = 0;
    double t_start = 0, t_done = 0, t_exit = 0;
    double free_us = 0;           // timing_free: munmap of the mapping
    uint64_t throughput_kbps = 0; // as usemem prints it
    uint64_t rw_bytes = 0;
    bool killed = false;          // by the OOM killer: printed nothing
};

// Rendezvous of all processes (usemem's ready()/synchronize_tasks pipes).
class Barrier {
public:
    virtual ~Barrier() = default;
    virtual void wait() = 0;
};

class Usemem {
public:
    Usemem(kernel::Kernel& k, const UsememConfig& cfg, const std::vector<int>& cpus);

    // Body of child `i`; `free_barrier` may be null when not synchronised (-x).
    void run_child(int i, kernel::Clock& clk, Barrier& start_barrier, Barrier* free_barrier);

    const UsememConfig& cfg() const { return cfg_; }
    const std::vector<UsememProc>& procs() const { return procs_; }
    int pid_of(int i) const { return pids_[size_t(i)]; }
    // The memcg when the last process printed its statistics (all writes done).
    const mm::MemcgStat& stat_at_writes_done() const { return at_writes_done_; }
    // Then the pages of the processes that had written and not begun to munmap.
    const kernel::Kernel::Census& census_at_writes_done() const { return census_at_writes_done_; }

private:
    void touch_range(kernel::Ctx& c, int i, uint32_t vma, uint64_t first, uint64_t npages, bool read, bool write);

    kernel::Kernel& k_;
    UsememConfig cfg_;
    std::vector<int> pids_;
    std::vector<Process> proc_;
    std::vector<UsememProc> procs_;
    std::vector<double> fork_done_;   // when the parent's fork of child i returns
    std::vector<double> woken_after_; // from "GO" until child i runs
    int writes_done_ = 0;
    mm::MemcgStat at_writes_done_;
    kernel::Kernel::Census census_at_writes_done_;
    std::vector<char> written_;   // child i has written and not begun to munmap
    std::vector<std::vector<std::vector<char>>> misc_;   // child i's footprint VMAs: page roles
};

// Pages of one copy of the measured footprint layout (usemem.cpp): misc_anon's default.
uint64_t misc_layout_pages();

}  // namespace swapsim::workload
