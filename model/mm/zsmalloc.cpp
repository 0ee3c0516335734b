#include "mm/zsmalloc.hpp"

#include <stdexcept>

#include "mm/types.hpp"

namespace swapsim::mm {

ZsPool::ZsPool(unsigned chain_size)
{
    unsigned nr = (unsigned(PAGE_SIZE) - ZS_MIN_ALLOC_SIZE) / ZS_SIZE_CLASS_DELTA + 1;
    classes_.resize(nr);
    for (unsigned i = 0; i < nr; i++) {
        ZsClass& c = classes_[i];
        c.size = ZS_MIN_ALLOC_SIZE + i * ZS_SIZE_CLASS_DELTA;
        if (c.size > PAGE_SIZE)
            c.size = unsigned(PAGE_SIZE);
        // calculate_zspage_chain_size: the chain with the smallest tail waste.
        unsigned best = 1, best_waste = unsigned(PAGE_SIZE) % c.size;
        for (unsigned n = 1; n <= chain_size; n++) {
            unsigned waste = unsigned(n * PAGE_SIZE) % c.size;
            if (waste < best_waste) {
                best = n;
                best_waste = waste;
            }
        }
        c.pages_per_zspage = best;
        c.objs_per_zspage = unsigned(best * PAGE_SIZE / c.size);
        if (!huge_size_ && c.objs_per_zspage == 1 && c.pages_per_zspage == 1)
            huge_size_ = c.size;
    }
}

unsigned ZsPool::class_index(unsigned size) const
{
    if (size == 0 || size > PAGE_SIZE)
        throw std::invalid_argument("zsmalloc object size out of range");
    if (size <= ZS_MIN_ALLOC_SIZE)
        return 0;
    return (size - ZS_MIN_ALLOC_SIZE + ZS_SIZE_CLASS_DELTA - 1) / ZS_SIZE_CLASS_DELTA;
}

uint64_t ZsPool::class_pages(const ZsClass& c) const
{
    uint64_t zspages = (c.objs + c.objs_per_zspage - 1) / c.objs_per_zspage;
    return zspages * c.pages_per_zspage;
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
