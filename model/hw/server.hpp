// A queue in front of `c` identical servers (device engines, an SSD's media).
//
// Models: a job arriving at t takes the server whose timeline (BusyTimeline: first long
// enough idle gap at or after t) starts it earliest, and holds that server. Jobs submitted in
// time order queue FIFO on the server that frees first (exact); tasks that plan ahead of the
// engine's clock may use an earlier gap.
// Granularity: one call per job; busy intervals are kept per server and dropped once they end
// before prune(now). Also keeps the queue-wait histogram and busy time.
// Leaves out: priorities, preemption, a job moving to another server once queued.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "hw/timeline.hpp"

namespace swapsim::hw {

struct Grant {
    double start = 0, end = 0;
    int server = 0;
};

// Log2 histogram of waits in ns: bucket k counts waits in [2^(k-1), 2^k) ns, bucket 0 = 0 ns.
struct WaitHistogram {
    std::array<uint64_t, 40> buckets{};
    void add(double wait_s);
};

class ServerPool {
public:
    explicit ServerPool(int servers = 1);
    Grant submit(double t, double service);
    double earliest_free() const;
    int servers() const { return int(busy_iv_.size()); }
    // Forget busy intervals that end before `now`: no job can arrive earlier any more.
    void prune(double now);
    double busy_s() const { return busy_; }
    uint64_t jobs() const { return jobs_; }
    double wait_s() const { return wait_; }
    const WaitHistogram& waits() const { return hist_; }

private:
    std::vector<BusyTimeline> busy_iv_;   // per server
    double pruned_ = 0;
    double busy_ = 0, wait_ = 0;
    uint64_t jobs_ = 0;
    WaitHistogram hist_;
};

}  // namespace swapsim::hw
