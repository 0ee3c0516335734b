#include "kernel/pte_table.hpp"

#include <stdexcept>

namespace swapsim::kernel {

pte_t PteTable::at(size_t i) const
{
    if (i >= n_)
        throw std::out_of_range("PteTable::at");
    return get(i);
}

size_t PteTable::bytes() const
{
    return runs_.capacity() * sizeof(Run) + pool_.capacity() * sizeof(pool_[0]) + free_.capacity() * sizeof(uint32_t);
}

void PteTable::unfold(Run& r)
{
    uint32_t at;
    if (!free_.empty()) {
        at = free_.back();
        free_.pop_back();
    } else {
        at = uint32_t(pool_.size());
        pool_.emplace_back();
    }
    pte_t* a = pool_[at].p;
    for (unsigned k = 0; k < kRun; k++)
        a[k] = folded(r, k);
    r.form = kPool + at;
}

void PteTable::fold(Run& r)
{
    const pte_t* a = pool_[r.form - kPool].p;
    const pte_t step = a[1] - a[0];
    if (step > 1)
        return;
    for (unsigned k = 2; k < kRun; k++)
        if (a[k] != a[0] + step * pte_t(k))
            return;
    free_.push_back(r.form - kPool);
    r = Run{a[0], step == 0 ? uint32_t(kEqual) : uint32_t(kCount)};
}

}  // namespace swapsim::kernel
