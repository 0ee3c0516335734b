// mm/ state structures, no SimGrid: memcg charging, the slot allocator, zsmalloc, LRU lists.
#include <catch2/catch.hpp>

#include <set>

#include "mm/folio.hpp"
#include "mm/lru.hpp"
#include "mm/memcg.hpp"
#include "mm/swapfile.hpp"
#include "mm/zsmalloc.hpp"

using namespace swapsim::mm;

TEST_CASE("memcg: charges go through the per-CPU stock in MEMCG_CHARGE_BATCH batches", "[memcg]")
{
    MemCgroup m(2, /*high*/ 1000, /*max*/ UINT64_MAX, UINT64_MAX);
    // First 4K charge misses the empty stock: 64 pages come from the counter, 63 stay in stock.
    ChargeResult r = m.try_charge(0, 1, false);
    CHECK(r.ok);
    CHECK_FALSE(r.from_stock);
    CHECK(r.batch == 64);
    CHECK(m.memory.usage == 64);
    CHECK(m.stock_pages() == 63);
    // The next 63 come from the stock without touching the counter.
    for (int i = 0; i < 63; i++)
        CHECK(m.try_charge(0, 1, false).from_stock);
    CHECK(m.memory.usage == 64);
    // The 65th charge takes another batch; another CPU has its own stock.
    CHECK(m.try_charge(0, 1, false).batch == 64);
    CHECK(m.try_charge(1, 16, false).batch == 64);
    CHECK(m.memory.usage == 192);
    // A 2M THP charge (512 > 64) never uses the stock and takes exactly 512.
    r = m.try_charge(0, 512, false);
    CHECK(r.batch == 512);
    CHECK(m.memory.usage == 704);
}

TEST_CASE("memcg: over memory.high the charging task owes the whole batch", "[memcg]")
{
    MemCgroup m(1, 100, UINT64_MAX, UINT64_MAX);
    CHECK(m.try_charge(0, 1, false).over_high == 0);        // usage 64 <= 100
    for (int i = 0; i < 63; i++)
        m.try_charge(0, 1, false);
    ChargeResult r = m.try_charge(0, 1, false);             // usage 128 > 100
    CHECK(r.over_high == 64);
    CHECK(m.try_charge(0, 1, false).over_high == 0);        // from stock: no high check
}

TEST_CASE("memcg: memory.max fails a charge unless forced", "[memcg]")
{
    MemCgroup m(1, UINT64_MAX, 100, UINT64_MAX);
    CHECK(m.try_charge(0, 64, false).ok);
    // 64 + batch 64 > 100: retried with exactly 32 -> fits.
    ChargeResult r = m.try_charge(0, 32, false);
    CHECK(r.ok);
    CHECK(r.batch == 32);
    CHECK_FALSE(m.try_charge(0, 8, false).ok);
    r = m.try_charge(0, 8, true);
    CHECK(r.ok);
    CHECK(m.memory.usage == 104);
    CHECK(r.over_high == 0);   // the forced path skips the high check
}

TEST_CASE("memcg: zswap charges bytes through the obj stock", "[memcg]")
{
    MemCgroup m(1, UINT64_MAX, UINT64_MAX, UINT64_MAX);
    // 16 pages x 565 B = 9040 B -> 3 pages charged, 4096*3-9040 = 3248 B left in the obj stock.
    m.charge_zswap(0, 9040, 16);
    CHECK(m.kmem_pages == 3);
    CHECK(m.zswap_bytes == 9040);
    CHECK(m.zswapped == 16);
    // 3000 B fits in the obj stock: no new pages.
    m.charge_zswap(0, 3000, 5);
    CHECK(m.kmem_pages == 3);
    // Uncharging returns bytes to the obj stock; whole pages above PAGE_SIZE go back.
    m.uncharge_zswap(0, 12040, 21);
    CHECK(m.zswap_bytes == 0);
    CHECK(m.kmem_pages == 0);
}

TEST_CASE("memcg: calculate_high_delay follows the kernel's table", "[memcg]")
{
    // mm/memcontrol.c comment: high = 100M, 64-page batch: 101M -> 6ms, 105M -> 159ms, 110M -> 639ms.
    const uint64_t high = (100ull << 20) / 4096;
    auto delay = [&](uint64_t usage_mb) {
        return MemCgroup::calculate_high_delay(64, MemCgroup::calculate_overage((usage_mb << 20) / 4096, high), 1000);
    };
    CHECK(delay(101) == 6);
    CHECK(delay(105) == 159);
    CHECK(delay(110) == 639);
    CHECK(delay(100) == 0);
    // Capped at 2*HZ by high_delay_jiffies.
    MemCgroup m(1, high, UINT64_MAX, UINT64_MAX);
    m.memory.usage = int64_t((200ull << 20) / 4096);
    CHECK(m.high_delay_jiffies(64, 1000) == 2000);
}

TEST_CASE("swapfile: large folios get naturally aligned slots in clusters of their order", "[swap]")
{
    SwapDevice sd(64 * SWAPFILE_CLUSTER, 2, true, 64);
    CHECK(sd.list_len_free() == 63);   // cluster 0 holds the header
    swp_offset_t a = sd.alloc(0, 4);
    swp_offset_t b = sd.alloc(0, 4);
    CHECK(a % 16 == 0);
    CHECK(b == a + 16);                // same per-CPU cluster, next aligned run
    CHECK(sd.cluster_order(a / SWAPFILE_CLUSTER) == 4);
    // Another CPU takes its own cluster; free clusters go one per 64 MiB column first.
    swp_offset_t c = sd.alloc(1, 4);
    CHECK(c / SWAPFILE_CLUSTER != a / SWAPFILE_CLUSTER);
    // A 2M folio takes a whole free cluster, which becomes full at once.
    swp_offset_t d = sd.alloc(0, 9);
    CHECK(d % SWAPFILE_CLUSTER == 0);
    CHECK(sd.cluster_flags(d / SWAPFILE_CLUSTER) == CLUSTER_FULL);
    CHECK(sd.inuse_pages() == 16 * 3 + 512);
}

TEST_CASE("swapfile: a large allocation fails without a free or same-order cluster", "[swap]")
{
    // Three clusters: 0 (holds the header, on nonfull[0]), 1 and 2 free.
    SwapDevice sd(3 * SWAPFILE_CLUSTER, 1, false, 64);
    // cluster_alloc_swap_entry tries the free list before nonfull clusters.
    swp_offset_t s = sd.alloc(0, 0);
    CHECK(s == SWAPFILE_CLUSTER);
    swp_offset_t big = sd.alloc(0, 9);
    CHECK(big == 2 * SWAPFILE_CLUSTER);
    // No free cluster left: an order-4 folio cannot use clusters of order 0 -> fallback.
    CHECK(sd.alloc(0, 4) == NO_SWAP);
    // Order 0 continues in its per-CPU cluster.
    CHECK(sd.alloc(0, 0) == s + 1);
}

TEST_CASE("swapfile: freeing references and cache returns slots and clusters", "[swap]")
{
    SwapDevice sd(8 * SWAPFILE_CLUSTER, 1, false, 64);
    std::vector<swp_offset_t> freed;
    sd.set_free_hook([&](swp_offset_t o) { freed.push_back(o); });
    swp_offset_t a = sd.alloc(0, 4);
    CHECK(sd.has_cache(a));
    sd.dup(a, 16);                  // try_to_unmap: one reference per PTE
    CHECK(sd.count(a + 3) == 1);
    sd.put_cache(a, 16, 0);         // folio left the swap cache: still referenced
    CHECK(freed.empty());
    CHECK(sd.inuse_pages() == 16);
    sd.put_ref(a, 16, 0);           // munmap: last references
    CHECK(freed.size() == 16);
    CHECK(sd.inuse_pages() == 0);
    CHECK(sd.cluster_flags(a / SWAPFILE_CLUSTER) == CLUSTER_FREE);
}

TEST_CASE("swapfile: a cluster holds swap cache entries only while a folio is cached in it", "[swap]")
{
    SwapDevice sd(8 * SWAPFILE_CLUSTER, 1, false, 64);
    swp_offset_t a = sd.alloc(0, 4);
    const uint64_t bare = sd.bytes_allocated();   // the cluster's swap map and zswap lengths
    for (unsigned i = 0; i < 16; i++)
        sd.set_cache_folio(a + i, 7);              // add_to_swap_cache of a 64K folio
    const uint64_t cached = sd.bytes_allocated();
    CHECK(cached >= bare + SWAPFILE_CLUSTER * sizeof(folio_t));
    CHECK(sd.cache_folio(a + 15) == 7);
    CHECK(sd.cache_folio(a + 16) == NO_FOLIO);
    sd.dup(a, 16);
    sd.put_cache(a, 8, 0);                         // half the entries deleted: still allocated
    CHECK(sd.bytes_allocated() == cached);
    CHECK(sd.cache_folio(a + 7) == NO_FOLIO);
    CHECK(sd.cache_folio(a + 8) == 7);
    sd.put_cache(a + 8, 8, 0);                     // the last one: given back
    CHECK(sd.bytes_allocated() == bare);
    CHECK(sd.cache_folio(a + 8) == NO_FOLIO);
}

TEST_CASE("swapfile: a cluster keeps one zswap length while its entries share it, one per slot after", "[swap]")
{
    SwapDevice sd(8 * SWAPFILE_CLUSTER, 1, false, 64);
    swp_offset_t a = sd.alloc(0, 4);
    const uint64_t bare = sd.bytes_allocated();
    for (unsigned i = 0; i < 16; i++)
        sd.set_zswap_len(a + i, 1100);             // zswap_store of a 64K folio
    CHECK(sd.bytes_allocated() == bare);
    CHECK(sd.zswap_len(a + 15) == 1100);
    CHECK(sd.zswap_len(a + 16) == 0);
    sd.set_zswap_len(a + 3, 0);                    // zswap_load
    CHECK(sd.zswap_len(a + 3) == 0);
    CHECK(sd.zswap_len(a + 4) == 1100);
    sd.set_zswap_len(a + 3, 2000);                 // another length: one per slot from now
    CHECK(sd.bytes_allocated() == bare + SWAPFILE_CLUSTER * sizeof(uint16_t));
    CHECK(sd.zswap_len(a + 3) == 2000);
    CHECK(sd.zswap_len(a + 4) == 1100);
    CHECK(sd.zswap_len(a + 16) == 0);
    SwapDevice sd2(8 * SWAPFILE_CLUSTER, 1, false, 64);
    swp_offset_t b = sd2.alloc(0, 4);              // the only entry may take any length
    const uint64_t bare2 = sd2.bytes_allocated();
    sd2.set_zswap_len(b, 900);
    sd2.set_zswap_len(b, 0);
    sd2.set_zswap_len(b + 1, 700);
    CHECK(sd2.zswap_len(b + 1) == 700);
    CHECK(sd2.zswap_len(b) == 0);
    CHECK(sd2.bytes_allocated() == bare2);
}

TEST_CASE("swapfile: order-0 slots come from the per-CPU slot cache in SWAP_BATCH refills", "[swap]")
{
    SwapDevice sd(8 * SWAPFILE_CLUSTER, 2, true, 64);
    SwapAllocTrace tr;
    swp_offset_t first = sd.alloc(0, 0, &tr);
    CHECK(tr.took_si_lock);
    CHECK(tr.refilled == 64);
    CHECK(sd.slot_cache_len(0) == 63);
    SwapAllocTrace tr2;
    swp_offset_t second = sd.alloc(0, 0, &tr2);
    CHECK_FALSE(tr2.took_si_lock);
    CHECK(second == first + 1);
    CHECK(sd.cached_slots() == 62);
    // Frees are batched too: the slot is pinned until the return cache is flushed.
    sd.dup(first, 1);
    sd.put_cache(first, 1, 0);
    SwapFreeTrace ft;
    sd.put_ref(first, 1, 0, &ft);
    CHECK_FALSE(ft.took_si_lock);
    CHECK(sd.has_cache(first));
    sd.flush_free_cache(0, &ft);
    CHECK(ft.took_si_lock);
    CHECK_FALSE(sd.has_cache(first));
}

TEST_CASE("swapfile: si->lock work is counted in ranges: a refill and a return-cache flush are one per slot, a large folio one", "[swap]")
{
    SwapDevice sd(8 * SWAPFILE_CLUSTER, 2, true, 64);
    SwapAllocTrace refill;
    swp_offset_t s = sd.alloc(0, 0, &refill);
    CHECK(refill.ranges == 64);   // scan_swap_map_slots: cluster_alloc_swap_entry per slot
    SwapAllocTrace big;
    swp_offset_t b = sd.alloc(1, 4, &big);
    REQUIRE(b != NO_SWAP);
    CHECK(big.ranges == 1);
    // munmap of the 16 contiguous entries: __swap_entries_free frees them as one range.
    sd.dup(b, 16);
    sd.put_cache(b, 16, 1);
    SwapFreeTrace bf;
    sd.put_ref(b, 16, 1, &bf);
    CHECK(bf.took_si_lock);
    CHECK(bf.slots_freed == 16);
    CHECK(bf.ranges == 1);
    // Order-0 entries go through the return cache; swapcache_free_entries frees each alone.
    SwapFreeTrace cf;
    for (unsigned i = 0; i < 3; i++) {
        swp_offset_t o = i ? sd.alloc(0, 0) : s;
        sd.dup(o, 1);
        sd.put_cache(o, 1, 0);
        sd.put_ref(o, 1, 0, &cf);
    }
    CHECK(cf.ranges == 0);
    sd.flush_free_cache(0, &cf);
    CHECK(cf.slots_freed == 3);
    CHECK(cf.ranges == 3);
}

TEST_CASE("swapfile: a higher-priority swap file takes order-0 slots first and blocks large ones until full", "[swap]")
{
    // Device of 8 clusters, a file of 100 free slots after it, slot cache of 64 per refill.
    SwapDevice sd(8 * SWAPFILE_CLUSTER, 2, true, 64, 100);
    std::vector<swp_offset_t> freed;
    sd.set_free_hook([&](swp_offset_t o) { freed.push_back(o); });
    // get_swap_pages(1, order 4) tries only the first area, the file, which has no large slots.
    SwapAllocTrace tr;
    CHECK(sd.alloc(0, 4, &tr) == NO_SWAP);
    CHECK(tr.took_si_lock);
    // Order 0 refills from the file, lowest slot first; a refill that finds the file short
    // returns what it has (36 of 64) and the next refill moves on to the device.
    swp_offset_t a = sd.alloc(0, 0);
    CHECK(sd.in_file(a));
    CHECK(a == 8 * SWAPFILE_CLUSTER);
    CHECK(sd.slot_cache_len(0) == 63);
    swp_offset_t b = sd.alloc(1, 0);
    CHECK(b == a + 64);
    CHECK(sd.slot_cache_len(1) == 35);
    CHECK(sd.file_free() == 0);
    CHECK(sd.inuse_pages() == 100);
    // The file is full, off swap_avail_heads: large folios get device slots.
    swp_offset_t big = sd.alloc(0, 4);
    CHECK(big != NO_SWAP);
    CHECK_FALSE(sd.in_file(big));
    for (int i = 0; i < 35; i++)
        sd.alloc(1, 0);
    CHECK_FALSE(sd.in_file(sd.alloc(1, 0)));   // CPU 1's next refill comes from the device
    // Freeing a file slot puts the file back in front: large requests fail again.
    sd.put_cache(a, 1, 0);
    sd.flush_free_cache(0);
    CHECK(freed == std::vector<swp_offset_t>{a});
    CHECK(sd.file_free() == 1);
    CHECK(sd.alloc(0, 4) == NO_SWAP);
}

TEST_CASE("zsmalloc: size classes round objects up in 16-byte steps", "[zsmalloc]")
{
    ZsPool p(8);
    CHECK(p.cls(p.class_index(565)).size == 576);
    CHECK(p.cls(p.class_index(1378)).size == 1392);
    CHECK(p.cls(p.class_index(576)).size == 576);
    CHECK(p.cls(p.class_index(20)).size == 32);
    // 576-byte class: 7 objects per 1-page zspage wastes 64 B; the chain that wastes least wins.
    const ZsClass& c = p.cls(p.class_index(565));
    CHECK(c.objs_per_zspage * c.size <= c.pages_per_zspage * 4096);
    CHECK(c.pages_per_zspage * 4096 - c.objs_per_zspage * c.size < c.size);
    // Pool pages follow object counts.
    for (int i = 0; i < 100; i++)
        p.zs_malloc(565);
    uint64_t zspages = (100 + c.objs_per_zspage - 1) / c.objs_per_zspage;
    CHECK(p.pool_pages() == zspages * c.pages_per_zspage);
    for (int i = 0; i < 100; i++)
        p.zs_free(p.class_index(565));
    CHECK(p.pool_pages() == 0);
    CHECK(p.huge_class_size() > 3000);
}

TEST_CASE("lru: head insertion, tail isolation, rotation to the tail", "[lru]")
{
    FolioTable ft;
    Lruvec l(ft);
    folio_t a = ft.alloc(0, 0, true, 1, 0), b = ft.alloc(4, 0, true, 1, 16), c = ft.alloc(0, 0, true, 1, 32);
    l.add(a, LRU_INACTIVE_ANON);
    l.add(b, LRU_INACTIVE_ANON);
    l.add(c, LRU_INACTIVE_ANON);
    CHECK(l.tail(LRU_INACTIVE_ANON) == a);   // oldest at the tail
    CHECK(l.nr_pages(LRU_INACTIVE_ANON) == 18);
    l.move_to_tail(c);
    CHECK(l.tail(LRU_INACTIVE_ANON) == c);
    l.del(b);
    CHECK(l.nr_pages(LRU_INACTIVE_ANON) == 2);
    l.add(b, LRU_ACTIVE_ANON);
    CHECK(ft[b].test(PG_active));
    // Splitting a 64K folio makes 15 order-0 tails with consecutive indices.
    l.del(b);
    auto tails = ft.split(b);
    CHECK(tails.size() == 15);
    CHECK(ft[b].order == 0);
    CHECK(ft[tails[14]].index == 31);
    CHECK(ft.live() == 18);
}
