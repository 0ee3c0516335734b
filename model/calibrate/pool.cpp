#include "calibrate/pool.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report/result.hpp"

extern char** environ;

namespace swapsim::calibrate {

using nlohmann::json;
namespace fs = std::filesystem;

Progress stderr_progress(const std::string& what)
{
    if (!::isatty(2))
        return [](size_t, size_t) {};   // a log or a pipe gets the result and errors only
    auto start = std::make_shared<std::chrono::steady_clock::time_point>(std::chrono::steady_clock::now());
    return [start, what](size_t done, size_t total) {
        double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - *start).count();
        double eta = done ? el / double(done) * double(total - done) : 0;
        int width = 30, fill = total ? int(width * done / total) : width;
        std::fprintf(stderr, "\r%s [%s%s] %zu/%zu  %.0fs elapsed, ETA %.0fs ", what.c_str(),
                     std::string(size_t(fill), '#').c_str(), std::string(size_t(width - fill), '.').c_str(),
                     done, total, el, eta);
        if (done == total)
            std::fprintf(stderr, "\n");
        std::fflush(stderr);
    };
}

std::string content_key(const std::string& path)
{
    std::ifstream f(path);
    json j = json::parse(f, nullptr, false);
    if (j.is_discarded() || !j.is_object())
        return "path:" + path;
    for (const char* k : {"$schema", "name", "description", "sources"})
        j.erase(k);
    return j.dump();
}

Simulations distinct_simulations(const std::vector<std::string>& scenarios, int runs, const RunCaps& max_runs)
{
    Simulations sims;
    std::map<std::string, size_t> by_content;
    runs = std::max(1, runs);
    for (const auto& s : scenarios)
        if (!sims.group_of.count(s)) {
            auto [it, added] = by_content.emplace(content_key(s), sims.files.size());
            if (added) {
                sims.files.push_back(s);
                sims.runs.push_back(runs);
            }
            sims.group_of[s] = it->second;
        }
    for (const auto& [s, cap] : max_runs) {
        auto g = sims.group_of.find(s);
        if (g != sims.group_of.end() && cap > 0)
            sims.runs[g->second] = std::min(sims.runs[g->second], cap);
    }
    return sims;
}

std::vector<std::string> run_command(const std::string& scenario, const std::string& out_dir,
                                     const std::vector<std::string>& run_args, int runs, int seed)
{
    std::vector<std::string> args = {"run", scenario, "--out", out_dir};
    args.insert(args.end(), run_args.begin(), run_args.end());
    if (runs > 1) {
        args.push_back("--set");
        args.push_back("seed=" + std::to_string(seed));
    }
    return args;
}

json merge_runs(const std::vector<json>& runs)
{
    if (runs.size() == 1)
        return runs.front();
    json out = runs.front();
    json lo = json::object(), hi = json::object(), seeds = json::array();
    for (auto& [k, v] : out["metrics"].items()) {
        if (!v.is_number())
            continue;
        double sum = 0, mn = v.get<double>(), mx = mn;
        for (const json& r : runs) {
            double x = r.at("metrics").at(k).get<double>();
            sum += x;
            mn = std::min(mn, x);
            mx = std::max(mx, x);
        }
        v = sum / double(runs.size());
        lo[k] = mn;
        hi[k] = mx;
    }
    std::vector<double> tps;
    for (const json& r : runs) {
        seeds.push_back(r.at("effective_config").value("seed", 0));
        for (const json& p : r.value("per_process", json::array()))
            tps.push_back(p.at("throughput_kbps").get<double>());
    }
    if (!tps.empty())
        out["distribution"]["throughput_kbps"] = report::distribution(tps);
    out["runs"] = {{"seeds", seeds}, {"min", lo}, {"max", hi}};
    return out;
}

int spawn_run(const std::vector<std::string>& args, const std::string& err_path)
{
    std::vector<std::string> a = {"/proc/self/exe"};
    a.insert(a.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& x : a)
        argv.push_back(x.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    // The child dies with this process (SWAPSIM_PARENT_PID, cli/main.cpp).
    std::vector<std::string> env_s = {"SWAPSIM_PARENT_PID=" + std::to_string(::getpid())};
    for (char** e = environ; *e; e++)
        if (std::strncmp(*e, "SWAPSIM_PARENT_PID=", 19) != 0)
            env_s.push_back(*e);
    std::vector<char*> env;
    for (auto& x : env_s)
        env.push_back(x.data());
    env.push_back(nullptr);
    pid_t pid;
    int rc = posix_spawn(&pid, "/proc/self/exe", &fa, nullptr, argv.data(), env.data());
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0)
        throw std::runtime_error("cannot start a simulation process");
    return int(pid);
}

std::map<std::string, json> run_scenarios(const std::vector<std::string>& scenarios,
                                          const std::vector<std::string>& run_args, int jobs,
                                          const Progress& progress, int runs, const RunCaps& max_runs)
{
    // One simulation per distinct scenario content and seed.
    const Simulations sims = distinct_simulations(scenarios, runs, max_runs);
    const std::vector<std::string>& files = sims.files;
    const std::map<std::string, size_t>& group_of = sims.group_of;
    struct Job {
        size_t group;
        int run;   // 0..runs-1; seed run + 1, or the scenario's own with a single run
    };
    std::vector<Job> todo;
    for (size_t g = 0; g < files.size(); g++)
        for (int r = 0; r < sims.runs[g]; r++)
            todo.push_back({g, r});
    std::string tmpl = (fs::temp_directory_path() / "swapsim_eval.XXXXXX").string();
    if (!::mkdtemp(tmpl.data()))
        throw std::runtime_error("cannot create a temporary directory");
    fs::path tmp = tmpl;
    struct Child {
        pid_t pid;
        size_t idx;
    };
    std::vector<Child> running;
    std::vector<std::vector<json>> got(files.size());
    for (size_t g = 0; g < files.size(); g++)
        got[g].resize(size_t(sims.runs[g]));
    std::string failure;
    int failure_status = 1;
    size_t next = 0, done = 0;
    jobs = std::max(1, jobs);
    auto start = [&](size_t i) {
        std::vector<std::string> args =
            run_command(files[todo[i].group], (tmp / std::to_string(i)).string(), run_args, sims.runs[todo[i].group],
                        todo[i].run + 1);
        int pid = spawn_run(args, (tmp / (std::to_string(i) + ".err")).string());
        running.push_back({pid, i});
    };
    if (progress)
        progress(0, todo.size());
    while (done < todo.size()) {
        while (failure.empty() && next < todo.size() && int(running.size()) < jobs)
            start(next++);
        if (running.empty())
            break;
        int status = 0;
        pid_t pid = ::waitpid(-1, &status, 0);
        auto it = std::find_if(running.begin(), running.end(), [&](const Child& c) { return c.pid == pid; });
        if (it == running.end())
            continue;
        size_t i = it->idx;
        running.erase(it);
        done++;
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
            got[todo[i].group][size_t(todo[i].run)] = json::parse(std::ifstream(tmp / std::to_string(i) / "result.json"));
        } else if (failure.empty()) {
            std::ifstream e(tmp / (std::to_string(i) + ".err"));
            std::string line;
            std::getline(e, line);
            // The child's line names its scenario already ("swapsim run: FILE: ..." or "FILE: ...").
            const std::string& file = files[todo[i].group];
            if (line.rfind("swapsim run: ", 0) == 0)
                line.erase(0, 13);
            failure = line.rfind(file + ":", 0) == 0 ? line : file + ": " + (line.empty() ? "simulation failed" : line);
            if (WIFEXITED(status) && WEXITSTATUS(status) == 2)
                failure_status = 2;
        }
        if (progress)
            progress(done, todo.size());
    }
    fs::remove_all(tmp);
    if (!failure.empty())
        throw RunFailure(failure, failure_status);
    std::vector<json> merged;
    for (const auto& runs_of : got)
        merged.push_back(merge_runs(runs_of));
    std::map<std::string, json> out;
    for (const auto& [s, g] : group_of)
        out[s] = merged[g];
    return out;
}

}  // namespace swapsim::calibrate
