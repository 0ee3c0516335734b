#include "mm/lru.hpp"

#include <stdexcept>

namespace swapsim::mm {

void Lruvec::link(List& l, folio_t f, folio_t prev, folio_t next)
{
    Folio& fo = (*ft_)[f];
    fo.prev = prev;
    fo.next = next;
    (prev != NO_FOLIO ? (*ft_)[prev].next : l.head) = f;
    (next != NO_FOLIO ? (*ft_)[next].prev : l.tail) = f;
}

void Lruvec::unlink(List& l, folio_t prev, folio_t next)
{
    (prev != NO_FOLIO ? (*ft_)[prev].next : l.head) = next;
    (next != NO_FOLIO ? (*ft_)[next].prev : l.tail) = prev;
}

void Lruvec::add(folio_t f, LruList lru, bool at_tail)
{
    Folio& fo = (*ft_)[f];
    if (fo.lru != LRU_NONE)
        throw std::logic_error("folio already on an LRU list");
    List& l = lists_[lru];
    if (at_tail)
        link(l, f, l.tail, NO_FOLIO);
    else
        link(l, f, NO_FOLIO, l.head);
    fo.lru = lru;
    fo.set(PG_lru);
    if (lru == LRU_ACTIVE_ANON || lru == LRU_ACTIVE_FILE)
        fo.set(PG_active);
    else
        fo.clear(PG_active);
    l.nr_pages += fo.nr_pages();
    l.nr_folios++;
}

void Lruvec::del(folio_t f)
{
    Folio& fo = (*ft_)[f];
    if (fo.lru == LRU_NONE)
        throw std::logic_error("folio not on an LRU list");
    List& l = lists_[fo.lru];
    unlink(l, fo.prev, fo.next);
    l.nr_pages -= fo.nr_pages();
    l.nr_folios--;
    fo.prev = fo.next = NO_FOLIO;
    fo.lru = LRU_NONE;
    fo.clear(PG_lru);
}

void Lruvec::move_to_tail(folio_t f)
{
    LruList lru = LruList((*ft_)[f].lru);
    del(f);
    add(f, lru, true);
}

uint64_t Lruvec::total_pages() const
{
    uint64_t n = 0;
    for (const List& l : lists_)
        n += l.nr_pages;
    return n;
}

}  // namespace swapsim::mm
