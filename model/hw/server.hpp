// A FIFO queue in front of `c` identical servers (device engines, an SSD's media).
//
// Models: a job arriving at t starts on the server that frees first, at max(t, free time),
// and holds it for its service time. Exact for jobs submitted in time order; a job submitted
// later with an earlier time queues behind what was already granted.
// Granularity: one call per job. Also keeps the queue-wait histogram and busy time.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

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
    int servers() const { return int(free_.size()); }
    double busy_s() const { return busy_; }
    uint64_t jobs() const { return jobs_; }
    double wait_s() const { return wait_; }
    const WaitHistogram& waits() const { return hist_; }

private:
    std::vector<double> free_;
    double busy_ = 0, wait_ = 0;
    uint64_t jobs_ = 0;
    WaitHistogram hist_;
};

}  // namespace swapsim::hw
