// What `swapsim compare` (and `swapsim collect` of a compare's folder) makes of its results:
// each selected table in its seed's layout (printed, and written to RESULTS/<table>.md); with
// --all every cell (RESULTS/cells.json) and seed 000's summary (RESULTS/summary.{json,md});
// with --json the cells as JSON instead of the tables; and the summary lines under them.
// The settings are the index's (cli/jobs.hpp): "runs" and "compare": {targets, published,
// tables, all, json, write, results_dir, run_args}.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compare/tables.hpp"

namespace swapsim::compare {

// The targets file and the published tables; throws naming the file that is bad.
struct Inputs {
    std::vector<Target> targets;
    std::map<std::string, Table> tables;
};
Inputs load_inputs(const std::string& targets_path, const std::string& published);

// Writes the files the index asks for and returns what compare prints on stdout.
std::string report(const nlohmann::json& index, const Inputs& in, const std::map<std::string, nlohmann::json>& results);

}  // namespace swapsim::compare
