// Job lists: the simulations of a sweep or a compare as one `swapsim run ... --out DIR` per line,
// for GNU parallel, a Slurm job array or any engine that runs shell lines; and the index that
// lets `swapsim collect DIR` rebuild the command's table from the result files.
//
// DIR/index.json: {"swapsim": "sweep"|"compare", "runs": N, "results": {KEY: [RESULT_DIR...]},
// "sweep"|"compare": what the command needs to print its table}. RESULT_DIRs are relative to
// DIR; KEY is a scenario path (a sweep's points live in DIR/points/).
#pragma once

#include "calibrate/pool.hpp"
#include "report/sweep_table.hpp"

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace swapsim::cli {

// Writes FILE (one shell line per simulation: each distinct scenario content once, seeds
// 1..runs when runs > 1) and returns the "results" map for the index. Paths in FILE are
// absolute, so the lines run from any directory of a machine that shares the file system.
nlohmann::json write_job_list(const std::string& file, const std::string& dir, const std::vector<std::string>& scenarios,
                              const std::vector<std::string>& run_args, int runs,
                              const calibrate::RunCaps& max_runs = {});
// DIR/index.json through a temporary file.
void write_index(const std::string& dir, const nlohmann::json& index);
// The index of DIR; throws scenario::InputError naming DIR/index.json.
nlohmann::json read_index(const std::string& dir);
// result.json of every KEY (the mean of its runs, calibrate::merge_runs). Throws InputError
// naming the first result file missing or unreadable.
std::map<std::string, nlohmann::json> collect_results(const std::string& dir, const nlohmann::json& index);

}  // namespace swapsim::cli

namespace swapsim::cli {

using report::sweep_table;   // report/sweep_table.hpp
using report::TableFormat;
// A compare's tables and summary from its index and results (compare and collect): loads the
// targets and published tables the index names (exit 2 on a bad one) and prints compare::report.
int compare_report(const nlohmann::json& index, const std::map<std::string, nlohmann::json>& results);

}  // namespace swapsim::cli
