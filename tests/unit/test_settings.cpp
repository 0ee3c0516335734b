// The registry rows' binding to Settings: every row reaches a field (or says why not), every
// field of a Settings struct has a row or a derivation, and the fill converts by unit.
#include <catch2/catch.hpp>

#include "scenario/registry.hpp"
#include "scenario/settings.hpp"

using namespace swapsim;
using namespace swapsim::scenario;

namespace {

std::string joined(const std::vector<std::string>& v)
{
    std::string s;
    for (const auto& x : v)
        s += x + "\n";
    return s;
}

// A copy of the program's registry with one row changed by `edit`, or left out.
Registry edited(const std::string& name, void (*edit)(ParamDef&))
{
    Registry r;
    for (ParamDef d : registry().all()) {
        if (d.name == name) {
            if (!edit)
                continue;
            edit(d);
        }
        r.add(std::move(d));
    }
    return r;
}

}  // namespace

TEST_CASE("settings: every registry row fills a field or says why not, and every field has a row", "[settings]")
{
    INFO(joined(binding_problems(registry())));
    CHECK(binding_problems(registry()).empty());
}

TEST_CASE("settings: a row that fills nothing, a field with no row, and two rows on one field are caught", "[settings]")
{
    auto unbound = binding_problems(edited("kernel.swappiness", [](ParamDef& d) { d.fill = {}; }));
    REQUIRE(unbound.size() == 2);   // the row, and KConfig's field it no longer fills
    CHECK(unbound[0].find("kernel.swappiness: fills no field") == 0);
    CHECK(unbound[1].find("kernel::KConfig: 48 of its 49 fields") == 0);   // 4 for sim.page_unit

    auto gone = binding_problems(edited("cost.fault.base", nullptr));
    REQUIRE(gone.size() == 1);
    CHECK(gone[0] == "kernel::Costs: 69 of its 70 fields are filled by a row or derived (bytes not covered: 0-8)");

    auto twice = binding_problems(edited("cost.fault.per_pte", [](ParamDef& d) {
        Row{d}.to(section::costs, &kernel::Costs::fault);
    }));
    REQUIRE(twice.size() == 2);
    CHECK(twice[0] == "cost.fault.per_pte: fills the field cost.fault.base fills");
}

TEST_CASE("settings: the fill converts cycles by the clock, ns to seconds, bytes to pages, options to enums", "[settings]")
{
    LoadOptions opt;
    opt.builtin_params = false;
    opt.sets = {"machine.cpu_freq=2GHz", "cost.fault.base=3000", "cost.lock.handoff_ns=50", "kernel.memcg.high=1G",
                "kernel.swap_alloc=cluster_lock", "kernel.iaa.sync_mode=async_irq", "kernel.mthp.enabled=16K,2M",
                "kernel.zswap.compressor=deflate-iaa", "cost.iaa.fixed.comp_base_ns=1000",
                "cost.iaa.fixed.comp_ns_per_kb=500", "workload.cpus=0-3", "workload.usemem.size=10000"};
    Settings s = fill_settings(load_defaults(opt));
    CHECK(s.kernel.hz == 2e9);
    CHECK(s.kernel.c.fault == 3000 / 2e9);
    CHECK(s.kernel.c.lock_handoff == 50 * 1e-9);
    CHECK(s.kernel.memcg_high == (1u << 30) / 4096);
    CHECK(s.kernel.memcg_max == UINT64_MAX);
    CHECK(s.kernel.swap_alloc == kernel::SwapAllocLock::ClusterLock);
    CHECK(s.kernel.iaa.mode == kernel::IaaMode::AsyncIrq);
    CHECK(s.kernel.mthp_orders == std::vector<unsigned>{9, 2});
    CHECK(s.kernel.comp.name == "deflate-iaa");
    CHECK(s.kernel.comp.hw);
    CHECK(s.kernel.comp.comp_s == (1000 + 4 * 500) * 1e-9);
    CHECK(s.kernel.comp.comp_len == 1378);
    CHECK(s.cpus == std::vector<int>{0, 1, 2, 3});
    CHECK(s.usemem.size == 8192);
    CHECK(s.platform.sockets == s.kernel.topo.sockets);
    CHECK(s.platform.hz == 2e9);
}

TEST_CASE("settings: machine.codec_speed divides the CPU codecs' costs, zswap's and zram's, and leaves IAA's", "[settings]")
{
    auto fill = [](std::vector<std::string> sets) {
        LoadOptions opt;
        opt.sets = std::move(sets);
        return fill_settings(load_defaults(opt));
    };
    const std::vector<std::string> zram = {"swap.device=zram", "kernel.zswap.enabled=false", "workload.type=swapinout",
                                           "swap.zram.comp_algorithm=lz4"};
    auto with = [&](std::vector<std::string> extra, const char* speed) {
        extra.push_back(std::string("machine.codec_speed=") + speed);
        return fill(extra);
    };
    Settings a = with({"kernel.zswap.compressor=zstd"}, "1"), b = with({"kernel.zswap.compressor=zstd"}, "2");
    CHECK(b.kernel.comp.comp_s == Approx(a.kernel.comp.comp_s / 2));
    CHECK(b.kernel.comp.decomp_s == Approx(a.kernel.comp.decomp_s / 2));
    CHECK(b.kernel.comp.comp_len == a.kernel.comp.comp_len);
    Settings za = with(zram, "1"), zb = with(zram, "2");
    for (size_t o = 0; o < za.kernel.zram.data.kind.size(); o++) {
        CHECK(zb.kernel.zram.data.kind[o].comp_s == Approx(za.kernel.zram.data.kind[o].comp_s / 2));
        CHECK(zb.kernel.zram.data.kind[o].ratio == za.kernel.zram.data.kind[o].ratio);
    }
    Settings ia = with({"kernel.zswap.compressor=deflate-iaa"}, "1"), ib = with({"kernel.zswap.compressor=deflate-iaa"}, "2");
    CHECK(ib.kernel.comp.comp_s == ia.kernel.comp.comp_s);   // the accelerator does not get faster
}
