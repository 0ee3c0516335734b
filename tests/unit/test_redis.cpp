// The Redis workload (workload/redis.*): its memory layout against the measured server, RPS
// under memory pressure, and the BGSAVE fork's shared pages (swap count 2, COW broken by the
// parent's writes only).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "kconfig_fixture.hpp"
#include "kernel/kernel.hpp"
#include "scenario/compressors.hpp"
#include "run_cmd.hpp"
#include "test_clock.hpp"
#include "workload/redis.hpp"

using nlohmann::json;
namespace fs = std::filesystem;
using namespace swapsim;

namespace {

json run_redis(const std::vector<std::string>& sets)
{
    return swapsim_test::run_sets("tests/data/redis-small.json", sets);
}

}  // namespace

TEST_CASE("redis: the Redis 7 / jemalloc layout's bytes per key are within 1% of the measured server", "[redis]")
{
    std::ifstream f("calibration/workloads/redis-get-1024.json");
    REQUIRE(f);
    json m = json::parse(f);
    const uint64_t d = m.at("value_bytes").get<uint64_t>();
    workload::RedisLayout q16 = workload::redis_layout(d, 16), q8 = workload::redis_layout(d, 8);
    CHECK(q16.dict_entry == 32);
    CHECK(q16.key_sds == 32);   // "key:" + 12 digits in an sdshdr5: 18 B
    CHECK(q16.robj == 16);
    CHECK(q16.value == 1280);   // sdshdr16 + 1024 + NUL = 1030 B
    CHECK(q8.dict_entry == 24);
    for (const json& run : m.at("runs")) {
        const uint64_t keys = run.at("keys").get<uint64_t>();
        const double measured = run.at("used_memory_per_key_bytes").get<double>();
        const double model = double(q16.used_memory(keys)) / double(keys);
        INFO(keys << " keys: model " << model << " B per key, measured " << measured);
        CHECK(std::abs(model / measured - 1) < 0.01);
        // Redis's bundled jemalloc (8 B quantum) would not be: the server links Debian's.
        CHECK(std::abs(double(q8.used_memory(keys)) / double(keys) / measured - 1) > 0.01);
    }
    // maxmemory with noeviction: the keys that fit.
    const uint64_t n = q16.keys_within(2000000, 2500ull << 20);
    CHECK(q16.used_memory(n) <= 2500ull << 20);
    CHECK(q16.used_memory(n + 1) > 2500ull << 20);
    CHECK(q16.keys_within(1000, 0) == 1000);
}

TEST_CASE("redis: RPS falls when the keyspace exceeds RAM (values fault back in from zram), the same every run",
          "[redis]")
{
    json fits = run_redis({"machine.dram=1G"});
    json tight = run_redis({});
    json again = run_redis({});
    const json& f = fits["metrics"];
    const json& t = tight["metrics"];
    CHECK(f["redis_keys"] == 60000);
    CHECK(f["keyspace_misses"] == 0);
    CHECK(f["pswpin"] == 0);
    CHECK(f["pgmajfault"] == 0);
    CHECK(t["pswpin"] > 0);
    CHECK(double(t["rps"]) < 0.9 * double(f["rps"]));
    // Unpressured, a GET costs its measured CPU time: 1 / 1.6 us.
    CHECK(double(f["rps"]) == Approx(1 / 1.6e-6).epsilon(0.05));
    CHECK(tight["metrics"].dump() == again["metrics"].dump());
}

TEST_CASE("redis: under memory pressure a BGSAVE's walk swaps the keyspace in through the swap cache and slows the "
          "server, the same every run", "[redis]")
{
    // The child and the server fault on the same shared entries at once: the second fault's
    // allocation may yield, and must then use the folio the first put in the swap cache.
    json plain = run_redis({});
    json bg = run_redis({"workload.redis.bgsave=true"});
    json again = run_redis({"workload.redis.bgsave=true"});
    const json& p = plain["metrics"];
    const json& b = bg["metrics"];
    CHECK(b["bgsave_keys"] > 0);
    CHECK(b["pswpin"] > p["pswpin"]);
    // Swap-ins through the swap cache: a fault may find its folio there (no major fault).
    CHECK(b["pswpin"] > b["pgmajfault"]);
    CHECK(double(b["rps"]) < double(p["rps"]));
    CHECK(bg["metrics"].dump() == again["metrics"].dump());
}

TEST_CASE("redis: with BGSAVE the parent's reply-buffer writes break COW, the child's walk and the GETs do not",
          "[redis]")
{
    json plain = run_redis({"machine.dram=1G"});
    json bg = run_redis({"machine.dram=1G", "workload.redis.bgsave=true"});
    CHECK(plain["metrics"]["cow_copies"] == 0);
    // One copy per client's reply page (12 clients): no dataset page is copied.
    CHECK(bg["metrics"]["cow_copies"] == 12);
    CHECK(bg["metrics"]["bgsave_keys"] > 0);
    CHECK(double(bg["metrics"]["latest_fork_s"]) > 0);
}

TEST_CASE("redis: a page swapped out before the BGSAVE fork has swap count 2, and is swapped in once", "[redis]")
{
    using namespace swapsim::kernel;
    KConfig kc = swapsim_test::small_config();
    kc.page_cluster = 0;
    kc.vma_ra = false;
    kc.zswap = false;
    Kernel k(kc);
    TestClock clk;
    workload::RedisConfig rc;
    rc.keyspace = 2000;
    rc.requests = 4096;
    rc.cpu = 0;
    rc.child_cpu = 1;
    workload::Redis r(k, rc);
    Ctx c(k, r.server().task(), clk);
    r.populate(c);
    const Vma& heap = k.mms[r.server_mm()].vmas[r.heap_vma()];
    const uint32_t pages = uint32_t(heap.pte.size());
    k.madvise_pageout(c, r.server_mm(), r.heap_vma(), 0, pages);
    c.flush();
    uint64_t swapped = 0;
    for (pte_t p : heap.pte)
        swapped += pte_swap(p);
    REQUIRE(swapped == pages);
    r.fork_child(c);
    c.flush();
    for (pte_t p : k.mms[r.server_mm()].vmas[r.heap_vma()].pte)
        CHECK(int(k.swap->count(pte_offset(p))) == 2);
    // The child's walk reads every page through the swap cache (no SWP_SYNCHRONOUS_IO bypass).
    const uint64_t in0 = k.vm[mm::PSWPIN];
    Ctx cc(k, r.child().task(), clk);
    r.walk(cc, false);
    CHECK(k.vm[mm::PSWPIN] - in0 == pages);
    for (pte_t p : k.mms[r.server_mm()].vmas[r.heap_vma()].pte) {
        REQUIRE(pte_swap(p));
        CHECK(int(k.swap->count(pte_offset(p))) == 1);
        CHECK(k.swap->cache_folio(pte_offset(p)) != mm::NO_FOLIO);
    }
    // The server's GETs meet those folios in the swap cache: no second read.
    r.serve(c);
    CHECK(k.vm[mm::PSWPIN] - in0 == pages);
    CHECK(k.cow.copies == rc.clients);   // the reply pages; the GETs write no dataset page
    CHECK(k.check_invariants() == "");
}

TEST_CASE("redis: the redis-1024 data kind is the measured server's pages: table.json holds the file's ratios and "
          "converted costs", "[redis][zram]")
{
    std::ifstream f("calibration/compressors/redis-1024.json");
    REQUIRE(f);
    json m = json::parse(f);
    REQUIRE(m.at("kind") == "redis-1024");
    const json& here = m.at("measured_here").at("redis").at("codecs");
    const struct { const char* name; unsigned order; } blocks[] = {{"4K", 0}, {"16K", 2}, {"64K", 4}, {"2M", 9}};
    for (const char* codec : {"zstd", "lz4", "lzo-rle"}) {
        const json& scale = m.at("scale_to_note_machine").at(codec);
        for (const auto& b : blocks) {
            INFO(codec << " " << b.name);
            const json& r = here.at(codec).at(b.name);
            const scenario::CodecPoint p = scenario::codec_point(codec, "redis-1024", b.order);
            CHECK(p.ratio == Approx(r.at("ratio").get<double>()).epsilon(1e-6));
            CHECK(p.comp_ns == Approx(r.at("comp_ns_per_4k").get<double>() * scale.at("comp").get<double>()).margin(1));
            CHECK(p.decomp_ns == Approx(r.at("decomp_ns_per_4k").get<double>() * scale.at("decomp").get<double>()).margin(1));
        }
        // At 4K the ratio is the mean compressed page over 4 KiB, and below the mixed kind's:
        // one 1 KiB value repeated three times a page.
        const json& p4 = here.at(codec).at("4K");
        CHECK(p4.at("ratio").get<double>() == Approx(p4.at("len_mean").get<double>() / 4096).epsilon(1e-3));
        CHECK(scenario::codec_point(codec, "redis-1024", 0).ratio < 0.75 * scenario::codec_point(codec, "mixed", 0).ratio);
        // A 16K block holds 12 copies of the value: far smaller than four 4K pages.
        CHECK(scenario::codec_point(codec, "redis-1024", 2).ratio < 0.5 * scenario::codec_point(codec, "redis-1024", 0).ratio);
    }
    // The machine scale is the note's usemem time over this machine's, whose usemem ratios are
    // the note's (the same data and libraries).
    const json& usemem = m.at("measured_here").at("usemem").at("codecs");
    for (const char* codec : {"zstd", "lz4", "lzo-rle"})
        CHECK(usemem.at(codec).at("4K").at("ratio").get<double>() ==
              Approx(scenario::codec_point(codec, "usemem", 0).ratio).epsilon(0.002));
}

TEST_CASE("redis: the server's pages as redis-1024 data take less zram memory per page and swap in faster than as "
          "mixed data", "[redis][zram]")
{
    json redis = run_redis({});
    json mixed = run_redis({"workload.redis.data=mixed"});
    CHECK(redis["effective_config"]["workload"]["redis"]["data"] == "redis-1024");
    auto ratio = [](const json& r) {
        const json& z = r["devices"]["zram"]["mm_stat"];
        return double(z["compr_data_size"]) / double(z["orig_data_size"]);
    };
    auto per_page = [](const json& r) {
        const json& z = r["devices"]["zram"]["mm_stat"];
        return double(z["mem_used_total"]) / double(z["orig_data_size"]);
    };
    // zram's compr_data_size / orig_data_size is the kind's measured 4K zstd ratio (scenario: zstd,
    // order-0 folios), up to the same-filled pages and each object's rounding up to a byte.
    CHECK(ratio(redis) == Approx(scenario::codec_point("zstd", "redis-1024", 0).ratio).epsilon(0.01));
    CHECK(ratio(mixed) == Approx(scenario::codec_point("zstd", "mixed", 0).ratio).epsilon(0.01));
    CHECK(per_page(redis) < 0.75 * per_page(mixed));
    CHECK(double(redis["metrics"]["rps"]) > double(mixed["metrics"]["rps"]));
}
