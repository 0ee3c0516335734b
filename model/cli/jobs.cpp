#include "cli/jobs.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "calibrate/pool.hpp"
#include "scenario/registry.hpp"

namespace swapsim::cli {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string quote(const std::string& s)
{
    if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=.,/:@%") ==
                          std::string::npos)
        return s;
    std::string q = "'";
    for (char c : s)
        q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

std::string self_exe()
{
    std::error_code ec;
    fs::path p = fs::read_symlink("/proc/self/exe", ec);
    return ec ? std::string("swapsim") : p.string();
}

}  // namespace

json write_job_list(const std::string& file, const std::string& dir, const std::vector<std::string>& scenarios,
                    const std::vector<std::string>& run_args, int runs, const calibrate::RunCaps& max_runs)
{
    fs::path root = fs::absolute(dir);
    std::ofstream out(file);
    if (!out)
        throw scenario::InputError(file, "", "cannot write the job list");
    // One line per distinct content and seed (as run_scenarios runs them), in the runs/<n> folder
    // of its content; every scenario of that content reads those results.
    const calibrate::Simulations sims = calibrate::distinct_simulations(scenarios, runs, max_runs);
    std::string exe = quote(self_exe());
    std::vector<json> dirs(sims.files.size(), json::array());
    for (size_t g = 0; g < sims.files.size(); g++) {
        std::string base = "runs/" + std::to_string(g);
        const int n = sims.runs[g];
        for (int r = 1; r <= n; r++) {
            std::string rel = n > 1 ? base + "/seed" + std::to_string(r) : base;
            dirs[g].push_back(rel);
            std::string line = exe;
            for (const auto& a : calibrate::run_command(fs::absolute(sims.files[g]).string(), (root / rel).string(),
                                                        run_args, n, r))
                line += " " + quote(a);
            out << line << "\n";
        }
    }
    json results = json::object();
    for (const auto& [s, g] : sims.group_of)
        results[s] = dirs[g];
    if (!out.flush())
        throw scenario::InputError(file, "", "cannot write the job list");
    return results;
}

void write_index(const std::string& dir, const json& index)
{
    fs::create_directories(dir);
    fs::path p = fs::path(dir) / "index.json";
    std::string tmp = p.string() + ".tmp." + std::to_string(getpid());
    std::ofstream(tmp) << index.dump(2) << "\n";
    fs::rename(tmp, p);
}

json read_index(const std::string& dir)
{
    std::string p = (fs::path(dir) / "index.json").string();
    std::ifstream f(p);
    if (!f)
        throw scenario::InputError(p, "", "cannot read (not a folder written by sweep/compare --out or --job-list?)");
    json j = json::parse(f, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("swapsim") || !j.contains("results"))
        throw scenario::InputError(p, "", "not a swapsim index");
    return j;
}

std::map<std::string, json> collect_results(const std::string& dir, const json& index)
{
    std::map<std::string, json> out;
    for (const auto& [key, dirs] : index.at("results").items()) {
        std::vector<json> runs;
        for (const auto& d : dirs) {
            std::string p = (fs::path(dir) / d.get<std::string>() / "result.json").string();
            std::ifstream f(p);
            if (!f)
                throw scenario::InputError(p, "", "missing (has its job run?)");
            json r = json::parse(f, nullptr, false);
            if (r.is_discarded() || !r.contains("metrics"))
                throw scenario::InputError(p, "", "not a result.json");
            runs.push_back(std::move(r));
        }
        out[key] = calibrate::merge_runs(runs);
    }
    return out;
}

}  // namespace swapsim::cli
