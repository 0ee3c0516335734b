// Page reclaim (mm/vmscan.c, classic two-list LRU): memcg and global direct reclaim; kswapd's
// balance_pgdat is in page_alloc.cpp and uses the same shrink_lruvec.
//
// Models: try_to_free_mem_cgroup_pages (nr_to_reclaim = max(nr, SWAP_CLUSTER_MAX)) and
// try_to_free_pages (SWAP_CLUSTER_MAX) through do_try_to_free_pages (priority
// DEF_PRIORITY..0, every node of the zonelist from the local one); shrink_lruvec's
// SWAP_CLUSTER_MAX rounds and its stop rule; get_scan_count's SCAN_FRACT by swappiness
// (SCAN_EQUAL at priority 0, SCAN_FILE without swap or with every swap slot taken); shrink_inactive_list with
// isolate_lru_folios counting every page of a folio and at least one folio;
// shrink_active_list deactivation when inactive_is_low (file: also after file refaults were
// activated, prepare_scan_control's may_deactivate), keeping referenced VM_EXEC file folios
// active (rotated, lru_note_cost) and setting PG_workingset on the rest; cache_trim_mode (plenty
// of inactive file, no file refaults: SCAN_FILE); with a file in the model, v6.12's cost balance
// of SCAN_FRACT (anon_cost / file_cost from lru_note_cost in shrink_inactive_list,
// shrink_active_list and workingset_refault); shrink_folio_list in kernel order:
// writeback (cgroup v2: mark PG_reclaim, activate), folio_check_references (young PTE: keep
// once with PG_referenced; a file folio, VM_EXEC here, is activated on its first reference;
// every rmap walk of a file folio visits each VMA on the file's i_mmap), a clean file folio
// unmapped and dropped from the page cache without IO (__remove_mapping, workingset_eviction's
// shadow: filemap.cpp), add_to_swap with split fallback (thp_swpout_fallback,
// swpout_fallback), try_to_unmap, try_to_unmap_flush_dirty, pageout (zswap or bio), then
// __remove_mapping and freeing; folio_end_writeback's rotation to the inactive tail.
// Granularity: one folio at a time; the state changes of a pass happen when it is planned,
// its time is run after each shrink_inactive_list round once sim.reclaim_slice has built up,
// and before freeing a pass's folios when they are many pages (2M THPs).
// Leaves out: MGLRU, the cost balance in runs without a file (they keep swappiness : 200 -
// swappiness, the equal-cost fraction seed 000's costs were fitted with), file_is_tiny (global
// reclaim), anon refaults in anon_cost, the batched TLB flush of clean unmapped file folios
// (try_to_unmap_flush), dirty file writeback, deferred split, memcg protection (memory.low/min)
// and the memcg tree walk of global reclaim (one memcg).
//
// Yield points:
// - shrink_inactive_list, after move_folios_to_lru once sim.reclaim_slice has built up (the
//   cond_resched of shrink_lruvec): nothing is isolated; the lru_lock is released.
// - shrink_folio_list, before freeing a pass's folios when they are many pages: they are
//   isolated (NR_ISOLATED_ANON, Kernel::isolated_pages_), unmapped, out of the swap cache and
//   still charged, as between __remove_mapping and free_unref_folios.
// - pageout: zswap_store's and zram's flushes between pages, and submit_bio's wait for a tag
//   (swap.cpp, zram.cpp): the folio is isolated and in the swap cache.

#include <algorithm>
#include <cmath>

#include "kernel/kernel.hpp"

namespace swapsim::kernel {

using namespace mm;

namespace {

// can_reclaim_anon_pages: free swap slots (get_nr_swap_pages: the device's less its header,
// and the swap file's; slots in the per-CPU slot caches are taken) within memory.swap.max
// (mem_cgroup_get_nr_swap_pages).
bool can_reclaim_anon_pages(const SwapDevice& swap, uint64_t swapfile_slots, const MemCgroup& memcg)
{
    if (swap.nr_slots() - 1 + swapfile_slots <= swap.inuse_pages())
        return false;
    return memcg.swap.max == UINT64_MAX || int64_t(memcg.swap.max) > memcg.swap.usage;
}

}  // namespace

unsigned long Kernel::try_to_free_mem_cgroup_pages(Ctx& c, unsigned nr_pages)
{
    ScanControl sc;
    sc.memcg_reclaim = true;
    sc.nr_to_reclaim = std::max<unsigned long>(nr_pages, cfg_.swap_cluster_max);
    // The fitted per-call cost comes from calls that scan. A call with no folio it may scan
    // (no swap space left, no file folios) walks DEF_PRIORITY + 1 empty priorities, each about
    // a shrink round's fixed part.
    bool scannable = swap && can_reclaim_anon_pages(*swap, cfg_.swapfile_slots, memcg);
    for (int nid = 0; nid < nr_nodes() && !scannable; nid++)
        scannable = lruvec[size_t(nid)].nr_pages(LRU_INACTIVE_FILE) + lruvec[size_t(nid)].nr_pages(LRU_ACTIVE_FILE) > 0;
    c.sys(scannable ? cfg_.c.reclaim_entry : (DEF_PRIORITY + 1) * cfg_.c.shrink_round);
    return do_try_to_free_pages(c, sc);
}

// do_try_to_free_pages: priority DEF_PRIORITY..0 over every node of the zonelist from the
// local one. Memcg and global direct reclaim share it (one memcg: the same lruvecs); a node
// where direct reclaim freed pages has its kswapd_failures reset (shrink_node).
unsigned long Kernel::do_try_to_free_pages(Ctx& c, ScanControl& sc)
{
    sc.may_swap = swap != nullptr;
    bool was_memalloc = c.task.memalloc;
    c.task.memalloc = true;
    int local = node_of_cpu(c.task.cpu);
    do {
        for (int i = 0; i < nr_nodes(); i++) {
            int nid = (local + i) % nr_nodes();
            if (!lruvec[size_t(nid)].total_pages())
                continue;
            unsigned long before = sc.nr_reclaimed;
            shrink_lruvec(c, nid, sc);
            shrink_slab(c, nid, sc);   // shrink_node_memcgs: after each memcg's lruvec
            if (sc.nr_reclaimed > before)
                nodes_[size_t(nid)].kswapd_failures = 0;
        }
        if (sc.nr_reclaimed >= sc.nr_to_reclaim)
            break;
    } while (--sc.priority >= 0);
    c.task.memalloc = was_memalloc;
    c.task.reclaimed += sc.nr_reclaimed;
    snapshot_refaults();
    return sc.nr_reclaimed;
}

bool Kernel::inactive_is_low(int nid, LruList inactive_lru) const
{
    const Lruvec& l = lruvec[size_t(nid)];
    uint64_t inactive = l.nr_pages(inactive_lru);
    uint64_t active = l.nr_pages(LruList(inactive_lru + 1));
    uint64_t gb = (inactive + active) >> (30 - PAGE_SHIFT);
    uint64_t ratio = 1;
    if (gb) {
        uint64_t x = 10 * gb, r = 0;   // int_sqrt
        while ((r + 1) * (r + 1) <= x)
            r++;
        ratio = r;
    }
    return inactive * ratio < active;
}

void Kernel::shrink_lruvec(Ctx& c, int nid, ScanControl& sc)
{
    Lruvec& l = lruvec[size_t(nid)];
    // prepare_scan_control: file folios may be deactivated when file refaults were activated
    // since the last reclaim (snapshot_refaults) or the inactive file list is low; with plenty
    // of inactive file and no such refaults, cache_trim_mode reclaims file only.
    LruCost& lc = lru_cost_[size_t(nid)];
    const bool deactivate_file = lc.activate_file != lc.activate_file_snapshot || inactive_is_low(nid, LRU_INACTIVE_FILE);
    const bool cache_trim_mode = (l.nr_pages(LRU_INACTIVE_FILE) >> sc.priority) && !deactivate_file;
    // get_scan_count
    unsigned long nr[NR_LRU_LISTS] = {};
    enum { SCAN_EQUAL, SCAN_FRACT, SCAN_FILE } balance = SCAN_FRACT;
    // With no swap space left anon is not scanned; anon aging (can_age_anon_pages:
    // total_swap_pages > 0) goes on below.
    if (!sc.may_swap || !can_reclaim_anon_pages(*swap, cfg_.swapfile_slots, memcg))
        balance = SCAN_FILE;
    else if (sc.priority == 0 && cfg_.swappiness)
        balance = SCAN_EQUAL;
    else if (cache_trim_mode)
        balance = SCAN_FILE;
    double ap = cfg_.swappiness, fp = 200.0 - cfg_.swappiness;
    if (balance == SCAN_FRACT && has_files()) {
        // v6.12's cost balance (lru_note_cost: IO x SWAP_CLUSTER_MAX + rotations, per list). A
        // run without a file keeps swappiness : 200 - swappiness, the balance of equal costs its
        // usemem costs were fitted with (the kernel would weigh anon by its swap-out cost alone
        // there: a joint refit with seed 000 is owed).
        double total = lc.anon + lc.file;
        const double anon_cost = total + lc.anon, file_cost = total + lc.file;
        total = anon_cost + file_cost;
        ap = std::floor(cfg_.swappiness * (total + 1) / (anon_cost + 1));
        fp = std::floor((200.0 - cfg_.swappiness) * (total + 1) / (file_cost + 1));
    }
    for (unsigned lru = 0; lru < NR_LRU_LISTS; lru++) {
        bool file = lru >= LRU_INACTIVE_FILE;
        unsigned long scan = (unsigned long)(l.nr_pages(LruList(lru)) >> sc.priority);
        if (balance == SCAN_FRACT)
            scan = (unsigned long)(double(scan) * (file ? fp : ap) / (ap + fp));
        else if (balance == SCAN_FILE && !file)
            scan = 0;
        nr[lru] = scan;
    }
    unsigned long targets[NR_LRU_LISTS];
    std::copy(nr, nr + NR_LRU_LISTS, targets);

    unsigned long nr_reclaimed = 0;
    while (nr[LRU_INACTIVE_ANON] || nr[LRU_ACTIVE_FILE] || nr[LRU_INACTIVE_FILE]) {
        for (unsigned lru = 0; lru < NR_LRU_LISTS; lru++) {
            if (!nr[lru])
                continue;
            unsigned long to_scan = std::min<unsigned long>(nr[lru], cfg_.swap_cluster_max);
            nr[lru] -= to_scan;
            if (lru == LRU_ACTIVE_ANON || lru == LRU_ACTIVE_FILE) {
                if (lru == LRU_ACTIVE_FILE ? deactivate_file : inactive_is_low(nid, LruList(lru - 1)))
                    shrink_active_list(c, nid, LruList(lru), to_scan);
            } else {
                nr_reclaimed += shrink_inactive_list(c, nid, LruList(lru), to_scan, sc);
            }
        }
        if (nr_reclaimed < sc.nr_to_reclaim)
            continue;
        // Reached the goal: one nudge towards proportional scanning, then stop.
        unsigned long nr_file = nr[LRU_INACTIVE_FILE] + nr[LRU_ACTIVE_FILE];
        unsigned long nr_anon = nr[LRU_INACTIVE_ANON] + nr[LRU_ACTIVE_ANON];
        if (!nr_file || !nr_anon)
            break;
        unsigned smaller, larger;
        unsigned long percentage;
        if (nr_file > nr_anon) {
            percentage = nr_anon * 100 / (targets[LRU_INACTIVE_ANON] + targets[LRU_ACTIVE_ANON] + 1);
            smaller = LRU_INACTIVE_ANON;
            larger = LRU_INACTIVE_FILE;
        } else {
            percentage = nr_file * 100 / (targets[LRU_INACTIVE_FILE] + targets[LRU_ACTIVE_FILE] + 1);
            smaller = LRU_INACTIVE_FILE;
            larger = LRU_INACTIVE_ANON;
        }
        nr[smaller] = nr[smaller + 1] = 0;
        for (unsigned lru : {larger, larger + 1}) {
            unsigned long scanned = targets[lru] - nr[lru];
            nr[lru] = targets[lru] * (100 - percentage) / 100;
            nr[lru] -= std::min(nr[lru], scanned);
        }
    }
    sc.nr_reclaimed += nr_reclaimed;
    if (sc.may_swap && inactive_is_low(nid, LRU_INACTIVE_ANON))
        shrink_active_list(c, nid, LRU_ACTIVE_ANON, cfg_.swap_cluster_max);
}

void Kernel::process_writeback_completions(double now)
{
    while (!wb_done_.empty() && wb_done_.top().t <= now) {
        WbDone d = wb_done_.top();
        wb_done_.pop();
        Folio& fo = folios[d.f];
        if (fo.gen != d.gen || !fo.test(PG_writeback))
            continue;
        fo.clear(PG_writeback);   // folio_end_writeback
        if (fo.test(PG_reclaim)) {
            fo.clear(PG_reclaim);
            // folio_rotate_reclaimable -> lru_move_tail: to the inactive tail, deactivated.
            if (fo.lru != LRU_NONE) {
                Lruvec& l = lruvec[fo.nid];
                l.del(d.f);
                l.add(d.f, fo.anon() ? LRU_INACTIVE_ANON : LRU_INACTIVE_FILE, true);
                vm.count(PGROTATED, fo.nr_pages());
            }
        }
    }
}

void Kernel::shrink_active_list(Ctx& c, int nid, LruList lru, unsigned long nr_to_scan)
{
    const Costs& k = cfg_.c;
    Lruvec& l = lruvec[size_t(nid)];
    std::vector<folio_t> moved;
    unsigned long scanned = 0;
    for (folio_t f = l.tail(lru); f != NO_FOLIO && (scanned < nr_to_scan || moved.empty());) {
        folio_t prev = l.prev(f);
        scanned += folios[f].nr_pages();
        l.del(f);
        moved.push_back(f);
        f = prev;
    }
    if (moved.empty())
        return;
    c.lock(lru_lock_[size_t(nid)], k.lru_lock_base + k.isolate_per_folio * double(moved.size()));
    LruList inactive = LruList(lru - 1);
    unsigned long rotated = 0;
    for (folio_t f : moved) {
        Folio& fo = folios[f];
        bool referenced = false;
        if (fo.test(PG_mapped)) {
            c.sys(k.rmap_walk + k.rmap_per_vma * (rmap_vmas(fo) - 1) + k.rmap_per_pte * fo.nr_pages() * mapcount(f));
            referenced = fo.test(PG_young);
            fo.clear(PG_young);
        }
        // Referenced VM_EXEC file folios stay active (every file mapping here is VM_EXEC);
        // referenced anon folios are deactivated too.
        if (referenced && !fo.anon()) {
            rotated += fo.nr_pages();
            l.add(f, lru);
            continue;
        }
        fo.set(PG_workingset);
        l.add(f, inactive);
    }
    c.lock(lru_lock_[size_t(nid)], k.lru_lock_base + k.putback_per_folio * double(moved.size()));
    vm.count(PGREFILL, scanned);
    vm.count(PGDEACTIVATE, scanned - rotated);
    if (rotated)
        lru_note_cost(&c, nid, lru == LRU_ACTIVE_FILE, 0, rotated);
}

unsigned long Kernel::shrink_inactive_list(Ctx& c, int nid, LruList lru, unsigned long nr_to_scan,
                                           ScanControl& sc)
{
    const Costs& k = cfg_.c;
    Lruvec& l = lruvec[size_t(nid)];
    process_writeback_completions(c.now());
    c.sys(k.shrink_round);
    if (c.task.lru_add_pending) {   // lru_add_drain
        c.lock(lru_lock_[size_t(nid)], k.lru_lock_base + k.lru_add_per_folio * double(c.task.lru_add_pending));
        c.task.lru_add_pending = 0;
    }
    // isolate_lru_folios: from the tail until nr_to_scan pages, at least one folio.
    std::vector<folio_t> list;
    unsigned long scanned = 0;
    for (folio_t f = l.tail(lru); f != NO_FOLIO && scanned < nr_to_scan;) {
        folio_t prev = l.prev(f);
        scanned += folios[f].nr_pages();
        l.del(f);
        set_isolated(f);
        list.push_back(f);
        f = prev;
    }
    if (list.empty())
        return 0;
    c.lock(lru_lock_[size_t(nid)], k.lru_lock_base + k.isolate_per_folio * double(list.size()));
    vm.count(sc.kswapd ? PGSCAN_KSWAPD : PGSCAN_DIRECT, scanned);
    sc.nr_scanned += scanned;

    std::vector<folio_t> ret, activate;
    ShrinkStat st;
    unsigned long reclaimed = shrink_folio_list(c, list, ret, activate, st);

    // move_folios_to_lru; a folio its owner unmapped meanwhile (exit) and that is not in the
    // swap cache drops its last reference here.
    auto orphaned = [&](folio_t f) {
        Folio& fo = folios[f];
        if (!fo.test(PG_orphan))
            return false;
        fo.clear(PG_orphan);
        if (fo.test(PG_swapcache) || fo.test(PG_writeback))
            return false;   // stays cached; a later pass or swap free drops it
        clear_isolated(f);
        free_folio(c, f);
        return true;
    };
    for (folio_t f : ret) {
        if (orphaned(f))
            continue;
        clear_isolated(f);
        lruvec[folios[f].nid].add(f, folios[f].anon() ? LRU_INACTIVE_ANON : LRU_INACTIVE_FILE);
    }
    for (folio_t f : activate) {
        if (orphaned(f))
            continue;
        clear_isolated(f);
        lruvec[folios[f].nid].add(f, folios[f].anon() ? LRU_ACTIVE_ANON : LRU_ACTIVE_FILE);
        vm.count(PGACTIVATE, folios[f].nr_pages());
    }
    if (!ret.empty() || !activate.empty())
        c.lock(lru_lock_[size_t(nid)], k.lru_lock_base + k.putback_per_folio * double(ret.size() + activate.size()));
    vm.count(sc.kswapd ? PGSTEAL_KSWAPD : PGSTEAL_DIRECT, reclaimed);
    if (has_files())   // runs without a file keep the fixed balance (see get_scan_count)
        lru_note_cost(&c, nid, lru == LRU_INACTIVE_FILE, st.nr_pageout, scanned - reclaimed);
    // Reclaimers run concurrently on a shared LRU: run the planned time now and then, so a
    // long pass (a first sweep that only marks folios referenced) is shared with the others
    // instead of being planned by one task seconds ahead.
    if (c.slice_over(cfg_.reclaim_slice))
        c.flush();
    return reclaimed;
}

unsigned long Kernel::shrink_folio_list(Ctx& c, std::vector<folio_t>& list, std::vector<folio_t>& ret,
                                        std::vector<folio_t>& activate, ShrinkStat& st, bool ignore_references)
{
    const Costs& k = cfg_.c;
    std::vector<PlugEntry> plug;
    std::vector<folio_t> to_free;
    for (size_t i = 0; i < list.size(); i++) {
        folio_t f = list[i];
        Folio* fo = &folios[f];
        unsigned nr = fo->nr_pages();

        if (fo->test(PG_orphan) && !fo->test(PG_writeback)) {   // ours is the last reference
            fo->clear(PG_orphan);
            if (fo->test(PG_swapcache))
                swap_cache_del(c, f, true);
            to_free.push_back(f);
            st.nr_reclaimed += nr;
            continue;
        }

        if (fo->test(PG_locked)) {   // folio_trylock fails: a swap-in waits on its read
            ret.push_back(f);
            continue;
        }

        if (fo->test(PG_writeback)) {
            // cgroup v2 (writeback_throttling_sane): mark for immediate reclaim, activate.
            fo->set(PG_reclaim);
            st.nr_writeback += nr;
            activate.push_back(f);
            continue;
        }

        // folio_check_references (reclaim_pages, i.e. MADV_PAGEOUT, skips it)
        bool referenced_ptes = false;
        if (fo->test(PG_mapped) && !ignore_references) {
            c.sys(k.rmap_walk + k.rmap_per_vma * (rmap_vmas(*fo) - 1) + k.rmap_per_pte * nr * mapcount(f));
            referenced_ptes = fo->test(PG_young);
            fo->clear(PG_young);
        }
        bool referenced_folio = fo->test(PG_referenced);
        fo->clear(PG_referenced);
        if (referenced_ptes) {
            fo->set(PG_referenced);
            // FOLIOREF_ACTIVATE: referenced twice, or a file folio (every file mapping here is
            // VM_EXEC: "activate file-backed executable folios after first usage").
            if (referenced_folio || !fo->anon())
                activate.push_back(f);
            else
                ret.push_back(f);
            continue;
        }

        if (fo->anon() && !fo->test(PG_swapcache)) {
            if (!add_to_swap(c, f)) {
                if (fo->order == 0) {
                    activate.push_back(f);
                    continue;
                }
                // Fall back to order 0: split, count, retry for the head; the tail
                // pages make their own pass later in this call.
                unsigned order = fo->order;
                if (order == HPAGE_PMD_ORDER)
                    vm.count(THP_SWPOUT_FALLBACK);
                vm.count_mthp(order, MTHP_STAT_SWPOUT_FALLBACK);
                split_folio(c, f, list);
                fo = &folios[f];
                nr = 1;
                if (!add_to_swap(c, f)) {
                    activate.push_back(f);
                    continue;
                }
            }
        }

        if (fo->test(PG_mapped))
            try_to_unmap(c, f);

        if (fo->test(PG_dirty)) {
            tlb_flush_dirty(c, f);
            Pageout res = swap_writepage(c, f, plug);
            fo = &folios[f];
            if (res == Pageout::Writeback) {
                st.nr_pageout += nr;
                ret.push_back(f);
                continue;
            }
            if (res == Pageout::Activate) {
                activate.push_back(f);
                continue;
            }
        }

        // Faulted back in from the swap cache while its write ran (another task's time): the
        // mapping's reference makes __remove_mapping's refcount check fail; the folio stays.
        if (fo->test(PG_mapped)) {
            ret.push_back(f);
            continue;
        }
        // __remove_mapping: out of the swap cache (shadow stored), or a clean file folio out of
        // the page cache (workingset_eviction's shadow, filemap.cpp), then freed in a batch.
        if (fo->test(PG_swapcache))
            swap_cache_del(c, f, true);
        if (!fo->anon()) {
            page_cache_del(c, f);
            vm.count(PGSTEAL_FILE, nr);
        }
        to_free.push_back(f);
        st.nr_reclaimed += nr;
    }
    flush_plug(c, plug);
    // The frees below are state changes made when planned, ahead of the clock by planned().
    // Other tasks decide whether to reclaim from the memcg's usage, so a large free (a 2M
    // folio) first runs the planned time: no free comes earlier than the clock by more than
    // sim.reclaim_slice x MEMCG_CHARGE_BATCH pages' worth of page-seconds.
    if (c.planned() * double(st.nr_reclaimed) > cfg_.reclaim_slice * cfg_.charge_batch)
        c.flush();
    for (folio_t f : to_free) {
        clear_isolated(f);
        note_reclaim_free(folios[f]);
        free_folio(c, f);
    }
    return st.nr_reclaimed;
}

}  // namespace swapsim::kernel
