// The yield-point check (Kernel::check_yields) on a whole run: every flush of every task of
// tests/data/medium.json (16 tasks reclaiming into zswap, exiting together) finds the memcg and
// page counts consistent.
#include <catch2/catch.hpp>

#include "run/run.hpp"
#include "scenario/registry.hpp"

TEST_CASE("yield points: medium.json keeps its invariants at every yield point", "[yield]")
{
    swapsim::scenario::Config cfg = swapsim::scenario::load_scenario("tests/data/medium.json");
    swapsim::run::RunOptions ro;
    ro.check_yields = true;
    uint64_t checked = 0;
    ro.yield_checks = &checked;
    nlohmann::json r = swapsim::run::run_scenario(cfg, "", ro);   // throws at a broken yield point
    CHECK(r["metrics"]["zswpout"].get<double>() > 0);
    CHECK(r["metrics"]["memcg_high"].get<double>() > 0);
    // Every task yields many times: faults and reclaim passes, throttling, exit.
    CHECK(checked > 10000);
}

TEST_CASE("yield points: a swap-in's folio is not reclaimed while the task sleeps on its disk read", "[yield]")
{
    // 31 x 16M in a 96M memory.max swapping to a rotational disk: tasks sleep on their swap-in
    // reads while others reclaim the LRU the new folio is already on. Reclaim must leave it
    // (folio_trylock fails); freeing it would leave the faulting task mapping a free folio,
    // which the end-of-run check finds (memory.stat file < 0) or which never ends. Before the
    // fix, 6 of these 16 seeds did one or the other.
    swapsim::scenario::LoadOptions opt;
    opt.sets = {"workload.usemem.size=16M", "kernel.memcg.max=96M"};
    unsigned reads = 0;
    for (int seed = 1; seed <= 16; seed++) {
        opt.sets.resize(2);
        opt.sets.push_back("seed=" + std::to_string(seed));
        swapsim::scenario::Config cfg =
            swapsim::scenario::load_scenario(SWAPSIM_SOURCE_DIR "/scenarios/swap-table-p1-v4/hdd-usemem/after.json", opt);
        INFO("seed " << seed);
        nlohmann::json r = swapsim::run::run_scenario(cfg, "", {});   // throws at a broken invariant
        reads += r["metrics"]["pswpin"].get<unsigned>() > 0;
    }
    CHECK(reads == 16);
}
