#include "mm/swapfile.hpp"

#include <algorithm>
#include <stdexcept>

namespace swapsim::mm {

namespace {
// setup_clusters: SWAP_CLUSTER_COLS = max(L1 line / sizeof(ci), SWAP_ADDRESS_SPACE_PAGES / SWAPFILE_CLUSTER).
constexpr unsigned SWAP_CLUSTER_COLS = (1u << SWAP_ADDRESS_SPACE_SHIFT) / SWAPFILE_CLUSTER;
}  // namespace

SwapDevice::SwapDevice(uint64_t nr_slots, int nr_cpus, bool slot_cache, unsigned swap_batch,
                       uint64_t file_slots, bool shuffle, bool solidstate)
    : nr_slots_(nr_slots / SWAPFILE_CLUSTER * SWAPFILE_CLUSTER), slot_cache_(slot_cache),
      swap_batch_(std::max(1u, swap_batch)), solidstate_(solidstate), pcp_(size_t(nr_cpus))
{
    size_t nr_clusters = size_t(nr_slots_ / SWAPFILE_CLUSTER);
    if (nr_clusters == 0)
        throw std::invalid_argument("swap device smaller than one cluster");
    if (nr_slots_ + file_slots > (1ull << 32) - 1)
        throw std::invalid_argument("swap device larger than 2^32 slots");
    // The file's slots follow the device's; its clusters sit on no list.
    size_t file_clusters = size_t((file_slots + SWAPFILE_CLUSTER - 1) / SWAPFILE_CLUSTER);
    clusters_.resize(nr_clusters + file_clusters);
    slot_data_.resize(nr_clusters + file_clusters);
    for (uint64_t i = file_slots; i-- > 0;)
        file_free_.push_back(swp_offset_t(nr_slots_ + i));
    // Slot 0 is the swap header: SWAP_MAP_BAD, its cluster starts non-free with order 0.
    slots(0).map[0] = SWAP_MAP_BAD;
    clusters_[0].count = 1;
    clusters_[0].order = 0;
    cluster_move(0, NONFULL0 + 0, CLUSTER_NONFULL);
    const unsigned cols = shuffle ? SWAP_CLUSTER_COLS : 1;   // phase I's setup_clusters: in order
    for (unsigned k = 0; k < cols; k++)
        for (size_t j = k; j < nr_clusters; j += cols)
            if (clusters_[j].count == 0)
                cluster_move(uint32_t(j), FREE_LIST, CLUSTER_FREE);
}

SwapDevice::SlotData& SwapDevice::slots(uint32_t ci)
{
    auto& p = slot_data_[ci];
    if (!p)
        p = std::make_unique<SlotData>();
    return *p;
}

uint64_t SwapDevice::bytes_allocated() const
{
    uint64_t n = 0;
    for (const auto& p : slot_data_)
        if (p)
            n += sizeof(SlotData) + (p->cache ? sizeof(*p->cache) : 0) + (p->zlen.each ? sizeof(*p->zlen.each) : 0);
    return n + clusters_.size() * sizeof(Cluster);
}

void SwapDevice::list_del(uint32_t ci)
{
    Cluster& c = clusters_[ci];
    if (c.list == 0xff)
        return;
    List& l = lists_[c.list];
    if (c.prev != UINT32_MAX)
        clusters_[c.prev].next = c.next;
    else
        l.head = c.next;
    if (c.next != UINT32_MAX)
        clusters_[c.next].prev = c.prev;
    else
        l.tail = c.prev;
    l.n--;
    c.prev = c.next = UINT32_MAX;
    c.list = 0xff;
}

void SwapDevice::list_add_tail(uint32_t ci, unsigned list)
{
    Cluster& c = clusters_[ci];
    List& l = lists_[list];
    c.prev = l.tail;
    c.next = UINT32_MAX;
    if (l.tail != UINT32_MAX)
        clusters_[l.tail].next = ci;
    else
        l.head = ci;
    l.tail = ci;
    l.n++;
    c.list = uint8_t(list);
}

void SwapDevice::cluster_move(uint32_t ci, unsigned list, uint8_t flags)
{
    list_del(ci);
    list_add_tail(ci, list);
    clusters_[ci].flags = flags;
}

bool SwapDevice::cluster_scan_range(uint32_t ci, unsigned start, unsigned nr) const
{
    const SlotData* sd = slots_if(ci);
    if (!sd)
        return true;
    for (unsigned i = start; i < start + nr; i++)
        if (sd->map[i])
            return false;
    return true;
}

void SwapDevice::cluster_alloc_range(uint32_t ci, unsigned start, unsigned order)
{
    Cluster& c = clusters_[ci];
    unsigned nr = 1u << order;
    if (c.flags & CLUSTER_FREE) {
        if (nr < SWAPFILE_CLUSTER)
            cluster_move(ci, NONFULL0 + order, CLUSTER_NONFULL);
        c.order = uint8_t(order);
    }
    SlotData& sd = slots(ci);
    for (unsigned i = start; i < start + nr; i++)
        sd.map[i] = SWAP_HAS_CACHE;
    inuse_ += nr;
    c.count = uint16_t(c.count + nr);
    if (c.count == SWAPFILE_CLUSTER) {
        if (c.flags & CLUSTER_FRAG)
            frag_cluster_nr_[c.order]--;
        cluster_move(ci, FULL_LIST, CLUSTER_FULL);
    }
}

swp_offset_t SwapDevice::alloc_swap_scan_cluster(swp_offset_t offset, unsigned order,
                                                 swp_offset_t* found, SwapAllocTrace* tr)
{
    uint32_t ci = offset / SWAPFILE_CLUSTER;
    unsigned nr = 1u << order;
    unsigned start = ci * SWAPFILE_CLUSTER;
    unsigned rel = offset - start;
    rel -= rel % nr;   // runs are naturally aligned from the cluster start
    if (tr)
        tr->clusters_tried++;
    if (clusters_[ci].count + nr > SWAPFILE_CLUSTER)
        return NO_SWAP;
    for (; rel + nr <= SWAPFILE_CLUSTER; rel += nr) {
        if (tr)
            tr->slots_scanned++;
        if (!cluster_scan_range(ci, rel, nr))
            continue;
        cluster_alloc_range(ci, rel, order);
        if (tr)
            tr->ranges++;
        *found = start + rel;
        if (clusters_[ci].count == SWAPFILE_CLUSTER)
            return NO_SWAP;
        rel += nr;
        return rel + nr <= SWAPFILE_CLUSTER ? start + rel : NO_SWAP;
    }
    return NO_SWAP;
}

swp_offset_t SwapDevice::cluster_alloc_swap_entry(int cpu, unsigned order, SwapAllocTrace* tr)
{
    PerCpu& p = pcp_[size_t(cpu)];
    swp_offset_t found = NO_SWAP, next = NO_SWAP;
    auto done = [&] {
        p.next[order] = next;
        return found;
    };

    if (swp_offset_t off = p.next[order]) {
        uint32_t ci = off / SWAPFILE_CLUSTER;
        const Cluster& c = clusters_[ci];
        // The cluster may have been freed and taken by another order since.
        if ((c.flags & CLUSTER_FREE) || c.order == order) {
            next = alloc_swap_scan_cluster(off, order, &found, tr);
            if (found)
                return done();
        }
    }
    if (lists_[FREE_LIST].n) {
        uint32_t ci = lists_[FREE_LIST].head;
        next = alloc_swap_scan_cluster(ci * SWAPFILE_CLUSTER, order, &found, tr);
        if (!found)
            throw std::logic_error("allocation from a free cluster failed");
        return done();
    }
    if (order < HPAGE_PMD_ORDER) {
        size_t frags = 0;
        while (lists_[NONFULL0 + order].n) {
            uint32_t ci = lists_[NONFULL0 + order].head;
            cluster_move(ci, FRAG0 + order, CLUSTER_FRAG);
            frag_cluster_nr_[order]++;
            next = alloc_swap_scan_cluster(ci * SWAPFILE_CLUSTER, order, &found, tr);
            frags++;
            if (found)
                return done();
        }
        while (frags < frag_cluster_nr_[order] && lists_[FRAG0 + order].n) {
            uint32_t ci = lists_[FRAG0 + order].head;
            list_del(ci);
            list_add_tail(ci, FRAG0 + order);   // rotate
            next = alloc_swap_scan_cluster(ci * SWAPFILE_CLUSTER, order, &found, tr);
            frags++;
            if (found)
                return done();
        }
    }
    if (order) {
        next = NO_SWAP;
        return done();
    }
    // Order 0 steals from clusters of higher orders; every non-full cluster has a free slot.
    for (unsigned o = 1; o < NR_ORDERS; o++) {
        for (unsigned list : {FRAG0 + o, NONFULL0 + o}) {
            for (uint32_t ci = lists_[list].head; ci != UINT32_MAX; ci = clusters_[ci].next) {
                next = alloc_swap_scan_cluster(ci * SWAPFILE_CLUSTER, 0, &found, tr);
                if (found)
                    return done();
            }
        }
    }
    next = NO_SWAP;
    return done();
}

swp_offset_t SwapDevice::alloc_order0(int cpu, SwapAllocTrace* tr)
{
    if (file_free_.empty())
        return cluster_alloc_swap_entry(cpu, 0, tr);
    swp_offset_t off = file_free_.back();
    file_free_.pop_back();
    slots(off / SWAPFILE_CLUSTER).map[off % SWAPFILE_CLUSTER] = SWAP_HAS_CACHE;
    if (tr)
        tr->ranges++;
    inuse_++;
    return off;
}

swp_offset_t SwapDevice::alloc(int cpu, unsigned order, SwapAllocTrace* tr)
{
    PerCpu& p = pcp_[size_t(cpu)];
    if (!solidstate_)   // a rotational device: one global cluster for every CPU
        cpu = 0;
    if (order == 0 && slot_cache_) {
        if (p.cache.empty()) {
            if (tr)
                tr->took_si_lock = true;
            // get_swap_pages(SWAP_BATCH, 0): the first area with room fills the batch as far
            // as it can; the next refill moves on once the file is full.
            bool from_file = !file_free_.empty();
            std::vector<swp_offset_t> got;
            for (unsigned i = 0; i < swap_batch_ && from_file == !file_free_.empty(); i++) {
                swp_offset_t off = alloc_order0(cpu, tr);
                if (!off)
                    break;
                got.push_back(off);
            }
            if (tr)
                tr->refilled = unsigned(got.size());
            p.cache.assign(got.rbegin(), got.rend());
        }
        if (p.cache.empty())
            return NO_SWAP;
        swp_offset_t off = p.cache.back();
        p.cache.pop_back();
        return off;
    }
    if (tr)
        tr->took_si_lock = true;
    if (order == 0)
        return alloc_order0(cpu, tr);
    if (!file_free_.empty())
        return NO_SWAP;   // the file is first on swap_avail_heads and holds no large entries
    return cluster_alloc_swap_entry(cpu, order, tr);
}

uint64_t SwapDevice::cached_slots() const
{
    uint64_t n = 0;
    for (const PerCpu& p : pcp_)
        n += p.cache.size();
    return n;
}

uint8_t SwapDevice::count(swp_offset_t off) const
{
    const SlotData* sd = slots_if(off / SWAPFILE_CLUSTER);
    return sd ? uint8_t(sd->map[off % SWAPFILE_CLUSTER] & ~SWAP_HAS_CACHE) : 0;
}

bool SwapDevice::has_cache(swp_offset_t off) const
{
    const SlotData* sd = slots_if(off / SWAPFILE_CLUSTER);
    return sd && (sd->map[off % SWAPFILE_CLUSTER] & SWAP_HAS_CACHE);
}

folio_t SwapDevice::cache_folio(swp_offset_t off) const
{
    const SlotData* sd = slots_if(off / SWAPFILE_CLUSTER);
    return sd && sd->cache ? (*sd->cache)[off % SWAPFILE_CLUSTER] : NO_FOLIO;
}

void SwapDevice::set_cache_folio(swp_offset_t off, folio_t f)
{
    SlotData& sd = slots(off / SWAPFILE_CLUSTER);
    const unsigned k = off % SWAPFILE_CLUSTER;
    if (f == NO_FOLIO) {
        sd.clear_cache(k);
        return;
    }
    if (!sd.cache) {
        sd.cache = std::make_unique<std::array<folio_t, SWAPFILE_CLUSTER>>();
        sd.cache->fill(NO_FOLIO);
    }
    folio_t& e = (*sd.cache)[k];
    sd.nr_cached += e == NO_FOLIO;
    e = f;
}

void SwapDevice::SlotData::clear_cache(unsigned k)
{
    if (!cache || (*cache)[k] == NO_FOLIO)
        return;
    (*cache)[k] = NO_FOLIO;
    if (--nr_cached == 0)
        cache.reset();
}

void SwapDevice::ZswapLens::set(unsigned k, uint16_t v)
{
    if (each) {
        (*each)[k] = v;
        return;
    }
    const uint64_t bit = uint64_t(1) << (k % 64);
    const bool had = has[k / 64] & bit;
    if (!v) {
        if (had) {
            has[k / 64] &= ~bit;
            nr--;
        }
        return;
    }
    if (v == len || nr == uint16_t(had)) {   // same length, or the only entry: stays uniform
        len = v;
        if (!had) {
            has[k / 64] |= bit;
            nr++;
        }
        return;
    }
    auto a = std::make_unique<std::array<uint16_t, SWAPFILE_CLUSTER>>();
    for (unsigned i = 0; i < SWAPFILE_CLUSTER; i++)
        (*a)[i] = get(i);
    (*a)[k] = v;
    each = std::move(a);
}

uint16_t SwapDevice::zswap_len(swp_offset_t off) const
{
    const SlotData* sd = slots_if(off / SWAPFILE_CLUSTER);
    return sd ? sd->zlen.get(off % SWAPFILE_CLUSTER) : 0;
}

void SwapDevice::set_zswap_len(swp_offset_t off, uint16_t len)
{
    slots(off / SWAPFILE_CLUSTER).zlen.set(off % SWAPFILE_CLUSTER, len);
}

void SwapDevice::dup(swp_offset_t off, unsigned nr)
{
    SlotData& sd = slots(off / SWAPFILE_CLUSTER);
    for (unsigned i = 0; i < nr; i++) {
        uint8_t& m = sd.map[(off + i) % SWAPFILE_CLUSTER];
        if ((m & ~SWAP_HAS_CACHE) >= SWAP_MAP_BAD - 1)
            throw std::logic_error("swap count overflow (continuation not modelled)");
        m++;
    }
}

void SwapDevice::dec_cluster_info_page(uint32_t ci, unsigned nr)
{
    Cluster& c = clusters_[ci];
    if (c.count < nr || (c.flags & CLUSTER_FREE))
        throw std::logic_error("dec_cluster_info_page underflow");
    c.count = uint16_t(c.count - nr);
    if (!c.count) {   // free_cluster -> __free_cluster
        if (c.flags & CLUSTER_FRAG)
            frag_cluster_nr_[c.order]--;
        cluster_move(ci, FREE_LIST, CLUSTER_FREE);
        c.order = 0;
        return;
    }
    if (!(c.flags & CLUSTER_NONFULL)) {
        if (c.flags & CLUSTER_FRAG)
            frag_cluster_nr_[c.order]--;
        cluster_move(ci, NONFULL0 + c.order, CLUSTER_NONFULL);
    }
}

void SwapDevice::swap_entry_range_free(swp_offset_t off, unsigned nr)
{
    uint32_t ci = off / SWAPFILE_CLUSTER;
    SlotData& sd = slots(ci);
    for (unsigned i = 0; i < nr; i++) {
        unsigned k = (off + i) % SWAPFILE_CLUSTER;
        if (free_hook_)
            free_hook_(off + i);
        sd.map[k] = 0;
        sd.clear_cache(k);
        sd.zlen.set(k, 0);
        if (in_file(off + i))
            file_free_.push_back(off + i);   // back on swap_avail_heads: large requests fail again
    }
    inuse_ -= nr;
    if (!in_file(off))
        dec_cluster_info_page(ci, nr);
}

unsigned SwapDevice::free_if_unused(swp_offset_t off, unsigned nr, int cpu, SwapFreeTrace* tr)
{
    SlotData& sd = slots(off / SWAPFILE_CLUSTER);
    unsigned base = off % SWAPFILE_CLUSTER;
    bool all = true;
    for (unsigned i = 0; i < nr; i++)
        if (sd.map[base + i])
            all = false;
    if (nr > 1 && all) {   // put_swap_folio of a whole large-folio range
        if (tr)
            tr->freed(nr, 1);
        swap_entry_range_free(off, nr);
        return nr;
    }
    unsigned freed = 0;
    for (unsigned i = 0; i < nr; i++) {
        if (sd.map[base + i])
            continue;
        swp_offset_t s = off + i;
        if (slot_cache_) {   // free_swap_slot: batched through the per-CPU return cache
            PerCpu& p = pcp_[size_t(cpu)];
            sd.map[base + i] = SWAP_HAS_CACHE;   // pinned until the batch is freed
            p.ret.push_back(s);
            if (p.ret.size() >= swap_batch_)
                flush_free_cache(cpu, tr);
        } else {
            if (tr)
                tr->freed(1, 1);
            swap_entry_range_free(s, 1);
        }
        freed++;
    }
    return freed;
}

void SwapDevice::flush_free_cache(int cpu, SwapFreeTrace* tr)
{
    PerCpu& p = pcp_[size_t(cpu)];
    if (p.ret.empty())
        return;
    std::sort(p.ret.begin(), p.ret.end());   // swapcache_free_entries sorts by swap type/offset
    if (tr)   // one swap_entry_range_free per entry
        tr->freed(unsigned(p.ret.size()), unsigned(p.ret.size()));
    for (swp_offset_t s : p.ret)
        swap_entry_range_free(s, 1);
    p.ret.clear();
}

unsigned SwapDevice::put_ref(swp_offset_t off, unsigned nr, int cpu, SwapFreeTrace* tr)
{
    SlotData& sd = slots(off / SWAPFILE_CLUSTER);
    for (unsigned i = 0; i < nr; i++) {
        uint8_t& m = sd.map[(off + i) % SWAPFILE_CLUSTER];
        if (!(m & ~SWAP_HAS_CACHE))
            throw std::logic_error("swap_free of a slot with no reference");
        m--;
    }
    return free_if_unused(off, nr, cpu, tr);
}

bool SwapDevice::swapcache_prepare(swp_offset_t off)
{
    uint8_t& m = slots(off / SWAPFILE_CLUSTER).map[off % SWAPFILE_CLUSTER];
    if (m & SWAP_HAS_CACHE)
        return false;
    if (!m)
        throw std::logic_error("swapcache_prepare on a free slot");
    m |= SWAP_HAS_CACHE;
    return true;
}

unsigned SwapDevice::put_cache(swp_offset_t off, unsigned nr, int cpu, SwapFreeTrace* tr)
{
    SlotData& sd = slots(off / SWAPFILE_CLUSTER);
    for (unsigned i = 0; i < nr; i++) {
        unsigned k = (off + i) % SWAPFILE_CLUSTER;
        if (!(sd.map[k] & SWAP_HAS_CACHE))
            throw std::logic_error("put_swap_folio of a slot without SWAP_HAS_CACHE");
        sd.map[k] &= uint8_t(~SWAP_HAS_CACHE);
        sd.clear_cache(k);
    }
    return free_if_unused(off, nr, cpu, tr);
}

}  // namespace swapsim::mm
