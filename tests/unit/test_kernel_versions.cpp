// kernel.version presets: what each sets, an explicit key wins, versions differ only in the
// documented changes, unknown versions are rejected, and scenarios without one are unchanged.
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>

#include "scenario/kernel_versions.hpp"
#include "scenario/registry.hpp"
#include "run_cmd.hpp"

using namespace swapsim::scenario;
namespace fs = std::filesystem;

namespace {

Config with_sets(std::vector<std::string> sets)
{
    LoadOptions opt;
    opt.sets = std::move(sets);
    return load_defaults(opt);
}

// Keys whose values differ between two configurations.
std::set<std::string> differing(const Config& a, const Config& b)
{
    std::set<std::string> out;
    auto fa = a.flat(), fb = b.flat();
    for (auto it = fa.begin(); it != fa.end(); ++it)
        if (fb[it.key()] != it.value())
            out.insert(it.key());
    return out;
}

}  // namespace

TEST_CASE("kernel.version: a preset sets its keys, with origin kernel.version", "[kernel_version]")
{
    Config c = with_sets({"kernel.version=6.12"});
    CHECK(c.s("kernel.swap_cache") == "xarray");
    CHECK(c.s("kernel.swap_alloc") == "si_lock");
    CHECK(c.b("kernel.swap_slot_cache"));
    CHECK_FALSE(c.b("kernel.zswap.large_folios"));
    CHECK(c.origin("kernel.zswap.large_folios") == "kernel.version");

    Config n = with_sets({"kernel.version=6.18"});
    CHECK(n.s("kernel.swap_cache") == "swap_table");
    CHECK(n.s("kernel.swap_alloc") == "cluster_lock");
    CHECK_FALSE(n.b("kernel.swap_slot_cache"));
    CHECK(n.b("kernel.zswap.large_folios"));
    for (const auto& ch : kernel_changes())
        CHECK(n.origin(ch.key) == "kernel.version");
}

TEST_CASE("kernel.version: a key set explicitly wins over the preset", "[kernel_version]")
{
    Config c = with_sets({"kernel.version=6.18", "kernel.swap_cache=xarray"});
    CHECK(c.s("kernel.swap_cache") == "xarray");
    CHECK(c.origin("kernel.swap_cache") == "--set");
    CHECK(c.s("kernel.swap_alloc") == "cluster_lock");

    // A scenario's own key wins too: default.json sets kernel.zswap.large_folios true.
    LoadOptions opt;
    opt.sets = {"kernel.version=6.12"};
    Config s = load_scenario(SWAPSIM_SOURCE_DIR "/scenarios/default.json", opt);
    REQUIRE(s.origin("kernel.zswap.large_folios") == "scenario");
    CHECK(s.b("kernel.zswap.large_folios"));
    CHECK(s.s("kernel.swap_alloc") == "si_lock");
}

TEST_CASE("kernel.version: neighbouring versions differ in exactly the documented keys", "[kernel_version]")
{
    const auto& vs = kernel_versions();
    for (size_t i = 1; i < vs.size(); i++) {
        std::set<std::string> want;
        for (const auto& ch : kernel_changes())
            for (const auto& v : vs)
                if (v.name == std::string(ch.since) && v.rank > vs[i - 1].rank && v.rank <= vs[i].rank)
                    want.insert(ch.key);
        want.insert("kernel.version");
        INFO(vs[i - 1].name << " -> " << vs[i].name);
        CHECK(differing(with_sets({std::string("kernel.version=") + vs[i - 1].name}),
                        with_sets({std::string("kernel.version=") + vs[i].name})) == want);
    }
    CHECK(differing(with_sets({"kernel.version=6.17"}), with_sets({"kernel.version=6.18"})) ==
          std::set<std::string>{"kernel.version", "kernel.swap_cache"});
    CHECK(differing(with_sets({"kernel.version=6.14"}), with_sets({"kernel.version=6.15"})) ==
          std::set<std::string>{"kernel.version", "kernel.swap_slot_cache"});
}

TEST_CASE("kernel.version: an unknown version is one line naming the known ones", "[kernel_version]")
{
    std::string err;
    try {
        with_sets({"kernel.version=6.99"});
    } catch (const InputError& e) {
        err = e.what();
    }
    CHECK(err.find("--set: $.kernel.version: ") == 0);
    CHECK(err.find("6.18") != std::string::npos);
    CHECK(err.find("mm-unstable-2024-09-23") != std::string::npos);
    CHECK(err.find('\n') == std::string::npos);
}

TEST_CASE("kernel.version: effective config records the version and what it implied, and none leaves it as before",
          "[kernel_version]")
{
    auto e = with_sets({"kernel.version=6.18", "kernel.swap_alloc=si_lock"}).effective();
    CHECK(e["kernel"]["version"] == "6.18");
    CHECK(e["kernel"]["version_implies"]["kernel.swap_cache"] == "swap_table");
    CHECK_FALSE(e["kernel"]["version_implies"].contains("kernel.swap_alloc"));   // set by --set

    for (const auto& f : fs::recursive_directory_iterator(SWAPSIM_SOURCE_DIR "/scenarios")) {
        if (f.path().extension() != ".json" || f.path().filename() == "swapsim.schema.json")
            continue;
        INFO(f.path());
        Config c = load_scenario(f.path().string());
        CHECK(c.s("kernel.version") == "none");
        auto k = c.effective()["kernel"];
        CHECK_FALSE(k.contains("version"));
        CHECK_FALSE(k.contains("version_implies"));
        for (const auto& ch : kernel_changes())
            CHECK(c.origin(ch.key) != "kernel.version");
    }
}

TEST_CASE("kernel.version: before v6.10 a 64K folio is split for swap-out, a 2M THP is not", "[kernel_version][run]")
{
    using swapsim_test::run_sets;
    const std::string small = SWAPSIM_SOURCE_DIR "/tests/data/small.json";
    // SSD swap without zswap, so that the split is the only difference the version makes.
    auto m69 = run_sets(small, {"kernel.version=6.9", "kernel.zswap.enabled=false"})["metrics"];
    auto m610 = run_sets(small, {"kernel.version=6.10", "kernel.zswap.enabled=false"})["metrics"];
    CHECK(m610["swpout_64kB"].get<double>() > 0);
    CHECK(m69["swpout_64kB"].get<double>() == 0);
    CHECK(m69["pswpout"].get<double>() > 0);
    CHECK(m69["split_64kB"].get<double>() > 0);
    auto t69 = run_sets(small, {"kernel.version=6.9", "kernel.zswap.enabled=false", "kernel.mthp.enabled=2M"})["metrics"];
    CHECK(t69["thp_swpout"].get<double>() > 0);
    CHECK(with_sets({"kernel.version=6.9"}).origin("kernel.mthp_swapout") == "kernel.version");
    CHECK_FALSE(with_sets({"kernel.version=6.9"}).b("kernel.mthp_swapout"));
    CHECK(with_sets({"kernel.version=mm-unstable-2025-10"}).s("kernel.swap_cache") == "swap_table");
}
