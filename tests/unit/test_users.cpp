// What a user runs: per-command help, what-ifs against a baseline, sweeps kept on disk and run
// from a job list by GNU parallel, `collect`, `metrics`, and a run's time series.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <filesystem>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "report/metrics.hpp"
#include "scenario/registry.hpp"
#include "run_cmd.hpp"

using nlohmann::json;
using swapsim_test::run_swapsim;
using swapsim_test::slurp;
namespace fs = std::filesystem;

namespace {

struct TempDir {
    fs::path path;
    TempDir()
    {
        std::string t = (fs::temp_directory_path() / "swapsim_users.XXXXXX").string();
        path = ::mkdtemp(t.data());
    }
    ~TempDir() { fs::remove_all(path); }
};

const std::vector<std::string> small_sweep = {
    "sweep", "tests/data/small.json", "--vary", "kernel.memcg.high=200M,256M", "--vary",
    "kernel.zswap.compressor=zstd,lz4,lzo-rle,deflate-iaa", "--show", "throughput_kbps,sys_s,zswpout,memcg_high", "-j2"};

}  // namespace

TEST_CASE("cli: `swapsim help CMD` is CMD --help, -j1 is -j 1, unknown commands are refused", "[cli][users]")
{
    for (const char* cmd : {"run", "sweep", "compare", "calibrate", "collect", "metrics", "params", "validate"}) {
        INFO(cmd);
        auto a = run_swapsim({"help", cmd}), b = run_swapsim({cmd, "--help"});
        CHECK(a.status == 0);
        CHECK(a.out == b.out);
        CHECK(a.out.rfind(std::string("usage: swapsim ") + cmd, 0) == 0);
    }
    // -j1 reaches the command as -j 1: the error is about the table, not the option.
    auto r = run_swapsim({"compare", "-j1", "no/such-table", "--no-write"});
    CHECK(r.status == 2);
    CHECK(r.err.find("no/such-table: no target") != std::string::npos);
    r = run_swapsim({"frobnicate"});
    CHECK(r.status == 2);
    // compare and calibrate explain every option they list.
    for (const char* cmd : {"compare", "calibrate"}) {
        std::string help = run_swapsim({cmd, "--help"}).out;
        std::istringstream first(help.substr(0, help.find("\n\n")));
        std::set<std::string> listed;
        for (std::string w; first >> w;) {
            size_t b = w.find("--");
            if (b == std::string::npos)
                continue;
            std::string opt = w.substr(b);
            opt = opt.substr(0, opt.find_first_of(" ]|=."));
            if (opt.size() > 2)
                listed.insert(opt);
        }
        std::string body = help.substr(help.find("\n\n"));
        for (const auto& opt : listed) {
            INFO(cmd << " " << opt);
            CHECK(body.find("  " + opt) != std::string::npos);
        }
    }
}

TEST_CASE("run --baseline: both columns, the --set values in the header, the change as the seeds print it", "[users]")
{
    TempDir d;
    auto r = run_swapsim({"run", "tests/data/small.json", "--set", "kernel.zswap.compressor=lz4", "--baseline",
                          "tests/data/small.json", "--out", d.path.string()});
    INFO(r.err);
    REQUIRE(r.status == 0);
    CHECK(r.out.find("small (baseline)") != std::string::npos);
    CHECK(r.out.find("kernel.zswap.compressor=lz4") != std::string::npos);
    json a = json::parse(slurp((d.path / "result.json").string()));
    json b = json::parse(slurp((d.path / "baseline/result.json").string()));
    CHECK(a["provenance"]["sets"] == json::array({"kernel.zswap.compressor=lz4"}));
    CHECK(b["provenance"]["sets"] == json::array());
    // The throughput row: baseline, what-if, (new - base) / base.
    double ta = a["metrics"]["throughput_kbps"], tb = b["metrics"]["throughput_kbps"];
    std::istringstream in(r.out);
    std::string line;
    while (std::getline(in, line) && line.rfind("throughput_kbps ", 0) != 0) {
    }
    std::istringstream row(line);
    std::string name, vb, va, change;
    row >> name >> vb >> va >> change;
    auto num = [](std::string s) {
        s.erase(std::remove(s.begin(), s.end(), ','), s.end());
        return std::stod(s);
    };
    CHECK(num(vb) == Approx(tb).margin(0.5));
    CHECK(num(va) == Approx(ta).margin(0.5));
    CHECK(change == fmt::format("{:+.1f}%", 100 * (ta - tb) / tb));
}

TEST_CASE("sweep: unknown --show metrics and --job-list without --out are refused before anything runs", "[users]")
{
    TempDir d;
    auto r = run_swapsim({"sweep", "tests/data/small.json", "--vary", "kernel.memcg.high=200M", "--show",
                          "throughput_kbps,bogus_metric", "--out", d.path.string()});
    CHECK(r.status == 2);
    CHECK(r.err == "swapsim sweep: --show: unknown metric 'bogus_metric' (see `swapsim metrics`)\n");
    CHECK(r.out.empty());
    CHECK(fs::is_empty(d.path));
    r = run_swapsim({"sweep", "tests/data/small.json", "--vary", "kernel.memcg.high=200M", "--job-list", "x.txt"});
    CHECK(r.status == 2);
    CHECK(!fs::exists(fs::path(SWAPSIM_SOURCE_DIR) / "x.txt"));
    // A bad value of a --vary is one line, before any run.
    r = run_swapsim({"sweep", "tests/data/small.json", "--vary", "kernel.memcg.high=200M,lots"});
    CHECK(r.status == 2);
    CHECK(r.err.find("kernel.memcg.high") != std::string::npos);
    CHECK(r.err.find('\n') == r.err.size() - 1);
}

TEST_CASE("sweep: 8 points through a job list run by GNU parallel give the table sweep prints itself", "[users]")
{
    TempDir d;
    fs::path own = d.path / "own", listed = d.path / "listed", jobs = d.path / "jobs.txt";
    std::vector<std::string> args = small_sweep;
    args.insert(args.end(), {"--out", own.string()});
    auto direct = run_swapsim(args);
    INFO(direct.err);
    REQUIRE(direct.status == 0);
    CHECK(std::count(direct.out.begin(), direct.out.end(), '\n') == 2 + 8);
    // --out keeps one result.json per point and the index.
    for (int i = 0; i < 8; i++)
        CHECK(fs::exists(own / ("point" + std::to_string(i)) / "result.json"));
    CHECK(run_swapsim({"collect", own.string()}).out == direct.out);

    args = small_sweep;
    args.insert(args.end(), {"--out", listed.string(), "--job-list", jobs.string()});
    auto w = run_swapsim(args);
    REQUIRE(w.status == 0);
    CHECK(w.out.empty());
    std::string list = slurp(jobs.string());
    CHECK(std::count(list.begin(), list.end(), '\n') == 8);
    CHECK(list.find(" run ") != std::string::npos);
    CHECK(list.find(" --out ") != std::string::npos);
    auto missing = run_swapsim({"collect", listed.string()});
    CHECK(missing.status == 2);
    CHECK(missing.err.find("result.json: missing") != std::string::npos);
    std::string cmd = "parallel -j 2 < '" + jobs.string() + "' > /dev/null 2> '" + (d.path / "parallel.err").string() + "'";
    INFO(cmd);
    REQUIRE(std::system(cmd.c_str()) == 0);
    auto collected = run_swapsim({"collect", listed.string()});
    INFO(collected.err);
    CHECK(collected.status == 0);
    CHECK(collected.out == direct.out);
    CHECK(run_swapsim({"collect", listed.string(), "--csv"}).out ==
          run_swapsim({"collect", own.string(), "--csv"}).out);
}

TEST_CASE("metrics: every metric of result.json is documented, under the name the run table prints", "[users]")
{
    TempDir d;
    // 64K and 2M folios: the per-size stats of both sizes.
    auto r = run_swapsim({"run", "tests/data/small.json", "--set", "kernel.mthp.enabled=[\"64K\",\"2M\"]", "--out",
                          d.path.string()});
    INFO(r.err);
    REQUIRE(r.status == 0);
    json res = json::parse(slurp((d.path / "result.json").string()));
    std::string listing = "\n" + run_swapsim({"metrics"}).out;
    size_t n = 0;
    for (auto& [name, v] : res["metrics"].items()) {
        INFO(name);
        const swapsim::report::Metric* doc = swapsim::report::find_metric(name);
        REQUIRE(doc);
        CHECK(!doc->unit.empty());
        CHECK(!doc->kernel.empty());
        CHECK(!doc->mechanism.empty());
        CHECK(listing.find("\n" + doc->name + " [" + doc->unit + "]") != std::string::npos);
        n++;
    }
    CHECK(n > 40);
    CHECK(res["metrics"].contains("zswpout_2048kB"));
    // The run table's row names are result.json's.
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);) {
        std::string first = line.substr(0, line.find(' '));
        if (line.empty() || line[0] == '-' || first == "swapsim" || first.empty())
            continue;
        INFO(line);
        CHECK(res["metrics"].contains(first));
    }
}

TEST_CASE("run --trace: a row per step of simulated time, the same result.json as without", "[users]")
{
    TempDir d;
    fs::path plain = d.path / "plain", traced = d.path / "traced", csv = d.path / "trace.csv";
    REQUIRE(run_swapsim({"run", "tests/data/small.json", "--out", plain.string()}).status == 0);
    REQUIRE(run_swapsim({"run", "tests/data/small.json", "--out", traced.string(), "--trace", csv.string(),
                         "--trace-step", "0.02"}).status == 0);
    json a = json::parse(slurp((plain / "result.json").string())), b = json::parse(slurp((traced / "result.json").string()));
    a.erase("wall_clock");
    b.erase("wall_clock");
    CHECK(a == b);
    std::istringstream in(slurp(csv.string()));
    std::string header;
    std::getline(in, header);
    CHECK(header.rfind("t_s,memcg_usage_bytes,memory_high_bytes,swapout_pages_per_s,", 0) == 0);
    double elapsed = a["metrics"]["elapsed_s"], t = -1, max_usage = 0, swapped = 0, last_t = 0;
    size_t rows = 0;
    for (std::string line; std::getline(in, line); rows++) {
        std::vector<double> v;
        std::istringstream f(line);
        for (std::string x; std::getline(f, x, ',');)
            v.push_back(std::stod(x));
        REQUIRE(v.size() == 10);
        CHECK(v[0] > t);
        swapped += v[3] * (v[0] - last_t);
        last_t = t = v[0];
        max_usage = std::max(max_usage, v[1]);
        CHECK(v[2] == 256.0 * 1024 * 1024);
    }
    CHECK(rows == size_t(std::floor(t / 0.02 + 1e-9)) + 1 + (std::fmod(t, 0.02) > 1e-9));
    CHECK(t == Approx(elapsed).margin(0.021));
    CHECK(max_usage >= 256.0 * 1024 * 1024);
    // The swap-out rate integrates to the run's pswpout + zswpout.
    CHECK(swapped == Approx(a["metrics"]["zswpout"].get<double>() + a["metrics"]["pswpout"].get<double>()).epsilon(1e-6));
}

TEST_CASE("run: progress on stderr only when stderr is a terminal", "[users]")
{
    auto r = run_swapsim({"run", "tests/data/small.json"});
    CHECK(r.status == 0);
    CHECK(r.err.empty());
    // script(1) gives the run a terminal.
    TempDir d;
    std::string log = (d.path / "tty.log").string();
    std::string cmd = "cd '" SWAPSIM_SOURCE_DIR "' && script -qec '" SWAPSIM_BINARY
                      " run tests/data/small.json > /dev/null' '" + log + "' > /dev/null 2>&1";
    REQUIRE(std::system(cmd.c_str()) == 0);
    std::string tty = slurp(log);
    CHECK(tty.find("small: simulated ") != std::string::npos);
    CHECK(tty.find("(sim.time_limit)") != std::string::npos);
}


TEST_CASE("every usemem scenario under scenarios/ scaled down gives each task non-negative user and sys time within its wall time", "[users]")
{
    // 70 x 1G in 40G scaled to 70 x 16M in 640M (the same ratio), each distinct scenario once,
    // two at a time through GNU parallel. Other workloads have their own time tests.
    TempDir d;
    std::set<std::string> seen;
    std::string jobs;
    int n = 0;
    for (const auto& e : fs::recursive_directory_iterator(fs::path(SWAPSIM_SOURCE_DIR) / "scenarios")) {
        if (e.path().extension() != ".json" || e.path().filename() == "swapsim.schema.json")
            continue;
        json s = json::parse(slurp(e.path().string()));
        if (s["workload"].value("type", "usemem") != "usemem")
            continue;
        for (const char* k : {"$schema", "name", "description", "sources"})
            s.erase(k);
        if (!seen.insert(s.dump()).second)
            continue;
        // The limits shrink with the size: memory.high and memory.max, or RAM under global
        // pressure (seed 001's 16G table).
        auto mib = [](const std::string& v) {   // "40G", "1536M"
            double x = std::stod(v);
            char u = v.back();
            return u == 'T' ? x * 1048576 : u == 'G' ? x * 1024 : u == 'K' ? x / 1024 : x;
        };
        const json& u = s["workload"]["usemem"];
        double scale = 16 / mib(u.contains("size") ? u["size"].get<std::string>() : std::string("1G"));
        std::string sets = " --set workload.usemem.size=16M";
        const json memcg = s["kernel"].value("memcg", json::object());
        // memory.max no lower than 96M: at 64M, 31 tasks swapping to a block device leave the
        // memcg's usage a page off its folios + stocks at the end (on main too; issue #28's).
        for (const char* lim : {"high", "max"})
            if (memcg.contains(lim))
                sets += std::string(" --set kernel.memcg.") + lim + "=" +
                        std::to_string(std::max(std::string(lim) == "max" ? 96 : 0, int(mib(memcg[lim]) * scale))) + "M";
        if (memcg.empty() && s.contains("machine") && s["machine"].contains("dram"))
            sets += " --set machine.dram=" + std::to_string(int(mib(s["machine"]["dram"]) * scale)) + "M";
        fs::path out = d.path / std::to_string(n++);
        jobs += std::string(SWAPSIM_BINARY) + " run " + e.path().string() + " --out " + out.string() + sets + "\n";
    }
    CHECK(n >= 18);
    std::ofstream(d.path / "jobs.txt") << jobs;
    std::string cmd = "parallel -j 2 < '" + (d.path / "jobs.txt").string() + "' > /dev/null 2>&1";
    REQUIRE(std::system(cmd.c_str()) == 0);
    for (int i = 0; i < n; i++) {
        json r = json::parse(slurp((d.path / std::to_string(i) / "result.json").string()));
        INFO(r["scenario"].get<std::string>());
        CHECK(r["metrics"]["user_s"].get<double>() >= 0);
        CHECK(r["metrics"]["sys_s"].get<double>() >= 0);
        // CPU time never exceeds elapsed x the CPUs the tasks may run on (#26).
        const json& mc = r["effective_config"]["machine"];
        int nr_cpus = mc["sockets"].get<int>() * mc["cores_per_socket"].get<int>() * mc["threads_per_core"].get<int>();
        size_t allowed = swapsim::scenario::parse_cpulist(r["effective_config"]["workload"]["cpus"].get<std::string>(), nr_cpus).size();
        CHECK(r["metrics"]["user_s"].get<double>() + r["metrics"]["sys_s"].get<double>() <=
              r["metrics"]["elapsed_s"].get<double>() * double(allowed) * (1 + 1e-9));
        for (const auto& p : r["per_process"]) {
            INFO("pid " << p["pid"]);
            double user = p["user_s"], sys = p["sys_s"], wall = p["wall_s"];
            CHECK(user >= 0);
            CHECK(sys >= 0);
            CHECK(user + sys <= wall * (1 + 1e-9) + 1e-9);
        }
    }
}

TEST_CASE("cli: calibrate --cross-validate refuses bad arguments before fitting, one line and exit 2", "[cli][users]")
{
    TempDir d;
    const std::string out = (d.path / "xv.json").string();
    struct Case {
        std::vector<std::string> args;
        std::string says;
    };
    const std::vector<Case> cases = {
        {{"calibrate", "--cross-validate"}, "needs --out FILE.json"},
        {{"calibrate", "--cross-validate", "--out", out, "--free", "cost.zswap.store_pag"},
         "unknown parameter; did you mean \"cost.zswap.store_page\"?"},
        {{"calibrate", "--cross-validate", "--out", out, "--free", "kernel.memcg.high"}, "not a fitted model cost"},
        {{"calibrate", "--cross-validate", "--out", out, "--weights", "sys_s=-1"}, "expected a weight >= 0 for sys_s"},
        {{"calibrate", "--cross-validate", "--out", out, "--tables", "no/such-table"}, "no/such-table: no target of"},
        {{"calibrate", "--cross-validate", "--out", out, "--tables", "zswap-mthp-v7/case1-64k"}, "two families or more"},
        {{"calibrate", "--cross-validate", "--out", out, "--bogus"}, "unknown option '--bogus'"},
    };
    for (const auto& c : cases) {
        INFO(fmt::format("{}", fmt::join(c.args, " ")));
        auto r = run_swapsim(c.args);
        CHECK(r.status == 2);
        CHECK(r.err.find(c.says) != std::string::npos);
        CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
        CHECK(!fs::exists(out));
    }
}

TEST_CASE("compare: a target's \"runs\" caps its seeds (a kernel build runs once, seed-000 columns three times)",
          "[users]")
{
    TempDir d;
    fs::path jobs = d.path / "jobs.txt", out = d.path / "out";
    auto w = run_swapsim({"compare", "swap-table-p1-v4/kbuild-48c-4G-vm-zram16G", "zswap-mthp-v7/case1-64k", "--out",
                          out.string(), "--job-list", jobs.string()});
    REQUIRE(w.status == 0);
    std::string list = slurp(jobs.string());
    CHECK(std::count(list.begin(), list.end(), '\n') == 2 + 4 * 3);
    json index = json::parse(slurp((out / "index.json").string()));
    for (const auto& [scenario, dirs] : index["results"].items()) {
        INFO(scenario);
        CHECK(dirs.size() == (scenario.find("kbuild") != std::string::npos ? 1u : 3u));
    }
    // A bad cap is the targets file's error, before anything runs.
    fs::path targets = d.path / "targets.json";
    std::ofstream(targets) << R"({"targets": [{"table": "zswap-mthp-v7/case1-64k", "column": "baseline_zstd",
        "scenario": "scenarios/zswap-mthp-v7/case1-64k/baseline_zstd.json", "metrics": ["sys_s"], "runs": 0}]})";
    auto bad = run_swapsim({"compare", "zswap-mthp-v7/case1-64k", "--targets", targets.string(), "--no-write"});
    CHECK(bad.status == 2);
    CHECK(bad.err.find("/targets/0/runs: expected a whole number of seeds >= 1") != std::string::npos);
    CHECK(std::count(bad.err.begin(), bad.err.end(), '\n') == 1);
}
