#include "mm/zsmalloc.hpp"

#include <stdexcept>

#include "mm/types.hpp"

namespace swapsim::mm {

namespace {
// calculate_zspage_chain_size: the chain of `component`-byte pages with the smallest tail waste.
unsigned chain_for(unsigned size, unsigned component, unsigned chain_size)
{
    unsigned best = 1, best_waste = component % size;
    for (unsigned n = 1; n <= chain_size; n++) {
        unsigned waste = unsigned(uint64_t(n) * component % size);
        if (waste < best_waste) {
            best = n;
            best_waste = waste;
        }
    }
    return best;
}
}  // namespace

ZsPool::ZsPool(unsigned chain_size, unsigned multi_order) : multi_order_(multi_order)
{
    nr_base_ = (unsigned(PAGE_SIZE) - ZS_MIN_ALLOC_SIZE) / ZS_SIZE_CLASS_DELTA + 1;
    unsigned nr_multi = 0;
    unsigned big = unsigned(PAGE_SIZE << multi_order);
    if (multi_order) {
        multi_delta_ = big >> 8;
        nr_multi = (big - unsigned(PAGE_SIZE) + multi_delta_ - 1) / multi_delta_ + 1;
    }
    classes_.resize(nr_base_ + nr_multi);
    for (unsigned i = 0; i < classes_.size(); i++) {
        ZsClass& c = classes_[i];
        bool multi = i >= nr_base_;
        c.size = multi ? unsigned(PAGE_SIZE) + (i - nr_base_) * multi_delta_ : ZS_MIN_ALLOC_SIZE + i * ZS_SIZE_CLASS_DELTA;
        unsigned cap = multi ? big : unsigned(PAGE_SIZE);
        if (c.size > cap)
            c.size = cap;
        c.order = multi ? multi_order : 0;
        unsigned component = unsigned(PAGE_SIZE << c.order);
        c.pages_per_zspage = chain_for(c.size, component, chain_size);
        c.objs_per_zspage = unsigned(uint64_t(c.pages_per_zspage) * component / c.size);
        unsigned& huge = multi ? huge_multi_ : huge_size_;
        if (!huge && c.objs_per_zspage == 1 && c.pages_per_zspage == 1)
            huge = c.size;
    }
}

uint64_t ZsPool::max_alloc_size() const { return PAGE_SIZE << multi_order_; }

unsigned ZsPool::class_index(unsigned size) const
{
    if (size == 0 || size > max_alloc_size())
        throw std::invalid_argument("zsmalloc object size out of range");
    if (size > PAGE_SIZE)
        return nr_base_ + (size - unsigned(PAGE_SIZE) + multi_delta_ - 1) / multi_delta_;
    if (size <= ZS_MIN_ALLOC_SIZE)
        return 0;
    return (size - ZS_MIN_ALLOC_SIZE + ZS_SIZE_CLASS_DELTA - 1) / ZS_SIZE_CLASS_DELTA;
}

uint64_t ZsPool::class_pages(const ZsClass& c) const
{
    uint64_t zspages = (c.objs + c.objs_per_zspage - 1) / c.objs_per_zspage;
    return (zspages * c.pages_per_zspage) << c.order;
}

unsigned ZsPool::zs_malloc(unsigned size)
{
    unsigned idx = class_index(size);
    ZsClass& c = classes_[idx];
    pages_ -= class_pages(c);
    c.objs++;
    pages_ += class_pages(c);
    objs_++;
    return idx;
}

void ZsPool::zs_free(unsigned idx)
{
    ZsClass& c = classes_[idx];
    if (!c.objs)
        throw std::logic_error("zs_free on an empty class");
    pages_ -= class_pages(c);
    c.objs--;
    pages_ += class_pages(c);
    objs_--;
}

}  // namespace swapsim::mm
