// madvise(MADV_PAGEOUT) on private anonymous memory (mm/madvise.c, mm/vmscan.c).
//
// Models: madvise_cold_or_pageout_pte_range per PMD range: each mapped folio's PTEs are
// tested and cleared young, the folio's referenced flag cleared and the folio isolated from
// its LRU (folio_isolate_lru, one lru_lock section each); then reclaim_pages ->
// reclaim_folio_list -> shrink_folio_list without folio_check_references, and what was not
// reclaimed goes back to the LRU.
// Granularity: per folio. Leaves out: splitting a large folio the range covers only in part,
// shared folios (mapcount > 1 are skipped by the kernel; there are none here).
//
// Yield points: after each PMD range's reclaim_folio_list and putback (cond_resched), with
// nothing isolated; inside shrink_folio_list, those of vmscan.cpp and swap.cpp.

#include <algorithm>

#include "kernel/kernel.hpp"

namespace swapsim::kernel {

using namespace mm;

void Kernel::madvise_pageout(Ctx& c, uint32_t mm_id, uint32_t vma, uint32_t first, uint32_t n)
{
    const Costs& k = cfg_.c;
    const uint32_t end = first + n;
    for (uint32_t pmd = first; pmd < end;) {
        uint32_t pmd_end = std::min(end, (pmd / HPAGE_PMD_NR + 1) * HPAGE_PMD_NR);
        std::vector<folio_t> list;
        Vma& v = mms[mm_id].vmas[vma];
        for (uint32_t i = pmd; i < pmd_end;) {
            pte_t p = v.pte[i];
            if (!pte_present(p)) {
                i++;
                continue;
            }
            folio_t f = pte_folio(p);
            Folio& fo = folios[f];
            uint32_t fend = fo.index + fo.nr_pages();
            c.sys(k.zap_per_pte * double(fend - i), "madvise_cold_or_pageout_pte_range");
            i = fend;
            fo.clear(PG_young);
            fo.clear(PG_referenced);
            if (fo.lru == LRU_NONE || fo.test(PG_isolated))
                continue;
            lruvec[fo.nid].del(f);
            set_isolated(f);
            c.lock(lru_lock_[fo.nid], k.lru_lock_base + k.isolate_per_folio, 1, 0, "folio_isolate_lru");
            list.push_back(f);
        }
        pmd = pmd_end;
        if (list.empty())
            continue;
        std::vector<folio_t> ret, activate;
        ShrinkStat st;
        swapout_acct.pageout_freed += shrink_folio_list(c, list, ret, activate, st, true);   // reclaim_folio_list
        for (auto* l : {&ret, &activate}) {
            for (folio_t f : *l) {
                Folio& fo = folios[f];
                clear_isolated(f);
                lruvec[fo.nid].add(f, folio_lru_list(fo.anon(), l == &activate));
                if (l == &activate)
                    vm.count(PGACTIVATE, fo.nr_pages());
            }
        }
        if (!ret.empty() || !activate.empty())
            c.lock(lru_lock_[size_t(node_of_cpu(c.task.cpu))],
                   k.lru_lock_base + k.putback_per_folio * double(ret.size() + activate.size()), 1, 0, "reclaim_folio_list");
        if (c.slice_over(cfg_.reclaim_slice))
            c.flush();
    }
}

}  // namespace swapsim::kernel
