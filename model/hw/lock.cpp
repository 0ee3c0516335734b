#include "hw/lock.hpp"

#include <algorithm>
#include <cmath>

namespace swapsim::hw {

Lock::Bin& Lock::bin(int64_t idx)
{
    Bin& b = bins_[size_t(idx % kBins)];
    if (b.idx != idx) {
        // A slot is reused only for a newer bin; a much older time falls into the current slot.
        if (b.idx > idx)
            return b;
        b = Bin{idx, 0, 0};
    }
    return b;
}

void Lock::window(double t, double* hold, double* hold2) const
{
    int64_t last = int64_t(std::floor(t / kBin));
    *hold = *hold2 = 0;
    for (int64_t i = last - int64_t(kWindowBins) + 1; i <= last; i++) {
        const Bin& b = bins_[size_t(((i % kBins) + kBins) % kBins)];
        if (b.idx == i) {
            *hold += b.hold;
            *hold2 += b.hold2;
        }
    }
}

double Lock::rho(double t) const
{
    double h, h2;
    window(t, &h, &h2);
    return std::min(kMaxRho, h / (kWindowBins * kBin));
}

unsigned Lock::users(double t, int cpu)
{
    int64_t period = int64_t(std::floor(t / (kWindowBins * kBin)));
    if (period > period_) {
        seen_prev_ = period == period_ + 1 ? seen_cur_ : std::bitset<kMaxCpus>();
        seen_cur_.reset();
        period_ = period;
    }
    seen_cur_.set(size_t(cpu % kMaxCpus));
    return unsigned((seen_cur_ | seen_prev_).count());
}

double Lock::acquire(double t, int cpu, double hold, unsigned n)
{
    if (n == 0)
        return 0;
    double h, h2;
    window(t, &h, &h2);
    double span = kWindowBins * kBin;
    double r = std::min(kMaxRho, h / span);
    unsigned nu = users(t, cpu);
    double others = nu > 1 ? double(nu - 1) / nu : 0.0;
    double wait = others * ((h2 / span) / (2 * (1 - r)) + r * handoff_);
    Bin& b = bin(int64_t(std::floor(t / kBin)));
    b.hold += hold * n;
    b.hold2 += hold * hold * n;
    st_.acquisitions += n;
    st_.hold_s += hold * n;
    st_.spin_s += wait * n;
    return wait * n;
}

}  // namespace swapsim::hw
