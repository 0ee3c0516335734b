// Assemble one simulation from a validated scenario and run it: the platform (SimGrid), the
// kernel with its devices, and the workload's tasks. Produces the result document.
#pragma once

#include <cstdint>
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
};

// Runs the scenario; returns result.json's content. `scenario_text` is hashed for provenance.
// Throws std::runtime_error if the simulation fails (invariant broken, deadlock, OOM).
nlohmann::json run_scenario(const scenario::Config& cfg, const std::string& scenario_text,
                            const RunOptions& opt);

}  // namespace swapsim::run
