// The simulated kernel: mm state, contended locks and devices, and the timed paths that
// tasks run (page fault, memcg charge and memory.high reclaim, shrink_folio_list, zswap,
// swap-out to a block device, swap-in with readahead, exit_mmap).
//
// Time model: a task runs kernel and user code through a Ctx, which accumulates the CPU time
// the code costs (and the expected spin on contended locks) and hands it to the Clock in one
// piece at the next flush: before the task blocks, after each reclaim pass, and at the end of
// each write step. State changes take effect when the code runs, i.e. at the start of the
// interval whose time is then spent. Busy-waiting (lock spins, IAA polling) is passed as time
// on the CPU, not as work: PAUSE leaves an SMT core to the sibling.
// Granularity, what each path leaves out and its yield points (where other tasks run and see
// its state; check_at_yield() says what holds there): the header of its file (fault.cpp,
// memcontrol.cpp, vmscan.cpp, swap.cpp, exit.cpp, madvise.cpp, zram.cpp, filemap.cpp); the scheduler here
// keeps one CPU per task and moves it only at wakeup or off a shared SMT core.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <queue>
#include <stdexcept>
#include <deque>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "hw/blockdev.hpp"
#include "hw/lock.hpp"
#include "kernel/config.hpp"
#include "kernel/pte_table.hpp"
#include "mm/folio.hpp"
#include "mm/lru.hpp"
#include "mm/memcg.hpp"
#include "mm/slab.hpp"
#include "mm/swapfile.hpp"
#include "mm/vmstat.hpp"
#include "mm/zram.hpp"
#include "mm/zsmalloc.hpp"

namespace swapsim::kernel {

// Where time goes: implemented over SimGrid by model/run, and by a plain counter in tests.
class Clock {
public:
    virtual ~Clock() = default;
    virtual double now() const = 0;
    virtual void cpu(int cpu, double seconds) = 0;      // busy at full speed for `seconds`
    // Streaming memory traffic from `cpu`: `bytes` at up to `rate` bytes/s (shares DRAM).
    virtual void mem(int cpu, double bytes, double rate) = 0;
    virtual void sleep_until(double t) = 0;            // blocked, off CPU
    // Runqueue waits: park() blocks task `pid` until another task calls unpark(pid). Only
    // needed when tasks share a logical CPU (Kernel::cpu_get); a plain clock never parks.
    virtual void park(int pid) { throw std::logic_error("this clock cannot park a task"); }
    virtual void unpark(int pid) {}
};

// Page table entry of an anon VMA: 0 none, PTE_SWAP|offset a swap entry, else folio id + 1,
// with PTE_WP when the PTE is write-protected (COW after fork, or a non-exclusive swap-in).
constexpr pte_t PTE_NONE = 0;
constexpr pte_t PTE_SWAP = 0x80000000u;
constexpr pte_t PTE_WP = 0x40000000u;   // present PTEs only
inline bool pte_present(pte_t p) { return p && !(p & PTE_SWAP); }
inline bool pte_swap(pte_t p) { return p & PTE_SWAP; }
inline bool pte_wp(pte_t p) { return pte_present(p) && (p & PTE_WP); }
inline mm::folio_t pte_folio(pte_t p) { return mm::folio_t((p & ~PTE_WP) - 1); }
inline mm::swp_offset_t pte_offset(pte_t p) { return p & ~PTE_SWAP; }
inline pte_t mk_pte(mm::folio_t f) { return pte_t(f + 1); }
inline pte_t mk_swp_pte(mm::swp_offset_t o) { return PTE_SWAP | o; }

struct Vma {
    uint32_t id = 0;
    PteTable pte;   // one per page (pte_table.hpp)
    // A page-table page per PMD range (2 MiB) once faulted: the PTE table, or a PMD THP's
    // deposited one. Charged to the memcg (GFP_PGTABLE_USER has __GFP_ACCOUNT).
    std::vector<bool> pte_table;
    // vma->swap_readahead_info: last fault page, window, readahead hits. The kernel zeroes it
    // with the VMA, i.e. a previous fault at address 0, next to no user page; indices here
    // are VMA-relative, so "none yet" is RA_NONE, not 0 (0 would make a first fault at page 1
    // look sequential and open a readahead window).
    static constexpr uint32_t RA_NONE = 0xfffffff0u;
    uint32_t ra_addr = RA_NONE;
    unsigned ra_win = 0, ra_hits = 0;
    uint32_t data_gen = 0;    // which data the workload wrote (DataModel's zero pages)
    // vma->anon_vma: the id of the VMA whose anon_vma this one shares (its own id unless
    // fork copied it). The rmap of a folio walks every VMA of its owner's anon_vma.
    uint32_t anon_vma = 0;
    bool shmem = false;       // a tmpfs file's page cache, not a mapping (see Kernel::shmem_create)
    // Anon pages of order 0 whatever mTHP allows: a process's own data inherited through fork,
    // whose private copies wp_page_copy allocates one page at a time, or set up by exec.
    bool small_folios = false;
    // A file on the root block device (Kernel::file_create): its id + 1, 0 for anon memory. The
    // file's own VMA (`pagecache`) holds its page cache in its slots (a folio or none); a
    // process's VMA mapping it (Kernel::file_mmap, VM_EXEC) holds PTEs of those folios.
    uint32_t file = 0;
    bool pagecache = false;
};

struct MmStruct {
    uint32_t id = 0;
    int owner_cpu = -1;       // where its task runs (TLB shootdown target)
    int owner_task = -1;
    std::vector<Vma> vmas;
    uint64_t rss_anon = 0, swapents = 0;
    uint64_t rss_file = 0;    // MM_FILEPAGES: present PTEs of file mappings (and a file's cached pages)
};

struct Task {
    int pid = 0;
    int cpu = 0;
    uint32_t mm = 0;
    unsigned memcg_nr_pages_over_high = 0;
    bool memalloc = false;       // PF_MEMALLOC: in reclaim
    bool running = false;        // on CPU (not sleeping): receives TLB IPIs
    double utime = 0, stime = 0; // seconds
    double stolen = 0;           // IRQ work (TLB shootdowns) to run at the next flush
    uint64_t reclaimed = 0;      // pages this task reclaimed
    double throttled_s = 0;      // memory.high penalty sleep
    double io_wait_s = 0;        // blocked on a request tag or a read
    uint64_t lru_add_pending = 0;
    uint64_t migrations = 0;
    unsigned uncharge_folios = 0;   // batching state
    unsigned lru_release_pending = 0;
    bool kthread = false;        // kswapd, oom_reaper: no mm, never an OOM victim
    bool oom_victim = false;     // SIGKILL from the OOM killer pending: may use reserves (ALLOC_OOM)
    bool exited = false;         // its mm is gone (exit_mmap done)
    bool user_wait = false;      // blocked in user space (a pipe read, a sleep): the oom_reaper may reap it
};

class Kernel;

// The execution of one task: accumulates the time its code costs.
class Ctx {
public:
    Ctx(Kernel& k, Task& t, Clock& clk);
    ~Ctx();
    Kernel& k;
    Task& task;

    double now() const { return base_ + pending_ + pending_mem_s_; }   // planned time of the code now running
    double planned() const { return pending_ + pending_mem_s_; }       // not yet run
    // `fn`: the calling function, for the sys-time profile (swapsim run --profile).
    void sys(double s, const char* fn = __builtin_FUNCTION())
    {
        pending_ += s;
        pending_sys_ += s;
        if (profiling_)
            prof_.push_back({fn, s, Prof::Cpu});
    }
    void user(double s) { pending_ += s; pending_user_ += s; }
    // Busy-waiting (MCS spin on a contended lock, polling an IAA completion record): sys time
    // on the CPU, but cpu_relax() (PAUSE) leaves the core to its SMT sibling, and the wait ends
    // with the event awaited, however the core is shared.
    void busy_wait(double s, const char* fn = __builtin_FUNCTION()) { spend_busy(s, fn, false); }
    // Memory-bound work (clearing, the write loop): `bytes` at `rate` bytes/s per core.
    void mem(double bytes, double rate, bool in_kernel, const char* fn = __builtin_FUNCTION());
    // `n` acquisitions of a spinlock held `hold` each, `spacing` of other work between them
    // (accounted by the caller): spin + hold as sys time.
    void lock(hw::Lock& l, double hold, unsigned n = 1, double spacing = 0,
              const char* fn = __builtin_FUNCTION());
    // Time to run the planned time (cond_resched in a long kernel loop): `slice` of it has
    // built up, or an eighth of it spinning. The second keeps a spinner on a saturated lock
    // from planning far ahead of the others (hw::Lock queues their turns in MCS order).
    bool slice_over(double slice) const { return planned() > slice || pending_spin_ > slice / 8; }
    // Run the accumulated CPU time on the task's CPU. A yield point: other tasks run meanwhile
    // and see this task's state as it is now (with Kernel::check_yields, checked here; `fn`
    // names the kernel path in the message).
    void flush(const char* fn = __builtin_FUNCTION());
    // Flush, then block (off CPU) until `wait` returns: a sleep, or a rendezvous with other
    // tasks (usemem -y/-x). The planned time starts again at the engine's clock.
    template <class Wait>
    void block(Wait&& wait, const char* fn = __builtin_FUNCTION());
    void block_until(double t, const char* fn = __builtin_FUNCTION());   // block until t
    // Blocked on IO until t (a request tag, a read): counted as the task's io_wait, off CPU.
    // Returns the time waited (0 if t is not after the planned time).
    double io_wait_until(double t, const char* fn = __builtin_FUNCTION());
    Clock& clock() { return clk_; }

private:
    Clock& clk_;
    double base_;
    double pending_ = 0, pending_sys_ = 0, pending_user_ = 0, pending_spin_ = 0, pending_busy_ = 0;
    double pending_mem_bytes_ = 0, pending_mem_s_ = 0, pending_mem_sys_s_ = 0;
    // Sys time by caller since the last flush, scaled at the flush to the task's stime.
    struct Prof {
        enum Kind : uint8_t { Cpu, Busy, Spin, Mem };
        const char* fn;
        double s;
        Kind kind;
    };
    bool profiling_;
    std::vector<Prof> prof_;
    void profile_flush(double scale, bool busy_apart, double stolen);
    void spend_busy(double s, const char* fn, bool spin)
    {
        pending_ += s;
        pending_sys_ += s;
        pending_busy_ += s;
        if (profiling_)
            prof_.push_back({fn, s, spin ? Prof::Spin : Prof::Busy});
    }
};

struct ScanControl {
    unsigned long nr_to_reclaim = 0;
    unsigned long nr_reclaimed = 0;
    unsigned long nr_scanned = 0;
    int priority = mm::DEF_PRIORITY;
    bool may_swap = true;
    bool kswapd = false;         // current_is_kswapd(): pgscan/pgsteal_kswapd
    bool memcg_reclaim = false;  // !global_reclaim(sc): slab pages freed do not count (flush_reclaim_state)
};

// One NUMA node's memory as the page allocator sees it: a single zone with the kernel's
// watermarks (__setup_per_zone_wmarks) and its kswapd.
struct NodeMem {
    enum { WMARK_MIN, WMARK_LOW, WMARK_HIGH };
    uint64_t managed = 0;         // pages
    uint64_t wmark[3] = {};       // pages
    uint64_t folio_pages = 0;     // folios allocated on this node
    int kswapd_pid = -1;
    bool kswapd_sleeping = false;
    unsigned kswapd_failures = 0; // balance_pgdat runs that reclaimed nothing
    double kswapd_sys_s = 0;
};

// __setup_per_zone_wmarks for every node (page_alloc.cpp).
void setup_watermarks(const KConfig& cfg, std::vector<NodeMem>& nodes);

// A kernel thread for model/run to spawn: `body` runs forever (it parks while idle).
struct KThread {
    std::string name;
    int pid = 0, cpu = 0;
    std::function<void(Clock&)> body;
};

struct DeviceStats {
    uint64_t requests = 0, bytes_written = 0, bytes_read = 0;
    double busy_s = 0;
};

class Kernel {
public:
    explicit Kernel(const KConfig& cfg);

    // ---- setup ----
    uint32_t mm_create(int owner_task, int owner_cpu);
    uint32_t vma_create(uint32_t mm, uint64_t npages);
    Task& task(int pid) { return tasks_[size_t(pid)]; }
    const Task& task(int pid) const { return tasks_[size_t(pid)]; }
    int task_create(int cpu, uint32_t mm);
    size_t nr_tasks() const { return tasks_.size(); }
    // CPUs the workload's tasks may run on (taskset); wakeups and balancing stay inside it.
    void set_allowed_cpus(const std::vector<int>& cpus);

    // ---- scheduler (where tasks run) ----
    void sched_wakeup(Task& t);   // select_idle_sibling: an idle core of the LLC, else prev
    void sched_sleep(Task& t);    // the task blocks or exits
    void sched_balance(Task& t);  // newidle balancing: leave a shared core for an idle one
    bool core_shared(const Task& t) const;   // another running task on its CPU or SMT sibling
    bool sibling_running(const Task& t) const;   // a running task on its SMT sibling
    // Time-sharing of a logical CPU: a task runs its planned time only while it holds its
    // CPU; others runnable there wait in FIFO order (round robin at flush granularity, the
    // idealised CFS of equal weights). The wait is runqueue latency, not CPU time.
    void cpu_get(Task& t, Clock& clk);
    void cpu_put(Task& t, Clock& clk);
    uint64_t runqueue_waits = 0;
    double runqueue_wait_s = 0;
    // Device timelines may forget what ended before the engine's current time.
    void prune_devices(double now);

    // Room for tasks and mms made while the simulation runs (fork, exec): references into
    // them stay valid as long as no more than this many exist.
    void reserve(size_t tasks, size_t mms);   // before tasks run: the tables may not move after it
    // A tmpfs file of `npages` pages: an mm with no task holding one VMA, whose slots stand
    // for the file's page cache (a folio, a swap entry, or none). Its folios are swap-backed,
    // on the anon LRU, charged to the memcg of the task that first writes them (the one
    // memcg here) as shmem; swap-in goes through the swap cache (shmem_swapin_folio).
    uint32_t shmem_create(uint64_t npages);
    // A file of `npages` pages on the root block device (KConfig::rootdev; an executable such as
    // cc1): an mm with no task holding one VMA whose slots are the file's page cache. Its folios
    // are not swap-backed: on the file LRU, charged to the memcg as file pages when read, read
    // by filemap_fault and dropped clean by reclaim (a shadow entry kept). Returns the file id.
    uint32_t file_create(uint64_t npages);
    // mmap of the whole file, PROT_EXEC (VM_EXEC), into `mm`: a VMA whose faults are
    // filemap_fault's, linked on the file's i_mmap (the rmap of its folios). Returns its index.
    uint32_t file_mmap(uint32_t mm, uint32_t file);
    uint64_t file_cached_pages(uint32_t file) const;   // the file's page cache, resident pages
    // A file system's dentry and inode caches for `entries` entries (shrinker.cpp): each
    // entry's dentry and inode charge the memcg of the task that looks it up (SLAB_ACCOUNT) by
    // their object sizes; `reclaimable`: on the superblock's LRUs, freed by its shrinker (a disk
    // file system); otherwise pinned (tmpfs). One per kernel.
    void dcache_create(uint32_t entries, uint32_t dentry_bytes, uint32_t inode_bytes, bool reclaimable);
    // Path lookup of entry `e` (the last component; its parents are cached): a cached dentry is
    // referenced, a missing dentry or inode allocated and charged.
    void fs_lookup(Ctx& c, uint32_t e);
    const mm::Dcache* dcache() const { return dcache_.get(); }
    // do_shrink_slab's scan count for `freeable` objects: (nr_deferred >> priority) + delta,
    // delta = (freeable >> priority) x 4 / seeks, or freeable / 2 for seeks 0; at most 2 x freeable.
    static uint64_t shrinker_total_scan(uint64_t freeable, uint64_t deferred, int priority, unsigned seeks,
                                        uint64_t* delta = nullptr);
    struct SlabStats {
        uint64_t lookups = 0, alloc_dentries = 0, alloc_inodes = 0;
        uint64_t freed_dentries = 0, freed_inodes = 0, rotated = 0;
        uint64_t shrinker_calls = 0, slabs_scanned = 0;          // do_shrink_slab calls, SLABS_SCANNED
        uint64_t shadow_calls = 0, shadow_scanned = 0, shadow_nodes_freed = 0;   // workingset shadow shrinker
    } slabstat;
    mm::folio_t file_folio(uint32_t file, uint32_t idx) const;   // page idx's folio, or NO_FOLIO
    bool has_files() const { return !files_.empty(); }

    // ---- paths run by tasks ----
    // fork's copy_page_range: a new mm with a copy of every VMA of `parent_mm`, sharing its
    // anon_vma. Present PTEs map the same folio in both, write-protected (mapcount + 1);
    // swap PTEs take another reference (swap_duplicate: swap count + 1). Page tables of the
    // child are allocated and charged. Returns the child's mm.
    uint32_t fork_mm(Ctx& c, uint32_t parent_mm, int child_task, int child_cpu);
    // After exit_mmap: the model's arrays of an mm that will not run again are freed (a VMA of
    // a forked anon_vma keeps its size, empty, for the rmap walks of its siblings).
    void mm_drop(uint32_t mm);
    // First touch or re-touch of page `idx` of a VMA (write fault). Returns pages the
    // resulting folio covers from idx on (so the caller can write them without faulting).
    unsigned handle_mm_fault(Ctx& c, uint32_t mm, uint32_t vma, uint32_t idx, bool write);
    // resume_user_mode_work: pay any memory.high debt (mem_cgroup_handle_over_high).
    void resume_user_mode(Ctx& c);
    // munmap of one VMA; exit_mmap of every VMA of `mm`.
    void exit_mmap_vma(Ctx& c, uint32_t mm, uint32_t vma);
    void exit_mmap(Ctx& c, uint32_t mm);
    // A user access to a present page: sets the accessed bit; returns the pages of its folio
    // from idx on.
    unsigned touch_present(uint32_t mm, uint32_t vma, uint32_t idx);
    // madvise(MADV_PAGEOUT) of pages [first, first + n): madvise_cold_or_pageout_pte_range
    // isolates the mapped folios, reclaim_pages writes them out (shrink_folio_list without
    // folio_check_references), one PMD range at a time.
    void madvise_pageout(Ctx& c, uint32_t mm, uint32_t vma, uint32_t first, uint32_t n);

    // Folios mapped by the VMAs of one anon_vma: how many mms map folio f (folio_mapcount of
    // an order-0 folio), and each mapping.
    unsigned mapcount(mm::folio_t f) const;
    struct CowStats {
        uint64_t copies = 0;    // wp_page_copy: a new page for a write to a shared one
        uint64_t reuses = 0;    // wp_page_reuse: the writer was the last mapper
        uint64_t fork_ptes = 0, fork_swap_ptes = 0;
    } cow;
    // ---- kernel threads and global memory pressure (page_alloc.cpp) ----
    // kswapd per node and the oom_reaper: their tasks, for model/run to spawn as daemons.
    // Call once, after the workload's tasks exist.
    std::vector<KThread> kthreads();
    const std::vector<NodeMem>& nodes() const { return nodes_; }
    uint64_t node_free(int nid) const;   // free pages of a node (NR_FREE_PAGES)
    // A task leaves: it holds no memory the OOM killer could take any more.
    void task_exited(Task& t) { t.exited = true; }

    // ---- state for reports and checks ----
    const KConfig& cfg() const { return cfg_; }
    mm::MemCgroup memcg;
    mm::VmStat vm;
    mm::FolioTable folios;
    std::vector<mm::Lruvec> lruvec;   // per node
    std::unique_ptr<mm::SwapDevice> swap;
    mm::ZsPool zpool;
    std::unique_ptr<hw::BlockDevice> ssd;
    std::unique_ptr<hw::Iaa> iaa;
    std::unique_ptr<mm::Zram> zram;   // swap.device = zram
    std::unique_ptr<hw::BlockDevice> rootdev;   // the files' block device (made by file_create)
    struct FileStats {
        uint64_t major = 0, minor = 0;          // filemap_fault: read from the device / found cached
        uint64_t read_pages = 0, reads = 0;     // pages read (read-around included), bios
        uint64_t evicted = 0, refaults = 0, refault_activated = 0;
        double io_wait_s = 0;
    } filestat;
    std::vector<MmStruct> mms;
    // Machine RAM in use (4 KiB pages): folios, page tables, the zswap and zram pools. zram's
    // pool is charged to no memcg, so only this sees it.
    uint64_t ram_pages() const;
    uint64_t ram_peak_pages() const { return ram_peak_; }
    // DataModel: page `idx` of the VMA holds zeros.
    bool page_zero(const Vma& v, uint32_t idx) const;

    struct ZswapStats {
        uint64_t stored_pages = 0, pool_limit_hit = 0, reject_compress_poor = 0, reject_compress_fail = 0,
                 reject_large = 0, written_back = 0;
    } zswap;
    // Where each swapped-out page went, so that pgsteal and the swap-outs add up (checked at the
    // end of a run): pgsteal_direct + pageout_freed + written_unmapped + written_again + written_resident =
    // zswpout + pswpout + freed_clean. A folio counts its write (PG_wrote) until reclaim frees it.
    struct SwapoutAccounting {
        uint64_t freed_clean = 0;      // pages reclaim freed with no swap-out of their own (clean
                                       // swap cache: read ahead or swapped in, unchanged since)
        uint64_t pageout_freed = 0;    // pages MADV_PAGEOUT freed (counted in no pgsteal)
        uint64_t written_unmapped = 0; // swapped-out pages that munmap or exit freed before reclaim
                                       // did (their write still in flight, or in the swap cache)
        uint64_t written_again = 0;    // swapped-out pages refaulted from the swap cache, redirtied
                                       // and swapped out again (two writes, one free)
        uint64_t written_resident = 0; // swapped-out pages still in memory (writeback, swap cache)
    } swapout_acct;
    // A swap-out of folio `f` (zswap store or swap_writepage) and reclaim's free of it.
    void note_swapout(mm::Folio& f);
    void note_reclaim_free(mm::Folio& f);
    // When the higher-priority swap file first ran out of room (large folios get slots from
    // then on); -1 while it never did.
    double swapfile_full_at = -1;

    // Longest a lock acquisition was planned ahead of the engine's clock: locks keep 4 ms of
    // history, so the contention they report is exact only while this stays well below it.
    double max_plan_ahead = 0;
    // swapsim run --profile: stime by the model function that spent it (its spin on a lock
    // apart), and the IRQ work of TLB shootdowns. Off by default (it slows the run).
    bool profile = false;
    // kernel.mthp.alloc_fail_percent as a share, read at every large allocation (a what-if a
    // test may change while the kernel runs).
    double alloc_fail_share = 0;
    std::unordered_map<const char*, double> sys_profile, spin_profile;
    // Named locks with their contention statistics, for result.json.
    std::vector<std::pair<std::string, const hw::LockStats*>> lock_stats() const;
    // Where the pages of some processes' mappings are at one moment (result.json's
    // "at_writes_done"): every page they wrote is resident or swapped out.
    struct Census {
        uint64_t processes = 0;
        uint64_t pages_written = 0;        // pages of their mappings (each written once at least)
        uint64_t resident_pages = 0;       // rss_anon: mapped by a present PTE
        uint64_t swapped_pages = 0;        // swapents: a swap PTE
        uint64_t swap_slots_in_use = 0;    // slots with a reference or in the swap cache, all tasks
        uint64_t swap_slot_cache = 0;      // of them, held in per-CPU slot caches
        uint64_t zswap_stored_pages = 0;   // zswap's pool contents
        uint64_t zswap_pool_bytes = 0;
    };
    Census census(const std::vector<uint32_t>& mm_ids) const;
    // Page conservation and memcg accounting. Returns "" if consistent, else the first violation.
    std::string check_invariants() const;
    // Debug: check check_at_yield() at every yield point (Ctx::flush, also under block and
    // block_until), where other tasks run and see the yielding task's half-done work. Set by a
    // test, or by SWAPSIM_CHECK_YIELDS=1 in the environment (run/run.cpp; the test suite sets
    // it). A violation throws std::logic_error naming the kernel path that yielded.
    bool check_yields = false;
    uint64_t yield_checks = 0;   // yield points checked
    // What holds whenever a task yields, as the kernel keeps it around a lock drop: memcg
    // usage = anon (and file) charge + zswap's kmem + page tables + per-CPU stocks; folio pages
    // = pages on the LRU lists + pages isolated from them, and at most the anon charge (a charge
    // may precede its folio); zsmalloc objects = zswap's stored pages; memcg swap usage = swap
    // slots in use - the slot cache. Counters only: O(nodes + CPUs).
    std::string check_at_yield() const;
    int nr_nodes() const { return int(lruvec.size()); }

private:
    friend class Ctx;
    struct WbDone {
        double t;
        mm::folio_t f;
        uint32_t gen;
        bool operator>(const WbDone& o) const { return t > o.t || (t == o.t && f > o.f); }
    };
    struct ShrinkStat {
        unsigned long nr_reclaimed = 0, nr_writeback = 0, nr_activate = 0, nr_pageout = 0;
    };

    // fault side
    bool order_fits(const Vma& v, uint32_t idx, unsigned order) const;   // aligned, in the VMA, all none
    unsigned charge_anon_folio(Ctx& c, const Vma& v, uint32_t idx);     // returns the folio's order
    mm::folio_t alloc_folio(Ctx& c, unsigned order, int nid, bool anon, uint32_t owner, uint32_t index);
    void free_folio(Ctx& c, mm::folio_t f);
    int alloc_pages(Ctx& c, unsigned order, int nid);   // returns the node that gave the pages
    void zone_lock_pcp(Ctx& c, unsigned order, int nid, bool free);   // rmqueue_pcplist or free_unref_page_commit
    void pte_alloc(Ctx& c, Vma& v, uint32_t idx);          // page table for idx's PMD range
    void free_pgtables(Ctx& c, Vma& v);
    void release_folio(Ctx& c, mm::folio_t f);
    // try_charge_memcg in task context; `stat` is the memory.stat line the pages count in.
    // !may_block: a gfp without __GFP_DIRECT_RECLAIM (a large folio's vma_thp_gfp_mask under
    // the default defrag=madvise): fail at memory.max instead of reclaiming.
    bool charge_pages(Ctx& c, unsigned nr_pages, int64_t& stat, bool may_block = true);
    bool charge_folio(Ctx& c, unsigned nr_pages, bool may_block = true)
    {
        return charge_pages(c, nr_pages, memcg.anon_pages, may_block);
    }
    void account_charge(Ctx& c, const mm::ChargeResult& r);
    void lru_add(Ctx& c, mm::folio_t f);
    unsigned do_anonymous_page(Ctx& c, MmStruct& m, Vma& v, uint32_t idx);
    // filemap_fault of a file mapping (fault.cpp): the page cache's folio mapped, or read with
    // its read-around window (a major fault), then filemap_map_pages' fault-around.
    unsigned filemap_fault(Ctx& c, MmStruct& m, Vma& v, uint32_t idx);
    void map_file_pte(MmStruct& m, Vma& v, uint32_t idx, mm::folio_t f);
    // __filemap_remove_folio with workingset_eviction's shadow (reclaim), fault.cpp.
    void page_cache_del(Ctx& c, mm::folio_t f);
    // workingset_test_recent + workingset_refault for a file folio read back: activate it when
    // its refault distance fits the workingset. Returns whether it was activated.
    bool workingset_refault(Ctx& c, uint32_t shadow, int nid);
    // lru_note_cost: the reclaim cost of a list (IO x SWAP_CLUSTER_MAX + rotations), decayed
    // to a quarter of the LRU size; get_scan_count's anon/file balance (vmscan.cpp).
    void lru_note_cost(Ctx* c, int nid, bool file, uint64_t nr_io, uint64_t nr_rotated);
    unsigned do_swap_page(Ctx& c, MmStruct& m, Vma& v, uint32_t idx, bool write);
    unsigned map_large_swapcache_folio(Ctx& c, MmStruct& m, Vma& v, uint32_t idx, mm::folio_t f, bool write);
    unsigned map_swapin_folio(Ctx& c, MmStruct& m, Vma& v, uint32_t idx, mm::folio_t f, uint32_t start,
                              mm::swp_offset_t head, bool write);
    unsigned do_wp_page(Ctx& c, MmStruct& m, Vma& v, uint32_t idx);
    // Every VMA that may map folio `f` (its owner's anon_vma), as (mm, vma index).
    const std::vector<uint32_t>* anon_vma_members(const mm::Folio& fo) const;
    template <class Fn>
    void for_each_mapping(mm::folio_t f, Fn&& fn);   // fn(MmStruct&, Vma&) per VMA mapping f
    unsigned rmap_vmas(const mm::Folio& fo) const;   // VMAs an rmap walk of fo visits
    // `raced`: set when another fault put the slot's folio in the swap cache first (returned).
    mm::folio_t read_swap_cache_async(Ctx& c, Vma& v, uint32_t idx, mm::swp_offset_t off, double* ready,
                                      bool* raced = nullptr);
    int node_of_cpu(int cpu) const;

    // page allocator slow path, kswapd, OOM (page_alloc.cpp)
    int alloc_node(Ctx& c, unsigned order, int preferred);          // the node that gives the pages
    int node_with_room(int preferred, unsigned nr, int mark) const; // zonelist walk at a watermark, -1 if none
    bool room_for_large(unsigned order, int preferred) const;       // a GFP_TRANSHUGE_LIGHT try: low watermark
    void wakeup_kswapd(Ctx& c, int nid);
    void kswapd(Clock& clk, int nid);
    void balance_pgdat(Ctx& c, int nid);
    unsigned long try_to_free_pages(Ctx& c);
    void out_of_memory(Ctx& c);
    void oom_reaper(Clock& clk);
    std::vector<NodeMem> nodes_;
    int oom_reaper_pid_ = -1;
    bool oom_reaper_sleeping_ = false;
    std::vector<int> oom_reap_queue_;

    // slab caches and shrinkers (shrinker.cpp)
    // shrink_slab for node nid at sc.priority: the superblock shrinker of the workload's memcg,
    // and in global reclaim the root memcg's shadow-node shrinker. Returns the objects freed.
    unsigned long shrink_slab(Ctx& c, int nid, ScanControl& sc);
    unsigned long super_cache_scan(Ctx& c, int nid, uint64_t nr_to_scan);
    unsigned long scan_shadow_nodes(Ctx& c, int nid, uint64_t nr_to_scan);
    void slab_charge(Ctx& c, int64_t bytes);   // obj_cgroup_charge / uncharge of `bytes` (negative: uncharge)
    std::unique_ptr<mm::Dcache> dcache_;
    uint32_t dentry_bytes_ = 0, inode_bytes_ = 0;
    int64_t slab_bytes_ = 0;                  // bytes of slab objects charged
    std::vector<uint64_t> sb_deferred_;       // the superblock shrinker's nr_deferred, per node (the memcg's)
    std::vector<hw::Lock> sb_lru_lock_;       // s_dentry_lru and s_inode_lru list locks: [node x 2 + list]
    std::vector<uint64_t> shadow_on_list_;    // xa_nodes on each node's shadow_nodes list
    std::vector<uint64_t> shadow_deferred_;   // the shadow shrinker's nr_deferred, per node (root)
    size_t shadow_cursor_ = 0;                // where the last shadow-node walk stopped (xa_nodes_ index)

    // memcg reclaim
    void mem_cgroup_handle_over_high(Ctx& c);
    unsigned long do_try_to_free_pages(Ctx& c, ScanControl& sc);
    unsigned long reclaim_high(Ctx& c, unsigned nr_pages);
    unsigned long try_to_free_mem_cgroup_pages(Ctx& c, unsigned nr_pages);
    void shrink_lruvec(Ctx& c, int nid, ScanControl& sc);
    unsigned long shrink_inactive_list(Ctx& c, int nid, mm::LruList lru, unsigned long nr_to_scan,
                                       ScanControl& sc);
    void shrink_active_list(Ctx& c, int nid, mm::LruList lru, unsigned long nr_to_scan);
    bool inactive_is_low(int nid, mm::LruList inactive) const;
    unsigned long shrink_folio_list(Ctx& c, std::vector<mm::folio_t>& list, std::vector<mm::folio_t>& ret,
                                    std::vector<mm::folio_t>& activate, ShrinkStat& st,
                                    bool ignore_references = false);
    void process_writeback_completions(double now);

    // swap-out pieces
    struct PlugEntry {
        mm::swp_offset_t off;
        unsigned nr;
        mm::folio_t f;
        uint32_t gen;
    };
    bool add_to_swap(Ctx& c, mm::folio_t f);
    void split_folio(Ctx& c, mm::folio_t f, std::vector<mm::folio_t>& list);
    void tlb_flush_dirty(Ctx& c, mm::folio_t f);
    void swap_cache_insert(Ctx& c, mm::folio_t f, mm::swp_offset_t off);
    void swap_cache_del(Ctx& c, mm::folio_t f, bool shadow = false);   // shadow: reclaim's __remove_mapping
    void try_to_unmap(Ctx& c, mm::folio_t f);
    enum class Pageout { Clean, Writeback, Activate };
    Pageout swap_writepage(Ctx& c, mm::folio_t f, std::vector<PlugEntry>& plug);
    bool zswap_store(Ctx& c, mm::folio_t f);
    bool iaa_compress_batch(Ctx& c, unsigned n);   // false: overflow (-EOVERFLOW)
    void iaa_decompress(Ctx& c);
    void iaa_wait(Ctx& c, double done);            // poll, or sleep for the IRQ
    uint64_t iaa_seq_ = 0;
    bool zswap_load(Ctx& c, mm::swp_offset_t off);
    void flush_plug(Ctx& c, std::vector<PlugEntry>& plug);
    // `cold`: the lines zap_swap_lines counted for this run (munmap / exit), priced at
    // cost.zap.cold_line_ns under the lock that holds each.
    struct ZapLines {
        unsigned outside = 0;   // swap_pte_batch's lookup_swap_cgroup_id: swap_cgroup lines
        unsigned cluster = 0;   // under ci->lock: the cluster, swap_map, zeromap (+ the swap table's lines)
        unsigned cache = 0;     // XArray: under the space's xa_lock: its lock, the walk's parent slot, leaf xa_node lines
    };
    ZapLines zap_swap_lines(mm::swp_offset_t off, unsigned nr) const;
    void swap_free_slots(Ctx& c, mm::swp_offset_t off, unsigned nr, const ZapLines* cold = nullptr);
    void swapin_readahead_window(Ctx& c, Vma& v, uint32_t idx, uint32_t* start, uint32_t* end);
    // zram (zram.cpp)
    void zram_write_folio(Ctx& c, mm::folio_t f);
    void zram_read(Ctx& c, mm::swp_offset_t off, unsigned nr);
    bool sync_io() const { return cfg_.dev == SwapDev::Pmem || cfg_.dev == SwapDev::Zram; }
    unsigned alloc_swap_folio(Ctx& c, Vma& v, uint32_t idx, mm::swp_offset_t off);   // the order
    bool large_alloc_fails();   // kernel.mthp.alloc_fail_percent
    void note_ram();

    // locks
    hw::Lock& swap_cache_lock(mm::swp_offset_t off);
    hw::Lock& zswap_tree_lock(mm::swp_offset_t off);
    hw::Lock& swap_alloc_lock(mm::swp_offset_t off);
    hw::Lock& lock_in(std::vector<std::unique_ptr<hw::Lock>>& m, uint32_t key);
    static const hw::Lock* lock_of(const hw::Lock& l) { return &l; }
    static const hw::Lock* lock_of(const std::unique_ptr<hw::Lock>& p) { return p.get(); }
    void on_slot_free(mm::swp_offset_t off);
    bool swap_table() const { return cfg_.swap_cache == SwapCacheImpl::SwapTable; }
    // swap_cache_get_folio: the XArray's walk, or the swap table's one load.
    double swap_cache_lookup_cost() const { return swap_table() ? cfg_.c.table_lookup : cfg_.c.swap_cache_lookup; }
    void price_slot_frees(Ctx& c, const mm::SwapFreeTrace& tr, mm::swp_offset_t off, const ZapLines* cold = nullptr);
    // The XArray swap cache's leaf nodes (XA_CHUNK_SIZE, 64 slots each): the slots holding a
    // folio or a shadow, the NUMA node the xa_node was allocated on, and whether
    // workingset_update_node keeps it on the shadow_nodes list_lru (only shadows in it).
    struct XaNode {
        uint64_t folios = 0, shadows = 0;
        int8_t nid = -1;
        bool on_list = false;
    };
    // The nodes of each swap cluster's 512 slots, allocated at its first store: a swap device
    // of 1 TiB has 4 M nodes, a run touches the few clusters it uses.
    static constexpr size_t kXaPerChunk = mm::SWAPFILE_CLUSTER / mm::XA_CHUNK_SIZE;
    using XaChunk = std::array<XaNode, kXaPerChunk>;
    std::vector<std::unique_ptr<XaChunk>> xa_nodes_;
    size_t xa_nr_nodes_ = 0;   // nodes the device's slots span
    XaNode& xa_node(mm::swp_offset_t off);
    // xas_store of `nr` slots from `off` (folio, shadow or NULL), then workingset_update_node:
    // a node that changes list membership takes its node's shadow_nodes lock (booked now, or,
    // from a slot free, counted in pending_shadow_ for price_slot_frees).
    enum class XaStore { Folio, Shadow, Null };
    void xa_store(Ctx* c, mm::swp_offset_t off, unsigned nr, XaStore what, int cpu);
    std::vector<unsigned> pending_shadow_;   // shadow_nodes list_lru ops per node, from slot frees
    // clear_shadow_from_swap_cache of the slots freed since the last price_slot_frees, per
    // 64 MiB space: its xa_lock is taken once per freed range.
    struct PendingClear {
        uint32_t space;
        unsigned ranges, slots;
        mm::swp_offset_t last;
    };
    std::vector<PendingClear> pending_clear_;

    KConfig cfg_;
    std::vector<Task> tasks_;
    bool tables_pinned_ = false;   // reserve() was called: tasks_ and mms may not grow past it
    void check_table_room(size_t size, size_t capacity, const char* what) const;
    std::vector<int> nr_running_;     // per logical CPU
    std::vector<char> allowed_;       // per logical CPU
    std::vector<int> cpu_owner_;      // per logical CPU: the task running on it, or -1
    std::vector<std::deque<int>> cpu_waiters_;
    int find_idle_core(int socket) const;
    std::vector<std::pair<uint32_t, uint32_t>> vma_ref_;   // global vma id -> (mm, index)
    // struct address_space of each file: its page-cache VMA (global id), the shadow entries of
    // evicted pages (workingset_eviction: the lruvec's nonresident age at eviction + 1, 0 none;
    // bit 31: PG_workingset), and i_mmap: the VMAs mapping it (global ids).
    struct FileMapping {
        uint32_t mm = 0, vma = 0;
        std::vector<uint32_t> shadow;
        std::vector<uint32_t> i_mmap;
    };
    std::vector<FileMapping> files_;
    // Per node: lruvec->anon_cost / file_cost (lru_note_cost) and nonresident_age.
    struct LruCost {
        double anon = 0, file = 0;
        uint64_t nonresident_age = 0;
        uint64_t activate_file = 0, activate_file_snapshot = 0;   // WORKINGSET_ACTIVATE_FILE, lruvec->refaults
    };
    void snapshot_refaults()
    {
        for (LruCost& lc : lru_cost_)
            lc.activate_file_snapshot = lc.activate_file;
    }
    std::vector<LruCost> lru_cost_;
    // anon_vma (the id of its first VMA) -> the VMAs that share it; only for forked ones.
    std::unordered_map<uint32_t, std::vector<uint32_t>> anon_vma_;
    int free_cpu_ = 0;                  // CPU whose obj stock takes zswap uncharges
    unsigned pending_invalidate_ = 0;   // zswap entries freed by the last slot free
    mutable std::array<hw::LockStats, 9> agg_{};
    std::vector<hw::Lock> lru_lock_, zone_lock_, list_lru_lock_, zs_class_lock_;
    // per_cpu_pages of each CPU for each node's zone, in units (sim.page_unit): pcp[cpu x nodes + nid].
    struct Pcp {
        uint32_t count = 0, high = 0, free_count = 0;
    };
    struct PcpLimits {
        uint32_t batch = 1, high_min = 4, high_max = 4;
    };
    std::vector<Pcp> pcp_;
    std::vector<PcpLimits> pcp_limits_;   // per node: zone_batchsize, zone_highsize
    void setup_pcp();
    std::vector<hw::Lock> shadow_lru_lock_;   // shadow_nodes list_lru, root memcg: one per node
    hw::Lock si_lock_, page_counter_;
    // Locks made on first use, indexed by address space (64 MiB of slots) or cluster.
    std::vector<std::unique_ptr<hw::Lock>> swap_cache_locks_, zswap_tree_locks_, cluster_locks_;
    std::priority_queue<WbDone, std::vector<WbDone>, std::greater<WbDone>> wb_done_;
    uint64_t zswap_max_pages_ = 0;
    double pruned_at_ = 0, locks_pruned_at_ = 0;
    std::vector<hw::Lock*> busy_locks_;   // locks with bookings, pruned every 10 ms
    bool zswap_full_ = false;
    std::vector<hw::Lock> zram_class_lock_;
    unsigned pending_zram_free_ = 0;    // zram slots freed by the last slot free
    std::vector<int> zram_freed_classes_;   // ... and the classes of the objects that emptied
    uint64_t folio_pages_ = 0, ram_peak_ = 0, large_allocs_ = 0;
    uint64_t isolated_pages_ = 0;   // NR_ISOLATED_ANON: off the LRU lists, held by a reclaimer
    uint64_t isolated_file_ = 0;    // NR_ISOLATED_FILE: the file folios among them
    // folio_isolate_lru / folio_putback_lru's PG_isolated, with isolated_pages_.
    void set_isolated(mm::folio_t f);
    void clear_isolated(mm::folio_t f);
};

template <class Wait>
void Ctx::block(Wait&& wait, const char* fn)
{
    flush(fn);
    k.sched_sleep(task);
    wait();
    k.sched_wakeup(task);
    base_ = clk_.now();
}

}  // namespace swapsim::kernel
