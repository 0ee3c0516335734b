// The process pool: scenarios run as `swapsim run` child processes, `jobs` at a time, and the
// results of several seeds of one scenario merged into one. Used by the fit and the
// cross-validation (calibrate/fit.hpp, calibrate/crossval.hpp) and by compare and sweep; the
// job lists of `--job-list` (cli/jobs.hpp) plan their simulations with the same functions.
#pragma once

#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace swapsim::calibrate {

// A simulation process failed: its scenario and first error line, and its exit status
// (2: bad input).
struct RunFailure : std::runtime_error {
    int status;
    RunFailure(const std::string& what, int st) : std::runtime_error(what), status(st) {}
};
// The exit status for an error from run_scenarios: the run's for a RunFailure, else 1.
inline int exit_status(const std::exception& e)
{
    auto* f = dynamic_cast<const RunFailure*>(&e);
    return f ? f->status : 1;
}
// Scenario files that set the same machine, kernel and workload are one simulation: the key
// is the file without its name, description and sources (the path itself if it does not parse).
std::string content_key(const std::string& path);
// The simulations a list of scenarios needs: the first file of each distinct content, in the
// order of the list, the index into `files` of every scenario, and how many seeds each content
// runs: `runs`, or fewer where `max_runs` caps one of its scenarios (a target's "runs").
struct Simulations {
    std::vector<std::string> files;
    std::map<std::string, size_t> group_of;
    std::vector<int> runs;
};
using RunCaps = std::map<std::string, int>;   // scenario -> at most this many seeds
Simulations distinct_simulations(const std::vector<std::string>& scenarios, int runs = 1,
                                 const RunCaps& max_runs = {});
// The arguments of one simulation: `run SCENARIO --out OUT_DIR run_args...`, and
// `--set seed=SEED` when a scenario runs more than once (runs > 1).
std::vector<std::string> run_command(const std::string& scenario, const std::string& out_dir,
                                     const std::vector<std::string>& run_args, int runs, int seed);
// `swapsim ARGS...` (this binary) in a child process: stdin and stdout /dev/null, stderr to
// err_path. Returns its pid; throws if it cannot start.
int spawn_run(const std::vector<std::string>& args, const std::string& err_path);
using Progress = std::function<void(size_t done, size_t total)>;
// Run each scenario as `swapsim run SCENARIO --out DIR run_args...` in a child process, `jobs`
// at a time. Scenario files that differ only in name, description and sources run once.
// With runs > 1, each runs with seeds 1..runs (fewer where max_runs caps it) and the results
// are merged (merge_runs). Returns result.json by scenario; throws RunFailure naming the
// scenario that failed.
std::map<std::string, nlohmann::json> run_scenarios(const std::vector<std::string>& scenarios,
                                                    const std::vector<std::string>& run_args, int jobs,
                                                    const Progress& progress = {}, int runs = 1,
                                                    const RunCaps& max_runs = {});
// Several runs of one scenario (different seeds), as the seeds average 3 runs: every metric is
// the mean, "runs" holds the seeds and each metric's min and max, and the per-process
// throughput distribution is pooled over the runs.
nlohmann::json merge_runs(const std::vector<nlohmann::json>& runs);
// A progress bar on stderr when it is a terminal: done/total and an ETA.
Progress stderr_progress(const std::string& what);

}  // namespace swapsim::calibrate
