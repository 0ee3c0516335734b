// Reliability: failed runs leave no file or folder behind, a FIFO never blocks a read,
// and the end-of-run invariants hold where the model used to break them.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>

#include "run_cmd.hpp"

namespace fs = std::filesystem;

namespace {

fs::path fresh_dir(const std::string& name)
{
    fs::path d = fs::temp_directory_path() / (name + "." + std::to_string(::getpid()));
    fs::remove_all(d);
    return d;
}

}  // namespace

TEST_CASE("a failed run leaves no --out folder it created", "[cli][reliability]")
{
    fs::path d = fresh_dir("swapsim_noout") / "a" / "b";
    // Fails after the scenario loaded: the simulated time limit.
    auto r = swapsim_test::run_swapsim({"run", "tests/data/medium.json", "--set", "sim.time_limit=1s", "--set", "kernel.memcg.high=64M", "--out", d.string()});
    CHECK(r.status == 1);
    CHECK(!fs::exists(d.parent_path().parent_path()));
}

TEST_CASE("a write cut short by a file size limit leaves no temporary file", "[cli][reliability]")
{
    fs::path d = fresh_dir("swapsim_fsize");
    fs::create_directories(d);
    std::string cmd = "cd " SWAPSIM_SOURCE_DIR " && ulimit -f 8 && " SWAPSIM_BINARY
                      " run tests/data/medium.json --set workload.usemem.nproc=2 --set workload.cpus=0-1 --out " +
                      d.string() + " >/dev/null 2>&1";
    int st = std::system(("sh -c '" + cmd + "'").c_str());
    CHECK(WIFEXITED(st));
    CHECK(WEXITSTATUS(st) == 1);
    CHECK(fs::is_empty(d));
    fs::remove_all(d);
}

TEST_CASE("a FIFO without a writer is an empty file, not a hang", "[cli][reliability]")
{
    fs::path f = fresh_dir("swapsim_fifo");
    REQUIRE(::mkfifo(f.c_str(), 0600) == 0);
    for (const char* cmd : {"validate", "run"}) {
        auto r = swapsim_test::run_swapsim({cmd, f.string()});
        CHECK(r.status == 2);
        CHECK(r.err == f.string() + ": empty file: expected a JSON object\n");
    }
    fs::remove(f);
}

// More runnable tasks than CPUs: they time-share their CPUs (the runqueue), so the CPU time
// booked never exceeds elapsed x CPUs, and no task's user or sys time is negative.
TEST_CASE("tasks beyond the CPUs time-share them: CPU time fits in elapsed x CPUs", "[run][reliability]")
{
    fs::path d = fresh_dir("swapsim_oversub");
    auto r = swapsim_test::run_swapsim({"run", "tests/data/medium.json", "--set", "workload.cpus=0-0", "--out",
                                        d.string()});
    REQUIRE(r.status == 0);
    auto j = nlohmann::json::parse(swapsim_test::slurp((d / "result.json").string()));
    const auto& m = j["metrics"];
    double elapsed = m["elapsed_s"], cpu = double(m["user_s"]) + double(m["sys_s"]);
    CHECK(cpu <= elapsed * 1 * (1 + 1e-9));
    double one_task = 0;
    for (const auto& p : j["per_process"]) {
        double u = p["user_s"], s = p["sys_s"];
        CHECK(u >= 0);
        CHECK(s >= 0);
        CHECK(u + s <= double(p["wall_s"]) * (1 + 1e-9));
        one_task = std::max(one_task, u + s);
    }
    // 16 tasks on one CPU (before: 650 s CPU in 43 s): at least 16/1 of an average task's CPU time passes.
    CHECK(elapsed >= cpu / 1 * (1 - 1e-9));
    fs::remove_all(d);
}

// Found by tools/bad_input_campaign.py: a sweep or compare that fails leaves no folder it made,
// says which point failed (not its temporary file), and checks its outputs before it runs.
TEST_CASE("sweep and compare: failures name the point, check outputs first and leave nothing", "[cli][reliability]")
{
    fs::path d = fresh_dir("swapsim_sweepfail");
    auto r = swapsim_test::run_swapsim({"sweep", "tests/data/small.json", "--vary", "seed=1", "--out", d.string(),
                                        "--job-list", "/dev/full"});
    CHECK(r.status == 2);
    CHECK(r.err == "swapsim sweep: /dev/full: cannot write the job list\n");
    CHECK(!fs::exists(d));
    r = swapsim_test::run_swapsim({"sweep", "tests/data/small.json", "--vary", "kernel.memcg.high=1", "--set",
                                   "sim.time_limit=1s", "--out", d.string()});
    CHECK(r.status == 1);
    CHECK(r.err.rfind("swapsim sweep: tests/data/small.json (sweep point kernel.memcg.high=1): simulated time passed "
                      "sim.time_limit (1s)", 0) == 0);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);   // no progress bar off a terminal
    CHECK(!fs::exists(d));
    fs::create_directories(d);
    std::ofstream(d / "file") << "x";
    r = swapsim_test::run_swapsim({"compare", "zswap-mthp-v7/regression-4k", "--results", (d / "file").string()});
    CHECK(r.status == 2);
    CHECK(r.err.rfind("swapsim compare: --results " + (d / "file").string() + ": ", 0) == 0);
    CHECK(r.err.find("is not a folder") != std::string::npos);
    fs::remove_all(d);
}
