// Registry, Config, scenario loading (order, origins, errors), cross-key checks, schema.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>

#include "run_cmd.hpp"
#include "scenario/detail.hpp"
#include "scenario/registry.hpp"

using namespace swapsim::scenario;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

constexpr double K = 1024, M = K * K, G = M * K;

ParamDef param(const std::string& name, Kind k, json def, Category c = Category::Kernel)
{
    ParamDef d;
    d.name = name;
    d.kind = k;
    d.def = std::move(def);
    d.cat = c;
    return d;
}

// What load_scenario_text throws, or "ok".
std::string load_error(const std::string& text, const LoadOptions& opt = {})
{
    try {
        load_scenario_text(text, "s.json", opt);
    } catch (const InputError& e) {
        return e.what();
    }
    return "ok";
}

std::string load_error(const std::string& text, const LoadOptions& opt, const Registry& reg)
{
    try {
        load_scenario_text(text, "s.json", opt, reg);
    } catch (const InputError& e) {
        return e.what();
    }
    return "ok";
}

struct ParamsFile {
    swapsim_test::TempFile f;
    explicit ParamsFile(const std::string& text) { std::ofstream(f.path) << text; }
    const std::string& path() const { return f.path; }
};

// A small registry: one cost, one kernel size, one required workload size.
Registry small_registry()
{
    Registry r;
    auto cost = param("cost.fault", Kind::Real, 100.0, Category::Cost);
    cost.unit = "cycles";
    cost.min = 0;
    cost.fitted = true;
    r.add(cost);
    auto high = param("kernel.memcg.high", Kind::Size, "max");
    high.min = 0;
    high.min_exclusive = true;
    high.allow_max = true;
    r.add(high);
    auto size = param("w.size", Kind::Size, 1 * G, Category::Workload);
    size.min = 0;
    size.min_exclusive = true;
    size.required = true;
    r.add(size);
    return r;
}

std::vector<fs::path> scenario_files()
{
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(fs::path(SWAPSIM_SOURCE_DIR) / "scenarios")) {
        std::string name = e.path().filename().string();
        if (e.path().extension() == ".json" && name.find(".schema.") == std::string::npos)
            files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    return files;
}

}  // namespace

TEST_CASE("registry lookup and object prefixes", "[registry]")
{
    const Registry& r = registry();
    const ParamDef* high = r.find("kernel.memcg.high");
    REQUIRE(high);
    CHECK(high->kind == Kind::Size);
    CHECK(high->allow_max);
    CHECK(r.find("kernel.memcg") == nullptr);
    CHECK(r.find("kernel.memcg.hig") == nullptr);
    CHECK(r.is_object("kernel"));
    CHECK(r.is_object("kernel.memcg"));
    CHECK_FALSE(r.is_object("kernel.memcg.high"));
    CHECK_FALSE(r.is_object("kern"));
    CHECK(std::string(kind_name(Kind::SizeList)) == "sizelist");
    CHECK(std::string(kind_name(Kind::Freq)) == "freq");
    CHECK(std::string(category_name(Category::Cost)) == "cost");
    CHECK(std::string(category_name(Category::Workload)) == "workload");
}

TEST_CASE("registry suggests the nearest key", "[registry]")
{
    const Registry& r = registry();
    CHECK(r.nearest("kernel.memcg.hihg") == "kernel.memcg.high");
    CHECK(r.nearest("kernel.memcg.hihg", "kernel.memcg") == "kernel.memcg.high");
    CHECK(r.nearest("kernal") == "kernel");
    CHECK(r.nearest("kernel.swapiness", "kernel") == "kernel.swappiness");
    CHECK(r.nearest("workload.usemem.nprocs") == "workload.usemem.nproc");
    CHECK(r.nearest("kernel.high", "kernel") == "kernel.memcg.high");  // right name, wrong object
    CHECK(r.nearest("machine.socket") == "machine.sockets");
    CHECK(r.nearest("totally.unrelated.xyzzy").empty());
    CHECK(r.nearest("kernel.zswap.high", "kernel.zswap").empty());  // nothing like it under zswap
    std::string p = r.nearest_param("kernel.memcg");
    CHECK((p.empty() || r.find(p) != nullptr));
    CHECK(r.nearest_param("kernel.memcg.hgih") == "kernel.memcg.high");
}

TEST_CASE("registry rejects duplicate and clashing names", "[registry]")
{
    Registry r;
    r.add(param("a.b", Kind::Int, 1));
    CHECK_THROWS_AS(r.add(param("a.b", Kind::Int, 1)), std::logic_error);
    CHECK_THROWS_AS(r.add(param("a", Kind::Int, 1)), std::logic_error);      // already an object
    CHECK_THROWS_AS(r.add(param("a.b.c", Kind::Int, 1)), std::logic_error);  // below a parameter
    CHECK_THROWS_AS(r.add(param("sources.x", Kind::Int, 1)), std::logic_error);
    CHECK_THROWS_AS(r.add(param("a..c", Kind::Int, 1)), std::logic_error);
    CHECK_THROWS_AS(r.add(param("", Kind::Int, 1)), std::logic_error);
    r.add(param("a.c", Kind::Int, 1));
    CHECK(r.all().size() == 2);
    CHECK(r.is_object("a"));
}

TEST_CASE("InputError is one line: FILE: PATH: message", "[registry]")
{
    CHECK(std::string(InputError("f.json", "$.a.b", "bad").what()) == "f.json: $.a.b: bad");
    CHECK(std::string(InputError("f.json", "", "cannot read: x").what()) == "f.json: cannot read: x");
    InputError e("f", "$.x", "m");
    CHECK(e.file == "f");
    CHECK(e.json_path == "$.x");
    CHECK(e.message == "m");
}

TEST_CASE("every registry default is valid and canonical", "[config]")
{
    Config c;
    for (const auto& d : registry().all()) {
        INFO(d.name);
        CHECK(c.origin(d.name) == "default");
        CHECK_FALSE(c.explicitly_set(d.name));
        // The human form of the default parses back to the same canonical value.
        Config again;
        json human = format_value(d, c.value(d.name));
        if (d.kind == Kind::Int || d.kind == Kind::Real || d.kind == Kind::Bool)
            human = c.value(d.name);
        again.set(d.name, human, "t", "scenario");
        CHECK(again.value(d.name) == c.value(d.name));
    }
    CHECK(std::isinf(c.num("kernel.memcg.high")));
    CHECK(c.i("machine.sockets") == 2);
    CHECK(c.num("machine.dram") == 503 * G);
    CHECK(c.num("swap.ssd.latency") == 60e-6);
    CHECK(c.num("machine.cpu_freq") == 2.5e9);
    CHECK(c.s("workload.cpus") == "all");
    CHECK(c.s("kernel.zswap.compressor") == "zstd");
    CHECK(c.b("kernel.thp_swap"));
    CHECK(c.list("kernel.mthp.enabled").empty());
    CHECK(c.i("workload.membind") == -1);
}

TEST_CASE("Config accessors refuse the wrong kind", "[config]")
{
    Config c;
    CHECK_THROWS_AS(c.b("machine.sockets"), std::logic_error);
    CHECK_THROWS_AS(c.num("name"), std::logic_error);
    CHECK_THROWS_AS(c.s("machine.sockets"), std::logic_error);
    CHECK_THROWS_AS(c.list("machine.dram"), std::logic_error);
    CHECK_THROWS_AS(c.num("no.such.key"), std::logic_error);
    CHECK_THROWS_AS(c.i("kernel.memcg.high"), std::logic_error);  // "max" is not an integer
}

TEST_CASE("Config::set parses by kind and checks ranges", "[config]")
{
    Config c;
    auto err = [&](const char* key, const json& v) -> std::string {
        try {
            c.set(key, v, "f.json", "scenario");
        } catch (const InputError& e) {
            return e.what();
        }
        return "ok";
    };
    c.set("kernel.memcg.high", "40G", "f.json", "scenario");
    CHECK(c.num("kernel.memcg.high") == 40 * G);
    CHECK(c.origin("kernel.memcg.high") == "scenario");
    CHECK(c.explicitly_set("kernel.memcg.high"));
    c.set("kernel.memcg.high", "max", "f.json", "scenario");
    CHECK(std::isinf(c.num("kernel.memcg.high")));
    c.set("machine.sockets", 1.0, "f.json", "scenario");
    CHECK(c.i("machine.sockets") == 1);
    CHECK(c.value("machine.sockets").is_number_integer());
    c.set("swap.ssd.latency", "90us", "f.json", "scenario");
    CHECK(c.num("swap.ssd.latency") == 90e-6);
    c.set("machine.cpu_freq", "2GHz", "f.json", "scenario");
    CHECK(c.num("machine.cpu_freq") == 2e9);

    CHECK(err("kernel.memcg.high", -1) == "f.json: $.kernel.memcg.high: expected a size > 0 or \"max\", got -1");
    CHECK(err("kernel.memcg.high", 0) == "f.json: $.kernel.memcg.high: expected a size > 0 or \"max\", got 0");
    CHECK(err("kernel.memcg.high", "2000T") ==
          "f.json: $.kernel.memcg.high: expected a size <= 1e15 or \"max\", got \"2000T\"");
    CHECK(err("kernel.memcg.high", "12Q") ==
          "f.json: $.kernel.memcg.high: expected a size like \"40G\", \"64K\", a number of bytes or \"max\", got \"12Q\"");
    CHECK(err("machine.sockets", "two") == "f.json: $.machine.sockets: expected an integer, got \"two\"");
    CHECK(err("machine.sockets", 2.5) == "f.json: $.machine.sockets: expected an integer, got 2.5");
    CHECK(err("machine.sockets", 17) == "f.json: $.machine.sockets: expected an integer from 1 to 16, got 17");
    CHECK(err("machine.sockets", 1e20) == "f.json: $.machine.sockets: expected an integer from 1 to 16, got 1e+20");
    CHECK(err("kernel.thp_swap", "false") == "f.json: $.kernel.thp_swap: expected true or false, got \"false\"");
    CHECK(err("kernel.zswap.compressor", "zsdt") ==
          "f.json: $.kernel.zswap.compressor: expected one of \"zstd\", \"lz4\", \"lzo-rle\", \"deflate-iaa\", "
          "\"deflate-iaa-canned\", got \"zsdt\"; did you mean \"zstd\"?");
    CHECK(err("kernel.zswap.compressor", "gzip").find("did you mean") == std::string::npos);
    CHECK(err("swap.ssd.latency", "2s") == "f.json: $.swap.ssd.latency: expected a time <= 1s, got \"2s\"");
    CHECK(err("name", 5) == "f.json: $.name: expected a string, got 5");
    CHECK(err("workload.cpus", "5-3") ==
          "f.json: $.workload.cpus: expected a CPU list like \"0-55,112-167\" or \"all\", got \"5-3\" "
          "(range 5-3 ends before it starts)");
    // A failed set leaves the old value.
    CHECK(c.i("machine.sockets") == 1);
}

TEST_CASE("SizeList: folio sizes as a string, list or array", "[config]")
{
    Config c;
    auto set = [&](const json& v) {
        c.set("kernel.mthp.enabled", v, "f.json", "scenario");
        return c.list("kernel.mthp.enabled");
    };
    using V = std::vector<double>;
    CHECK(set("64K") == V{64 * K});
    CHECK(set("16K,64K") == V{16 * K, 64 * K});
    CHECK(set(json::array({"64K", "16K", "64K"})) == V{16 * K, 64 * K});
    CHECK(set("none").empty());
    CHECK(set(json::array()).empty());
    CHECK(set(2 * M) == V{2 * M});
    CHECK(set(json::array({8192, "2M"})) == V{8 * K, 2 * M});
    CHECK(c.value("kernel.mthp.enabled").is_array());
    auto err = [&](const json& v) -> std::string {
        try {
            set(v);
        } catch (const InputError& e) {
            return e.what();
        }
        return "ok";
    };
    CHECK(err("48K") == "f.json: $.kernel.mthp.enabled: expected folio sizes that are powers of two from 8K to 2M, got \"48K\"");
    CHECK(err(json::array({"16K", "4K"})) ==
          "f.json: $.kernel.mthp.enabled[1]: expected folio sizes that are powers of two from 8K to 2M, got \"4K\"");
    CHECK(err("4M").find("powers of two from 8K to 2M") != std::string::npos);
    CHECK(err(json::array({"16K", true})).rfind("f.json: $.kernel.mthp.enabled[1]: expected folio sizes like", 0) == 0);
    CHECK(err("").rfind("f.json: $.kernel.mthp.enabled: expected folio sizes like", 0) == 0);
    CHECK(err("16K,,64K") != "ok");
    CHECK(err(true) != "ok");
}

TEST_CASE("effective() and flat() hold every registry key", "[config]")
{
    Config c;
    c.set("kernel.memcg.high", "40G", "f", "scenario");
    json eff = c.effective(), flat = c.flat();
    for (const auto& d : registry().all()) {
        std::string ptr = "/" + d.name;
        std::replace(ptr.begin(), ptr.end(), '.', '/');
        INFO(d.name);
        // kernel.version "none" is left out, so that results read as before presets existed.
        CHECK(eff.contains(json::json_pointer(ptr)) == (d.name != "kernel.version"));
        CHECK(flat.contains(d.name));
    }
    CHECK(flat.size() == registry().all().size());
    CHECK(eff["kernel"]["memcg"]["high"] == json(int64_t(40 * G)));
    CHECK(eff["kernel"]["memcg"]["max"] == "max");
    CHECK(flat["kernel.memcg.swap_max"] == "max");
    CHECK(flat["machine.sockets"] == 2);
    CHECK(eff["workload"]["usemem"]["sleep"] == 10.0);
    CHECK(eff.dump().find("null") == std::string::npos);  // no inf leaked as null
}

TEST_CASE("load order: defaults, builtin params, scenario, --params, --set", "[load]")
{
    Registry r = small_registry();
    LoadOptions opt;
    const char* builtin = R"({"comment": "test", "values": {"cost.fault": 200}})";
    opt.builtin_json = builtin;

    Config c = load_scenario_text(R"({"w": {"size": "2G"}})", "s.json", opt, r);
    CHECK(c.num("cost.fault") == 200);
    CHECK(c.origin("cost.fault") == "params:calibration/params/default.json");
    CHECK(c.origin("w.size") == "scenario");
    CHECK(c.origin("kernel.memcg.high") == "default");

    c = load_scenario_text(R"({"w": {"size": "2G"}, "cost": {"fault": 300}})", "s.json", opt, r);
    CHECK(c.num("cost.fault") == 300);
    CHECK(c.origin("cost.fault") == "scenario");

    ParamsFile p1(R"({"values": {"cost.fault": 400}, "iterations": 12, "train": ["a"]})");
    ParamsFile p2(R"({"values": {"cost": {"fault": 500}}})");
    opt.param_files = {p1.path(), p2.path()};
    c = load_scenario_text(R"({"w": {"size": "2G"}, "cost": {"fault": 300}})", "s.json", opt, r);
    CHECK(c.num("cost.fault") == 500);
    CHECK(c.origin("cost.fault") == "params:" + p2.path());

    opt.sets = {"cost.fault=600", "kernel.memcg.high=40G", "w.size=3G"};
    c = load_scenario_text(R"({"w": {"size": "2G"}, "cost": {"fault": 300}})", "s.json", opt, r);
    CHECK(c.num("cost.fault") == 600);
    CHECK(c.origin("cost.fault") == "--set");
    CHECK(c.num("kernel.memcg.high") == 40 * G);
    CHECK(c.num("w.size") == 3 * G);

    opt.builtin_params = false;
    opt.param_files.clear();
    opt.sets.clear();
    c = load_scenario_text(R"({"w": {"size": "2G"}})", "s.json", opt, r);
    CHECK(c.num("cost.fault") == 100);
    CHECK(c.origin("cost.fault") == "default");
}

TEST_CASE("the compiled-in calibrated set is valid and applied", "[load]")
{
    json builtin = json::parse(default_params_json());
    REQUIRE(builtin.contains("values"));
    Config c = load_scenario_text("{}", "s.json");
    for (const auto& [k, v] : builtin["values"].items()) {
        INFO(k);
        CHECK(c.origin(k) == "params:calibration/params/default.json");
        Config fresh;
        fresh.set(k, v, "t", "t");
        CHECK(c.value(k) == fresh.value(k));
    }
    LoadOptions bad;
    bad.builtin_json = R"({"values": {"cost.no_such_cost": 1}})";
    CHECK(load_error("{}", bad).rfind("builtin calibration/params/default.json: $.values.cost.no_such_cost: unknown key", 0) == 0);
    bad.builtin_json = R"({"values": )";
    CHECK(load_error("{}", bad).rfind("builtin calibration/params/default.json:1:12: malformed JSON", 0) == 0);
    // Fitted lock costs stay inside what a cache-line transfer and a short critical section take.
    bad.builtin_json = R"({"values": {"cost.lock.handoff_ns": 575}})";
    CHECK(load_error("{}", bad) == "builtin calibration/params/default.json: $.values.cost.lock.handoff_ns: expected a number from 20 to 300, got 575");
    bad.builtin_json = R"({"values": {"cost.zsmalloc.class_hold": 1559}})";
    CHECK(load_error("{}", bad) == "builtin calibration/params/default.json: $.values.cost.zsmalloc.class_hold: expected a number from 100 to 1000, got 1559");
}

TEST_CASE("required keys: scenario or --set must give them", "[load]")
{
    Registry r = small_registry();
    LoadOptions opt;
    opt.builtin_params = false;
    CHECK(load_error("{}", opt, r) == "s.json: $.w.size: missing required key");
    CHECK(load_error(R"({"w": {}})", opt, r) == "s.json: $.w.size: missing required key");
    CHECK(load_error(R"({"w": {"size": "1G"}})", opt, r) == "ok");
    opt.sets = {"w.size=1G"};
    CHECK(load_error("{}", opt, r) == "ok");
    json schema = json_schema(r);
    CHECK(schema["required"] == json::array({"w"}));
    CHECK(schema["properties"]["w"]["required"] == json::array({"size"}));
    CHECK_FALSE(schema["properties"]["kernel"].contains("required"));
}

TEST_CASE("scenario key errors name the path and suggest the fix", "[load]")
{
    CHECK(load_error(R"({"kernel": {"memcg": {"hihg": "40G"}}})") ==
          "s.json: $.kernel.memcg.hihg: unknown key; did you mean \"kernel.memcg.high\"?");
    CHECK(load_error(R"({"kernal": {}})") == "s.json: $.kernal: unknown key; did you mean \"kernel\"?");
    CHECK(load_error(R"({"kernel": {"high": "40G"}})") ==
          "s.json: $.kernel.high: unknown key; did you mean \"kernel.memcg.high\"?");
    CHECK(load_error(R"({"zzz": 1})") ==
          "s.json: $.zzz: unknown key; known keys at the top level: name, description, seed, machine, swap, kernel, "
          "workload, cost, sim");
    CHECK(load_error(R"({"kernel": {"memcg": "40G"}})") ==
          "s.json: $.kernel.memcg: expected an object with keys high, max, swap_max, root_lru, got \"40G\"");
    CHECK(load_error(R"({"kernel.memcg.high": "40G"})") ==
          "s.json: $.kernel.memcg.high: dotted keys are not allowed here; nest it as "
          "{\"kernel\": {\"memcg\": {\"high\": ...}}}");
    CHECK(load_error(R"({"sources": {"kernel.memcg.hgih": "x"}})") ==
          "s.json: $.sources.kernel.memcg.hgih: unknown key; did you mean \"kernel.memcg.high\"?");
    CHECK(load_error(R"({"sources": {"kernel.memcg.high": 5}})") ==
          "s.json: $.sources.kernel.memcg.high: expected a string saying where the value comes from, got 5");
    CHECK(load_error(R"({"$schema": 1})") ==
          "s.json: $.$schema: expected a string (the path of swapsim.schema.json), got 1");
    CHECK(load_error(R"({"": 1})") == "s.json: $[\"\"]: unknown key; known keys at the top level: name, "
                                      "description, seed, machine, swap, kernel, workload, cost, sim");
    CHECK(load_error("[1]") == "s.json: $: expected a JSON object at the top level, got [1]");
    CHECK(load_error(R"({"kernel": {"memcg": {"high": 1, "high": 2}}})") ==
          "s.json: $.kernel.memcg.high: duplicate key; each key may appear only once in an object");
    Config c = load_scenario_text(R"({"$schema": "x", "sources": {"machine.sockets": "seed 000"}})", "s.json");
    CHECK(c.sources().at("machine.sockets") == "seed 000");
}

TEST_CASE("malformed JSON: line and column, never a crash", "[load]")
{
    CHECK(load_error("{\n\"a\": 1\n\"b\": 2}") == "s.json:3:3: malformed JSON: unexpected string literal; expected '}'");
    CHECK(load_error(R"({"a": 1,})") == "s.json:1:9: malformed JSON: unexpected '}'; expected string literal");
    CHECK(load_error("{\"a\": 1") == "s.json:1:8: malformed JSON: unexpected end of input; expected '}'");
    CHECK(load_error("") == "s.json: empty file: expected a JSON object");
    CHECK(load_error(" \n\t") == "s.json: empty file: expected a JSON object");
    CHECK(load_error("{\"a\": tru}") == "s.json:1:10: malformed JSON: invalid literal");
    CHECK(load_error("{} x") == "s.json:1:4: malformed JSON: invalid literal; expected end of input");
    CHECK(load_error(R"({"machine": {"sockets": 1e999}})") ==
          "s.json:1:29: malformed JSON: number overflow parsing '1e999'");
    std::string deep = "{\"a\": " + std::string(1000000, '[') + std::string(1000000, ']') + "}";
    CHECK(load_error(deep) == "s.json:1:70: malformed JSON: nested deeper than 64 levels");
    std::string garbage("\x7f" "ELF\x02\x01\x01\x00\xff\xfe\n{", 12);
    CHECK(load_error(garbage) == "s.json:1:1: malformed JSON: invalid literal");
    CHECK(load_error("{\"a\": \"\xff\"}") == "s.json:1:8: malformed JSON: invalid string: ill-formed UTF-8 byte");
    // Many keys: rejected at the first unknown one, without quadratic work.
    std::string many = "{";
    for (int i = 0; i < 200000; i++)
        many += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":0";
    many += "}";
    CHECK(load_error(many).rfind("s.json: $.k0: unknown key", 0) == 0);
    CHECK(load_error(R"({"machine": {"sockets": 99999999999999999999999}})") ==
          "s.json: $.machine.sockets: expected an integer from 1 to 16, got 9.999999999999999e+22");
}

TEST_CASE("command-line overrides (--set): forms and errors", "[load]")
{
    auto with = [](std::vector<std::string> sets) {
        LoadOptions o;
        o.sets = std::move(sets);
        return o;
    };
    Config c = load_scenario_text("{}", "s.json",
                                  with({"kernel.memcg.high=40G", "machine.sockets=1", "kernel.thp_swap=false",
                                        "kernel.mthp.enabled=16K,64K", "name=two words", "workload.cpus=0-55",
                                        "kernel.memcg={\"max\": \"50G\"}"}));
    CHECK(c.num("kernel.memcg.high") == 40 * G);
    CHECK(c.num("kernel.memcg.max") == 50 * G);
    CHECK(c.i("machine.sockets") == 1);
    CHECK_FALSE(c.b("kernel.thp_swap"));
    CHECK(c.list("kernel.mthp.enabled") == std::vector<double>{16 * K, 64 * K});
    CHECK(c.s("name") == "two words");
    CHECK(c.s("workload.cpus") == "0-55");
    CHECK(c.origin("kernel.memcg.max") == "--set");
    c = load_scenario_text("{}", "s.json", with({"kernel.mthp.enabled=[\"2M\"]", "name=\"quoted\""}));
    CHECK(c.list("kernel.mthp.enabled") == std::vector<double>{2 * M});
    CHECK(c.s("name") == "quoted");

    CHECK(load_error("{}", with({"kernel.memcg.hihg=40G"})) ==
          "--set: $.kernel.memcg.hihg: unknown key; did you mean \"kernel.memcg.high\"?");
    CHECK(load_error("{}", with({"machine.sockets=two"})) == "--set: $.machine.sockets: expected an integer, got \"two\"");
    CHECK(load_error("{}", with({"machine.sockets"})) == "--set: expected key=value, got \"machine.sockets\"");
    CHECK(load_error("{}", with({"=1"})) == "--set: expected key=value, got \"=1\"");
    CHECK(load_error("{}", with({"kernel=1"})).rfind("--set: $.kernel: expected an object with keys memcg, vm, mthp", 0) == 0);
}

TEST_CASE("parameter files (--params) may set only fitted parameters", "[load]")
{
    ParamsFile kernel(R"({"comment": "x", "values": {"kernel.memcg.high": "40G"}})");
    ParamsFile fitted(R"({"values": {"swap.ssd.write_bw": "450MB/s"}, "errors": {}})");
    ParamsFile typo(R"({"values": {"swap.ssd.write_bv": 1}})");
    ParamsFile novalues(R"({"comment": "x"})");
    ParamsFile array("[]");
    LoadOptions o;
    o.param_files = {kernel.path()};
    CHECK(load_error("{}", o) ==
          kernel.path() + ": $.values.kernel.memcg.high: a parameter file may only set model costs (fitted parameters)");
    o.param_files = {fitted.path()};
    Config c = load_scenario_text(R"({"swap": {"ssd": {"write_bw": "400MB/s"}}})", "s.json", o);
    CHECK(c.num("swap.ssd.write_bw") == 450e6);
    CHECK(c.origin("swap.ssd.write_bw") == "params:" + fitted.path());
    o.param_files = {typo.path()};
    CHECK(load_error("{}", o) == typo.path() + ": $.values.swap.ssd.write_bv: unknown key; did you mean \"swap.ssd.write_bw\"?");
    o.param_files = {novalues.path()};
    CHECK(load_error("{}", o) == novalues.path() + ": $.values: missing required key");
    o.param_files = {array.path()};
    CHECK(load_error("{}", o) == array.path() + ": $: expected a JSON object {\"values\": {...}}, got []");
    o.param_files = {"/nonexistent/p.json"};
    CHECK(load_error("{}", o) == "/nonexistent/p.json: cannot read: No such file or directory");
}

TEST_CASE("load_scenario reports unreadable files", "[load]")
{
    try {
        load_scenario("/nonexistent/s.json");
        FAIL("no error");
    } catch (const InputError& e) {
        CHECK(std::string(e.what()) == "/nonexistent/s.json: cannot read: No such file or directory");
    }
    try {
        load_scenario(SWAPSIM_SOURCE_DIR "/scenarios");
        FAIL("no error");
    } catch (const InputError& e) {
        CHECK(std::string(e.what()) == SWAPSIM_SOURCE_DIR "/scenarios: cannot read: Is a directory");
    }
}

TEST_CASE("cross-key checks", "[semantics]")
{
    CHECK(load_error(R"({"kernel": {"memcg": {"high": "600G"}}})") ==
          "s.json: $.kernel.memcg.high: memory.high 600G is above RAM (machine.dram = 503G): lower it or set it to \"max\"");
    CHECK(load_error(R"({"kernel": {"memcg": {"max": "1T"}}})").rfind("s.json: $.kernel.memcg.max: memory.max 1T is above RAM", 0) == 0);
    CHECK(load_error(R"({"kernel": {"memcg": {"high": "40G", "max": "30G"}}})") == "ok");  // high > max is allowed
    CHECK(load_error(R"({"kernel": {"memcg": {"high": "600G"}}, "machine": {"dram": "1T"}})") == "ok");
    // More than RAM and swap hold: the OOM killer's business, not an input error.
    CHECK(load_error(R"({"workload": {"usemem": {"nproc": 1400}}})") == "ok");
    CHECK(load_error(R"({"swap": {"device": "none"}, "kernel": {"zswap": {"enabled": false}},
                        "workload": {"usemem": {"nproc": 600}}})") == "ok");
    // Watermarks that reach RAM contradict it.
    CHECK(load_error(R"({"machine": {"dram": "1G"}, "kernel": {"vm": {"min_free_kbytes": 1048576}}})") ==
          "s.json: $.kernel.vm.min_free_kbytes: the high watermark (min_free_kbytes 1048576 KiB, watermark_scale_factor 10) "
          "is 1536M, not below RAM (machine.dram = 1G): kswapd could never free that much; lower them");
    CHECK(load_error(R"({"machine": {"dram": "16G"}, "kernel": {"vm": {"watermark_scale_factor": 3000}}})") == "ok");
    CHECK(load_error(R"({"workload": {"cpus": "0-223"}})") == "ok");
    CHECK(load_error(R"({"workload": {"cpus": "0-55,224"}})") ==
          "s.json: $.workload.cpus: CPU 224 does not exist: machine.sockets x cores_per_socket x threads_per_core = "
          "2 x 56 x 2 = 224 logical CPUs (0-223; 112-223 are the SMT siblings of 0-111)");
    CHECK(load_error(R"({"workload": {"cpus": "8"}, "machine": {"sockets": 1, "cores_per_socket": 8, "threads_per_core": 1}})") ==
          "s.json: $.workload.cpus: CPU 8 does not exist: machine.sockets x cores_per_socket x threads_per_core = "
          "1 x 8 x 1 = 8 logical CPUs (0-7)");
    CHECK(load_error(R"({"workload": {"membind": 1}})") == "ok");
    CHECK(load_error(R"({"workload": {"membind": 2}})") ==
          "s.json: $.workload.membind: NUMA node 2 does not exist: machine.sockets = 2 gives nodes 0-1; use one of them "
          "or -1 for local allocation");
    CHECK(load_error(R"({"kernel": {"zswap": {"compressor": "deflate-iaa-canned"}}, "machine": {"iaa": {"devices_per_socket": 0}}})") ==
          "s.json: $.kernel.zswap.compressor: deflate-iaa-canned needs an IAA device: set "
          "machine.iaa.devices_per_socket > 0 or choose zstd");
    CHECK(load_error(R"({"kernel": {"zswap": {"compressor": "deflate-iaa", "enabled": false}}})") == "ok");
    CHECK(load_error(R"({"swap": {"device": "none"}})") ==
          "s.json: $.swap.device: zswap needs a swap device (zswap entries are indexed by swap slots): set "
          "swap.device or kernel.zswap.enabled=false");
    CHECK(load_error(R"({"swap": {"device": "none"}, "kernel": {"zswap": {"enabled": false}}})") == "ok");
    // The error names the input that set the key.
    LoadOptions o;
    o.sets = {"kernel.memcg.high=600G"};
    CHECK(load_error("{}", o).rfind("--set: $.kernel.memcg.high: memory.high 600G is above RAM", 0) == 0);
}

TEST_CASE("cross-key checks use parameters only when registered", "[semantics]")
{
    // With an IAA device parameter defaulting to none, deflate-iaa needs a device set.
    Registry r;
    for (const auto& d : registry().all()) {
        ParamDef x = d;
        if (x.name == "machine.iaa.devices_per_socket")
            x.def = 0;
        r.add(x);
    }
    LoadOptions o;
    const char* s = R"({"kernel": {"zswap": {"compressor": "deflate-iaa"}}, "machine": {"iaa": {"devices_per_socket": 4}}})";
    CHECK(load_error(s, o, r) == "ok");
    const char* none = R"({"kernel": {"zswap": {"compressor": "deflate-iaa"}}})";
    CHECK(load_error(none, o, r).find("deflate-iaa needs an IAA device") != std::string::npos);
    // A registry without the checked keys skips the checks.
    Registry small = small_registry();
    Config c(small);
    CHECK_NOTHROW(validate_semantics(c, "s.json"));
}

TEST_CASE("schema: every key, closed objects, valid defaults", "[schema]")
{
    json s = json_schema();
    CHECK(s["$schema"] == "http://json-schema.org/draft-07/schema#");
    CHECK(s["additionalProperties"] == false);
    CHECK(s["properties"].contains("$schema"));
    CHECK(s["properties"]["sources"]["propertyNames"]["enum"].size() == registry().all().size());
    for (const auto& d : registry().all()) {
        INFO(d.name);
        const json* node = &s;
        size_t start = 0;
        std::string part;
        bool found = true;
        while (true) {
            size_t dot = d.name.find('.', start);
            part = d.name.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
            if (!(*node)["properties"].contains(part)) {
                found = false;
                break;
            }
            node = &(*node)["properties"][part];
            if (dot == std::string::npos)
                break;
            CHECK((*node)["additionalProperties"] == false);
            CHECK((*node)["type"] == "object");
            start = dot + 1;
        }
        REQUIRE(found);
        CHECK((*node)["description"].get<std::string>().rfind(d.doc, 0) == 0);
        const json& def = (*node)["default"];
        if (node->contains("pattern") && def.is_string())
            CHECK(std::regex_match(def.get<std::string>(), std::regex((*node)["pattern"].get<std::string>())));
        if (d.kind == Kind::Enum)
            CHECK((*node)["enum"] == json(d.options));
        // The schema's default loads back to the registry default.
        Config a, b;
        b.set(d.name, def, "schema", "scenario");
        CHECK(a.value(d.name) == b.value(d.name));
    }
    CHECK(s["properties"]["machine"]["properties"]["sockets"]["minimum"] == 1);
    CHECK(s["properties"]["machine"]["properties"]["sockets"]["maximum"] == 16);
    CHECK(s["properties"]["kernel"]["properties"]["memcg"]["properties"]["high"]["default"] == "max");
}

TEST_CASE("committed scenarios/swapsim.schema.json is current", "[schema]")
{
    std::string committed = swapsim_test::slurp(SWAPSIM_SOURCE_DIR "/scenarios/swapsim.schema.json");
    std::string generated = json_schema().dump(2) + "\n";
    INFO("stale schema: regenerate with `build/swapsim schema > scenarios/swapsim.schema.json`");
    CHECK(committed == generated);
}

TEST_CASE("every scenario in scenarios/ validates", "[scenarios]")
{
    auto files = scenario_files();
    for (const auto& f : files) {
        INFO(f.string());
        CHECK_NOTHROW(load_scenario(f.string()));
    }
    // An inline scenario in the same format, so this test checks loading even with no files.
    Config c = load_scenario_text(R"({
        "$schema": "swapsim.schema.json", "name": "inline",
        "kernel": {"memcg": {"high": "40G"}, "mthp": {"enabled": "64K"}, "zswap": {"compressor": "zstd"}},
        "workload": {"usemem": {"nproc": 70, "size": "1G", "sleep": "10s"}},
        "sources": {"kernel.memcg.high": "seed 000"}})",
                                  "inline.json");
    CHECK(c.num("kernel.memcg.high") == 40 * G);
    CHECK(c.s("name") == "inline");
}

TEST_CASE("scenarios/default.json is seed 000 case1-64k, with a source for each setting", "[scenarios]")
{
    std::string path = SWAPSIM_SOURCE_DIR "/scenarios/default.json";
    Config c = load_scenario(path);
    CHECK(c.s("name") == "default");
    CHECK(c.num("kernel.memcg.high") == 40 * G);
    CHECK(c.list("kernel.mthp.enabled") == std::vector<double>{64 * K});
    CHECK(c.i("kernel.page_cluster") == 2);
    CHECK(c.s("kernel.zswap.compressor") == "zstd");
    CHECK(c.i("workload.usemem.nproc") == 70);
    CHECK(c.num("workload.usemem.size") == 1 * G);
    CHECK(c.num("workload.usemem.sleep") == 10);
    CHECK(c.b("workload.usemem.init_time"));
    CHECK(c.b("workload.usemem.anonymous"));
}

TEST_CASE("every scenario records where each of its settings comes from, and sets no model cost", "[scenarios]")
{
    size_t files = 0;
    for (const auto& e : std::filesystem::recursive_directory_iterator(SWAPSIM_SOURCE_DIR "/scenarios")) {
        std::string p = e.path().string();
        if (e.path().extension() != ".json" || p.find(".schema.json") != std::string::npos)
            continue;
        files++;
        Config c = load_scenario(p);
        for (const auto& d : registry().all()) {
            if (c.origin(d.name) != "scenario" || d.cat == Category::Meta)
                continue;
            INFO(p << ": " << d.name);
            CHECK(c.sources().count(d.name) == 1);
            CHECK(d.cat != Category::Cost);
            CHECK_FALSE(d.fitted);
        }
    }
    CHECK(files >= 13);
}
