// A contended kernel spinlock (qspinlock) as a mean-field queue.
//
// Models: the expected spin of one acquisition from the lock's recent load: an M/G/1 wait
// (Pollaczek-Khinchine) W = (sum of hold^2 per second) / (2 (1 - rho)), rho = hold time per
// second over the last `window`, plus a cache-line handoff paid with probability rho. As in
// mean-value analysis of a closed system, an arriving CPU sees the others' load only: the
// load terms are scaled by (N-1)/N, N the CPUs that took the lock recently (one CPU alone
// never waits for itself). Spinning keeps the CPU busy (sys time).
// Granularity: acquisitions are recorded in time bins at the time they happen (a reclaim
// pass records its future acquisitions when it is planned); waits are expectations, not a
// per-acquisition queue. Leaves out: who waits behind whom, NUMA-unfair handoff.
#pragma once

#include <bitset>
#include <cstdint>
#include <string>
#include <vector>

namespace swapsim::hw {

struct LockStats {
    uint64_t acquisitions = 0;
    double hold_s = 0;   // total hold time
    double spin_s = 0;   // total expected spin time
};

class Lock {
public:
    static constexpr double kBin = 25e-6;        // bin width
    static constexpr unsigned kBins = 64;       // ring covering 1.6 ms
    static constexpr unsigned kWindowBins = 20; // load window: 500 us
    static constexpr double kMaxRho = 0.98;

    explicit Lock(double handoff_s = 0) : handoff_(handoff_s), bins_(kBins) {}

    static constexpr int kMaxCpus = 1024;

    // `n` acquisitions by `cpu` at time `t`, each holding `hold` seconds. Returns the expected
    // total spin (seconds) the caller burns for them, and records their hold as load.
    double acquire(double t, int cpu, double hold, unsigned n = 1);
    double rho(double t) const;   // load over the window ending at t
    const LockStats& stats() const { return st_; }
    void set_handoff(double s) { handoff_ = s; }

private:
    struct Bin {
        int64_t idx = -1;   // absolute bin number this slot holds
        double hold = 0, hold2 = 0;
    };
    Bin& bin(int64_t idx);
    void window(double t, double* hold, double* hold2);

    unsigned users(double t, int cpu);

    double handoff_;
    std::vector<Bin> bins_;
    LockStats st_;
    // Cached window sums for the window ending at bin `win_last_`.
    int64_t win_last_ = INT64_MIN;
    double win_hold_ = 0, win_hold2_ = 0;
    // CPUs seen in the current and the previous window period, and how many in their union.
    std::bitset<kMaxCpus> seen_cur_, seen_prev_;
    int64_t period_ = -1;
    unsigned nusers_ = 0;
};

}  // namespace swapsim::hw
