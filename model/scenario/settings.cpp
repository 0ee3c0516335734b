// fill_settings: the registry rows' fills, then the fields computed from them.
#include "scenario/settings.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <initializer_list>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "mm/types.hpp"
#include "scenario/compressors.hpp"

namespace swapsim::scenario {

size_t option_index(const ParamDef& d, const std::string& value)
{
    auto it = std::find(d.options.begin(), d.options.end(), value);
    if (it == d.options.end())
        throw std::logic_error(d.name + ": '" + value + "' is not one of its options");
    return size_t(it - d.options.begin());
}

uint64_t pages_or_max(double bytes)
{
    if (std::isinf(bytes))
        return UINT64_MAX;
    return uint64_t(bytes) / mm::PAGE_SIZE;
}

namespace {

// zram: its codec on the workload's data (workload.swapinout.data, or workload.redis.data for
// redis), per block order, from the measured table; usemem data keeps the fitted 4 KiB costs of cost.compress.<codec>.usemem_* and scales them by the
// table's block-size trend.
void derive_zram(Settings& s)
{
    kernel::KConfig& k = s.kernel;
    const ZramSettings& zs = s.zram;
    kernel::ZramConfig& z = k.zram;
    z.multi_order = zs.multi_pages ? zs.multi_pages_order : 0;
    const bool usemem = s.workload == WorkloadType::Usemem;
    const std::string& codec = zs.comp_algorithm;
    const std::string kind = usemem ? "usemem" : s.workload == WorkloadType::Redis ? zs.redis_data : zs.data;
    z.data.zero_share = usemem ? 0 : zs.zero_pages_pct / 100;
    // Table ns on one vCPU of the measurement VM, taken at 2.5 GHz as the usemem costs are.
    const double s_per_ns = zs.kernel_factor * 1e-9 * 2.5e9 / k.hz / s.compressors.codec_speed;
    const CodecPoint base = codec_point(codec, kind, 0);
    double len_scale = 1, comp_scale = s_per_ns, decomp_scale = s_per_ns;
    if (kind == "usemem") {
        const Compressors& t = s.compressors;
        const kernel::CompressorModel& m = codec == "zstd" ? t.zstd : codec == "lz4" ? t.lz4 : t.lzo_rle;
        len_scale = double(m.comp_len) / (base.ratio * double(mm::PAGE_SIZE));
        comp_scale = m.comp_s / (base.comp_ns);
        decomp_scale = m.decomp_s / (base.decomp_ns);
    }
    for (unsigned o = 0; o < z.data.kind.size(); o++) {
        CodecPoint a = codec_point(codec, kind, o), zp = codec_point(codec, "zero", o);
        z.data.kind[o] = {a.ratio * len_scale, a.comp_ns * comp_scale, a.decomp_ns * decomp_scale};
        z.data.zero[o] = {zp.ratio, zp.comp_ns * s_per_ns, zp.decomp_ns * s_per_ns};
    }
    if (k.dev == kernel::SwapDev::Zram)
        k.swap_slots = zs.disksize_pages;
}

// A coarser simulated page (sim.page_unit = U, a power of two up to 32): each simulated page is
// a run of U pages the kernel handles one by one. Sizes in pages are divided by U; per-page and
// per-folio work (faults, LRU moves, rmap, swap slots, compression, copies) costs U times as
// much; the batches sized in pages (memcg charge batch, SWAP_CLUSTER_MAX, the lru_add batch)
// hold the same number of pages, so their per-batch costs stay; per-call costs (a reclaim call,
// fork/exit of an mm, an OOM kill) stay. Order-0 folios only (mTHP orders are refused).
// Vmstat counters count units. Leaves out: the page-table pages (one per 512 units), the
// readahead window (page_cluster shrinks by log2 U), DRAM-bandwidth sharing of U-fold copies.
uint64_t div_pages(uint64_t pages, unsigned u) { return pages == UINT64_MAX ? pages : pages / u; }
unsigned div_batch(unsigned batch, unsigned u) { return std::max(1u, batch / u); }

void derive_page_unit(kernel::KConfig& k)
{
    const unsigned u = k.page_unit;
    if (u <= 1)
        return;
    // Checked by semantics.cpp page_unit_applies: a power of two, order-0 folios, kbuild.
    // Sizes in pages (the watermarks' RAM-derived default scales in setup_watermarks).
    k.dram_pages /= u;
    k.memcg_high = div_pages(k.memcg_high, u);
    k.memcg_max = div_pages(k.memcg_max, u);
    k.root_lru_pages = div_pages(k.root_lru_pages, u);
    k.memcg_swap_max = div_pages(k.memcg_swap_max, u);
    k.swap_slots /= u;
    k.swapfile_slots /= u;
    // Batches sized in pages hold the same pages.
    k.charge_batch = div_batch(k.charge_batch, u);
    k.swap_cluster_max = div_batch(k.swap_cluster_max, u);
    k.lru_add_batch = div_batch(k.lru_add_batch, u);
    k.free_batch = div_batch(k.free_batch, u);
    unsigned shift = 0;
    while ((1u << shift) < u)
        shift++;
    k.page_cluster = k.page_cluster > shift ? k.page_cluster - shift : 0;
    // Per-page and per-folio work: U pages' worth. Per batch (of the batches above) and per
    // call: as is. Rates (bytes/s of a page's copy) take U times as long.
    kernel::Costs& c = k.c;
    const std::initializer_list<double kernel::Costs::*> per_call = {
        &kernel::Costs::reclaim_entry, &kernel::Costs::shrink_round, &kernel::Costs::lru_lock_base, &kernel::Costs::charge,
        &kernel::Costs::counter_hold, &kernel::Costs::exit_mm, &kernel::Costs::fork_mm, &kernel::Costs::oom_kill,
        &kernel::Costs::slab_lookup_alloc, &kernel::Costs::slab_lookup_dentry, &kernel::Costs::slab_isolate,
        &kernel::Costs::slab_free_dentry, &kernel::Costs::slab_free_inode, &kernel::Costs::slab_shrinker_call};
    const std::initializer_list<double kernel::Costs::*> rates = {&kernel::Costs::zero_bw, &kernel::Costs::zs_copy_bw, &kernel::Costs::pmem_bw,
                                                          &kernel::Costs::cow_copy_bw};
    const std::initializer_list<double kernel::Costs::*> per_page = {
        &kernel::Costs::fault, &kernel::Costs::fault_per_pte, &kernel::Costs::alloc_folio, &kernel::Costs::alloc_per_page, &kernel::Costs::zone_lock_batch,
        &kernel::Costs::zone_lock_buddy, &kernel::Costs::free_one_page, &kernel::Costs::charge_stock, &kernel::Costs::lru_add_per_folio, &kernel::Costs::isolate_per_folio,
        &kernel::Costs::putback_per_folio, &kernel::Costs::rmap_walk, &kernel::Costs::rmap_per_pte, &kernel::Costs::tlb_flush, &kernel::Costs::tlb_irq,
        &kernel::Costs::add_to_swap, &kernel::Costs::si_lock_hold, &kernel::Costs::si_lock_per_slot, &kernel::Costs::si_alloc_per_range,
        &kernel::Costs::si_free_per_range, &kernel::Costs::swap_cache_add, &kernel::Costs::swap_cache_del, &kernel::Costs::swap_cache_per_page,
        &kernel::Costs::free_folio, &kernel::Costs::split_folio, &kernel::Costs::zswap_store_folio, &kernel::Costs::zswap_store_page,
        &kernel::Costs::zswap_invalidate_page, &kernel::Costs::zswap_tree_hold, &kernel::Costs::zs_class_hold, &kernel::Costs::zs_free_cold,
        &kernel::Costs::list_lru_hold, &kernel::Costs::zswap_load_page, &kernel::Costs::bio_submit, &kernel::Costs::bio_per_folio,
        &kernel::Costs::swapin_fault, &kernel::Costs::swap_cache_lookup, &kernel::Costs::xa_clear_walk, &kernel::Costs::xa_clear_per_slot,
        &kernel::Costs::table_add, &kernel::Costs::table_del, &kernel::Costs::table_per_slot, &kernel::Costs::table_lookup, &kernel::Costs::zap_per_pte,
        &kernel::Costs::zap_per_folio, &kernel::Costs::zap_per_swap, &kernel::Costs::cold_line, &kernel::Costs::fork_per_pte, &kernel::Costs::fork_per_swap_pte,
        &kernel::Costs::rmap_per_vma, &kernel::Costs::lock_handoff, &kernel::Costs::shadow_list_hold};
    // Every field is in one list: a new cost must say how it scales.
    static_assert(sizeof(kernel::Costs) == 70 * sizeof(double), "classify the new Costs field in derive_page_unit");
    if (per_call.size() + rates.size() + per_page.size() != 70)
        throw std::logic_error("derive_page_unit: Costs lists out of step");
    for (auto f : per_page)
        c.*f *= u;
    for (auto f : rates)
        c.*f /= u;
    // The compressors and zram, per page; the swap device's bandwidth.
    k.comp.comp_s *= u;
    k.comp.decomp_s *= u;
    for (auto* t : {&k.zram.data.kind, &k.zram.data.zero})
        for (kernel::BlockCost& b : *t) {
            b.comp_s *= u;
            b.decomp_s *= u;
        }
    for (double* z : {&k.zram.same_hit, &k.zram.same_miss, &k.zram.write_page, &k.zram.read_page, &k.zram.free_page})
        *z *= u;
    k.iaa.submit *= u;
    k.iaa.crc *= u;
    k.ssd.write_bw /= u;
    k.ssd.read_bw /= u;
    k.rootdev.read_bw /= u;
    k.rootdev.write_bw /= u;
    k.hdd_bw /= u;
}

// The fields no row states, computed from those that do.
void derive(Settings& s)
{
    kernel::KConfig& k = s.kernel;
    Compressors& t = s.compressors;
    // The compressor on the workload's data: CPU costs as given, IAA's from its engine jobs.
    auto iaa = [](kernel::CompressorModel& m, const IaaJobNs& j) {
        m.hw = true;
        m.comp_s = (j.comp_base + 4 * j.comp_per_kb) * 1e-9;
        m.decomp_s = (j.decomp_base + 4 * j.decomp_per_kb) * 1e-9;
    };
    iaa(t.deflate_iaa, t.iaa_fixed);
    iaa(t.deflate_iaa_canned, t.iaa_canned);
    for (kernel::CompressorModel* m : {&t.zstd, &t.lz4, &t.lzo_rle}) {   // a faster CPU's codecs
        m->comp_s /= t.codec_speed;
        m->decomp_s /= t.codec_speed;
    }
    const std::pair<const char*, const kernel::CompressorModel*> by_name[] = {
        {"zstd", &t.zstd}, {"lz4", &t.lz4}, {"lzo-rle", &t.lzo_rle},
        {"deflate-iaa", &t.deflate_iaa}, {"deflate-iaa-canned", &t.deflate_iaa_canned}};
    std::string name = k.comp.name;
    for (const auto& [n, m] : by_name)
        if (name == n)
            k.comp = *m;
    k.comp.name = name;

    s.platform.sockets = k.topo.sockets;
    s.platform.cores_per_socket = k.topo.cores_per_socket;
    s.platform.threads_per_core = k.topo.threads_per_core;
    s.platform.hz = k.hz;

    derive_zram(s);
    derive_page_unit(k);
    // The swapinout benchmark steps and writes as usemem does, on the first allowed CPU.
    s.swapinout.chunk = s.usemem.write_chunk;
    s.swapinout.user_bw = s.usemem.user_write_bw;
    s.swapinout.cpu = s.cpus.empty() ? 0 : s.cpus.front();
    // Redis: the server on the first allowed CPU, a BGSAVE child on the next; its populating
    // writes step as usemem's.
    s.redis.cpu = s.swapinout.cpu;
    s.redis.child_cpu = s.cpus.size() > 1 ? s.cpus[1] : s.redis.cpu;
    s.redis.user_bw = s.usemem.user_write_bw;
    s.redis.chunk = s.usemem.write_chunk;
    s.redis.seed = s.usemem.seed;
    // Kernel build: its memory loops step as usemem's, in units of sim.page_unit pages; the link
    // tail is link_steps equal steps.
    s.kbuild.page_unit = k.page_unit;
    s.kbuild.user_bw = s.usemem.user_write_bw / k.page_unit;   // bytes of a unit: U pages
    s.kbuild.chunk = s.usemem.write_chunk / k.page_unit;       // the same pages per step
    s.kbuild.seed = s.usemem.seed;
    s.kbuild.links.assign(size_t(std::max(0, s.kbuild.link_steps)),
                          workload::KbuildJob{s.kbuild.link_user_s, 0, s.kbuild.link_rss});

    const hw::IaaParams& dev = k.iaa.dev;
    if (k.comp.hw && k.zswap && int(dev.offline.size()) >= dev.devices_per_socket * k.topo.sockets)
        throw std::runtime_error("every IAA device is offline: deflate-iaa has no device");
}

// Fields derive() computes, and struct fields that are themselves sections (their own fields
// are checked instead).
std::vector<FieldRef> derived_fields()
{
    using namespace section;
    using kernel::CompressorModel;
    using kernel::KConfig;
    using engine::PlatformSpec;
    return {
        field_ref(compressor, &CompressorModel::hw),
        field_ref(platform, &PlatformSpec::sockets), field_ref(platform, &PlatformSpec::cores_per_socket),
        field_ref(platform, &PlatformSpec::threads_per_core), field_ref(platform, &PlatformSpec::hz),
        field_ref(zram, &kernel::ZramConfig::multi_order), field_ref(zram, &kernel::ZramConfig::data),
        field_ref(kernel, &KConfig::charge_batch), field_ref(kernel, &KConfig::swap_cluster_max),
        field_ref(kernel, &KConfig::free_batch),
        field_ref(swapinout, &workload::SwapinoutConfig::chunk), field_ref(swapinout, &workload::SwapinoutConfig::user_bw),
        field_ref(swapinout, &workload::SwapinoutConfig::cpu),
        field_ref(redis, &workload::RedisConfig::cpu), field_ref(redis, &workload::RedisConfig::child_cpu),
        field_ref(redis, &workload::RedisConfig::user_bw), field_ref(redis, &workload::RedisConfig::chunk),
        field_ref(redis, &workload::RedisConfig::seed),
        field_ref(kbuild, &workload::KbuildConfig::page_unit), field_ref(kbuild, &workload::KbuildConfig::user_bw),
        field_ref(kbuild, &workload::KbuildConfig::chunk), field_ref(kbuild, &workload::KbuildConfig::seed),
        field_ref(kbuild, &workload::KbuildConfig::links),
        // filled where the run starts (run.cpp): the compiled-in measured profile, the CPU placement
        field_ref(kbuild, &workload::KbuildConfig::profile), field_ref(kbuild, &workload::KbuildConfig::object_bytes),
        field_ref(kbuild, &workload::KbuildConfig::cpus),
        // sections
        field_ref(run, &Settings::kernel), field_ref(run, &Settings::usemem), field_ref(run, &Settings::platform),
        field_ref(run, &Settings::compressors), field_ref(run, &Settings::swapinout), field_ref(run, &Settings::zram),
        field_ref(run, &Settings::redis), field_ref(run, &Settings::kbuild),
        field_ref(kernel, &KConfig::zram), field_ref(kernel, &KConfig::topo), field_ref(kernel, &KConfig::comp),
        field_ref(kernel, &KConfig::iaa), field_ref(kernel, &KConfig::ssd), field_ref(kernel, &KConfig::hdd),
        field_ref(kernel, &KConfig::rootdev),
        // the files' disk is read only: its write side and request limits keep BlockDevParams' defaults
        field_ref(rootdev, &hw::BlockDevParams::write_bw), field_ref(rootdev, &hw::BlockDevParams::nr_requests),
        field_ref(rootdev, &hw::BlockDevParams::max_request),
        field_ref(kernel, &KConfig::c),
        field_ref(iaa, &kernel::IaaConfig::dev), field_ref(compressors, &Compressors::zstd),
        field_ref(compressors, &Compressors::lz4), field_ref(compressors, &Compressors::lzo_rle),
        field_ref(compressors, &Compressors::deflate_iaa), field_ref(compressors, &Compressors::deflate_iaa_canned),
        field_ref(compressors, &Compressors::iaa_fixed), field_ref(compressors, &Compressors::iaa_canned),
    };
}

// Number of fields of an aggregate: the most initializers T{...} takes.
struct AnyField {
    size_t i;
    template <class T>
    constexpr operator T&() const&& noexcept;
};
template <class T, size_t... I>
constexpr auto takes(std::index_sequence<I...>) -> decltype(T{AnyField{I}...}, true) { return true; }
template <class T, size_t...>
constexpr bool takes(...) { return false; }
template <class T, size_t N = 0>
constexpr size_t field_count()
{
    if constexpr (takes<T>(std::make_index_sequence<N + 1>{}))
        return field_count<T, N + 1>();
    else
        return N;
}

struct StructInfo {
    const std::type_info* type;
    const char* name;
    size_t fields, size;
};
template <class T>
StructInfo info(const char* name) { return {&typeid(T), name, field_count<T>(), sizeof(T)}; }

}  // namespace

Settings fill_settings(const Config& cfg)
{
    Settings s;
    for (bool late : {false, true})
        for (const ParamDef& d : cfg.reg().all())
            if (d.fill && d.fill_late == late)
                d.fill(cfg, d, s);
    derive(s);
    return s;
}

std::string time_limit_message(const Config& cfg)
{
    std::string before = cfg.s("workload.type") == "swapinout" ? std::string("the swapinout rounds finished")
                         : cfg.s("workload.type") == "redis"
                             ? fmt::format("redis-benchmark's {} GETs over {} keys finished; give it more memory or "
                                           "raise sim.time_limit",
                                           cfg.i("workload.redis.requests"), cfg.i("workload.redis.keyspace"))
                         : cfg.s("workload.type") == "kbuild"
                             ? fmt::format("make -j{} finished ({} units, memcg limit {}); give the cgroup more room or "
                                           "raise sim.time_limit",
                                           cfg.i("workload.kbuild.jobs"), cfg.i("workload.kbuild.units"),
                                           cfg.show("kernel.memcg.max"))
                             : fmt::format("the {} usemem processes finished (memory.high {}, {} each); give the cgroup "
                                           "more room or raise sim.time_limit",
                                           cfg.i("workload.usemem.nproc"), cfg.show("kernel.memcg.high"),
                                           cfg.show("workload.usemem.size"));
    return fmt::format("simulated time passed sim.time_limit ({}) before {}", cfg.show("sim.time_limit"), before);
}

std::string progress_message(const Config& cfg, double now)
{
    return fmt::format("{}: simulated {:.1f} s of at most {} (sim.time_limit)", cfg.s("name"), now, cfg.show("sim.time_limit"));
}

std::vector<std::string> binding_problems(const Registry& reg)
{
    const StructInfo structs[] = {
        info<Settings>("Settings"), info<kernel::KConfig>("kernel::KConfig"), info<kernel::Costs>("kernel::Costs"),
        info<kernel::CompressorModel>("kernel::CompressorModel"), info<kernel::IaaConfig>("kernel::IaaConfig"),
        info<hw::IaaParams>("hw::IaaParams"), info<hw::Topology>("hw::Topology"),
        info<hw::BlockDevParams>("hw::BlockDevParams"), info<hw::HddParams>("hw::HddParams"),
        info<workload::UsememConfig>("workload::UsememConfig"), info<workload::KbuildConfig>("workload::KbuildConfig"),
        info<engine::PlatformSpec>("engine::PlatformSpec"), info<Compressors>("Compressors"), info<IaaJobNs>("IaaJobNs"),
        info<workload::SwapinoutConfig>("workload::SwapinoutConfig"), info<ZramSettings>("ZramSettings"),
        info<workload::RedisConfig>("workload::RedisConfig"),
        info<kernel::ZramConfig>("kernel::ZramConfig"),
    };
    std::vector<std::string> bad;
    std::map<std::pair<const void*, size_t>, std::string> filled;     // (section, offset) -> row
    std::map<const std::type_info*, std::map<size_t, size_t>> covered;  // struct -> offset -> size
    for (const ParamDef& d : reg.all()) {
        if (!d.fill && d.no_field.empty()) {
            bad.push_back(d.name + ": fills no field and does not say why (.to(...) or .no_field(...))");
            continue;
        }
        if (!d.fill)
            continue;
        auto [it, fresh] = filled.emplace(std::make_pair(d.field.section, d.field.offset), d.name);
        if (!fresh)
            bad.push_back(d.name + ": fills the field " + it->second + " fills");
        covered[d.field.owner][d.field.offset] = d.field.size;
    }
    for (const FieldRef& f : derived_fields())
        covered[f.owner][f.offset] = f.size;
    for (const StructInfo& st : structs) {
        const auto& offs = covered[st.type];
        if (offs.size() == st.fields)
            continue;
        std::string gaps;
        size_t at = 0;
        for (auto [off, size] : offs) {
            if (off > at)
                gaps += fmt::format(" {}-{}", at, off);
            at = std::max(at, off + size);
        }
        if (at < st.size)
            gaps += fmt::format(" {}-{}", at, st.size);
        bad.push_back(fmt::format("{}: {} of its {} fields are filled by a row or derived (bytes not covered:{})",
                                  st.name, offs.size(), st.fields, gaps));
    }
    return bad;
}

}  // namespace swapsim::scenario
