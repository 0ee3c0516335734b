// The kernel build workload (workload/kbuild.cpp) through the swapsim binary: make -j's job
// stream, its metrics and its determinism.
#include <catch2/catch.hpp>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "run_cmd.hpp"

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

json run_kbuild(const std::vector<std::string>& sets)
{
    std::string t = (fs::temp_directory_path() / "swapsim_kbuild.XXXXXX").string();
    fs::path dir = ::mkdtemp(t.data());
    std::vector<std::string> args = {"run", "tests/data/kbuild-small.json", "--out", dir.string()};
    for (const auto& s : sets)
        args.insert(args.end(), {"--set", s});
    auto r = swapsim_test::run_swapsim(args);
    INFO(r.err);
    REQUIRE(r.status == 0);
    json j = json::parse(swapsim_test::slurp((dir / "result.json").string()));
    fs::remove_all(dir);
    return j;
}

}  // namespace

TEST_CASE("kbuild: the job count and the peak concurrency follow make -j", "[kbuild]")
{
    json j1 = run_kbuild({"workload.kbuild.jobs=1", "kernel.memcg.max=max"});
    json j4 = run_kbuild({"kernel.memcg.max=max"});
    json j8 = run_kbuild({"workload.kbuild.jobs=8", "kernel.memcg.max=max"});
    for (const json* r : {&j1, &j4, &j8})
        CHECK((*r)["metrics"]["jobs_run"] == 42);   // 40 units + 2 link steps
    CHECK(j1["metrics"]["jobs_peak"] == 1);
    CHECK(j4["metrics"]["jobs_peak"] == 4);
    CHECK(j8["metrics"]["jobs_peak"] == 8);
    // Unpressured: the same user time, spread over more CPUs.
    double u1 = j1["metrics"]["user_s"], u8 = j8["metrics"]["user_s"];
    CHECK(u8 == Approx(u1).epsilon(0.01));
    double r1 = j1["metrics"]["real_s"], r4 = j4["metrics"]["real_s"], r8 = j8["metrics"]["real_s"];
    CHECK(r4 < r1 / 2.5);
    CHECK(r8 < r4);
    CHECK(j1["metrics"]["pswpout"] == 0);
}

TEST_CASE("kbuild: a tight memcg swaps the jobs' heaps and tmpfs objects, costing sys time, the same way every run",
          "[kbuild]")
{
    json free = run_kbuild({"kernel.memcg.max=max"});
    json tight = run_kbuild({});
    json again = run_kbuild({});
    CHECK(tight["metrics"]["pswpout"] > 0);
    CHECK(tight["metrics"]["pswpin"] > 0);
    CHECK(double(tight["metrics"]["sys_s"]) > double(free["metrics"]["sys_s"]));
    CHECK(double(tight["metrics"]["real_s"]) > double(free["metrics"]["real_s"]));
    CHECK(tight["metrics"].dump() == again["metrics"].dump());
    // More re-touches of the heap under the same limit: more swap-ins.
    json reuse = run_kbuild({"workload.kbuild.heap_reuse=6"});
    CHECK(reuse["metrics"]["pswpin"] > tight["metrics"]["pswpin"]);
}
