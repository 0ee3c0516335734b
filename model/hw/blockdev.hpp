// A block swap device behind blk-mq: request tags, a bandwidth-limited medium, and latency.
//
// Models: at most nr_requests requests in flight (blk_mq_get_tag sleeps in submit_bio when
// none is free); the medium transfers requests FIFO at the read or write bandwidth; each
// completes `latency` after its transfer ends. Adjacent swap bios submitted in one plug are
// merged by the caller up to max_request bytes.
// A rotational disk (HddParams) adds positioning to a request's transfer unless it starts
// within one track (the bytes one revolution passes under the head) of where one of the last
// nr_requests requests ended: mq-deadline dispatches what is queued sorted, so requests of one
// region go in one sweep. Positioning is a seek growing with the square root of the distance
// from the previous request (track-to-track to full stroke) plus half a revolution.
// Granularity: one call per request. Leaves out: the I/O scheduler's reordering, write cache
// flushes, garbage collection slowdowns, queue depth limits below nr_requests, zoned bit
// recording (one bandwidth over the whole disk).
#pragma once

#include <cstdint>
#include <deque>
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

// A 3.5" 7200 rpm disk: positioning (its transfer rate is BlockDevParams' bandwidth).
struct HddParams {
    double seek_track = 0.8e-3;   // s, track-to-track seek
    double seek_full = 16e-3;     // s, full-stroke seek
    double rpm = 7200;
};

class BlockDevice {
public:
    // hdd: a rotational disk of `capacity` bytes (null: an SSD, no positioning).
    explicit BlockDevice(const BlockDevParams& p, const HddParams* hdd = nullptr, uint64_t capacity = 0);

    // Earliest time >= t a request tag is free (the submitter sleeps until then).
    double tag_free_at(double t);
    // Submit a request of `bytes` at byte offset `pos` at time t (the caller holds a tag).
    // Returns completion time.
    double submit(double t, uint64_t bytes, bool write, uint64_t pos = 0);
    uint64_t seeks() const { return seeks_; }
    double positioning_s() const { return positioning_s_; }

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
    bool rotational_ = false;
    HddParams hdd_;
    uint64_t capacity_ = 1, head_ = 0, seeks_ = 0;
    std::deque<uint64_t> recent_;   // where the last nr_requests requests ended (the elevator's window)
    double positioning_s_ = 0;
};

}  // namespace swapsim::hw
