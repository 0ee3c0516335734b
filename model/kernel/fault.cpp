// Page faults on private anonymous memory (a file mapping's faults go to filemap.cpp).
//
// Models: do_anonymous_page with mTHP (alloc_anon_folio: the highest enabled order whose
// naturally aligned range lies in the VMA with all PTEs none; PMD order as
// do_huge_pmd_anonymous_page; a large folio charges with the non-blocking THP gfp and falls
// back an order when memory.max refuses it), folio allocation (pcp for orders <= 3 and PMD
// order, zone->lock otherwise), clearing, memcg charge, folio_add_lru through the per-CPU
// batch; do_swap_page:
// swap cache lookup with readahead-hit accounting, the SWP_SYNCHRONOUS_IO bypass (pmem, zram)
// when the entry has one reference, with alloc_swap_folio's large folio (the highest enabled
// order whose aligned range holds contiguous swap entries none of which is in the swap cache,
// and only while zswap was never enabled; a failed allocation or memcg charge falls back an
// order, counted as swpin_fallback / swpin_fallback_charge), swap_vma_readahead
// (__swapin_nr_pages window, clipped to the VMA and the PMD), zswap_load before device reads,
// pgmajfault, swap_free and folio_free_swap on a write fault. An entry with more than one
// reference (fork) is read through the swap cache and mapped read-only; a write then takes
// do_wp_page (fork.cpp). tmpfs pages (Vma::shmem) are order 0 and always use the swap cache.
// A VMA marked small_folios (a process's data copied at fork) faults order 0.
// Page tables: one charged page per 2 MiB range faulted (the PTE table, or the table a PMD THP
// deposits). Granularity: one call per fault. Leaves out: the zeromap, workingset refault
// activation, PMD/PUD table pages (one per GiB).
//
// Yield points (Ctx::flush, directly or in block_until; other tasks run and see this state):
// - read_swap_cache_async, submit_bio sleeping for a request tag (SSD): the new folio is
//   charged, in the swap cache and on the LRU with its read pending; the PTE is still the
//   swap entry, so another fault on it finds the folio in the swap cache.
// - do_swap_page, waiting for the folio's read (folio_lock after swap_read_folio): the same.
// - the memcg charge (try_charge_memcg's reclaim retries, memcontrol.cpp) before a folio is
//   allocated: nothing of the fault is charged yet.
// The Folio references a path holds are taken again after each (the folio table may grow).

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "kernel/kernel.hpp"

namespace swapsim::kernel {

using namespace mm;

namespace {
constexpr unsigned SWAP_RA_ORDER_CEILING = 5;
}  // namespace

bool Kernel::order_fits(const Vma& v, uint32_t idx, unsigned order) const
{
    uint32_t nr = 1u << order;
    uint32_t start = idx & ~(nr - 1);
    if (uint64_t(start) + nr > v.pte.size())
        return false;
    for (uint32_t i = start; i < start + nr; i++)
        if (v.pte[i] != PTE_NONE)
            return false;
    return true;
}

// The folio's charge: large orders with the non-blocking THP gfp, highest first; a failed
// charge falls back to the next order (thp_fault_fallback_charge, anon_fault_fallback_charge),
// and order 0 charges with GFP_HIGHUSER_MOVABLE, which may reclaim.
unsigned Kernel::charge_anon_folio(Ctx& c, const Vma& v, uint32_t idx)
{
    for (unsigned order : cfg_.mthp_orders) {
        if (!order || !order_fits(v, idx, order))
            continue;
        // No free block of this order (what-if), or below the low watermark: the THP gfp
        // neither wakes kswapd nor reclaims (GFP_TRANSHUGE_LIGHT under defrag=madvise).
        if (large_alloc_fails() || !room_for_large(order, node_of_cpu(c.task.cpu))) {
            if (order == HPAGE_PMD_ORDER)
                vm.count(THP_FAULT_FALLBACK);
            vm.count_mthp(order, MTHP_STAT_ANON_FAULT_FALLBACK);
            continue;
        }
        if (charge_folio(c, 1u << order, false))
            return order;
        if (order == HPAGE_PMD_ORDER) {
            vm.count(THP_FAULT_FALLBACK);
            vm.count(THP_FAULT_FALLBACK_CHARGE);
        }
        vm.count_mthp(order, MTHP_STAT_ANON_FAULT_FALLBACK_CHARGE);
        vm.count_mthp(order, MTHP_STAT_ANON_FAULT_FALLBACK);
    }
    if (!charge_folio(c, 1))
        throw std::runtime_error("memcg OOM: memory.max reached and reclaim made no progress");
    return 0;
}

folio_t Kernel::alloc_folio(Ctx& c, unsigned order, int nid, bool anon, uint32_t owner, uint32_t index)
{
    nid = alloc_pages(c, order, nid);
    folio_pages_ += 1u << order;
    nodes_[size_t(nid)].folio_pages += 1u << order;
    note_ram();
    return folios.alloc(order, unsigned(nid), anon, owner, index);
}

// What-if fragmentation: every n-th large allocation fails, n spread by the golden ratio so
// that exactly kernel.mthp.alloc_fail_percent of them do.
bool Kernel::large_alloc_fails()
{
    if (alloc_fail_share <= 0)
        return false;
    double x = double(++large_allocs_) * 0.6180339887498949;
    return x - std::floor(x) < alloc_fail_share;
}

// The page allocator's side of a folio or a page-table page: the node with room (or the
// slow path, page_alloc.cpp), its fixed cost, struct page setup of a large order, rmqueue.
int Kernel::alloc_pages(Ctx& c, unsigned order, int nid)
{
    const Costs& k = cfg_.c;
    nid = alloc_node(c, order, nid);
    c.sys(k.alloc_folio + (order ? k.alloc_per_page * double(1u << order) : 0));
    zone_lock_pcp(c, order, nid, false);
    return nid;
}

// pte_alloc / the deposit of do_huge_pmd_anonymous_page: one zeroed, charged page per PMD
// range, allocated by the first fault in it.
void Kernel::pte_alloc(Ctx& c, Vma& v, uint32_t idx)
{
    size_t pmd = idx / HPAGE_PMD_NR;
    if (v.pte_table[pmd])
        return;
    if (!charge_pages(c, 1, memcg.pagetable_pages))
        throw std::runtime_error("memcg OOM: memory.max reached and reclaim made no progress");
    alloc_pages(c, 0, node_of_cpu(c.task.cpu));
    c.mem(double(PAGE_SIZE), cfg_.c.zero_bw, true);
    v.pte_table[pmd] = true;
}

// free_pgtables: the VMA's page-table pages, uncharged as they are freed.
void Kernel::free_pgtables(Ctx& c, Vma& v)
{
    unsigned n = 0;
    int nid = node_of_cpu(c.task.cpu);
    for (size_t pmd = 0; pmd < v.pte_table.size(); pmd++) {
        if (!v.pte_table[pmd])
            continue;
        v.pte_table[pmd] = false;
        c.sys(cfg_.c.free_folio);
        zone_lock_pcp(c, 0, nid, true);
        n++;
    }
    memcg.uncharge_kmem(c.task.cpu, n);
    memcg.pagetable_pages -= n;
}

void Kernel::free_folio(Ctx& c, folio_t f)
{
    const Costs& k = cfg_.c;
    Folio& fo = folios[f];
    unsigned nr = fo.nr_pages();
    int nid = fo.nid;
    if (fo.test(PG_wrote)) {   // swapped out, then freed by munmap or exit (reclaim clears it first)
        swapout_acct.written_resident -= nr;
        swapout_acct.written_unmapped += nr;
    }
    c.sys(k.free_folio);
    // Folios are freed in batches (free_unref_folios): one uncharge of the page counter per
    // batch of 31 (FOLIO_BATCH_SIZE).
    if (++c.task.uncharge_folios >= cfg_.free_batch) {
        c.lock(page_counter_, k.counter_hold);
        c.task.uncharge_folios = 0;
    }
    zone_lock_pcp(c, fo.order, nid, true);   // free_unref_folios
    memcg.uncharge(nr);
    (fo.anon() ? memcg.anon_pages : memcg.file_pages) -= nr;
    folio_pages_ -= nr;
    nodes_[size_t(nid)].folio_pages -= nr;
    folios.free(f);
}

void Kernel::lru_add(Ctx& c, folio_t f)
{
    Folio& fo = folios[f];
    lruvec[fo.nid].add(f, fo.anon() ? LRU_INACTIVE_ANON : LRU_INACTIVE_FILE);
    // folio_add_lru: a per-CPU folio_batch, drained under lru_lock when full.
    if (++c.task.lru_add_pending >= cfg_.lru_add_batch) {
        c.lock(lru_lock_[fo.nid], cfg_.c.lru_lock_base + cfg_.c.lru_add_per_folio * double(c.task.lru_add_pending));
        c.task.lru_add_pending = 0;
    }
}

unsigned Kernel::handle_mm_fault(Ctx& c, uint32_t mm_id, uint32_t vma, uint32_t idx, bool write)
{
    MmStruct& m = mms[mm_id];
    Vma& v = m.vmas[vma];
    pte_t p = v.pte.at(idx);
    c.sys(cfg_.c.fault);
    vm.count(PGFAULT);
    if (v.file) {   // a file mapping (filemap.cpp): read-only text
        if (write)
            throw std::logic_error("a write fault on a file mapping (the model maps files read-only, VM_EXEC)");
        if (p == PTE_NONE)
            return filemap_fault(c, m, v, idx);
        folios[pte_folio(p)].set(PG_young);
        return 1;
    }
    if (p == PTE_NONE)
        return do_anonymous_page(c, m, v, idx);
    if (pte_swap(p))
        return do_swap_page(c, m, v, idx, write);
    // Present: a write to a write-protected PTE (shared by fork, or a non-exclusive
    // swap-in) is do_wp_page's: reuse or copy (fork.cpp).
    if (write && pte_wp(p))
        return do_wp_page(c, m, v, idx);
    // A write to a folio still in the swap cache (mapped after a read fault) takes
    // do_wp_page's reuse path and frees its swap slot.
    Folio& fo = folios[pte_folio(p)];
    fo.set(PG_young);
    if (write && fo.test(PG_swapcache))
        swap_cache_del(c, pte_folio(p));
    if (write)
        fo.set(PG_dirty);
    return fo.nr_pages() - (idx - fo.index);
}

unsigned Kernel::touch_present(uint32_t mm_id, uint32_t vma, uint32_t idx)
{
    Folio& fo = folios[pte_folio(mms[mm_id].vmas[vma].pte[idx])];
    fo.set(PG_young);
    return fo.nr_pages() - (idx - fo.index);
}

unsigned Kernel::do_anonymous_page(Ctx& c, MmStruct& m, Vma& v, uint32_t idx)
{
    pte_alloc(c, v, idx);
    unsigned order = 0;   // shmem: huge=never
    if (!v.shmem && !v.small_folios)
        order = charge_anon_folio(c, v, idx);
    else if (!charge_folio(c, 1))
        throw std::runtime_error("memcg OOM: memory.max reached and reclaim made no progress");
    unsigned nr = 1u << order;
    uint32_t start = idx & ~(nr - 1);
    int nid = node_of_cpu(c.task.cpu);
    folio_t f = alloc_folio(c, order, nid, true, v.id, start);
    Folio& fo = folios[f];
    fo.set(PG_young);
    fo.set(PG_mapped);
    fo.set(PG_dirty);
    c.mem(double(nr * PAGE_SIZE), cfg_.c.zero_bw, true);   // clear_page
    c.sys(cfg_.c.fault_per_pte * nr);
    for (uint32_t i = 0; i < nr; i++)
        v.pte[start + i] = mk_pte(f);
    m.rss_anon += nr;
    lru_add(c, f);
    if (order == HPAGE_PMD_ORDER)
        vm.count(THP_FAULT_ALLOC);
    if (order)
        vm.count_mthp(order, MTHP_STAT_ANON_FAULT_ALLOC);
    return nr - (idx - start);
}

void Kernel::swapin_readahead_window(Ctx& c, Vma& v, uint32_t idx, uint32_t* start, uint32_t* end)
{
    *start = idx;
    *end = idx + 1;
    if (!cfg_.vma_ra || cfg_.page_cluster == 0)
        return;
    unsigned max_win = 1u << std::min(cfg_.page_cluster, SWAP_RA_ORDER_CEILING);
    uint32_t prev = v.ra_addr;
    unsigned hits = v.ra_hits, prev_win = v.ra_win;
    // __swapin_nr_pages
    unsigned pages = hits + 2;
    if (pages == 2) {
        if (idx != prev + 1 && idx + 1 != prev)
            pages = 1;
    } else {
        unsigned roundup = 4;
        while (roundup < pages)
            roundup <<= 1;
        pages = roundup;
    }
    pages = std::min(pages, max_win);
    pages = std::max(pages, prev_win / 2);
    v.ra_addr = idx;
    v.ra_win = pages;
    v.ra_hits = 0;
    if (pages <= 1)
        return;
    int64_t lo, hi;
    if (idx == prev + 1) {
        lo = idx;
        hi = int64_t(idx) + pages;
    } else if (prev == idx + 1) {
        lo = int64_t(idx) - pages + 1;
        hi = int64_t(idx) + 1;
    } else {
        int64_t left = (pages - 1) / 2;
        lo = int64_t(idx) - left;
        hi = int64_t(idx) + pages - left;
    }
    int64_t pmd = int64_t(idx) & ~int64_t(HPAGE_PMD_NR - 1);
    lo = std::max<int64_t>({lo, 0, pmd});
    hi = std::min<int64_t>({hi, int64_t(v.pte.size()), pmd + HPAGE_PMD_NR});
    *start = uint32_t(lo);
    *end = uint32_t(hi);
}

// Read one order-0 folio for swap slot `off` into the swap cache (__read_swap_cache_async +
// swap_read_folio). Returns the folio and the time its data is there.
folio_t Kernel::read_swap_cache_async(Ctx& c, Vma& v, uint32_t idx, swp_offset_t off, double* ready, bool* raced)
{
    if (!charge_folio(c, 1))
        throw std::runtime_error("memcg OOM during swap-in");
    int nid = node_of_cpu(c.task.cpu);
    folio_t f = alloc_folio(c, 0, nid, true, v.id, idx);
    // The charge and the allocation may reclaim and yield. A task sharing this page table (a
    // tmpfs file's readers) may have taken the entry in meanwhile: swapcache_prepare finds it
    // gone (shmem_confirm_swap, pte_same) and the fault is retried.
    if (v.pte[idx] != mk_swp_pte(off)) {
        free_folio(c, f);
        return NO_FOLIO;
    }
    // If another mapper of a shared entry
    // (fork) read it into the swap cache meanwhile, swapcache_prepare fails with -EEXIST: the
    // new folio is put and the cached one used. An entry with one reference cannot race here
    // (its only PTE is this task's), so nothing changes without fork.
    if (folio_t other = swap->cache_folio(off); other != NO_FOLIO) {
        free_folio(c, f);
        *ready = c.now();
        if (raced)
            *raced = true;
        return other;
    }
    swap_cache_insert(c, f, off);
    lru_add(c, f);
    *ready = c.now();
    if (zswap_load(c, off)) {
        folios[f].set(PG_dirty);   // exclusive load: zswap no longer holds the data
        return f;
    }
    if (cfg_.dev == SwapDev::Pmem) {
        c.sys(double(PAGE_SIZE) / cfg_.c.pmem_bw);
    } else if (zram) {
        zram_read(c, off, 1);
    } else if (ssd) {
        // Locked through the sleep for a request tag, and for the faulting page until its read
        // is done (do_swap_page unlocks it); a readahead folio is unlocked once submitted.
        folios[f].set(PG_locked);
        c.io_wait_until(ssd->tag_free_at(c.now()));
        c.sys(cfg_.c.bio_submit);
        *ready = ssd->submit(c.now(), PAGE_SIZE, false, uint64_t(off) * PAGE_SIZE);
        if (raced)
            folios[f].clear(PG_locked);
    }
    vm.count(PSWPIN);
    return f;
}

// alloc_swap_folio: the order of the folio a SWP_SYNCHRONOUS_IO swap-in reads, charged.
unsigned Kernel::alloc_swap_folio(Ctx& c, Vma& v, uint32_t idx, swp_offset_t off)
{
    for (unsigned order : cfg_.mthp_orders) {
        if (!order || cfg_.zswap || cfg_.zswap_ever)   // zswap_never_enabled() is false: order 0
            break;
        uint32_t nr = 1u << order, start = idx & ~(nr - 1);
        if (uint64_t(start) + nr > v.pte.size() || off < idx - start)
            continue;
        swp_offset_t head = off - (idx - start);
        if (head % nr)   // thp_swap_suitable_orders
            continue;
        // can_swapin_thp: contiguous swap entries of this device, none in the swap cache.
        bool ok = true;
        for (uint32_t j = 0; j < nr && ok; j++) {
            ok = v.pte[start + j] == mk_swp_pte(head + j) && !swap->has_cache(head + j);
        }
        if (!ok)
            continue;
        if (large_alloc_fails() || !room_for_large(order, node_of_cpu(c.task.cpu))) {   // no block of this order
            vm.count_mthp(order, MTHP_STAT_SWPIN_FALLBACK);
            continue;
        }
        if (!charge_folio(c, nr, false)) {   // mem_cgroup_swapin_charge_folio, THP gfp
            vm.count_mthp(order, MTHP_STAT_SWPIN_FALLBACK_CHARGE);
            vm.count_mthp(order, MTHP_STAT_SWPIN_FALLBACK);
            continue;
        }
        return order;
    }
    if (!charge_folio(c, 1))
        throw std::runtime_error("memcg OOM during swap-in");
    return 0;
}

// do_swap_page on a large folio found in the swap cache (reclaim is writing it, or it waits
// to be freed): mapped whole when every PTE of its range is its swap entry (v6.10+, "entirely
// map large folios found in swapcache"). Anything else would map one page of a large folio,
// which the model's one-index-per-folio state cannot hold: it stops the run as an internal error.
unsigned Kernel::map_large_swapcache_folio(Ctx& c, MmStruct& m, Vma& v, uint32_t idx, folio_t f, bool write)
{
    Folio& fo = folios[f];
    const unsigned nr = fo.nr_pages();
    const swp_offset_t off = pte_offset(v.pte[idx]);
    const uint32_t start = idx - uint32_t(off - fo.swap);
    bool whole = off >= fo.swap && off - fo.swap < nr && uint64_t(start) + nr <= v.pte.size() &&
                 !fo.test(PG_mapped) && swap->count(off) == 1;
    for (uint32_t j = 0; j < nr && whole; j++)
        whole = v.pte[start + j] == mk_swp_pte(fo.swap + j);
    if (!whole)
        throw std::logic_error("do_swap_page: a " + std::to_string(nr) + "-page folio in the swap cache whose PTEs are not all "
                               "its swap entries (a partial map the model does not hold)");
    fo.clear(PG_orphan);
    fo.index = start;
    return map_swapin_folio(c, m, v, idx, f, start, fo.swap, write);
}

// set_ptes of a whole swapped-in folio over PTEs [start, start + nr), the swap entries from `head`:
// their PTE references go (swap_free_nr; a bypassing zram read frees the slots and the data), and
// a write fault dirties the folio and takes it out of the swap cache (should_try_to_free_swap).
// Returns the pages mapped from idx on.
unsigned Kernel::map_swapin_folio(Ctx& c, MmStruct& m, Vma& v, uint32_t idx, folio_t f, uint32_t start,
                                  swp_offset_t head, bool write)
{
    const unsigned nr = folios[f].nr_pages();
    folios[f].set(PG_mapped);
    folios[f].set(PG_young);
    for (uint32_t j = 0; j < nr; j++)
        v.pte[start + j] = mk_pte(f);
    c.sys(cfg_.c.fault_per_pte * nr);
    m.rss_anon += nr;
    m.swapents -= nr;
    swap_free_slots(c, head, nr);
    if (write) {
        folios[f].set(PG_dirty);
        if (folios[f].test(PG_swapcache))
            swap_cache_del(c, f);
    }
    return nr - (idx - start);
}

unsigned Kernel::do_swap_page(Ctx& c, MmStruct& m, Vma& v, uint32_t idx, bool write)
{
    const Costs& k = cfg_.c;
    swp_offset_t off = pte_offset(v.pte[idx]);
    c.sys(k.swapin_fault + swap_cache_lookup_cost());
    // Another PTE holds the entry too (fork): the folio is mapped non-exclusive, read-only.
    const bool shared_entry = swap->count(off) > 1;
    folio_t f = swap->cache_folio(off);
    if (f != NO_FOLIO) {
        Folio& fo = folios[f];
        if (fo.test(PG_readahead)) {
            fo.clear(PG_readahead);
            vm.count(SWAP_RA_HIT);
            v.ra_hits = std::min(v.ra_hits + 1, 255u);
            v.ra_addr = idx;
        }
    } else {
        vm.count(PGMAJFAULT);
        double ready = c.now();
        if (sync_io() && swap->count(off) == 1 && !v.shmem) {
            // SWP_SYNCHRONOUS_IO: bypass the swap cache, read synchronously, map the folio.
            unsigned order = alloc_swap_folio(c, v, idx, off);   // charged
            unsigned nr = 1u << order;
            uint32_t start = idx & ~(nr - 1);
            swp_offset_t head = off - (idx - start);
            f = alloc_folio(c, order, node_of_cpu(c.task.cpu), true, v.id, start);
            lru_add(c, f);
            if (order == 0 && zswap_load(c, off)) {
                folios[f].set(PG_dirty);
            } else {
                if (cfg_.dev == SwapDev::Pmem)
                    c.sys(double(nr * PAGE_SIZE) / k.pmem_bw);
                else
                    zram_read(c, head, nr);
                vm.count(PSWPIN, nr);
                if (order)
                    vm.count_mthp(order, MTHP_STAT_SWPIN);
            }
            return map_swapin_folio(c, m, v, idx, f, start, head, write);
        } else {
            uint32_t lo, hi;
            swapin_readahead_window(c, v, idx, &lo, &hi);
            for (uint32_t j = lo; j < hi; j++) {
                if (j == idx || !pte_swap(v.pte[j]))
                    continue;
                swp_offset_t o = pte_offset(v.pte[j]);
                if (swap->cache_folio(o) != NO_FOLIO)
                    continue;
                double r;
                bool raced = false;
                folio_t ra = read_swap_cache_async(c, v, j, o, &r, &raced);
                if (ra == NO_FOLIO || raced)
                    continue;
                folios[ra].set(PG_readahead);
                vm.count(SWAP_RA);
            }
            f = read_swap_cache_async(c, v, idx, off, &ready);
            if (f == NO_FOLIO)
                return 0;
            c.io_wait_until(ready);
            folios[f].clear(PG_locked);   // folio_lock returns: the read is done
            if (v.pte[idx] != mk_swp_pte(off))
                return 0;   // pte_same failed: another reader mapped it while this one slept
        }
    }
    if (folios[f].order)
        return map_large_swapcache_folio(c, m, v, idx, f, write);
    Folio& fo = folios[f];
    const bool exclusive = !shared_entry && !fo.test(PG_mapped);
    if (fo.test(PG_mapped))
        fo.shared++;   // the swap cache is where the mappers of a shared entry meet
    fo.clear(PG_orphan);   // mapped again: no longer the reclaimer's to free
    fo.index = idx;
    fo.set(PG_mapped);
    fo.set(PG_young);
    v.pte[idx] = mk_pte(f) | (exclusive ? 0 : PTE_WP);
    c.sys(k.fault_per_pte);
    m.rss_anon++;
    m.swapents--;
    // swap_free: the PTE's reference; the slot stays while the folio is in the swap cache.
    swap_free_slots(c, off, 1);
    if (write && !exclusive)
        return do_wp_page(c, m, v, idx);
    if (write) {
        fo.set(PG_dirty);
        if (fo.test(PG_swapcache))
            swap_cache_del(c, f);   // should_try_to_free_swap -> folio_free_swap
    }
    return 1;
}

}  // namespace swapsim::kernel
