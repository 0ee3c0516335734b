#include "mm/lru.hpp"

#include <stdexcept>

namespace swapsim::mm {

void Lruvec::add(folio_t f, LruList lru, bool at_tail)
{
    Folio& fo = (*ft_)[f];
    if (fo.lru != LRU_NONE)
        throw std::logic_error("folio already on an LRU list");
    List& l = lists_[lru];
    if (at_tail) {
        fo.prev = l.tail;
        fo.next = NO_FOLIO;
        if (l.tail != NO_FOLIO)
            (*ft_)[l.tail].next = f;
        else
            l.head = f;
        l.tail = f;
    } else {
        fo.next = l.head;
        fo.prev = NO_FOLIO;
        if (l.head != NO_FOLIO)
            (*ft_)[l.head].prev = f;
        else
            l.tail = f;
        l.head = f;
    }
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
    if (fo.prev != NO_FOLIO)
        (*ft_)[fo.prev].next = fo.next;
    else
        l.head = fo.next;
    if (fo.next != NO_FOLIO)
        (*ft_)[fo.next].prev = fo.prev;
    else
        l.tail = fo.prev;
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
