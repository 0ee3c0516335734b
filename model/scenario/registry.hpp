// The parameter registry: the single list of every scenario key and model cost.
//
// Every key a scenario may set, every default, unit, range, one-line doc and the source of the
// default lives in one ParamDef. Validation, `swapsim params`, `swapsim schema`, the effective
// configuration dump and the calibrator's list of free parameters are all derived from it.
// The dotted name mirrors the JSON nesting: "kernel.memcg.high" is {"kernel":{"memcg":{"high":..}}}.
// Rows are declared in the params.cpp of the folder whose code reads them, each naming the
// typed field of scenario::Settings it fills (scenario/param_table.hpp, scenario/settings.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <typeinfo>
#include <vector>

#include <nlohmann/json.hpp>

namespace swapsim::scenario {

enum class Kind {
    Int,      // integer count; bare JSON number
    Real,     // real number; bare JSON number (unit says what it is: cycles, ns, ratio, %)
    Bool,
    Enum,     // one of options
    String,   // free text
    Size,     // bytes: "40G", "64K", "1536M" (binary, as memparse), or a bare number of bytes
    Time,     // seconds: "10s", "500ms", "3us", "120ns", or a bare number of seconds
    Rate,     // bytes/s: "530MB/s" (decimal), "2GiB/s" (binary), or a bare number of bytes/s
    Freq,     // Hz: "2.5GHz", "2500MHz", or a bare number of Hz
    CpuList,  // "all" or a kernel cpulist: "0-55,112-167"
    SizeList, // folio sizes: "64K", "16K,64K", ["16K","64K"], or "none"
};

enum class Category { Meta, Machine, Swap, Kernel, Workload, Cost, Sim };

class Config;
struct Settings;   // the typed fields the parameters fill (scenario/settings.hpp)

// One field of one of Settings' structs: its type, where it sits and which section reaches it.
struct FieldRef {
    const std::type_info* owner = nullptr;   // the struct the field belongs to
    size_t offset = 0, size = 0;              // bytes within that struct
    const void* section = nullptr;            // the accessor from Settings to that struct
};

const char* kind_name(Kind k);
const char* category_name(Category c);

struct ParamDef {
    std::string name;                   // dotted path
    Kind kind = Kind::Real;
    std::string unit;                   // as printed: "bytes", "s", "bytes/s", "Hz", "cycles", "ns", "pages", "%", ""
    nlohmann::json def;                 // default in canonical form (numbers in base units)
    double min = -std::numeric_limits<double>::infinity();  // inclusive, base units
    double max = std::numeric_limits<double>::infinity();   // inclusive, base units
    bool min_exclusive = false;         // value must be > min
    bool allow_max = false;             // the string "max" is accepted and means +inf (memory.high style)
    std::vector<std::string> options;   // Enum
    std::string doc;                    // one line
    std::string source;                 // where the default comes from
    Category cat = Category::Cost;
    bool fitted = false;                // calibration may tune it; reproduction scenarios must not set it
    bool required = false;              // a scenario must give it
    bool fit_default = false;           // in `swapsim calibrate`'s default set of free parameters
    // Where the value goes (scenario/settings.hpp): `fill` writes `field` of the Settings, or
    // `no_field` says why nothing does (validated only, or read by the report).
    std::function<void(const Config&, const ParamDef&, Settings&)> fill = {};
    bool fill_late = false;             // after the other rows: it reads fields they fill (machine.cpu_freq)
    FieldRef field = {};
    std::string no_field = {};
};

class Registry {
public:
    void add(ParamDef d);                                   // throws std::logic_error on a duplicate
    const ParamDef* find(std::string_view name) const;     // nullptr if unknown
    const std::vector<ParamDef>& all() const { return defs_; }
    // Nearest known name (edit distance on the dotted path and on its last component), or "".
    // `prefix` restricts candidates to keys below that object ("kernel.memcg").
    std::string nearest(std::string_view name, std::string_view prefix = {}) const;
    // Same, among parameter names only (for keys that must name a parameter).
    std::string nearest_param(std::string_view name) const;
    // True if `name` is an object prefix of some key ("kernel", "kernel.memcg").
    bool is_object(std::string_view name) const;
    // `swapsim calibrate`'s default free parameters, in the order it frees them.
    const std::vector<std::string>& fit_defaults() const { return fit_defaults_; }
    void set_fit_defaults(std::vector<std::string> names);   // marks them fit_default; throws std::logic_error if unknown

private:
    std::string nearest_impl(std::string_view name, std::string_view prefix, bool objects) const;

    std::vector<ParamDef> defs_;
    std::map<std::string, size_t, std::less<>> index_;
    std::set<std::string, std::less<>> objects_;   // every proper prefix of a key
    std::vector<std::string> fit_defaults_;
};

// The program's registry (model/scenario/params.cpp).
const Registry& registry();

// A bad input: one line "FILE: $.json.path: what was expected (suggestion)". Exit status 2.
struct InputError : std::runtime_error {
    InputError(std::string file, std::string json_path, std::string message);
    std::string file, json_path, message;
};

// Value of one parameter after validation: numbers in base units (+inf for "max"),
// strings for Enum/String/CpuList, bool for Bool, array of numbers for SizeList.
class Config {
public:
    explicit Config(const Registry& reg = registry());
    explicit Config(Registry&&) = delete;  // keeps a pointer to the registry

    double num(std::string_view name) const;           // Int, Real, Size, Time, Rate, Freq
    int64_t i(std::string_view name) const;            // Int (or integral numbers)
    bool b(std::string_view name) const;
    const std::string& s(std::string_view name) const; // Enum, String, CpuList
    std::vector<double> list(std::string_view name) const;  // SizeList
    const nlohmann::json& value(std::string_view name) const;
    std::string show(std::string_view name) const;     // the value as a scenario writes it: "40G"

    // Parse and range-check `v` for `name` (JSON as written in a scenario, e.g. "40G"); throws InputError.
    void set(std::string_view name, const nlohmann::json& v, const std::string& file,
             const std::string& origin);
    // Same, naming `json_path` in errors ("$.values.cost.x" in a parameter file).
    void set(std::string_view name, const nlohmann::json& v, const std::string& file,
             const std::string& origin, const std::string& json_path);
    bool explicitly_set(std::string_view name) const;  // given by scenario, --set or a params file
    const std::string& origin(std::string_view name) const; // "default", "params:FILE", "scenario", "--set"

    nlohmann::json effective() const;   // nested JSON of every parameter, defaults included
    nlohmann::json flat() const;        // {"kernel.memcg.high": 4.29e10, ...}
    const Registry& reg() const { return *reg_; }

    // The scenario's "sources": parameter name -> where its value comes from.
    const std::map<std::string, std::string, std::less<>>& sources() const { return sources_; }
    void set_source(const std::string& name, const std::string& text) { sources_[name] = text; }

private:
    const ParamDef& def(std::string_view name) const;   // throws std::logic_error if unknown

    const Registry* reg_;
    std::map<std::string, nlohmann::json, std::less<>> values_;
    std::map<std::string, std::string, std::less<>> origins_;
    std::map<std::string, std::string, std::less<>> sources_;
};

struct LoadOptions {
    std::vector<std::string> sets;          // "--set key=value", applied last
    std::vector<std::string> param_files;   // "--params FILE", applied after the scenario
    bool builtin_params = true;             // apply the compiled-in calibrated set (calibration/params/default.json)
    const char* builtin_json = nullptr;     // text used as that set instead of default_params_json() (tests)
};

// Read a scenario file: strict JSON (line and column on a syntax error), known keys only
// (nearest-key suggestion), types, units, ranges, required keys, then cross-key checks
// (validate_semantics). Throws InputError.
Config load_scenario(const std::string& path, const LoadOptions& opt = {});
// Same, from text already in memory (`file` only names it in errors).
Config load_scenario_text(const std::string& text, const std::string& file, const LoadOptions& opt = {});
// Same, against another registry (tests).
Config load_scenario_text(const std::string& text, const std::string& file, const LoadOptions& opt,
                          const Registry& reg);

// Registry defaults with only the builtin set, the --params files and the --set arguments
// applied (no scenario, no required-key or cross-key checks). Throws InputError.
Config load_defaults(const LoadOptions& opt = {}, const Registry& reg = registry());

// Cross-key checks: memory.high above RAM, more processes than CPUs allow, deflate-iaa without
// an IAA device, a compressor that is not modelled, ... Throws InputError naming the key.
void validate_semantics(const Config& cfg, const std::string& file);

// A scenario or parameter file's bytes (at most 16M; a FIFO without a writer reads as empty,
// never blocks). Throws InputError naming the file.
std::string read_input_file(const std::string& path);

// `s` cut to `max` bytes with "..." for messages (a 1 MB value is not echoed whole).
std::string clip(std::string_view s, size_t max = 60);

// Parsing helpers shared with the CLI (throw std::invalid_argument with a reason).
double parse_size(const nlohmann::json& v);
double parse_time(const nlohmann::json& v);
double parse_rate(const nlohmann::json& v);
double parse_freq(const nlohmann::json& v);
// "all" -> 0..nr_cpus-1; `item` names the ids in messages (another list than CPUs).
// The usemem processes this machine can simulate: each task's SimGrid stack takes two memory
// mappings (stack and guard page) of vm.max_map_count, beside the run's daemons and the
// process's other mappings.
constexpr int64_t sim_daemon_tasks = 3;      // watchdog, trace, progress
constexpr int64_t sim_other_maps = 2000;     // libraries, heap arenas, SimGrid's own
int64_t max_map_count();                     // /proc/sys/vm/max_map_count (65530 if unreadable)
int64_t max_simulated_tasks();
std::vector<int> parse_cpulist(const std::string& s, int nr_cpus, const std::string& item = "CPU");
std::string format_value(const ParamDef& d, const nlohmann::json& v);  // "40G", "2.5GHz", "10s", ...

// JSON Schema (draft-07) of the scenario format, generated from the registry.
nlohmann::json json_schema(const Registry& reg = registry());

// The compiled-in calibrated parameter set (calibration/params/default.json).
const char* default_params_json();

}  // namespace swapsim::scenario
