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
