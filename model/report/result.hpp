// result.json: metrics under kernel names, per-process numbers, devices, locks, the effective
// configuration and provenance; and the seed-style table printed by `swapsim run`.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/metrics.hpp"
#include "scenario/registry.hpp"

namespace swapsim::kernel { class Kernel; }
namespace swapsim::workload { class Usemem; class Swapinout; class Kbuild; class Redis; }

namespace swapsim::report {

nlohmann::json build_result(const scenario::Config& cfg, const std::string& scenario_text,
                            const kernel::Kernel& k, const workload::Usemem& um, double wall_s);
nlohmann::json build_result(const scenario::Config& cfg, const std::string& scenario_text,
                            const kernel::Kernel& k, const workload::Swapinout& si, double wall_s);
nlohmann::json build_result(const scenario::Config& cfg, const std::string& scenario_text,
                            const kernel::Kernel& k, const workload::Kbuild& kb, double wall_s);
nlohmann::json build_result(const scenario::Config& cfg, const std::string& scenario_text,
                            const kernel::Kernel& k, const workload::Redis& redis, double wall_s);
// What every workload's result has: counters, devices, locks, configuration, provenance.
void add_common(nlohmann::json& r, const scenario::Config& cfg, const std::string& scenario_text,
                const kernel::Kernel& k, double elapsed, double wall_s);

std::string format_number(double v, Fmt f);
// A markdown table's header row and rule: "| a | b |\n|---|---|\n".
std::string md_head(const std::vector<std::string>& cols);
// Rows are metrics, the column is this scenario (the seeds' layout).
std::string format_table(const nlohmann::json& result);
// Several columns (--set values under each name); with `change`, cols = {baseline, new} and a
// change column as the seeds' "Change wrt Baseline".
std::string format_table(const std::vector<const nlohmann::json*>& cols, bool change);
// `swapsim run --profile`: the sys_profile rows as a perf-report-like table ("" without one).
std::string format_profile(const nlohmann::json& result);

// Write `doc` to DIR/result.json through a temporary file and rename (no partial output).
// Throws std::runtime_error naming the path on failure.
void write_result(const std::string& dir, const nlohmann::json& doc);
// Write `text` to `path` the same way: a temporary file beside it, renamed into place; on any
// failure the temporary file is removed and std::runtime_error names the path.
void write_file_atomic(const std::string& path, const std::string& text);
// "" if `path` can be written later as a file (not a folder; its folder exists or can be
// made and takes new files), else why not (without the path). Creates nothing.
std::string check_output_file(const std::string& path);

// min, median, max, mean, stdev and Jain's fairness index of per-process values.
nlohmann::json distribution(std::vector<double> v);

std::string sha256_hex(const std::string& data);
// Peak resident set size of this process, KiB.
long peak_rss_kb();

}  // namespace swapsim::report
