// A block swap device behind blk-mq: request tags, a bandwidth-limited medium, and latency.
//
// Models: at most nr_requests requests in flight (blk_mq_get_tag sleeps in submit_bio when
// none is free); the medium transfers requests FIFO at the read or write bandwidth; each
// completes `latency` after its transfer ends. Adjacent swap bios submitted in one plug are
// merged by the caller up to max_request bytes.
// Granularity: one call per request. Leaves out: the I/O scheduler's reordering, write cache
// flushes, garbage collection slowdowns, queue depth limits below nr_requests.
#pragma once

#include <cstdint>
#include <queue>
#include <vector>

#include "hw/server.hpp"

namespace swapsim::hw {

struct BlockDevParams {
    double write_bw = 530e6, read_bw = 550e6;   // bytes/s
    double latency = 60e-6;                     // s
    int nr_requests = 64;
    uint64_t max_request = 1280 * 1024;
};

class BlockDevice {
public:
    explicit BlockDevice(const BlockDevParams& p);

    // Earliest time >= t a request tag is free (the submitter sleeps until then).
    double tag_free_at(double t);
    // Submit a request of `bytes` at time t (the caller holds a tag). Returns completion time.
    double submit(double t, uint64_t bytes, bool write);

    void prune(double now) { medium_.prune(now); }
    const BlockDevParams& params() const { return p_; }
    uint64_t bytes_written() const { return written_; }
    uint64_t bytes_read() const { return read_; }
    uint64_t requests() const { return requests_; }
    double busy_s() const { return medium_.busy_s(); }
    const WaitHistogram& queue_waits() const { return medium_.waits(); }
    double queue_wait_s() const { return medium_.wait_s(); }   // summed over requests

private:
    BlockDevParams p_;
    ServerPool medium_{1};
    std::priority_queue<double, std::vector<double>, std::greater<double>> inflight_;
    uint64_t written_ = 0, read_ = 0, requests_ = 0;
};

}  // namespace swapsim::hw
