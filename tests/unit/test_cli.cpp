// The validate, params and schema subcommands as a user runs them.
#include <catch2/catch.hpp>

#include "run_cmd.hpp"
#include "scenario/registry.hpp"

using swapsim_test::run_swapsim;
using namespace swapsim::scenario;
using nlohmann::json;

TEST_CASE("validate: ok lines on stdout, every bad file on stderr, exit 2", "[cli]")
{
    auto r = run_swapsim({"validate", "scenarios/default.json"});
    CHECK(r.status == 0);
    CHECK(r.out == "scenarios/default.json: ok\n");
    CHECK(r.err.empty());

    r = run_swapsim({"validate", "tests/bad/wrong_type.json", "scenarios/default.json", "tests/bad/bad_enum.json"});
    CHECK(r.status == 2);
    CHECK(r.out == "scenarios/default.json: ok\n");
    CHECK(r.err == swapsim_test::slurp(SWAPSIM_SOURCE_DIR "/tests/bad/wrong_type.expected") +
                       swapsim_test::slurp(SWAPSIM_SOURCE_DIR "/tests/bad/bad_enum.expected"));

    r = run_swapsim({"validate", "scenarios/default.json", "--set", "kernel.memcg.high=30G", "--set=machine.cores_per_socket=64"});
    CHECK(r.status == 0);
    CHECK(r.out == "scenarios/default.json: ok\n");

    r = run_swapsim({"validate", "no/such/file.json"});
    CHECK(r.status == 2);
    CHECK(r.out.empty());
    CHECK(r.err == "no/such/file.json: cannot read: No such file or directory\n");
}

TEST_CASE("validate: usage errors and --help", "[cli]")
{
    auto r = run_swapsim({"validate"});
    CHECK(r.status == 2);
    CHECK(r.err == "swapsim validate: no scenario given; see 'swapsim validate --help'\n");
    r = run_swapsim({"validate", "--frobnicate", "scenarios/default.json"});
    CHECK(r.status == 2);
    CHECK(r.out.empty());
    CHECK(r.err == "swapsim validate: unknown option '--frobnicate'; see 'swapsim validate --help'\n");
    r = run_swapsim({"validate", "scenarios/default.json", "--set"});
    CHECK(r.status == 2);
    CHECK(r.err == "swapsim validate: option '--set' needs a value; see 'swapsim validate --help'\n");
    r = run_swapsim({"validate", "--help"});
    CHECK(r.status == 0);
    CHECK(r.out.rfind("usage: swapsim validate SCENARIO.json...", 0) == 0);
    CHECK(r.err.empty());
}

TEST_CASE("params: a row for every parameter, --json and --category", "[cli]")
{
    auto r = run_swapsim({"params"});
    REQUIRE(r.status == 0);
    CHECK(r.err.empty());
    for (const auto& d : registry().all()) {
        INFO(d.name);
        CHECK(r.out.find("\n" + d.name + (d.fitted ? "*" : "") + " ") != std::string::npos);
    }
    CHECK(r.out.find("\nkernel.memcg.high ") != std::string::npos);
    CHECK(r.out.find("\nswap.ssd.write_bw* ") != std::string::npos);

    r = run_swapsim({"params", "--json"});
    REQUIRE(r.status == 0);
    json all = json::parse(r.out);
    REQUIRE(all.is_array());
    REQUIRE(all.size() == registry().all().size());
    for (size_t i = 0; i < all.size(); i++) {
        const ParamDef& d = registry().all()[i];
        INFO(d.name);
        CHECK(all[i]["name"] == d.name);
        CHECK(all[i]["kind"] == kind_name(d.kind));
        CHECK(all[i]["fitted"] == d.fitted);
        CHECK(all[i]["doc"] == d.doc);
        CHECK(all[i]["source"] == d.source);
        CHECK(all[i].contains("default_text"));
        CHECK(all[i].contains("range"));
    }
    json high = *std::find_if(all.begin(), all.end(), [](const json& p) { return p["name"] == "kernel.memcg.high"; });
    CHECK(high["default"] == "max");
    CHECK(high["allow_max"] == true);

    r = run_swapsim({"params", "--json", "--category", "machine"});
    REQUIRE(r.status == 0);
    json machine = json::parse(r.out);
    size_t n = 0;
    for (const auto& d : registry().all())
        n += d.cat == Category::Machine;
    CHECK(machine.size() == n);
    for (const auto& p : machine)
        CHECK(p["category"] == "machine");

    r = run_swapsim({"params", "--category", "disk"});
    CHECK(r.status == 2);
    CHECK(r.out.empty());
    CHECK(r.err.find("unknown category 'disk'; expected one of: meta, machine, swap, kernel, workload, cost, sim") !=
          std::string::npos);
}

TEST_CASE("schema: prints the generated schema", "[cli][schema]")
{
    auto r = run_swapsim({"schema"});
    CHECK(r.status == 0);
    CHECK(r.out == json_schema().dump(2) + "\n");
    r = run_swapsim({"schema", "extra"});
    CHECK(r.status == 2);
    CHECK(r.out.empty());
}

TEST_CASE("compare: --set goes to every run, and a bad key fails with the run's message, exit 2", "[cli]")
{
    auto r = run_swapsim({"compare", "zswap-mthp-v7/iaa-batching-64k", "--runs", "1", "-j", "2", "--no-write",
                          "--set", "cost.iaa.fixed.comp_base_nx=1200"});
    CHECK(r.status == 2);
    CHECK(r.out.empty());
    std::string last = r.err.substr(r.err.rfind("swapsim compare: "));
    CHECK(last.find("$.cost.iaa.fixed.comp_base_nx: unknown key; did you mean \"cost.iaa.fixed.comp_base_ns\"?") !=
          std::string::npos);
    CHECK(last.find('\n') == last.size() - 1);
}
