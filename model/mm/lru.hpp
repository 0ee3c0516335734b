// struct lruvec: the four evictable LRU lists of one memcg on one node.
//
// Models: lruvec_add_folio (head), lruvec_add_folio_tail, lruvec_del_folio, list sizes in
// pages (lruvec_lru_size) and folios; "head" is where new and kept folios go, reclaim scans
// from the tail (isolate_lru_folios). Classic two-list LRU, not MGLRU.
// Granularity: per folio. Leaves out: the unevictable list, per-zone sizes (one zone per node).
#pragma once

#include <array>
#include <cstdint>

#include "mm/folio.hpp"

namespace swapsim::mm {

class Lruvec {
public:
    explicit Lruvec(FolioTable& folios) : ft_(&folios) {}

    void add(folio_t f, LruList lru, bool at_tail = false);
    void del(folio_t f);
    folio_t tail(LruList lru) const { return lists_[lru].tail; }
    folio_t head(LruList lru) const { return lists_[lru].head; }
    folio_t prev(folio_t f) const { return (*ft_)[f].prev; }   // towards the head
    void move_to_tail(folio_t f);                                // folio_rotate_reclaimable
    uint64_t nr_pages(LruList lru) const { return lists_[lru].nr_pages; }
    uint64_t nr_folios(LruList lru) const { return lists_[lru].nr_folios; }
    uint64_t total_pages() const;

private:
    struct List {
        folio_t head = NO_FOLIO, tail = NO_FOLIO;
        uint64_t nr_pages = 0, nr_folios = 0;
    };
    // __list_add / __list_del: link f between prev and next, or unlink what lies around it.
    void link(List& l, folio_t f, folio_t prev, folio_t next);
    void unlink(List& l, folio_t prev, folio_t next);
    FolioTable* ft_;
    std::array<List, NR_LRU_LISTS> lists_{};
};

}  // namespace swapsim::mm
