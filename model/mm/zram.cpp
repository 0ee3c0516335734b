#include "mm/zram.hpp"

#include <algorithm>
#include <stdexcept>

namespace swapsim::mm {

Zram::Zram(uint64_t nr_slots, unsigned chain_size, unsigned multi_order)
    : slot_(size_t(nr_slots), 0), pool_(chain_size, multi_order)
{
}

int Zram::write(swp_offset_t off, unsigned nr, bool same, unsigned len, double decomp_s)
{
    if (uint64_t(off) + nr > slot_.size())
        throw std::out_of_range("zram write beyond disksize");
    for (unsigned i = 0; i < nr; i++)
        if (slot_[off + i])
            free_slot(off + i);
    st_.num_writes++;
    st_.pages_stored += nr;
    if (same) {   // ZRAM_SAME: the value is kept in the table, no zsmalloc object
        for (unsigned i = 0; i < nr; i++)
            slot_[off + i] = SAME;
        st_.same_pages += nr;
        return -1;
    }
    unsigned block = unsigned(nr * PAGE_SIZE);
    if (len >= huge_size(nr)) {   // ZRAM_HUGE: stored raw
        len = block;
        st_.huge_pages++;
        st_.huge_pages_since++;
    }
    uint32_t id = objs_.alloc();
    Obj& o = objs_[id];
    o.first = off;
    o.nr = uint16_t(nr);
    o.len = len;
    o.refs = uint16_t(nr);
    o.decomp_s = decomp_s;
    o.cls = int16_t(pool_.zs_malloc(len));
    for (unsigned i = 0; i < nr; i++)
        slot_[off + i] = id + 1;
    st_.compr_data_size += len;
    st_.objects++;
    if (nr > 1)
        st_.multi_objects++;
    st_.max_used_pages = std::max(st_.max_used_pages, pool_.pool_pages());
    return o.cls;
}

const Zram::Obj* Zram::object(swp_offset_t off) const
{
    uint32_t s = slot_[off];
    return s && s != SAME ? &objs_[s - 1] : nullptr;
}

int Zram::free_slot(swp_offset_t off)
{
    uint32_t s = off < slot_.size() ? slot_[off] : 0;
    if (!s)
        return -1;
    st_.notify_free++;
    slot_[off] = 0;
    st_.pages_stored--;
    if (s == SAME) {
        st_.same_pages--;
        return -1;
    }
    Obj& o = objs_[s - 1];
    if (--o.refs)
        return -1;
    int cls = o.cls;
    if (o.huge())
        st_.huge_pages--;
    pool_.zs_free(unsigned(o.cls));
    st_.compr_data_size -= o.len;
    st_.objects--;
    if (o.nr > 1)
        st_.multi_objects--;
    o = Obj{};
    objs_.release(s - 1);
    return cls;
}

}  // namespace swapsim::mm
