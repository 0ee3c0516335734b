// Swap-out and the swap cache: add_to_swap (try_to_unmap and the TLB flush before writeout
// are in fork.cpp, with the rmap),
// split_folio_to_list, swap_writepage (zswap_store, pmem copy or an async bio), the block
// plug, zswap_load/zswap_invalidate, and slot freeing with its locks.
//
// Models: folio_alloc_swap (slot cache or get_swap_pages under si->lock, or the cluster lock
// in the v6.14+ form) + mem_cgroup_try_charge_swap + add_to_swap_cache under the swap-cache
// lock of the slot (64 MiB XArray space or, with the swap table, the cluster); zswap_store's
// all-or-nothing per folio, limits (max_pool_percent, accept threshold), per-page compression
// (IAA: one job per page, or a batch of up to 8 before that batch's stores) and zs_malloc,
// zswap tree and list_lru inserts, the compressed-size memcg charge;
// __swap_writepage's one bio per folio, merged in the plug up to max_request bytes;
// zswap_invalidate's zs_free, whose class-lock hold may add the misses of obj_free and
// fix_fullness_group on a zspage long out of cache (cost.zsmalloc.free_cold, a what-if, 0).
// Granularity: per folio, per-page work summed; locks priced per acquisition.
// zram (SWP_SYNCHRONOUS_IO) compresses in swap_writepage, in the reclaiming task (zram.cpp).
// Leaves out: zswap writeback to the device and its shrinker, same-filled pages, zeromap;
// the cache-line traffic of many CPUs storing at once is not modelled apart from the fitted
// per-page store cost, so it does not grow with their number.
//
// Yield points:
// - zswap_store, between the pages of a large folio (each zswap_store_page; the per-CPU
//   acomp_ctx mutex may sleep): the folio is isolated and in the swap cache; every page
//   stored so far is a zsmalloc object counted in zswap's stored pages and charged.
// - iaa_wait in async_irq mode (wait_for_completion): the same, a job in flight.
// - flush_plug, submit_bio sleeping for a request tag: the plugged folios are under
//   writeback (PG_writeback) and isolated.
// A folio table reference does not survive a yield (the table may grow): paths keep the
// values they need (see zswap_store) and index `folios` again after it.

#include <algorithm>
#include <stdexcept>

#include "kernel/kernel.hpp"

namespace swapsim::kernel {

using namespace mm;

bool Kernel::add_to_swap(Ctx& c, folio_t f)
{
    Folio& fo = folios[f];
    unsigned order = fo.order, nr = fo.nr_pages();
    c.sys(cfg_.c.add_to_swap);
    swp_offset_t off = NO_SWAP;
    // Without CONFIG_THP_SWAP a large folio gets no slots and is split; before v6.10 only a
    // PMD-size one got them (thp_swap_suitable / folio_test_pmd_mappable).
    if (swap && (order == 0 || (cfg_.thp_swap && (cfg_.mthp_swapout || order == HPAGE_PMD_ORDER)))) {
        SwapAllocTrace tr;
        off = swap->alloc(c.task.cpu, order, &tr);
        if (swapfile_full_at < 0 && cfg_.swapfile_slots && !swap->file_free())
            swapfile_full_at = c.now();
        if (tr.took_si_lock)
            c.lock(swap_alloc_lock(off),
                   cfg_.c.si_lock_hold + cfg_.c.si_lock_per_slot * (tr.slots_scanned + tr.refilled) +
                       cfg_.c.si_alloc_per_range * tr.ranges);
    }
    if (!memcg.try_charge_swap(off != NO_SWAP, nr)) {
        if (off != NO_SWAP) {   // over memory.swap.max: give the slots back
            memcg.swap.usage += nr;
            SwapFreeTrace tr;
            swap->put_cache(off, nr, c.task.cpu, &tr);
        }
        return false;
    }
    swap_cache_insert(c, f, off);
    fo.set(PG_dirty);
    return true;
}

void Kernel::swap_cache_insert(Ctx& c, folio_t f, swp_offset_t off)
{
    Folio& fo = folios[f];
    unsigned nr = fo.nr_pages();
    if (swap->cache_folio(off) == NO_FOLIO && !swap->has_cache(off))
        swap->swapcache_prepare(off);   // swap-in: pin the referenced slot
    for (unsigned i = 0; i < nr; i++)
        swap->set_cache_folio(off + i, f);
    fo.swap = off;
    fo.set(PG_swapcache);
    const Costs& k = cfg_.c;
    if (swap_table()) {   // swap_cache_add_folio: __swap_table_set per slot under ci->lock
        c.lock(swap_cache_lock(off), k.table_add + k.table_per_slot * nr);
        return;
    }
    // add_to_swap_cache: xas_store per page under the 64 MiB space's xa_lock.
    c.lock(swap_cache_lock(off), k.swap_cache_add + k.swap_cache_per_page * nr);
    xa_store(&c, off, nr, XaStore::Folio, c.task.cpu);
}

Kernel::XaNode& Kernel::xa_node(swp_offset_t off)
{
    size_t i = off / XA_CHUNK_SIZE;
    xa_nr_nodes_ = std::max(xa_nr_nodes_, i + 1);
    size_t chunk = i / kXaPerChunk;
    if (chunk >= xa_nodes_.size())
        xa_nodes_.resize(chunk + 1);
    if (!xa_nodes_[chunk])
        xa_nodes_[chunk] = std::make_unique<XaChunk>();
    return (*xa_nodes_[chunk])[i % kXaPerChunk];
}

void Kernel::xa_store(Ctx* c, swp_offset_t off, unsigned nr, XaStore what, int cpu)
{
    for (unsigned done = 0; done < nr;) {
        swp_offset_t o = off + done;
        unsigned first = unsigned(o % XA_CHUNK_SIZE), n = std::min(nr - done, XA_CHUNK_SIZE - first);
        uint64_t bits = (n == 64 ? ~0ull : (1ull << n) - 1) << first;
        done += n;
        XaNode& x = xa_node(o);
        if (!(x.folios | x.shadows)) {
            if (what == XaStore::Null)
                continue;
            x.nid = int8_t(node_of_cpu(cpu));   // xas_alloc: a node from the storing CPU's node
        }
        x.folios &= ~bits;
        x.shadows &= ~bits;
        if (what == XaStore::Folio)
            x.folios |= bits;
        else if (what == XaStore::Shadow)
            x.shadows |= bits;
        // workingset_update_node: list_lru_add_obj / list_lru_del_obj when membership changes.
        const bool only_shadows = x.shadows && !x.folios;
        if (only_shadows != x.on_list) {
            x.on_list = only_shadows;
            size_t nid = size_t(x.nid);
            only_shadows ? shadow_on_list_[nid]++ : shadow_on_list_[nid]--;
            if (c)
                c->lock(shadow_lru_lock_[nid], cfg_.c.shadow_list_hold, 1, 0, "workingset_update_node");
            else
                pending_shadow_[nid]++;
        }
        if (!(x.folios | x.shadows))
            x.nid = -1;   // xas_delete_node: freed
    }
}

void Kernel::price_slot_frees(Ctx& c, const SwapFreeTrace& tr, swp_offset_t off, const ZapLines* cold)
{
    const Costs& k = cfg_.c;
    // zap's free of a run (cold): the metadata lines it misses on, each under the lock that
    // covers it (clear_shadow_from_swap_cache's walk under xa_lock, the rest under ci->lock).
    const double cold_cluster = cold ? k.cold_line * cold->cluster : 0;
    const double cold_cache = cold && !pending_clear_.empty() ? k.cold_line * cold->cache / double(pending_clear_.size()) : 0;
    // cost.swap.free_per_range includes the walk of swap_range_free's
    // clear_shadow_from_swap_cache. XArray: it runs under each space's xa_lock, once per freed
    // range, with a store per slot (nested in the cluster lock; booked after it here), and
    // workingset_update_node drops each emptied node from the shadow_nodes list_lru. The swap
    // table clears each slot's shadow with one store in the table instead.
    const double shadow = swap_table() ? k.table_per_slot * tr.slots_freed -
                                             (k.xa_clear_walk * tr.ranges + k.xa_clear_per_slot * tr.slots_freed)
                                       : -k.xa_clear_walk * tr.ranges;
    for (const PendingClear& p : pending_clear_)
        c.lock(lock_in(swap_cache_locks_, p.space),
               k.xa_clear_walk + k.xa_clear_per_slot * p.slots / p.ranges + cold_cache / p.ranges, p.ranges, 0,
               "clear_shadow_from_swap_cache");
    pending_clear_.clear();
    for (size_t nid = 0; nid < pending_shadow_.size(); nid++)
        if (pending_shadow_[nid]) {
            c.lock(shadow_lru_lock_[nid], k.shadow_list_hold, pending_shadow_[nid], 0, "workingset_update_node");
            pending_shadow_[nid] = 0;
        }
    if (tr.took_si_lock)
        c.lock(swap_alloc_lock(off),
               k.si_lock_hold + k.si_lock_per_slot * tr.slots_freed + k.si_free_per_range * tr.ranges + shadow +
                   cold_cluster,
               1, 0, "swap_entry_range_free");
    if (pending_invalidate_) {
        // zswap_invalidate of each freed slot: xa_erase, zs_free, list_lru_del, uncharge.
        unsigned n = pending_invalidate_;
        pending_invalidate_ = 0;
        hw::Lock& tree = zswap_tree_lock(off);
        hw::Lock& cls = zs_class_lock_[zpool.class_index(std::max<unsigned>(cfg_.comp.comp_len, 1))];
        hw::Lock& lru = list_lru_lock_[size_t(node_of_cpu(c.task.cpu))];
        static const char* const fn = "zswap_invalidate";
        for (unsigned i = 0; i < n; i++) {
            c.sys(k.zswap_invalidate_page, fn);
            c.lock(tree, k.zswap_tree_hold, 1, 0, fn);
            c.lock(cls, k.zs_free_hold(), 1, 0, fn);
            c.lock(lru, k.list_lru_hold, 1, 0, fn);
        }
    }
    // zram_slot_free_notify of each freed slot; zs_free of the objects it emptied.
    if (pending_zram_free_) {
        static const char* const fn = "zram_slot_free_notify";
        c.sys(cfg_.zram.free_page * pending_zram_free_, fn);
        pending_zram_free_ = 0;
        for (int cls : zram_freed_classes_)
            c.lock(zram_class_lock_[size_t(cls)], k.zs_free_hold(), 1, 0, fn);
        zram_freed_classes_.clear();
    }
}

void Kernel::swap_cache_del(Ctx& c, folio_t f, bool shadow)
{
    Folio& fo = folios[f];
    unsigned nr = fo.nr_pages();
    swp_offset_t off = fo.swap;
    if (swap_table()) {   // __swap_cache_del_folio: the shadow goes into the table, per slot
        c.lock(swap_cache_lock(off), cfg_.c.table_del + cfg_.c.table_per_slot * nr);
    } else {              // __delete_from_swap_cache: xas_store(shadow) per page under xa_lock
        c.lock(swap_cache_lock(off), cfg_.c.swap_cache_del + cfg_.c.swap_cache_per_page * nr);
        xa_store(&c, off, nr, shadow ? XaStore::Shadow : XaStore::Null, c.task.cpu);
    }
    fo.clear(PG_swapcache);
    fo.swap = NO_SWAP;
    SwapFreeTrace tr;
    free_cpu_ = c.task.cpu;
    swap->put_cache(off, nr, c.task.cpu, &tr);   // put_swap_folio
    price_slot_frees(c, tr, off);
}

void Kernel::swap_free_slots(Ctx& c, swp_offset_t off, unsigned nr, const ZapLines* cold)
{
    SwapFreeTrace tr;
    free_cpu_ = c.task.cpu;
    if (cold)
        c.sys(cfg_.c.cold_line * cold->outside, "zap_pte_range");
    swap->put_ref(off, nr, c.task.cpu, &tr);
    price_slot_frees(c, tr, off, cold);
}

// The metadata cache lines zap_pte_range's free of the swap entries [off, off + nr) (one
// cluster, from swap_pte_batch) touches, from v6.17/v6.18 mm/internal.h swap_pte_batch and
// mm/swapfile.c swap_entries_put_map / swap_entries_free / swap_range_free: swap_cgroup's
// 2-byte ids (lookup_swap_cgroup_id per entry, cleared again by mem_cgroup_uncharge_swap on
// the same lines), swap_map's bytes, the cluster's swap_cluster_info, zeromap's bits; then
// the swap cache's shadows: the XArray's (v6.17, clear_shadow_from_swap_cache) address_space
// xa_lock line, the parent's slot line on the walk down, and each leaf xa_node's header
// (count, nr_values, private_list) and slot lines (8 bytes a slot from byte 40), or the swap
// table's (v6.18, __swap_cache_clear_shadow) 8-byte entries in the cluster's table. Lines
// are counted by address; the per-CPU and shared counters (memcg, nr_swap_pages) are not.
Kernel::ZapLines Kernel::zap_swap_lines(swp_offset_t off, unsigned nr) const
{
    auto lines = [](uint64_t first_byte, uint64_t last_byte) { return unsigned(last_byte / 64 - first_byte / 64 + 1); };
    const uint64_t last = uint64_t(off) + nr - 1;
    ZapLines z;
    if (!nr)
        return z;
    z.outside = lines(uint64_t(off) * 2, last * 2 + 1);                    // swap_cgroup
    z.cluster = 1 + lines(off, last) + lines(off / 8, last / 8);         // cluster, swap_map, zeromap
    if (swap_table()) {
        const uint64_t base = uint64_t(off) / SWAPFILE_CLUSTER * SWAPFILE_CLUSTER;
        z.cluster += lines((off - base) * 8, (last - base) * 8 + 7);     // the cluster's table
        return z;
    }
    z.cache = 1;   // the space's xa_lock
    for (uint64_t node = off / XA_CHUNK_SIZE; node <= last / XA_CHUNK_SIZE; node++) {
        const uint64_t a = std::max<uint64_t>(off, node * XA_CHUNK_SIZE) % XA_CHUNK_SIZE;
        const uint64_t b = std::min<uint64_t>(last, node * XA_CHUNK_SIZE + XA_CHUNK_SIZE - 1) % XA_CHUNK_SIZE;
        const uint64_t first = 40 + 8 * a, end = 40 + 8 * b + 7;
        // The parent's slot, the header, and the slot lines past the header's.
        z.cache += 1 + 1 + lines(first, end) - (first < 64 ? 1 : 0);
    }
    return z;
}

void Kernel::split_folio(Ctx& c, folio_t f, std::vector<folio_t>& list)
{
    Folio& head = folios[f];
    unsigned nr = head.nr_pages();
    if (head.order == HPAGE_PMD_ORDER)
        vm.count(THP_SPLIT_PAGE);
    vm.count_mthp(head.order, MTHP_STAT_SPLIT);
    c.sys(cfg_.c.split_folio * nr);
    bool mapped = head.test(PG_mapped);
    auto [mm_id, vma] = vma_ref_[head.owner];
    std::vector<folio_t> tails = folios.split(f);
    Vma& v = mms[mm_id].vmas[vma];
    for (folio_t t : tails) {
        if (mapped)
            v.pte[folios[t].index] = mk_pte(t);
        list.push_back(t);
    }
}

bool Kernel::zswap_store(Ctx& c, folio_t f)
{
    const Costs& k = cfg_.c;
    // `folios` may grow while this runs (it runs its time in slices): keep what it needs.
    const Folio& fo0 = folios[f];
    const unsigned nr = fo0.nr_pages();
    const swp_offset_t swap_off = fo0.swap;
    const int nid = fo0.nid;
    if (fo0.order && !cfg_.zswap_large) {   // v6.12: "Large folios aren't supported"
        zswap.reject_large++;
        return false;
    }
    // zswap_check_limits
    uint64_t cur = zpool.pool_pages();
    if (zswap_full_ && cur <= zswap_max_pages_ * cfg_.accept_threshold_percent / 100)
        zswap_full_ = false;
    if (cur >= zswap_max_pages_)
        zswap_full_ = true;
    if (zswap_full_) {
        zswap.pool_limit_hit++;
        return false;
    }
    c.sys(k.zswap_store_folio);
    unsigned len = cfg_.comp.comp_len;
    // Pages in batches: compress the batch under the per-CPU acomp_ctx mutex (uncontended),
    // then store its pages. A batch is one page (zswap_store_page, v7), or up to
    // zswap_batch pages compressed in parallel on IAA (the batching series).
    // Every page compresses to `len`, so a rejection comes at the first batch, before any store.
    const bool sw = !cfg_.comp.hw;
    const unsigned batch = sw ? 1 : std::max(1u, cfg_.zswap_batch);
    if (sw && len >= PAGE_SIZE) {   // v6.12: reject_compress_poor, the folio goes to swap
        c.sys(cfg_.comp.comp_s);
        zswap.reject_compress_poor++;
        return false;
    }
    hw::Lock& tree = zswap_tree_lock(swap_off);
    hw::Lock& cls = zs_class_lock_[zpool.class_index(len)];
    for (unsigned i = 0; i < nr; i++) {   // zswap_store_page
        if (c.slice_over(cfg_.reclaim_slice))   // a large folio's pages take a while: run them
            c.flush();
        if (sw) {
            c.sys(cfg_.comp.comp_s);
        } else if (i % batch == 0 && !iaa_compress_batch(c, std::min(batch, nr - i))) {
            zswap.reject_compress_fail++;   // IAA_ERROR_COMP_BUF_OVERFLOW: -EOVERFLOW
            return false;
        }
        c.sys(k.zswap_store_page + double(len) / k.zs_copy_bw);
        c.lock(cls, k.zs_class_hold);                    // zs_malloc
        c.lock(tree, k.zswap_tree_hold);                 // xa_store
        c.lock(list_lru_lock_[size_t(nid)], k.list_lru_hold); // zswap_lru_add
        zpool.zs_malloc(len);
        swap->set_zswap_len(swap_off + i, uint16_t(len));
        zswap.stored_pages++;   // per page, as zswap_store_page: consistent at the next yield
    }
    // obj_cgroup_charge_zswap in the reclaimer's context: the charge can put it over high.
    account_charge(c, memcg.charge_zswap(c.task.cpu, uint64_t(len) * nr, nr));
    vm.count(ZSWPOUT, nr);
    return true;
}

bool Kernel::zswap_load(Ctx& c, swp_offset_t off)
{
    const Costs& k = cfg_.c;
    uint16_t len = swap->zswap_len(off);
    if (!len)
        return false;
    unsigned cls = zpool.class_index(len);
    c.lock(zswap_tree_lock(off), k.zswap_tree_hold);
    if (cfg_.comp.hw)
        iaa_decompress(c);
    else
        c.sys(cfg_.comp.decomp_s);
    c.sys(k.zswap_load_page);
    c.lock(zs_class_lock_[cls], k.zs_free_hold());
    c.lock(list_lru_lock_[size_t(node_of_cpu(c.task.cpu))], k.list_lru_hold);
    zpool.zs_free(cls);
    swap->set_zswap_len(off, 0);   // loads are exclusive
    memcg.uncharge_zswap(c.task.cpu, len, 1);
    zswap.stored_pages--;
    vm.count(ZSWPIN);
    return true;
}

// iaa_crypto: in sync and async (polled) modes the CPU spins on the completion record until
// the job is done; in async_irq mode the task sleeps and the IRQ thread wakes it.
void Kernel::iaa_wait(Ctx& c, double done)
{
    const IaaConfig& ic = cfg_.iaa;
    if (ic.mode == IaaMode::AsyncIrq) {
        if (done + ic.irq_wake > c.now())
            c.block_until(done + ic.irq_wake);
        c.sys(ic.irq_cpu);
    } else if (done > c.now()) {
        c.busy_wait(done - c.now());
    }
}

// One batch of `n` pages (n = 1 without the batching series): the descriptors are submitted
// one after the other, then waited for together. With verify_compress each result is
// decompressed on a decompress engine and its CRC compared. False: an output overflowed its
// one-page buffer (nothing is verified).
bool Kernel::iaa_compress_batch(Ctx& c, unsigned n)
{
    const IaaConfig& ic = cfg_.iaa;
    const double comp = cfg_.comp.comp_s, decomp = cfg_.comp.decomp_s;
    double last = c.now();
    std::vector<hw::IaaJob> jobs;
    for (unsigned i = 0; i < n; i++) {
        c.sys(ic.submit);
        hw::IaaJob j = iaa->compress(c.now(), c.task.cpu, comp, iaa_seq_++);
        if (j.submit > c.now())   // WQ full: enqcmds retried until a slot frees
            c.busy_wait(j.submit - c.now());
        jobs.push_back(j);
        last = std::max(last, j.end);
    }
    if (cfg_.comp.comp_len >= PAGE_SIZE) {
        iaa_wait(c, last);
        return false;
    }
    if (ic.verify) {
        for (const hw::IaaJob& j : jobs) {
            hw::IaaJob v = iaa->decompress(j.end, c.task.cpu, decomp);
            last = std::max(last, v.end);
        }
    }
    iaa_wait(c, last);
    if (ic.verify)
        c.sys(ic.crc * n);
    return true;
}

void Kernel::iaa_decompress(Ctx& c)
{
    c.sys(cfg_.iaa.submit);
    hw::IaaJob j = iaa->decompress(c.now(), c.task.cpu, cfg_.comp.decomp_s);
    iaa_wait(c, j.end);
}

Kernel::Pageout Kernel::swap_writepage(Ctx& c, folio_t f, std::vector<PlugEntry>& plug)
{
    unsigned nr = folios[f].nr_pages();
    if (cfg_.zswap) {
        bool stored = zswap_store(c, f);   // may run time: other tasks may grow `folios`
        Folio& fo = folios[f];
        if (stored) {
            if (fo.order)
                vm.count_mthp(fo.order, MTHP_STAT_ZSWPOUT);
            fo.clear(PG_dirty);
            note_swapout(fo);
            return Pageout::Clean;
        }
        if (!cfg_.zswap_writeback)   // memory.zswap.writeback=0: AOP_WRITEPAGE_ACTIVATE
            return Pageout::Activate;
    }
    Folio& fo = folios[f];
    vm.count(PSWPOUT, nr);
    note_swapout(fo);
    if (fo.order == HPAGE_PMD_ORDER)
        vm.count(THP_SWPOUT);
    if (fo.order)
        vm.count_mthp(fo.order, MTHP_STAT_SWPOUT);
    fo.clear(PG_dirty);
    if (cfg_.dev == SwapDev::Pmem) {   // SWP_SYNCHRONOUS_IO: the copy is done on return
        c.sys(double(nr * PAGE_SIZE) / cfg_.c.pmem_bw);
        return Pageout::Clean;
    }
    if (cfg_.dev == SwapDev::Zram) {   // SWP_SYNCHRONOUS_IO: compressed on return
        zram_write_folio(c, f);   // may run time: other tasks may grow `folios`
        return Pageout::Clean;
    }
    c.sys(cfg_.c.bio_per_folio);
    fo.set(PG_writeback);
    fo.set(PG_reclaim);
    plug.push_back({fo.swap, nr, f, fo.gen});
    return Pageout::Writeback;
}

void Kernel::note_swapout(Folio& f)
{
    if (f.test(PG_wrote))   // swapped out before, refaulted from the swap cache, never freed
        swapout_acct.written_again += f.nr_pages();
    else
        swapout_acct.written_resident += f.nr_pages();
    f.set(PG_wrote);
}

void Kernel::note_reclaim_free(Folio& f)
{
    if (f.test(PG_wrote))
        swapout_acct.written_resident -= f.nr_pages();
    else
        swapout_acct.freed_clean += f.nr_pages();
    f.clear(PG_wrote);
}

void Kernel::flush_plug(Ctx& c, std::vector<PlugEntry>& plug)
{
    if (plug.empty())
        return;
    const uint64_t max_req = ssd->params().max_request;
    size_t i = 0;
    while (i < plug.size()) {
        // Merge bios for adjacent slots into one request.
        size_t j = i + 1;
        uint64_t bytes = uint64_t(plug[i].nr) * PAGE_SIZE;
        while (j < plug.size() && plug[j].off == plug[j - 1].off + plug[j - 1].nr &&
               bytes + uint64_t(plug[j].nr) * PAGE_SIZE <= max_req) {
            bytes += uint64_t(plug[j].nr) * PAGE_SIZE;
            j++;
        }
        c.io_wait_until(ssd->tag_free_at(c.now()));   // no request tag: submit_bio sleeps
        c.sys(cfg_.c.bio_submit);
        double done = ssd->submit(c.now(), bytes, true, uint64_t(plug[i].off) * PAGE_SIZE);
        for (size_t n = i; n < j; n++)
            wb_done_.push({done, plug[n].f, plug[n].gen});
        i = j;
    }
    plug.clear();
}

}  // namespace swapsim::kernel
