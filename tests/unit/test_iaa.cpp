// Intel IAA: engine queueing, batches, verify, sync polling, WQ-full refusals, offline devices.
#include <catch2/catch.hpp>

#include "hw/iaa.hpp"
#include "kernel/kernel.hpp"

using namespace swapsim;

namespace {

hw::Topology one_socket(int cores) { return hw::Topology{1, cores, 1}; }

class TestClock final : public kernel::Clock {
public:
    double now() const override { return t; }
    void cpu(int, double s) override { t += s; }
    void mem(int, double bytes, double rate) override { t += bytes / rate; }
    void sleep_until(double when) override
    {
        if (when > t) {
            slept += when - t;
            t = when;
        }
    }
    double t = 0, slept = 0;
};

}  // namespace

TEST_CASE("iaa: jobs queue FIFO on a device's engines, with exact completion times", "[iaa][timed]")
{
    hw::IaaParams p;
    p.devices_per_socket = 1;
    p.comp_engines = 2;
    hw::Iaa iaa(one_socket(4), p);
    // Three 1 us jobs at t=0 and one at t=0.5 us on two engines.
    auto a = iaa.compress(0, 0, 1e-6), b = iaa.compress(0, 1, 1e-6), c = iaa.compress(0, 2, 1e-6);
    auto d = iaa.compress(0.5e-6, 3, 1e-6);
    CHECK(a.end == Approx(1e-6));
    CHECK(b.end == Approx(1e-6));
    CHECK(c.start == Approx(1e-6));   // waits for the first engine to free
    CHECK(c.end == Approx(2e-6));
    CHECK(d.start == Approx(1e-6));
    CHECK(d.end == Approx(2e-6));
    CHECK(iaa.stats(0).comp_jobs == 4);
    CHECK(iaa.queue_wait_s() == Approx(1e-6 + 0.5e-6));
}

TEST_CASE("iaa: a batch of 8 pages on 2 engines completes after 4 job times", "[iaa][timed]")
{
    hw::IaaParams p;
    p.devices_per_socket = 1;
    hw::Iaa iaa(one_socket(1), p);
    double last = 0;
    for (int i = 0; i < 8; i++)
        last = std::max(last, iaa.compress(0, 0, 2e-6, uint64_t(i)).end);
    CHECK(last == Approx(8e-6));
    // The same 8 pages spread over the 4 devices of a package: 8 engines, one job time.
    p.devices_per_socket = 4;
    p.per_package = true;
    hw::Iaa pkg(one_socket(1), p);
    last = 0;
    for (int i = 0; i < 8; i++)
        last = std::max(last, pkg.compress(0, 0, 2e-6, uint64_t(i)).end);
    CHECK(last == Approx(2e-6));
}

TEST_CASE("iaa: a full work queue refuses submissions until a descriptor completes", "[iaa][timed]")
{
    hw::IaaParams p;
    p.devices_per_socket = 1;
    p.comp_engines = 1;
    p.wq_size = 2;
    hw::Iaa iaa(one_socket(1), p);
    auto a = iaa.compress(0, 0, 1e-6), b = iaa.compress(0, 0, 1e-6), c = iaa.compress(0, 0, 1e-6);
    CHECK(a.refused == 0);
    CHECK(b.refused == 0);
    CHECK(c.refused == 1);            // two descriptors queued: the third waits for one
    CHECK(c.submit == Approx(1e-6));  // accepted when the first completes
    CHECK(c.end == Approx(3e-6));
    CHECK(iaa.stats(0).refused == 1);
}

TEST_CASE("iaa: CPUs of an offline device are remapped over the node's other devices", "[iaa]")
{
    hw::IaaParams p;
    p.devices_per_socket = 2;
    hw::Topology t = one_socket(4);
    hw::Iaa all(t, p);
    CHECK(all.device_for(0, true, 0) == 0);
    CHECK(all.device_for(3, true, 0) == 1);   // cpus_per_iaa = 4 / 2
    p.offline = {0};
    hw::Iaa one(t, p);
    for (int cpu = 0; cpu < 4; cpu++)
        CHECK(one.device_for(cpu, true, 0) == 1);
    CHECK_FALSE(one.online(0));
    p.offline = {0, 1};
    hw::Iaa none(t, p);
    CHECK_FALSE(none.available());
}

namespace {

// One task writing 16K folios past memory.high, so reclaim stores some in zswap with IAA.
// All other costs are zero: the time measured is IAA's alone.
struct Store {
    double sys = 0, t = 0, slept = 0;
    uint64_t decomp_jobs = 0, pages = 0, rejected = 0;
};

Store store_one_folio(kernel::IaaMode mode, bool verify, unsigned batch, unsigned comp_len = 1024,
                      bool sibling_runs = false)
{
    kernel::KConfig k;
    k.topo = {1, 1, sibling_runs ? 2 : 1};
    k.dram_pages = 1 << 20;
    k.dev = kernel::SwapDev::Pmem;
    k.swap_slots = 1 << 14;
    k.memcg_high = 16;
    k.mthp_orders = {2};
    k.comp = {"deflate-iaa", comp_len, 2e-6, 1e-6, true};
    k.c.zs_copy_bw = 1e30;   // no copy cost: only IAA time
    k.c.pmem_bw = 1e30;
    k.iaa.dev.devices_per_socket = 1;
    k.iaa.mode = mode;
    k.iaa.verify = verify;
    k.iaa.irq_wake = 3e-6;
    k.zswap_batch = batch;
    kernel::Kernel kern(k);
    uint32_t mm = kern.mm_create(0, 0);
    int pid = kern.task_create(0, mm);
    if (sibling_runs) {   // a task on CPU 1, the other thread of CPU 0's core
        kern.sched_wakeup(kern.task(pid));
        kern.sched_wakeup(kern.task(kern.task_create(1, kern.mm_create(1, 0))));
    }
    uint32_t vma = kern.vma_create(mm, 64);
    TestClock clk;
    {
        kernel::Ctx c(kern, kern.task(pid), clk);
        for (uint32_t p = 0; p < 20; p += 4)
            kern.handle_mm_fault(c, mm, vma, p, true);
        c.flush();
        double before = kern.task(pid).stime;
        double t0 = clk.t;
        kern.resume_user_mode(c);
        c.flush();
        Store s;
        s.sys = kern.task(pid).stime - before;
        s.t = clk.t - t0;
        s.slept = clk.slept - kern.task(pid).throttled_s;   // IAA waits only
        s.decomp_jobs = kern.iaa->stats(0).decomp_jobs;
        s.pages = kern.vm[mm::ZSWPOUT];
        s.rejected = kern.zswap.reject_compress_fail;
        CHECK(kern.check_invariants() == "");
        return s;
    }
}

}  // namespace

TEST_CASE("iaa in zswap: sync mode polls (sys time), verify adds a decompress per page", "[iaa][kernel][timed]")
{
    // Page by page in sync mode: each page's 2 us job is polled for.
    Store plain = store_one_folio(kernel::IaaMode::Sync, false, 1);
    REQUIRE(plain.pages >= 4);
    CHECK(plain.pages % 4 == 0);
    CHECK(plain.sys == Approx(double(plain.pages) * 2e-6));
    // Polling is busy-waiting (cpu_relax). On a core of its own it runs with the work around it;
    // while the SMT sibling runs, the clock passes it as time, not as core work the two share.
    CHECK(plain.slept == Approx(0).margin(1e-12));
    Store shared = store_one_folio(kernel::IaaMode::Sync, false, 1, 1024, true);
    CHECK(shared.pages == plain.pages);
    CHECK(shared.sys == Approx(plain.sys));
    CHECK(shared.slept == Approx(shared.sys));
    CHECK(plain.decomp_jobs == 0);
    // verify_compress: each page is also decompressed (1 us) before the next is submitted.
    Store verified = store_one_folio(kernel::IaaMode::Sync, true, 1);
    CHECK(verified.pages == plain.pages);
    CHECK(verified.sys == Approx(double(verified.pages) * (2e-6 + 1e-6)));
    CHECK(verified.decomp_jobs == verified.pages);
    // Batching the 4 pages of a folio in async (polled) mode: 2 engines, 2 rounds of 2 us.
    Store batched = store_one_folio(kernel::IaaMode::Async, false, 8);
    CHECK(batched.pages == plain.pages);
    CHECK(batched.sys == Approx(double(batched.pages / 4) * 2 * 2e-6));
}

TEST_CASE("iaa in zswap: async_irq sleeps instead of polling", "[iaa][kernel][timed]")
{
    Store s = store_one_folio(kernel::IaaMode::AsyncIrq, false, 1);
    REQUIRE(s.pages >= 4);
    // Each page: 2 us on the engine + 3 us until the task runs again, none of it sys time.
    CHECK(s.slept == Approx(double(s.pages) * (2e-6 + 3e-6)));
    CHECK(s.sys == Approx(0).margin(1e-12));
}

TEST_CASE("iaa in zswap: a compress that overflows the output buffer rejects the folio", "[iaa][kernel]")
{
    Store s = store_one_folio(kernel::IaaMode::Sync, false, 1, 4096);
    CHECK(s.pages == 0);
    CHECK(s.rejected > 0);
    // The first page's job ran and overflowed: its time was polled, the rest never submitted;
    // the folio then went to the swap device (pmem here).
    CHECK(s.pages == 0);
    CHECK(s.sys == Approx(double(s.rejected) * 2e-6));
}
