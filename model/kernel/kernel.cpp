#include "kernel/kernel.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace swapsim::kernel {

using namespace mm;

// ---------------------------------------------------------------- Ctx

Ctx::Ctx(Kernel& kernel, Task& t, Clock& clk)
    : k(kernel), task(t), clk_(clk), base_(clk.now()), profiling_(kernel.profile)
{
    if (!task.running)
        k.sched_wakeup(task);
}

Ctx::~Ctx()
{
    if ((pending_ > 0 || pending_mem_s_ > 0) && !std::uncaught_exceptions())
        flush();
}

void Ctx::mem(double bytes, double rate, bool in_kernel, const char* fn)
{
    double s = bytes / rate;
    pending_mem_bytes_ += bytes;
    pending_mem_s_ += s;
    if (in_kernel) {
        pending_mem_sys_s_ += s;
        if (profiling_)
            prof_.push_back({fn, s, Prof::Mem});
    }
}

void Ctx::lock(hw::Lock& l, double hold, unsigned n, double spacing, const char* fn)
{
    if (n == 0)
        return;
    // While a task plans, the engine's clock stands at base_: how far ahead it books is planned().
    k.max_plan_ahead = std::max(k.max_plan_ahead, planned());
    double t = l.acquire(now(), hold, n, spacing, {task.pid, base_});
    double spin = std::max(0.0, t - n * hold);
    pending_spin_ += spin;
    sys(t - spin, fn);
    spend_busy(spin, fn, true);
    if (!l.swept) {   // remember it for Kernel::prune_devices
        l.swept = true;
        k.busy_locks_.push_back(&l);
    }
}

void Ctx::flush(const char* fn)
{
    if (k.check_yields) {
        k.yield_checks++;
        std::string bad = k.check_at_yield();
        if (!bad.empty())
            throw std::logic_error(std::string("invariant broken at a yield point of ") + fn + ": " + bad);
    }
    const bool runs = pending_ + task.stolen + pending_mem_s_ > 0;
    if (runs) {
        k.sched_balance(task);
        k.cpu_get(task, clk_);
    }
    // IRQ work taken once: what other CPUs queue while this exec runs waits for the next flush.
    const double stolen = task.stolen;
    task.stolen = 0;
    // On a core of its own a busy-wait and work take the same time: one activity for both.
    const double busy = k.sibling_running(task) ? pending_busy_ : 0;
    double cpu = (pending_ - busy > 1e-12 * pending_ ? pending_ - busy : 0) + stolen;
    double work = cpu + pending_mem_s_;
    double stretch = 0;   // wall over work
    if (work > 0) {
        double t0 = clk_.now();
        if (pending_mem_s_ > 0 && cpu <= pending_mem_s_) {
            // A memory-bound step (faulting and writing pages): its little CPU work runs
            // inside the one memory activity, at the step's average per-core rate.
            clk_.mem(task.cpu, pending_mem_bytes_, pending_mem_bytes_ / work);
        } else {
            if (cpu > 0)
                clk_.cpu(task.cpu, cpu);
            if (pending_mem_s_ > 0)
                clk_.mem(task.cpu, pending_mem_bytes_, pending_mem_bytes_ / pending_mem_s_);
        }
        double wall = clk_.now() - t0;
        double sys_share = (pending_sys_ - busy + stolen + pending_mem_sys_s_) / work;
        task.stime += wall * sys_share;
        task.utime += wall * (1 - sys_share);
        stretch = wall / work;
    }
    if (profiling_)
        profile_flush(stretch, busy > 0, stolen);
    if (busy > 0) {   // on CPU, but not an execution that shares the core
        clk_.sleep_until(clk_.now() + busy);
        task.stime += busy;
    }
    if (runs)
        k.cpu_put(task, clk_);
    pending_ = pending_sys_ = pending_user_ = pending_spin_ = pending_busy_ = 0;
    pending_mem_bytes_ = pending_mem_s_ = pending_mem_sys_s_ = 0;
    base_ = clk_.now();
    k.prune_devices(base_);
}

// The planned sys time ran stretched by `scale` (wall over work: SMT sharing, a saturated
// memory bus); busy-waits on a shared core ran unstretched beside it.
void Ctx::profile_flush(double scale, bool busy_apart, double stolen)
{
    static const char* const kShootdown = "flush_tlb_func (shootdown IPI from a reclaimer)";
    for (const Prof& p : prof_) {
        bool busy = p.kind == Prof::Busy || p.kind == Prof::Spin;
        double s = busy && busy_apart ? p.s : p.s * scale;
        (p.kind == Prof::Spin ? k.spin_profile : k.sys_profile)[p.fn] += s;
    }
    if (stolen > 0)
        k.sys_profile[kShootdown] += stolen * scale;
    prof_.clear();
}

void Ctx::block_until(double t, const char* fn)
{
    flush(fn);
    if (t > clk_.now())
        block([&] { clk_.sleep_until(t); }, fn);
}

double Ctx::io_wait_until(double t, const char* fn)
{
    const double w = t - now();
    if (!(w > 0))
        return 0;
    task.io_wait_s += w;
    block_until(t, fn);
    return w;
}

// ---------------------------------------------------------------- scheduler
// Models: select_idle_sibling on wakeup (stay on prev if its core is idle, else the first
// fully idle core of the LLC, else an idle SMT thread, else prev) and newidle balancing that
// moves a task off a core shared with another running task when a core of its LLC is idle.
// Granularity: decided when a task wakes and at each flush of its CPU time. Leaves out: CFS
// fairness within one CPU (SimGrid shares an oversubscribed CPU equally), NUMA balancing.

void Kernel::set_allowed_cpus(const std::vector<int>& cpus)
{
    std::fill(allowed_.begin(), allowed_.end(), 0);
    for (int c : cpus)
        allowed_[size_t(c)] = 1;
}

int Kernel::find_idle_core(int socket) const
{
    const hw::Topology& t = cfg_.topo;
    for (int core = socket * t.cores_per_socket; core < (socket + 1) * t.cores_per_socket; core++) {
        bool idle = true, any = false;
        for (int th = 0; th < t.threads_per_core; th++) {
            int cpu = core + th * t.nr_cores();
            idle = idle && nr_running_[size_t(cpu)] == 0;
            any = any || allowed_[size_t(cpu)];
        }
        if (idle && any)
            for (int th = 0; th < t.threads_per_core; th++)
                if (allowed_[size_t(core + th * t.nr_cores())])
                    return core + th * t.nr_cores();
    }
    return -1;
}

void Kernel::sched_wakeup(Task& t)
{
    const hw::Topology& topo = cfg_.topo;
    int prev = t.cpu, sib = topo.sibling(prev);
    bool prev_idle = nr_running_[size_t(prev)] == 0 && (sib < 0 || nr_running_[size_t(sib)] == 0);
    if (!prev_idle) {
        int socket = topo.socket_of(prev);
        int cpu = find_idle_core(socket);
        if (cpu < 0 && nr_running_[size_t(prev)] > 0) {   // an idle SMT thread of the LLC
            for (int c = 0; c < topo.nr_cpus(); c++)
                if (allowed_[size_t(c)] && nr_running_[size_t(c)] == 0 && topo.socket_of(c) == socket) {
                    cpu = c;
                    break;
                }
        }
        if (cpu >= 0 && cpu != t.cpu) {
            t.cpu = cpu;
            t.migrations++;
        }
    }
    nr_running_[size_t(t.cpu)]++;
    t.running = true;
}

void Kernel::sched_sleep(Task& t)
{
    if (!t.running)
        return;
    nr_running_[size_t(t.cpu)]--;
    t.running = false;
}

bool Kernel::sibling_running(const Task& t) const
{
    int sib = cfg_.topo.sibling(t.cpu);
    return sib >= 0 && nr_running_[size_t(sib)] > 0;
}

void Kernel::cpu_get(Task& t, Clock& clk)
{
    int& owner = cpu_owner_[size_t(t.cpu)];
    if (owner < 0) {
        owner = t.pid;
        return;
    }
    double t0 = clk.now();
    cpu_waiters_[size_t(t.cpu)].push_back(t.pid);
    clk.park(t.pid);   // cpu_put hands the CPU over: owner is t.pid on return
    runqueue_waits++;
    runqueue_wait_s += clk.now() - t0;
}

void Kernel::cpu_put(Task& t, Clock& clk)
{
    std::deque<int>& q = cpu_waiters_[size_t(t.cpu)];
    if (q.empty()) {
        cpu_owner_[size_t(t.cpu)] = -1;
        return;
    }
    int next = q.front();
    q.pop_front();
    cpu_owner_[size_t(t.cpu)] = next;
    clk.unpark(next);
}

bool Kernel::core_shared(const Task& t) const
{
    int sib = cfg_.topo.sibling(t.cpu);
    return nr_running_[size_t(t.cpu)] > 1 || (sib >= 0 && nr_running_[size_t(sib)] > 0);
}

void Kernel::sched_balance(Task& t)
{
    const hw::Topology& topo = cfg_.topo;
    if (!core_shared(t))
        return;
    int cpu = find_idle_core(topo.socket_of(t.cpu));
    if (cpu < 0)
        return;
    nr_running_[size_t(t.cpu)]--;
    t.cpu = cpu;
    t.migrations++;
    nr_running_[size_t(cpu)]++;
}

void Kernel::prune_devices(double now)
{
    if (now < pruned_at_ + 1e-3)   // every simulated millisecond is enough
        return;
    pruned_at_ = now;
    if (ssd)
        ssd->prune(now);
    if (rootdev)
        rootdev->prune(now);
    if (iaa)
        iaa->prune(now);
    // Locks: every 10 ms is enough to keep idle ones small.
    if (now < locks_pruned_at_ + 10e-3)
        return;
    locks_pruned_at_ = now;
    size_t keep = 0;
    for (hw::Lock* l : busy_locks_) {
        l->prune(now);
        if (l->idle())
            l->swept = false;
        else
            busy_locks_[keep++] = l;
    }
    busy_locks_.resize(keep);

}

// ---------------------------------------------------------------- setup

Kernel::Kernel(const KConfig& cfg)
    : memcg(cfg.topo.nr_cpus(), cfg.memcg_high, cfg.memcg_max, cfg.memcg_swap_max),
      zpool(cfg.zs_chain_size), cfg_(cfg)
{
    memcg.zswap_entry_charge = cfg.zswap_entry_charge;
    memcg.charge_batch = cfg.charge_batch;
    alloc_fail_share = cfg.mthp_alloc_fail;
    int nodes = cfg.topo.sockets;
    for (int n = 0; n < nodes; n++)
        lruvec.emplace_back(folios);
    nodes_.resize(size_t(nodes));
    setup_watermarks(cfg, nodes_);
    setup_pcp();
    double h = cfg.c.lock_handoff;
    lru_lock_.assign(size_t(nodes), hw::Lock(h));
    zone_lock_.assign(size_t(nodes), hw::Lock(h));
    list_lru_lock_.assign(size_t(nodes), hw::Lock(h));
    shadow_lru_lock_.assign(size_t(nodes), hw::Lock(h));
    shadow_on_list_.assign(size_t(nodes), 0);
    shadow_deferred_.assign(size_t(nodes), 0);
    pending_shadow_.assign(size_t(nodes), 0);
    lru_cost_.assign(size_t(nodes), LruCost{});
    zs_class_lock_.assign(zpool.nr_classes(), hw::Lock(h));
    si_lock_.set_handoff(h);
    page_counter_.set_handoff(h);
    if (cfg.dev != SwapDev::None) {
        // The swap table series dropped setup_clusters' column shuffle with the 64 MiB split.
        swap = std::make_unique<SwapDevice>(cfg.swap_slots, cfg.topo.nr_cpus(), cfg.slot_cache,
                                            cfg.swap_batch, cfg.swapfile_slots,
                                            cfg.swap_cache == SwapCacheImpl::XArray, cfg.dev != SwapDev::Hdd);
        swap->set_free_hook([this](swp_offset_t off) { on_slot_free(off); });
        if (cfg.swap_cache == SwapCacheImpl::XArray)
            xa_nr_nodes_ = size_t((cfg.swap_slots + cfg.swapfile_slots) / XA_CHUNK_SIZE + 1);
    }
    if (cfg.dev == SwapDev::Ssd)
        ssd = std::make_unique<hw::BlockDevice>(cfg.ssd);
    if (cfg.dev == SwapDev::Hdd) {   // the queue of swap.ssd, the medium of a rotational disk
        hw::BlockDevParams p = cfg.ssd;
        p.write_bw = p.read_bw = cfg.hdd_bw;
        p.latency = 0;
        ssd = std::make_unique<hw::BlockDevice>(p, &cfg.hdd, cfg.swap_slots * PAGE_SIZE);
    }
    if (cfg.dev == SwapDev::Zram) {
        zram = std::make_unique<Zram>(cfg.swap_slots + cfg.swapfile_slots + 1, cfg.zs_chain_size, cfg.zram.multi_order);
        zram_class_lock_.assign(zram->pool().nr_classes(), hw::Lock(h));
    }
    if (cfg.comp.hw)
        iaa = std::make_unique<hw::Iaa>(cfg.topo, cfg.iaa.dev);
    zswap_max_pages_ = cfg.dram_pages * cfg.max_pool_percent / 100;
    nr_running_.assign(size_t(cfg.topo.nr_cpus()), 0);
    allowed_.assign(size_t(cfg.topo.nr_cpus()), 1);
    cpu_owner_.assign(size_t(cfg.topo.nr_cpus()), -1);
    cpu_waiters_.resize(size_t(cfg.topo.nr_cpus()));
}

uint32_t Kernel::mm_create(int owner_task, int owner_cpu)
{
    check_table_room(mms.size(), mms.capacity(), "mms");
    MmStruct m;
    m.id = uint32_t(mms.size());
    m.owner_task = owner_task;
    m.owner_cpu = owner_cpu;
    mms.push_back(std::move(m));
    return mms.back().id;
}

uint32_t Kernel::vma_create(uint32_t mm_id, uint64_t npages)
{
    if (npages >= PTE_SWAP)
        throw std::invalid_argument("mapping too large for the page table model");
    Vma v;
    v.id = uint32_t(vma_ref_.size());
    v.anon_vma = v.id;
    v.pte.assign(size_t(npages), PTE_NONE);
    v.pte_table.assign(size_t((npages + HPAGE_PMD_NR - 1) / HPAGE_PMD_NR), false);
    MmStruct& m = mms[mm_id];
    vma_ref_.emplace_back(mm_id, uint32_t(m.vmas.size()));
    m.vmas.push_back(std::move(v));
    return uint32_t(m.vmas.size() - 1);
}

int Kernel::task_create(int cpu, uint32_t mm_id)
{
    check_table_room(tasks_.size(), tasks_.capacity(), "tasks");
    Task t;
    t.pid = int(tasks_.size());
    t.cpu = cpu;
    t.mm = mm_id;
    tasks_.push_back(t);
    return t.pid;
}

int Kernel::node_of_cpu(int cpu) const
{
    if (cfg_.membind >= 0)
        return cfg_.membind;
    // numa_mem_id(): a memoryless node's CPUs allocate from the nearest node with memory.
    const int s = cfg_.topo.socket_of(cpu);
    return cfg_.mem_nodes > 0 ? s % cfg_.mem_nodes : s;
}

hw::Lock& Kernel::lock_in(std::vector<std::unique_ptr<hw::Lock>>& m, uint32_t key)
{
    if (key >= m.size())
        m.resize(size_t(key) + 1);
    if (!m[key])
        m[key] = std::make_unique<hw::Lock>(cfg_.c.lock_handoff);
    return *m[key];
}

hw::Lock& Kernel::swap_cache_lock(swp_offset_t off)
{
    // XArray: one address_space (xa_lock) per 64 MiB of swap; swap table: the cluster lock.
    if (cfg_.swap_cache == SwapCacheImpl::XArray)
        return lock_in(swap_cache_locks_, off >> SWAP_ADDRESS_SPACE_SHIFT);
    return lock_in(cluster_locks_, off / SWAPFILE_CLUSTER);
}

hw::Lock& Kernel::zswap_tree_lock(swp_offset_t off)
{
    return lock_in(zswap_tree_locks_, off >> ZSWAP_ADDRESS_SPACE_SHIFT);
}

hw::Lock& Kernel::swap_alloc_lock(swp_offset_t off)
{
    if (cfg_.swap_alloc == SwapAllocLock::SiLock || off == NO_SWAP)
        return si_lock_;
    return lock_in(cluster_locks_, off / SWAPFILE_CLUSTER);
}

void Kernel::on_slot_free(swp_offset_t off)
{
    if (!swap_table()) {   // swap_range_free's clear_shadow_from_swap_cache
        const uint32_t space = uint32_t(off >> SWAP_ADDRESS_SPACE_SHIFT);
        // swapcache_free_entries (the slot cache) frees its entries one call each.
        if (!pending_clear_.empty() && pending_clear_.back().space == space) {
            PendingClear& p = pending_clear_.back();
            p.ranges += (cfg_.slot_cache || off != p.last + 1) ? 1 : 0;
            p.slots++;
            p.last = off;
        } else {
            pending_clear_.push_back({space, 1, 1, off});
        }
        xa_store(nullptr, off, 1, XaStore::Null, free_cpu_);
    }
    // swap_range_free: zswap_invalidate, then the memcg swap uncharge.
    uint16_t len = swap->zswap_len(off);
    if (len) {
        zpool.zs_free(zpool.class_index(len));
        memcg.uncharge_zswap(free_cpu_, len, 1);
        zswap.stored_pages--;
        pending_invalidate_++;
    }
    if (zram && zram->stored(off)) {   // swap_slot_free_notify
        int cls = zram->free_slot(off);
        pending_zram_free_++;
        if (cls >= 0)
            zram_freed_classes_.push_back(cls);
    }
    memcg.uncharge_swap(1);
}

// ---------------------------------------------------------------- reports and checks

std::vector<std::pair<std::string, const hw::LockStats*>> Kernel::lock_stats() const
{
    std::vector<std::pair<std::string, const hw::LockStats*>> out;
    auto sum_into = [&](const char* name, auto& locks, hw::LockStats& acc) {
        acc = {};
        for (auto& l : locks) {
            const hw::Lock* lk = lock_of(l);
            if (!lk)
                continue;
            const hw::LockStats& s = lk->stats();
            acc.acquisitions += s.acquisitions;
            acc.contended += s.contended;
            acc.hold_s += s.hold_s;
            acc.spin_s += s.spin_s;
        }
        out.emplace_back(name, &acc);
    };
    sum_into("lruvec->lru_lock", lru_lock_, agg_[0]);
    sum_into("zone->lock", zone_lock_, agg_[1]);
    sum_into("list_lru (zswap)", list_lru_lock_, agg_[2]);
    sum_into("zs_pool class->lock", zs_class_lock_, agg_[3]);
    sum_into("swap cache xa_lock / ci->lock", swap_cache_locks_, agg_[4]);
    sum_into("zswap tree xa_lock", zswap_tree_locks_, agg_[5]);
    sum_into("shadow_nodes list_lru", shadow_lru_lock_, agg_[7]);
    sum_into("si->lock / swap cluster lock", cluster_locks_, agg_[6]);
    if (dcache_)
        sum_into("s_dentry_lru / s_inode_lru", sb_lru_lock_, agg_[8]);
    agg_[6].acquisitions += si_lock_.stats().acquisitions;
    agg_[6].contended += si_lock_.stats().contended;
    agg_[6].hold_s += si_lock_.stats().hold_s;
    agg_[6].spin_s += si_lock_.stats().spin_s;
    out.emplace_back("memcg page_counter", &page_counter_.stats());
    return out;
}

Kernel::Census Kernel::census(const std::vector<uint32_t>& mm_ids) const
{
    Census n;
    for (uint32_t id : mm_ids) {
        const MmStruct& m = mms[id];
        n.processes++;
        for (const Vma& v : m.vmas)   // pages the process touched (a VMA may have holes)
            n.pages_written += uint64_t(std::count_if(v.pte.begin(), v.pte.end(), [](pte_t p) { return p != PTE_NONE; }));
        n.resident_pages += m.rss_anon;
        n.swapped_pages += m.swapents;
    }
    if (swap) {
        n.swap_slots_in_use = swap->inuse_pages();
        n.swap_slot_cache = swap->cached_slots();
    }
    n.zswap_stored_pages = zswap.stored_pages;
    n.zswap_pool_bytes = zpool.pool_pages() * PAGE_SIZE;
    return n;
}


namespace {
// memory.current against what the model charged: `pages` (folios, or the anon and file count)
// plus zswap's kmem, page tables, slab and the per-CPU stocks. "" when they agree.
std::string usage_mismatch(const mm::MemCgroup& memcg, int64_t pages, const char* what)
{
    if (memcg.memory.usage == pages + memcg.kmem_pages + memcg.pagetable_pages + memcg.slab_pages + memcg.stock_pages())
        return "";
    std::ostringstream err;
    err << "memcg usage " << memcg.memory.usage << " != " << what << " " << pages << " + zswap kmem " << memcg.kmem_pages
        << " + page tables " << memcg.pagetable_pages << " + slab " << memcg.slab_pages << " + stock "
        << memcg.stock_pages();
    return err.str();
}
}  // namespace

std::string Kernel::check_invariants() const
{
    std::ostringstream err;
    // Every touched page is mapped by a live folio or held by a swap entry with a reference.
    uint64_t present_pages = 0, swap_ptes = 0, file_pages = 0;
    auto vmas_anon_vma = [&](uint32_t id) { return mms[vma_ref_[id].first].vmas[vma_ref_[id].second].anon_vma; };
    std::unordered_map<folio_t, unsigned> mappings;             // shared folios: PTEs mapping them
    std::unordered_map<swp_offset_t, unsigned> swap_refs;       // swap PTEs per slot
    for (const MmStruct& m : mms) {
        for (const Vma& v : m.vmas) {
            // A file's page cache: its folios, each at its own index, file (not swap-backed).
            const uint32_t cache_vma = v.file ? files_[v.file - 1].vma : UINT32_MAX;
            for (size_t i = 0; i < v.pte.size(); i++) {
                pte_t p = v.pte[i];
                if (pte_present(p) && v.file) {
                    const Folio& f = folios[pte_folio(p)];
                    if (f.anon() || f.owner != cache_vma || f.index != i ||
                        (!v.pagecache && (!f.test(PG_mapped) || pte_folio(mms[vma_ref_[cache_vma].first].vmas[vma_ref_[cache_vma].second].pte[i]) != pte_folio(p)))) {
                        err << "file pte " << v.id << ":" << i << " maps a folio that is not the page cache's";
                        return err.str();
                    }
                    file_pages++;
                    if (!v.pagecache && f.shared)
                        mappings[pte_folio(p)]++;
                    continue;
                }
                if (pte_present(p)) {
                    const Folio& f = folios[pte_folio(p)];
                    if (!f.test(PG_mapped) || (f.owner != v.id && vmas_anon_vma(f.owner) != v.anon_vma) ||
                        i < f.index || i >= f.index + f.nr_pages()) {
                        err << "pte " << v.id << ":" << i << " maps a folio that is not its own";
                        return err.str();
                    }
                    present_pages++;
                    if (f.shared)
                        mappings[pte_folio(p)]++;
                } else if (pte_swap(p)) {
                    if (swap)
                        swap_refs[pte_offset(p)]++;
                    if (!swap || swap->count(pte_offset(p)) == 0) {
                        err << "swap pte " << v.id << ":" << i << " holds no swap reference";
                        return err.str();
                    }
                    swap_ptes++;
                }
            }
        }
    }
    for (const auto& [f, n] : mappings)
        if (n != mapcount(f)) {
            err << "folio " << f << " mapped by " << n << " PTEs, mapcount " << mapcount(f);
            return err.str();
        }
    for (const auto& [off, n] : swap_refs)
        if (n != swap->count(off)) {
            err << "swap slot " << off << " referenced by " << n << " PTEs, swap count " << unsigned(swap->count(off));
            return err.str();
        }
    uint64_t rss = 0, swapents = 0, rss_file = 0;
    for (const MmStruct& m : mms) {
        rss += m.rss_anon;
        swapents += m.swapents;
        rss_file += m.rss_file;
    }
    if (rss_file != file_pages) {
        err << "rss_file " << rss_file << " != file ptes and cached file pages " << file_pages;
        return err.str();
    }
    // The file LRU holds exactly the page cache (isolated folios aside), charged as file pages.
    uint64_t cached = 0, file_lru = isolated_file_;
    for (const FileMapping& fm : files_)
        cached += mms[fm.mm].rss_file;
    for (const Lruvec& l : lruvec)
        file_lru += l.nr_pages(LRU_INACTIVE_FILE) + l.nr_pages(LRU_ACTIVE_FILE);
    if (cached != file_lru || int64_t(cached) != memcg.file_pages) {
        err << "page cache " << cached << " pages, file LRU " << file_lru << ", memory.stat file " << memcg.file_pages;
        return err.str();
    }
    if (rss != present_pages) {
        err << "rss_anon " << rss << " != present ptes " << present_pages;
        return err.str();
    }
    if (swapents != swap_ptes) {
        err << "swapents " << swapents << " != swap ptes " << swap_ptes;
        return err.str();
    }
    // memcg usage = charged folios + zswap's charged pages + page tables + per-CPU stocks. The
    // folios are on the LRU lists or isolated by a reclaimer still at work (kswapd, when the
    // workload ends under global pressure).
    uint64_t folio_pages = isolated_pages_;
    for (const Lruvec& l : lruvec)
        folio_pages += l.total_pages();
    if (std::string bad = usage_mismatch(memcg, int64_t(folio_pages), "folios"); !bad.empty())
        return bad;
    if (memcg.memory.usage < 0 || uint64_t(memcg.memory.usage) > memcg.memory.max) {
        err << "memcg usage " << memcg.memory.usage << " outside [0, memory.max]";
        return err.str();
    }
    if (zpool.objs() != zswap.stored_pages) {
        err << "zsmalloc objects " << zpool.objs() << " != zswap stored pages " << zswap.stored_pages;
        return err.str();
    }
    if (swap && memcg.swap.usage != int64_t(swap->inuse_pages() - swap->cached_slots())) {
        err << "memcg swap usage " << memcg.swap.usage << " != swap slots in use "
            << swap->inuse_pages() << " - slot cache " << swap->cached_slots();
        return err.str();
    }
    return "";
}

std::string Kernel::check_at_yield() const
{
    std::ostringstream err;
    uint64_t lru_pages = 0;
    for (const Lruvec& l : lruvec)
        lru_pages += l.total_pages();
    if (folio_pages_ != lru_pages + isolated_pages_) {
        err << "folio pages " << folio_pages_ << " != LRU pages " << lru_pages << " + isolated " << isolated_pages_;
        return err.str();
    }
    // The model charges a folio just before allocating it, and a charge may pay the task's
    // memory.high debt (reclaim, a yield) in between: folio pages may lag the anon charge.
    const int64_t charged = memcg.anon_pages + memcg.file_pages;
    if (std::string bad = usage_mismatch(memcg, charged, "anon and file"); !bad.empty())
        return bad;
    if (int64_t(folio_pages_) > charged) {
        err << "folio pages " << folio_pages_ << " > charged anon and file pages " << charged;
        return err.str();
    }
    if (zpool.objs() != zswap.stored_pages) {
        err << "zsmalloc objects " << zpool.objs() << " != zswap stored pages " << zswap.stored_pages;
        return err.str();
    }
    if (swap && memcg.swap.usage != int64_t(swap->inuse_pages() - swap->cached_slots())) {
        err << "memcg swap usage " << memcg.swap.usage << " != swap slots in use " << swap->inuse_pages()
            << " - slot cache " << swap->cached_slots();
        return err.str();
    }
    return "";
}

void Kernel::set_isolated(folio_t f)
{
    folios[f].set(PG_isolated);
    isolated_pages_ += folios[f].nr_pages();
    if (!folios[f].anon())
        isolated_file_ += folios[f].nr_pages();
}

void Kernel::clear_isolated(folio_t f)
{
    folios[f].clear(PG_isolated);
    isolated_pages_ -= folios[f].nr_pages();
    if (!folios[f].anon())
        isolated_file_ -= folios[f].nr_pages();
}

}  // namespace swapsim::kernel
