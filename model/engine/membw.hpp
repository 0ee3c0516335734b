// A socket's memory bandwidth as a reservation timeline.
//
// Models: the streaming memory work of every core on one socket (clear_page, usemem's stores)
// shares the memory controllers' bandwidth. A transfer of `bytes` from time t moves at most
// its core's `rate`, and takes what the bins it spans have left; it ends when its bytes are
// moved. While the socket has room, a transfer takes exactly bytes / rate.
// Granularity: bins of 10 us, booked first come, first served; transfers are booked in time
// order (the engine's clock), so bins before the latest start are dropped.
// Leaves out: max-min fair sharing inside a saturated bin (the first booked runs at its full
// rate), read/write asymmetry, remote-node traffic. A transfer longer than kMaxBins bins books
// only its first kMaxBins; the rest runs at its rate unbooked.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>

namespace swapsim::engine {

class MemBandwidth {
public:
    static constexpr double kBin = 10e-6;
    static constexpr int64_t kMaxBins = 4096;   // 41 ms

    explicit MemBandwidth(double bytes_per_s) : bw_(bytes_per_s) {}
    // Book `bytes` at up to `rate` bytes/s from t (not earlier than any previous call's t).
    // Returns the time the last byte is moved.
    double transfer(double t, double bytes, double rate);
    size_t bins() const { return used_.size(); }

private:
    double bw_;
    std::deque<double> used_;   // bytes booked per bin, from bin base_
    int64_t base_ = 0;
};

}  // namespace swapsim::engine
