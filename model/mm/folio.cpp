#include "mm/folio.hpp"

#include <stdexcept>

namespace swapsim::mm {

folio_t FolioTable::alloc(unsigned order, unsigned nid, bool anon, uint32_t owner, uint32_t index)
{
    if (!folios_.released() && folios_.size() >= NO_FOLIO)
        throw std::length_error("folio table full");
    folio_t f = folios_.alloc();
    Folio& fo = folios_[f];
    uint32_t gen = fo.gen;
    fo = Folio{};
    fo.gen = gen;
    fo.order = uint8_t(order);
    fo.nid = uint8_t(nid);
    fo.owner = owner;
    fo.index = index;
    if (anon)
        fo.set(PG_swapbacked);
    return f;
}

void FolioTable::free(folio_t f)
{
    Folio& fo = folios_[f];
    if (fo.lru != LRU_NONE)
        throw std::logic_error("freeing a folio still on an LRU list");
    fo.gen++;
    fo.flags = 0;
    folios_.release(f);
}

std::vector<folio_t> FolioTable::split(folio_t f)
{
    unsigned nr = folios_[f].nr_pages();
    std::vector<folio_t> tails;
    tails.reserve(nr - 1);
    for (unsigned i = 1; i < nr; i++) {
        const Folio head = folios_[f];
        folio_t t = alloc(0, head.nid, head.anon(), head.owner, head.index + i);
        folios_[t].flags = head.flags & uint16_t(~(PG_lru | PG_isolated));
        folios_[t].flags |= head.flags & PG_isolated;
        tails.push_back(t);
    }
    folios_[f].order = 0;
    return tails;
}

}  // namespace swapsim::mm
