#include "hw/blockdev.hpp"

#include <algorithm>

namespace swapsim::hw {

BlockDevice::BlockDevice(const BlockDevParams& p) : p_(p) {}

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

double BlockDevice::submit(double t, uint64_t bytes, bool write)
{
    double bw = write ? p_.write_bw : p_.read_bw;
    Grant g = medium_.submit(t, double(bytes) / bw);
    double done = g.end + p_.latency;
    inflight_.push(done);
    requests_++;
    (write ? written_ : read_) += bytes;
    return done;
}

}  // namespace swapsim::hw
