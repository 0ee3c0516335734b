#include "hw/blockdev.hpp"

#include <algorithm>
#include <cmath>

namespace swapsim::hw {

BlockDevice::BlockDevice(const BlockDevParams& p, const HddParams* hdd, uint64_t capacity)
    : p_(p), rotational_(hdd != nullptr), hdd_(hdd ? *hdd : HddParams()), capacity_(std::max<uint64_t>(1, capacity))
{
}

double BlockDevice::tag_free_at(double t)
{
    while (!inflight_.empty() && inflight_.top() <= t)
        inflight_.pop();
    if (int(inflight_.size()) < p_.nr_requests)
        return t;
    double when = inflight_.top();
    inflight_.pop();
    return when;
}

double BlockDevice::submit(double t, uint64_t bytes, bool write, uint64_t pos)
{
    double bw = write ? p_.write_bw : p_.read_bw;
    double service = double(bytes) / bw;
    if (rotational_) {
        double rev = 60.0 / hdd_.rpm;
        double track = bw * rev;   // bytes under the head in one revolution
        // The elevator (mq-deadline) dispatches the queued requests sorted: one that lies
        // within a track of a request still in the queue's window is served in the same
        // sweep; positioning is paid once per region the window enters.
        bool near = false;
        for (uint64_t r : recent_)
            near = near || std::fabs(double(pos) - double(r)) <= track;
        double d = std::fabs(double(pos) - double(head_));
        if (!near) {
            double seek = hdd_.seek_track + (hdd_.seek_full - hdd_.seek_track) * std::sqrt(std::min(1.0, d / double(capacity_)));
            service += seek + rev / 2;
            positioning_s_ += seek + rev / 2;
            seeks_++;
        }
        head_ = pos + bytes;
        recent_.push_back(head_);
        if (recent_.size() > size_t(std::max(1, p_.nr_requests)))
            recent_.pop_front();
    }
    Grant g = medium_.submit(t, service);
    double done = g.end + p_.latency;
    inflight_.push(done);
    requests_++;
    (write ? written_ : read_) += bytes;
    return done;
}

}  // namespace swapsim::hw
