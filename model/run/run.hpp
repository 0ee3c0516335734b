// Assemble one simulation from a validated scenario and run it: the platform (SimGrid), the
// kernel with its devices, and the workload's tasks. Produces the result document.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scenario/registry.hpp"

namespace swapsim::run {

struct RunOptions {
    std::vector<std::string> simgrid_args;   // --cfg=... / --log=... passed through
    bool verbose = false;
    bool check_invariants = true;
    bool check_yields = false;   // also at every yield point (or SWAPSIM_CHECK_YIELDS=1)
    uint64_t* yield_checks = nullptr;   // if set: receives how many yield points were checked
    bool profile = false;   // result.json gets sys_profile (stime by model function)
    bool progress = false;  // simulated time against sim.time_limit on stderr (a terminal)
    std::string trace;      // CSV time series (run/trace.hpp) every trace_step of simulated time
    double trace_step = 0.1;
    // Past the budget (sim.wall_limit, sim.rss_limit) the run calls on_budget (to remove what
    // the caller made: temporary files, a child), prints one line naming `source` and exits 1.
    std::string source;     // the scenario file, for that line
    std::function<void()> on_budget;
};

// A broken invariant at the end of a run: a bug in the model, never a result (exit status 3).
struct InternalError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Runs the scenario; returns result.json's content. `scenario_text` is hashed for provenance.
// Throws InternalError if an invariant is broken, std::runtime_error if the simulation fails
// (deadlock, OOM, sim.time_limit).
nlohmann::json run_scenario(const scenario::Config& cfg, const std::string& scenario_text,
                            const RunOptions& opt);

}  // namespace swapsim::run
