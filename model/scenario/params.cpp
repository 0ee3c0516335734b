// The registry: each component's rows (its folder's params.cpp), in a fixed order, plus the
// scenario's metadata and the run's time limit. Defaults describe the machine and kernel of
// seed 000 (Sapphire Rapids 2S x 56C, 503 GiB, 823G SSD swap, mm-unstable 2024-09-23) unless a
// source says otherwise. Costs are marked fitted: the calibrator may tune them, scenarios that
// reproduce a table may not.
#include "scenario/param_table.hpp"

namespace swapsim::scenario {
namespace {

// The costs `swapsim calibrate` frees by default: those no data sheet gives whose 1.65x step
// moved a Case 1 throughput or sys time by 5% or more (BOBYQA's first 2n+1 points over 11
// candidates), plus the in-kernel zstd cost, whose default has a guessed kernel factor.
// cost.cpu.smt_yield has a data-sheet range and is held inside it (its source says why).
// Listed in the order calibrate frees them.
const char* const kFitDefault[] = {
    "cost.reclaim.entry", "cost.rmap.walk", "cost.zswap.store_page", "cost.zsmalloc.class_hold",
    "cost.lock.handoff_ns", "cost.compress.zstd.usemem_comp", "cost.iaa.fixed.comp_base_ns",
};

void add_meta_params(Table& t)
{
    t.meta("name", Kind::String, "", "short name of the scenario, printed as the column header").no_field("report/result.cpp: the result's \"scenario\" and the printed column header");
    t.meta("description", Kind::String, "", "what the scenario reproduces or asks").no_field("documentation only");
    t.integer(Category::Meta, "seed", "", 1, 0, 4294967295.0, "random seed; same scenario and seed give a byte-identical result.json", "swapsim").to(section::usemem, &workload::UsememConfig::seed);
}

Registry build()
{
    Table t;
    add_meta_params(t);
    add_machine_params(t);
    add_swap_device_params(t);
    add_kernel_params(t);
    add_workload_params(t);
    add_platform_costs(t);
    add_kernel_costs(t);
    add_workload_costs(t);
    add_compressor_costs(t);
    add_workload_sim_params(t);
    add_kernel_sim_params(t);
    t.time(Category::Sim, "sim.time_limit", 3600, 1, 1e7, "abort the run if simulated time passes this", "swapsim").to(section::run, &Settings::time_limit);
    t.time(Category::Sim, "sim.wall_limit", 3600, 1, 1e7, "the run's budget of wall-clock time: past it the run stops with one line and exit status 1", "swapsim: about 700x a default run (4-5 s on one idle core)").to(section::run, &Settings::wall_limit);
    t.size(Category::Sim, "sim.rss_limit", 8.0 * GiB, 64 * MiB, 1e15, "the run's budget of memory (resident set): past it the run stops with one line and exit status 1", "swapsim: 35x a default run (229 MiB); the 4K-only default peaks at 601 MiB").to(section::run, &Settings::rss_limit);

    Registry r;
    for (ParamDef& d : t.rows)
        r.add(std::move(d));
    r.set_fit_defaults({std::begin(kFitDefault), std::end(kFitDefault)});
    return r;
}

}  // namespace

const Registry& registry()
{
    static const Registry r = build();
    return r;
}

}  // namespace swapsim::scenario
