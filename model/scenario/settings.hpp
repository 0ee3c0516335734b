// Settings: every typed field a run reads from its scenario, and the binding of registry rows
// to them.
//
// A registry row names the field it fills (`.to(section, &Struct::field)` in the component's
// params.cpp); fill_settings() runs every row's fill, then derive() computes the fields no row
// states (the chosen compressor, the platform's copy of the topology). binding_problems() is
// the test's check that every row reaches a field and every field has a row or a derivation.
#pragma once

#include <string>
#include <type_traits>
#include <vector>

#include "engine/sim.hpp"
#include "kernel/config.hpp"
#include "scenario/registry.hpp"
#include "workload/kbuild.hpp"
#include "workload/redis.hpp"
#include "workload/swapinout.hpp"
#include "workload/usemem.hpp"

namespace swapsim::scenario {

// An IAA job's engine time on one 4 KiB page: base + 4 x per KiB (ns).
struct IaaJobNs {
    double comp_base = 0, comp_per_kb = 0, decomp_base = 0, decomp_per_kb = 0;
};

// Every compressor's cost on the workload's data; derive() copies the chosen one to kernel.comp.
struct Compressors {
    kernel::CompressorModel zstd, lz4, lzo_rle;        // CPU: comp_len, comp_s, decomp_s
    kernel::CompressorModel deflate_iaa, deflate_iaa_canned;   // IAA: comp_len (times from the jobs)
    IaaJobNs iaa_fixed, iaa_canned;
    double codec_speed = 1;   // machine.codec_speed: the CPU codecs' speed over the table machine's
};

// zram's rows as given; derive() turns them into kernel.zram's data model (the codec on the
// workload's data, from the measured table of scenario/compressors.hpp) and its swap slots.
struct ZramSettings {
    uint64_t disksize_pages = 0;     // swap.zram.disksize
    std::string comp_algorithm;      // swap.zram.comp_algorithm
    bool multi_pages = false;        // swap.zram.multi_pages
    unsigned multi_pages_order = 0;  // swap.zram.multi_pages_order
    double kernel_factor = 1;        // cost.compress.kernel_factor
    std::string data;                // workload.swapinout.data: the data kind written
    std::string redis_data;          // workload.redis.data: the data kind of redis-server's pages
    double zero_pages_pct = 0;       // workload.swapinout.zero_pages
};

enum class WorkloadType { Usemem, Swapinout, Kbuild, Redis };   // workload.type, in its options' order

struct Settings {
    kernel::KConfig kernel;
    WorkloadType workload = WorkloadType::Usemem;
    workload::UsememConfig usemem;
    workload::SwapinoutConfig swapinout;
    workload::RedisConfig redis;
    workload::KbuildConfig kbuild;
    ZramSettings zram;
    engine::PlatformSpec platform;
    Compressors compressors;
    std::vector<int> cpus;           // workload.cpus: the logical CPUs the tasks may use
    double time_limit = 3600;        // sim.time_limit
    double wall_limit = 3600;        // sim.wall_limit: wall-clock seconds of one run
    double rss_limit = 8.0 * (1ull << 30);   // sim.rss_limit: resident bytes of one run
};

// The sections rows bind into: accessors from Settings to one of its structs.
template <class S> using Section = S& (*)(Settings&);
namespace section {
inline Settings& run(Settings& s) { return s; }
inline kernel::KConfig& kernel(Settings& s) { return s.kernel; }
inline kernel::Costs& costs(Settings& s) { return s.kernel.c; }
inline hw::Topology& topology(Settings& s) { return s.kernel.topo; }
inline hw::BlockDevParams& ssd(Settings& s) { return s.kernel.ssd; }
inline hw::BlockDevParams& rootdev(Settings& s) { return s.kernel.rootdev; }
inline hw::HddParams& hdd(Settings& s) { return s.kernel.hdd; }
inline kernel::IaaConfig& iaa(Settings& s) { return s.kernel.iaa; }
inline hw::IaaParams& iaa_dev(Settings& s) { return s.kernel.iaa.dev; }
inline kernel::CompressorModel& compressor(Settings& s) { return s.kernel.comp; }
inline Compressors& compressors(Settings& s) { return s.compressors; }
inline kernel::CompressorModel& zstd(Settings& s) { return s.compressors.zstd; }
inline kernel::CompressorModel& lz4(Settings& s) { return s.compressors.lz4; }
inline kernel::CompressorModel& lzo_rle(Settings& s) { return s.compressors.lzo_rle; }
inline kernel::CompressorModel& deflate_iaa(Settings& s) { return s.compressors.deflate_iaa; }
inline kernel::CompressorModel& deflate_iaa_canned(Settings& s) { return s.compressors.deflate_iaa_canned; }
inline IaaJobNs& iaa_fixed(Settings& s) { return s.compressors.iaa_fixed; }
inline IaaJobNs& iaa_canned(Settings& s) { return s.compressors.iaa_canned; }
inline workload::UsememConfig& usemem(Settings& s) { return s.usemem; }
inline workload::SwapinoutConfig& swapinout(Settings& s) { return s.swapinout; }
inline workload::RedisConfig& redis(Settings& s) { return s.redis; }
inline workload::KbuildConfig& kbuild(Settings& s) { return s.kbuild; }
inline ZramSettings& zram_settings(Settings& s) { return s.zram; }
inline kernel::ZramConfig& zram(Settings& s) { return s.kernel.zram; }
inline engine::PlatformSpec& platform(Settings& s) { return s.platform; }
}  // namespace section

// How a row's value becomes its field. Auto: bool, enum (the C++ enum lists the row's options
// in order), string, integer (cast), or seconds for a double: cycles / machine.cpu_freq, ns x 1e-9,
// other units as they are. Pages: bytes / PAGE_SIZE, "max" as UINT64_MAX. Raw: the number as given.
enum class Conv { Auto, Pages, Raw };

size_t option_index(const ParamDef& d, const std::string& value);
uint64_t pages_or_max(double bytes);

template <class T>
T convert(const Config& cfg, const ParamDef& d, const Settings& s, Conv conv)
{
    if constexpr (std::is_same_v<T, bool>) {
        return cfg.b(d.name);
    } else if constexpr (std::is_enum_v<T>) {
        return T(option_index(d, cfg.s(d.name)));
    } else if constexpr (std::is_same_v<T, std::string>) {
        return cfg.s(d.name);
    } else if constexpr (std::is_integral_v<T>) {
        if (conv == Conv::Pages)
            return T(pages_or_max(cfg.num(d.name)));
        return d.kind == Kind::Int ? T(cfg.i(d.name)) : T(cfg.num(d.name));
    } else {
        static_assert(std::is_same_v<T, double>, "a row fills a bool, enum, string, integer or double");
        double x = cfg.num(d.name);
        if (conv == Conv::Raw)
            return x;
        if (d.unit == "cycles")
            return x / s.kernel.hz;
        if (d.unit == "ns")
            return x * 1e-9;
        return x;
    }
}

template <class S, class T>
FieldRef field_ref(Section<S> sec, T S::*m)
{
    static const S probe{};
    return {&typeid(S), size_t(reinterpret_cast<const char*>(&(probe.*m)) - reinterpret_cast<const char*>(&probe)),
            sizeof(T), reinterpret_cast<const void*>(sec)};
}

// A row being declared: says which field it fills.
struct Row {
    ParamDef& d;

    template <class S, class T>
    Row& to(Section<S> sec, T S::*m, Conv conv = Conv::Auto)
    {
        d.field = field_ref(sec, m);
        d.fill_late = d.unit == "cycles";
        d.fill = [sec, m, conv](const Config& cfg, const ParamDef& def, Settings& s) {
            sec(s).*m = convert<T>(cfg, def, s, conv);
        };
        return *this;
    }
    // Fills it with f(cfg, row, settings), after the rows without a function.
    template <class S, class T, class F>
    Row& to(Section<S> sec, T S::*m, F f)
    {
        d.field = field_ref(sec, m);
        d.fill_late = true;
        d.fill = [sec, m, f](const Config& cfg, const ParamDef& def, Settings& s) { sec(s).*m = f(cfg, def, s); };
        return *this;
    }
    // Reaches no field: what reads it instead, or why it has no effect.
    Row& no_field(const char* why)
    {
        d.no_field = why;
        return *this;
    }
};

// Every row's fill in registry order (late rows last), then derive(). Throws
// std::runtime_error for a combination the kernel cannot run (every IAA device offline).
Settings fill_settings(const Config& cfg);

// The watchdog's message when simulated time passes sim.time_limit, by workload.
std::string time_limit_message(const Config& cfg);
// The progress line: simulated time `now` against sim.time_limit.
std::string progress_message(const Config& cfg, double now);

// What the binding misses: a row with no field and no reason, two rows on one field, a field of
// a Settings struct that no row fills and derive() does not compute. Empty when all is bound.
std::vector<std::string> binding_problems(const Registry& reg);

}  // namespace swapsim::scenario
