// Registry rows of the machine (hw/topology, hw/iaa) and the swap device (hw/blockdev): the
// hardware the kernel runs on, as data sheets and the seeds state it.
#include "scenario/param_table.hpp"

namespace swapsim::scenario {
namespace {

// machine.iaa.offline: device ids out of all sockets' devices.
std::vector<int> offline_devices(const Config& cfg, const ParamDef& d, const Settings& s)
{
    const std::string& list = cfg.s(d.name);
    if (list.empty())
        return {};
    return parse_cpulist(list, s.kernel.iaa.dev.devices_per_socket * s.kernel.topo.sockets);
}

}  // namespace

void add_machine_params(Table& t)
{
    t.integer(Category::Machine, "machine.sockets", "", 2, 1, 16, "CPU sockets (one NUMA node each)", "seed 000: dual-socket Sapphire Rapids").to(section::topology, &hw::Topology::sockets);
    t.integer(Category::Machine, "machine.cores_per_socket", "", 56, 1, 512, "physical cores per socket", "seed 000: 56 cores per socket").to(section::topology, &hw::Topology::cores_per_socket);
    t.integer(Category::Machine, "machine.threads_per_core", "", 2, 1, 2, "hardware threads per core (SMT)", "Sapphire Rapids: Hyper-Threading, 2 threads per core").to(section::topology, &hw::Topology::threads_per_core);
    t.p({"machine.cpu_freq", Kind::Freq, "Hz", 2.5e9, 0, 10e9, true, false, {}, "core clock; cycle costs are divided by it", "seed 000: core frequency fixed at 2500MHz", Category::Machine}).to(section::kernel, &kernel::KConfig::hz);
    t.size(Category::Machine, "machine.dram", 503 * GiB, 0, 1e15, "installed memory (zswap max_pool_percent is a share of it)", "seed 000: 503 GiB RAM").to(section::kernel, &kernel::KConfig::dram_pages, Conv::Pages);
    t.real(Category::Machine, "machine.codec_speed", "", 1.0, 0.25, 4.0, "speed of this CPU on the software compressors (zstd, lz4, lzo-rle) relative to the machine their costs were measured on, at the same clock: divides every CPU codec cost (zswap's and zram's; not IAA's)", "default: the measurement VM of calibration/compressors/table.json (a Sapphire Rapids class Xeon), which the seed-000 costs share; measure yours with calibration/compressors/pagebench.c --usemem (tools/machine_scenario.py --pagebench)").to(section::compressors, &scenario::Compressors::codec_speed);
    t.integer(Category::Machine, "machine.memory_nodes", "nodes", 0, 0, 16, "NUMA nodes that hold machine.dram, split evenly, lowest first; the others are memoryless and their CPUs allocate from node (socket mod this), as a mem= boot limit leaves a multi-socket server or a VM with one node; 0: every socket", "default: DRAM on every socket").to(section::kernel, &kernel::KConfig::mem_nodes);
    t.integer(Category::Machine, "machine.iaa.devices_per_socket", "devices", 4, 0, 16, "IAA devices per socket (0: none)", "seed 000: \"4 IAA devices per socket\" (Sapphire Rapids)").to(section::iaa_dev, &hw::IaaParams::devices_per_socket);
    t.integer(Category::Machine, "machine.iaa.comp_engines", "engines", 2, 1, 64, "compress engines per IAA device", "IAA batching RFC v1: 2 compress engines per device").to(section::iaa_dev, &hw::IaaParams::comp_engines);
    t.integer(Category::Machine, "machine.iaa.decomp_engines", "engines", 8, 1, 64, "decompress engines per IAA device", "IAA batching RFC v1: 8 decompress engines per device").to(section::iaa_dev, &hw::IaaParams::decomp_engines);
    t.integer(Category::Machine, "machine.iaa.wq_size", "descriptors", 128, 1, 4096, "work-queue entries per IAA device (all its WQs)", "IAA batching v13 cover: 128 WQ entries per device").to(section::iaa_dev, &hw::IaaParams::wq_size);
    t.p({"machine.iaa.offline", Kind::String, "", "", -inf, inf, false, false, {}, "IAA device ids taken offline, e.g. \"0,3\" (their CPUs are remapped)", "default: all online", Category::Machine}).to(section::iaa_dev, &hw::IaaParams::offline, offline_devices);
}

void add_swap_device_params(Table& t)
{
    t.choice(Category::Swap, "swap.device", "ssd", {"ssd", "pmem", "zram", "none", "hdd"}, "backing swap device (zswap sits in front of it); pmem: synchronous memcpy, SWP_SYNCHRONOUS_IO; zram: compressed RAM block device, SWP_SYNCHRONOUS_IO; hdd: rotational disk (no SWP_SOLIDSTATE: one global allocation cluster), behind swap.ssd's request queue", "seed 000: 823G SSD disk partition swap").to(section::kernel, &kernel::KConfig::dev);
    t.size(Category::Swap, "swap.size", 823.0 * GiB, 0, 1e15, "swap partition size", "seed 000: 823G SSD partition").to(section::kernel, &kernel::KConfig::swap_slots, Conv::Pages);
    t.p({"swap.swapfile_free", Kind::Size, "bytes", 0, 0, 1e12, false, false, {},
         "free space of a swap file with higher priority than the device (e.g. a distro /swap.img swapped on at boot): it takes order-0 slots first, and no large folio gets slots while it has room",
         "default: none", Category::Swap}).to(section::kernel, &kernel::KConfig::swapfile_slots, Conv::Pages);
    t.rate(Category::Swap, "swap.ssd.write_bw", 530e6, "sustained sequential write bandwidth of the SSD", "data sheet class: SATA III SSD (~530 MB/s); seed 000 SSD columns move ~0.55 GB/s", true).to(section::ssd, &hw::BlockDevParams::write_bw);
    t.rate(Category::Swap, "swap.ssd.read_bw", 550e6, "sustained read bandwidth of the SSD", "data sheet class: SATA III SSD (~550 MB/s)", true).to(section::ssd, &hw::BlockDevParams::read_bw);
    t.time(Category::Swap, "swap.ssd.latency", 60e-6, 0, 1, "fixed per-request latency added to the transfer time", "data sheet class: SATA SSD 4K write/read latency 50-90 us", true).to(section::ssd, &hw::BlockDevParams::latency);
    t.integer(Category::Swap, "swap.ssd.nr_requests", "requests", 64, 1, 65536, "block-layer requests that may be in flight; submit_bio sleeps when all are taken", "blk-mq: nr_requests = 2 x queue depth (SATA NCQ depth 32)").to(section::ssd, &hw::BlockDevParams::nr_requests);
    t.size(Category::Swap, "swap.ssd.max_request", 1280 * KiB, 4096, 64 * MiB, "largest request after merging adjacent swap bios in one plug", "block layer: default max_sectors_kb 1280 (BLK_DEF_MAX_SECTORS_CAP)").to(section::ssd, &hw::BlockDevParams::max_request);
    t.rate(Category::Swap, "swap.hdd.bw", 160e6, "sustained transfer rate of the rotational disk", "data sheet class: 3.5\" 7200 rpm SATA disk, 150-250 MB/s outer to ~100 MB/s inner tracks", false).to(section::kernel, &kernel::KConfig::hdd_bw);
    t.time(Category::Swap, "swap.hdd.seek_track", 0.8e-3, 0, 0.1, "track-to-track seek of the rotational disk", "data sheet class: 7200 rpm disk, 0.5-1 ms").to(section::hdd, &hw::HddParams::seek_track);
    t.time(Category::Swap, "swap.hdd.seek_full", 16e-3, 0, 0.1, "full-stroke seek (seek time grows with the square root of the distance in between)", "data sheet class: 7200 rpm disk, 15-20 ms full stroke (8-9 ms average); Ruemmler & Wilkes 1994, sqrt seek curve").to(section::hdd, &hw::HddParams::seek_full);
    t.real(Category::Swap, "swap.hdd.rpm", "rpm", 7200, 3600, 15000, "spindle speed: half a revolution of rotational latency per positioning", "data sheet class: 7200 rpm").to(section::hdd, &hw::HddParams::rpm);
    // The files' block device (kernel/filemap.cpp: a toolchain binary's page cache reads).
    t.rate(Category::Machine, "machine.disk.read_bw", 3.0e9, "read bandwidth of the block device holding the workload's files (the root filesystem: toolchain binaries)", "inferred: the seeds do not name the build machine's root disk; data-sheet class PCIe 3 NVMe SSD (~3 GB/s sequential read)", false).to(section::rootdev, &hw::BlockDevParams::read_bw);
    t.time(Category::Machine, "machine.disk.latency", 80e-6, 0, 0.1, "fixed per-request latency of a read from the files' block device", "inferred: data-sheet class NVMe SSD, 4K random read latency 60-100 us").to(section::rootdev, &hw::BlockDevParams::latency);
    // zram (drivers/block/zram): its pool is not charged to any memcg, but it is RAM.
    t.size(Category::Swap, "swap.zram.disksize", 8 * GiB, 0, 1e15, "zram disksize: swap slots of the zram device (swap.size is the SSD's)", "zramctl-style setting; not stated in the seeds").to(section::zram_settings, &ZramSettings::disksize_pages, Conv::Pages);
    t.choice(Category::Swap, "swap.zram.comp_algorithm", "lzo-rle", {"lzo-rle", "lz4", "zstd"}, "zram comp_algorithm (per-CPU zcomp streams)", "drivers/block/zram/Kconfig: ZRAM_DEF_COMP_LZORLE").to(section::zram_settings, &ZramSettings::comp_algorithm);
    t.flag(Category::Swap, "swap.zram.multi_pages", false, "CONFIG_ZSMALLOC_MULTI_PAGES: a large folio is compressed in blocks of 2^multi_pages_order pages (Barry Song / Tangquan Zheng RFC, not merged)", "mainline: no multi-page objects").to(section::zram_settings, &ZramSettings::multi_pages);
    t.integer(Category::Swap, "swap.zram.multi_pages_order", "", 2, 1, 9, "CONFIG_ZSMALLOC_MULTI_PAGES_ORDER: pages per multi-page object = 2^order (folios of lower order stay 4 KiB objects)", "RFC v2/v3 mm/Kconfig: default 2, range 1-9").to(section::zram_settings, &ZramSettings::multi_pages_order);
}

}  // namespace swapsim::scenario
