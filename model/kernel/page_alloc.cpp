// Global memory pressure: zone watermarks, the allocator's slow path, kswapd, the OOM killer.
//
// Models (mm/page_alloc.c, mm/vmscan.c, mm/oom_kill.c): init_per_zone_wmark_min's default
// vm.min_free_kbytes and __setup_per_zone_wmarks (min by the node's share of RAM; low and high
// min + 1x and 2x max(min/4, managed x watermark_scale_factor / 10000));
// get_page_from_freelist's zonelist walk (the local node, then the others) at the low
// watermark; __alloc_pages_slowpath: wake_all_kswapds, a try at the min watermark, direct
// reclaim (allocstall, try_to_free_pages with SWAP_CLUSTER_MAX) and its retries
// (should_reclaim_retry: MAX_RECLAIM_RETRIES passes without progress), then
// __alloc_pages_may_oom; reclaimers (PF_MEMALLOC) and OOM victims (ALLOC_OOM) pass the
// watermarks. kswapd per node: woken below low, balance_pgdat from DEF_PRIORITY reclaiming
// max(high watermark, SWAP_CLUSTER_MAX) per kswapd_shrink_node until free pages pass high;
// kswapd_failures (MAX_RECLAIM_RETRIES runs that freed nothing) leaves the node to direct
// reclaim. out_of_memory: no new victim while one is still exiting; select_bad_process by
// oom_badness (rss + swap entries + page tables; the last of equals, as oom_evaluate_task
// keeps ties); SIGKILL; the oom_reaper unmaps the victim's memory.
// Yield points: alloc_node after each direct-reclaim pass and in the OOM wait (nothing
// isolated, the allocation not yet made); kswapd after each kswapd_shrink_node pass (its
// folios back on the LRU or freed) and while it sleeps; the oom_reaper after its exit_mmap.
// Granularity: one zone per node (ZONE_NORMAL), free pages = managed - folios on the node -
// the node's share (by size) of page tables and the zswap/zram pools. A memoryless node
// (machine.memory_nodes) has no zone and no kswapd work; its CPUs allocate from numa_mem_id().
// Leaves out: lowmem_reserve, watermark boosting, highatomic reserves, compaction (large
// folios simply fail below low), node_reclaim_mode, cpusets/mempolicy beyond membind, the
// oom_reaper reaping a victim that is running in the kernel (it exits on its own at its next
// return to user space, which the model's tasks reach within one fault).
#include <algorithm>
#include <stdexcept>

#include "kernel/kernel.hpp"

namespace swapsim::kernel {

using namespace mm;

namespace {
bool pcp_allowed_order(unsigned order) { return order <= 3 || order == HPAGE_PMD_ORDER; }

uint64_t int_sqrt(uint64_t x)
{
    uint64_t r = 0;
    for (uint64_t bit = uint64_t(1) << 62; bit; bit >>= 2) {
        if (x >= r + bit) {
            x -= r + bit;
            r = (r >> 1) + bit;
        } else {
            r >>= 1;
        }
    }
    return r;
}
}  // namespace

// Set by the constructor (kernel.cpp): the watermarks of every node.
void setup_watermarks(const KConfig& cfg, std::vector<NodeMem>& nodes)
{
    const uint64_t total = cfg.dram_pages;
    uint64_t min_kb = cfg.min_free_kbytes;
    if (!min_kb)
        min_kb = std::clamp<uint64_t>(int_sqrt(total * cfg.page_unit * (PAGE_SIZE >> 10) * 16), 128, 262144);
    const uint64_t min_pages = (min_kb >> (PAGE_SHIFT - 10)) / cfg.page_unit;   // sim.page_unit
    const size_t populated = cfg.mem_nodes > 0 ? std::min(nodes.size(), size_t(cfg.mem_nodes)) : nodes.size();
    for (size_t nid = 0; nid < nodes.size(); nid++) {
        NodeMem& n = nodes[nid];
        n.managed = nid < populated ? total / populated : 0;   // a memoryless node: no zone
        uint64_t min = total ? min_pages * n.managed / total : 0;
        uint64_t tmp = std::max(min / 4, n.managed * cfg.watermark_scale_factor / 10000);
        n.wmark[NodeMem::WMARK_MIN] = min;
        n.wmark[NodeMem::WMARK_LOW] = min + tmp;
        n.wmark[NodeMem::WMARK_HIGH] = min + 2 * tmp;
    }
}

// zone_batchsize and zone_highsize (v6.7+, percpu_pagelist_high_fraction 0) per node, in units:
// batch = rounddown_pow_of_two(1.5 x min(managed / 1024, 256) / 4) - 1 pages (63 from a 1 GiB
// zone); high_min = low watermark / (the node's CPUs + 1), high_max = managed / 8 over the
// same, both at least 4 batches.
void Kernel::setup_pcp()
{
    const uint64_t u = std::max(1u, cfg_.page_unit);
    const uint64_t split = uint64_t(cfg_.topo.cores_per_socket) * uint64_t(cfg_.topo.threads_per_core) + 1;
    pcp_limits_.clear();
    for (const NodeMem& n : nodes_) {
        uint64_t b = std::min<uint64_t>((n.managed * u) >> 10, 256) / 4;
        b = std::max<uint64_t>(b, 1);
        uint64_t p2 = 1;
        while (p2 * 2 <= b + b / 2)
            p2 *= 2;
        const uint64_t batch = std::max<uint64_t>(1, p2 - 1);
        const uint64_t lo = std::max(n.wmark[NodeMem::WMARK_LOW] * u / split, batch * 4);
        const uint64_t hi = std::max(n.managed * u / 8 / split, batch * 4);
        PcpLimits l;
        l.batch = uint32_t(std::max<uint64_t>(1, batch / u));
        l.high_min = uint32_t(std::max<uint64_t>(1, lo / u));
        l.high_max = uint32_t(std::max<uint64_t>(l.high_min, hi / u));
        pcp_limits_.push_back(l);
    }
    pcp_.assign(size_t(cfg_.topo.nr_cpus()) * nodes_.size(), Pcp{});
}

// The page allocator's per-CPU lists (v6.7+ auto-tuned pcp->high). A free adds the folio to
// this CPU's list (free_unref_page_commit); past the list's high mark, free_pcppages_bulk gives
// the buddy lists as many pages as were freed in a row (at least a batch, leaving a batch),
// each block merged under zone->lock (cost.zone.free_one_page; a large folio is one block).
// While the zone is below its high watermark (ZONE_BELOW_HIGH; kswapd's ZONE_RECLAIM_ACTIVE
// lies within it) the list holds at most 4 batches and its high mark shrinks toward high_min;
// otherwise freeing in a row raises it toward high_max. An allocation takes from the list,
// refilled a batch at a time (rmqueue_bulk; at least two blocks of a large order) when empty.
// Orders the lists do not take go to the buddy one folio at a time.
// Leaves out: decay_pcp_high's periodic shrinking, drain_all_pages, nr_pcp_alloc's growing
// refills, one list per order and migratetype (one count per CPU).
void Kernel::zone_lock_pcp(Ctx& c, unsigned order, int nid, bool free)
{
    const Costs& k = cfg_.c;
    hw::Lock& zl = zone_lock_[size_t(nid)];
    if (!pcp_allowed_order(order)) {
        c.lock(zl, k.zone_lock_buddy);
        return;
    }
    const PcpLimits& l = pcp_limits_[size_t(nid)];
    Pcp& p = pcp_[size_t(c.task.cpu) * nodes_.size() + size_t(nid)];
    const uint32_t nr = 1u << order;
    if (!free) {
        p.free_count >>= 1;
        if (p.count < nr) {   // rmqueue_bulk: a batch of pages, at least two blocks of a high order
            const uint32_t blocks = std::max(l.batch >> order, 2u);
            c.lock(zl, k.zone_lock_batch * double(blocks) / 64.0, 1, 0, "rmqueue_bulk");
            p.count += blocks * nr;
        }
        p.count -= nr;
        return;
    }
    p.count += nr;
    p.free_count = std::min(p.free_count + nr, l.batch << 5);   // CONFIG_PCP_BATCH_SCALE_MAX
    if (!p.high)
        p.high = l.high_min;
    uint32_t high;
    const NodeMem& n = nodes_[size_t(nid)];
    if (node_free(nid) < n.wmark[NodeMem::WMARK_HIGH]) {   // ZONE_BELOW_HIGH
        const uint32_t fc = std::max(p.free_count, l.batch);
        p.high = p.high > l.high_min + fc ? p.high - fc : l.high_min;
        high = std::min(l.batch << 2, p.high);
    } else {
        if (p.count >= p.high)
            p.high = std::clamp(p.free_count + l.batch, l.high_min, l.high_max);
        high = p.high;
    }
    if (p.count < high)
        return;
    uint32_t nfree = high < l.batch ? 1 : std::clamp(p.free_count, l.batch, std::max(l.batch, high - l.batch));
    nfree = std::min(nfree, p.count);
    // __free_one_page per block: the list's blocks are taken to be of this folio's order.
    c.lock(zl, k.free_one_page * double(std::max(1u, nfree >> order)), 1, 0, "free_pcppages_bulk");
    p.count -= nfree;
}

uint64_t Kernel::node_free(int nid) const
{
    const NodeMem& n = nodes_[size_t(nid)];
    uint64_t total = std::max<uint64_t>(1, cfg_.dram_pages);
    uint64_t shared = ram_pages() - folio_pages_;   // page tables and the zswap / zram pools
    uint64_t used = n.folio_pages + shared * n.managed / total;
    return used < n.managed ? n.managed - used : 0;
}

// zone_watermark_ok over the zonelist: the local node first, then the others in order.
int Kernel::node_with_room(int preferred, unsigned nr, int mark) const
{
    if (cfg_.membind >= 0)
        preferred = cfg_.membind;
    int nn = cfg_.membind >= 0 ? 1 : nr_nodes();
    for (int i = 0; i < nn; i++) {
        int nid = (preferred + i) % nr_nodes();
        uint64_t f = node_free(nid);
        if (f >= nr && f - (nr - 1) > nodes_[size_t(nid)].wmark[mark])
            return nid;
    }
    return -1;
}

bool Kernel::room_for_large(unsigned order, int preferred) const
{
    return node_with_room(preferred, 1u << order, NodeMem::WMARK_LOW) >= 0;
}

int Kernel::alloc_node(Ctx& c, unsigned order, int preferred)
{
    const unsigned nr = 1u << order;
    int nid = node_with_room(preferred, nr, NodeMem::WMARK_LOW);
    if (nid >= 0)
        return nid;
    // __alloc_pages_slowpath
    for (int i = 0; i < nr_nodes(); i++)
        wakeup_kswapd(c, i);
    auto no_watermarks = [&] {   // ALLOC_NO_WATERMARKS / ALLOC_OOM: the node with most free pages
        int best = cfg_.membind >= 0 ? cfg_.membind : preferred;
        for (int i = 0; i < nr_nodes() && cfg_.membind < 0; i++)
            if (node_free(i) > node_free(best))
                best = i;
        return best;
    };
    unsigned no_progress = 0;
    for (;;) {
        nid = node_with_room(preferred, nr, NodeMem::WMARK_MIN);
        if (nid >= 0)
            return nid;
        if (c.task.memalloc || c.task.oom_victim)
            return no_watermarks();
        vm.count(ALLOCSTALL);
        unsigned long progress = try_to_free_pages(c);
        c.flush();
        if (node_with_room(preferred, nr, NodeMem::WMARK_MIN) >= 0)
            continue;
        if (progress) {
            no_progress = 0;
            continue;
        }
        if (++no_progress <= MAX_RECLAIM_RETRIES)
            continue;
        // __alloc_pages_may_oom: kill (or wait for the victim already chosen), then retry
        // after schedule_timeout_uninterruptible(1).
        out_of_memory(c);
        no_progress = 0;
        if (!c.task.oom_victim)
            c.block_until(c.now() + 1.0 / cfg_.hz_jiffies);
    }
}

unsigned long Kernel::try_to_free_pages(Ctx& c)
{
    ScanControl sc;
    sc.nr_to_reclaim = cfg_.swap_cluster_max;
    c.sys(cfg_.c.reclaim_entry);
    return do_try_to_free_pages(c, sc);
}

void Kernel::wakeup_kswapd(Ctx& c, int nid)
{
    NodeMem& n = nodes_[size_t(nid)];
    if (!n.managed || n.kswapd_failures >= MAX_RECLAIM_RETRIES || !n.kswapd_sleeping)
        return;   // hopeless node (direct reclaim's progress resets it), or kswapd already awake
    if (node_free(nid) > n.wmark[NodeMem::WMARK_HIGH])
        return;
    n.kswapd_sleeping = false;
    c.clock().unpark(n.kswapd_pid);
}

void Kernel::kswapd(Clock& clk, int nid)
{
    NodeMem& n = nodes_[size_t(nid)];
    Task& t = tasks_[size_t(n.kswapd_pid)];
    t.memalloc = true;   // PF_MEMALLOC | PF_KSWAPD
    for (;;) {
        n.kswapd_sleeping = true;
        clk.park(t.pid);
        double st0 = t.stime;
        {
            Ctx c(*this, t, clk);
            // kswapd_try_to_sleep: not while the node is below high and not hopeless.
            while (node_free(nid) <= n.wmark[NodeMem::WMARK_HIGH] && n.kswapd_failures < MAX_RECLAIM_RETRIES)
                balance_pgdat(c, nid);
            c.flush();
        }
        sched_sleep(t);
        n.kswapd_sys_s += t.stime - st0;
    }
}

void Kernel::balance_pgdat(Ctx& c, int nid)
{
    NodeMem& n = nodes_[size_t(nid)];
    ScanControl sc;
    sc.kswapd = true;
    sc.may_swap = swap != nullptr;
    for (sc.priority = DEF_PRIORITY; sc.priority >= 1;) {
        if (node_free(nid) > n.wmark[NodeMem::WMARK_HIGH])
            break;
        // kswapd_shrink_node: reclaim the high watermark's worth; raise the priority when the
        // pass scanned less than that, or freed nothing.
        sc.nr_to_reclaim = std::max<unsigned long>(n.wmark[NodeMem::WMARK_HIGH], cfg_.swap_cluster_max);
        sc.nr_scanned = 0;
        unsigned long before = sc.nr_reclaimed;
        c.sys(cfg_.c.reclaim_entry);
        if (lruvec[size_t(nid)].total_pages())
            shrink_lruvec(c, nid, sc);
        shrink_slab(c, nid, sc);
        c.flush();
        if (sc.nr_scanned < sc.nr_to_reclaim || sc.nr_reclaimed == before)
            sc.priority--;
    }
    c.task.reclaimed += sc.nr_reclaimed;
    snapshot_refaults();
    if (!sc.nr_reclaimed)
        n.kswapd_failures++;
}

void Kernel::out_of_memory(Ctx& c)
{
    for (const Task& t : tasks_)
        if (t.oom_victim && !t.exited)
            return;   // oom_evaluate_task: a victim is still exiting, wait for it
    c.sys(cfg_.c.oom_kill);
    int victim = -1;
    uint64_t chosen = 0;
    for (const Task& t : tasks_) {
        if (t.kthread || t.exited)
            continue;
        const MmStruct& m = mms[t.mm];
        uint64_t points = m.rss_anon + m.swapents;
        for (const Vma& v : m.vmas)
            points += uint64_t(std::count(v.pte_table.begin(), v.pte_table.end(), true));
        if (points && points >= chosen) {
            chosen = points;
            victim = t.pid;
        }
    }
    if (victim < 0)
        throw std::runtime_error("out of memory and no killable process (the kernel panics here): the workload needs "
                                 "more RAM or swap than the scenario gives it");
    vm.count(OOM_KILL);
    tasks_[size_t(victim)].oom_victim = true;
    if (victim != c.task.pid) {   // wake_oom_reaper
        oom_reap_queue_.push_back(victim);
        if (oom_reaper_sleeping_) {
            oom_reaper_sleeping_ = false;
            c.clock().unpark(oom_reaper_pid_);
        }
    }
}

void Kernel::oom_reaper(Clock& clk)
{
    Task& t = tasks_[size_t(oom_reaper_pid_)];
    for (;;) {
        oom_reaper_sleeping_ = true;
        clk.park(t.pid);
        Ctx c(*this, t, clk);
        while (!oom_reap_queue_.empty()) {
            int pid = oom_reap_queue_.front();
            oom_reap_queue_.erase(oom_reap_queue_.begin());
            Task& v = tasks_[size_t(pid)];
            if (v.exited || !v.user_wait)
                continue;   // it exits on its own at its next return to user space
            exit_mmap(c, v.mm);   // __oom_reap_task_mm: unmap the anonymous memory
            task_exited(v);
        }
        c.flush();
        sched_sleep(t);
    }
}

std::vector<KThread> Kernel::kthreads()
{
    std::vector<KThread> out;
    const hw::Topology& topo = cfg_.topo;
    auto kthread_task = [&](int cpu) {
        int pid = task_create(cpu, 0);
        tasks_[size_t(pid)].kthread = true;
        return pid;
    };
    for (int nid = 0; nid < nr_nodes(); nid++) {
        // The node's last logical CPU; wakeups move it to an idle core of the node.
        int core = (nid + 1) * topo.cores_per_socket - 1;
        int cpu = core + (topo.threads_per_core - 1) * topo.nr_cores();
        nodes_[size_t(nid)].kswapd_pid = kthread_task(cpu);
        out.push_back({"kswapd" + std::to_string(nid), nodes_[size_t(nid)].kswapd_pid, cpu,
                       [this, nid](Clock& clk) { kswapd(clk, nid); }});
    }
    oom_reaper_pid_ = kthread_task(0);
    out.push_back({"oom_reaper", oom_reaper_pid_, 0, [this](Clock& clk) { oom_reaper(clk); }});
    return out;
}

}  // namespace swapsim::kernel
