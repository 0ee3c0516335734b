// Registry rows of the workloads: usemem (workload/usemem.hpp): its command line, the CPUs it
// may use, its user-space costs and its simulated step; swapinout (workload/swapinout.hpp).
#include "scenario/param_table.hpp"

#include "mm/types.hpp"

namespace swapsim::scenario {
namespace {

// usemem maps whole pages.
uint64_t whole_pages(const Config& cfg, const ParamDef& d, const Settings&)
{
    return uint64_t(cfg.num(d.name)) / mm::PAGE_SIZE * mm::PAGE_SIZE;
}

std::vector<int> allowed_cpus(const Config& cfg, const ParamDef& d, const Settings& s)
{
    return parse_cpulist(cfg.s(d.name), s.kernel.topo.nr_cpus());
}

}  // namespace

// The data kinds of calibration/compressors/table.json a workload's pages can be.
const std::vector<std::string> kDataKinds = {"usemem", "mixed", "elf", "text", "random", "zero", "redis-1024"};

// The kernel build's rows are read by name in run/run.cpp.

void add_workload_params(Table& t)
{
    // ---- vm-scalability usemem ----
    t.choice(Category::Workload, "workload.type", "usemem", {"usemem", "swapinout", "kbuild", "redis"}, "workload model: vm-scalability usemem, a swap-out/swap-in loop (MADV_PAGEOUT, then read back), a kernel build (make -jN on tmpfs), or redis-server under redis-benchmark GETs", "swapsim").to(section::run, &Settings::workload);
    // ---- Redis under redis-benchmark (workload/redis.hpp) ----
    using workload::RedisConfig;
    t.integer(Category::Workload, "workload.redis.keyspace", "keys", 2000000, 1, 1e9, "redis-benchmark -r: keys drawn uniformly from key:000000000000 up", "seed 001: -r 2000000 / -r 2500000").to(section::redis, &RedisConfig::keyspace);
    t.integer(Category::Workload, "workload.redis.requests", "", 2000000, 1, 1e10, "redis-benchmark -n of the measured GET run", "seed 001: -n 2000000 / -n 2500000").to(section::redis, &RedisConfig::requests);
    t.integer(Category::Workload, "workload.redis.set_requests", "", 0, 0, 1e10, "-n of the populating `redis-benchmark -t set` run over the same keyspace (a key's first SET allocates it); 0: every key set once, in order", "swapsim; the seed does not say how the keys were loaded").to(section::redis, &RedisConfig::set_requests);
    t.size(Category::Workload, "workload.redis.value_size", 1024, 1, 512 * MiB, "redis-benchmark -d: bytes of each value", "seed 001: -d 1024").to(section::redis, &RedisConfig::value_bytes);
    t.integer(Category::Workload, "workload.redis.clients", "", 12, 1, 10000, "redis-benchmark -c: connections; the server answers one client's pipeline per step", "seed 001: -c 12").to(section::redis, &RedisConfig::clients);
    t.integer(Category::Workload, "workload.redis.pipeline", "", 32, 1, 10000, "redis-benchmark -P: GETs per client per round trip", "seed 001: -P 32").to(section::redis, &RedisConfig::pipeline);
    t.p({"workload.redis.maxmemory", Kind::Size, "bytes", 0.0, 0, 1e15, false, false, {}, "redis.conf maxmemory with the default noeviction policy: SETs that would pass it fail; 0: no limit", "seed 001: \"Redis is set to use 2500M memory\"", Category::Workload}).to(section::redis, &RedisConfig::maxmemory);
    t.integer(Category::Workload, "workload.redis.jemalloc_quantum", "bytes", 16, 8, 16, "jemalloc's quantum (size-class spacing below 64 B): 16 in Debian's system libjemalloc, 8 in Redis's bundled one (--with-lg-quantum=3)", "calibration/workloads/redis-get-1024.json: 1,371.0 B per key measured, 1,370.5 with 16 (1,354.5 with 8)").to(section::redis, &RedisConfig::jemalloc_quantum);
    t.choice(Category::Workload, "workload.redis.data", "redis-1024", kDataKinds, "data kind of redis-server's anonymous pages, zram's compressed length and codec cost on them (calibration/compressors/table.json)", "calibration/compressors/redis-1024.json: the server's pages after redis-benchmark -t set -r 200000 -n 200000 -d 1024 (one 1 KiB value, genBenchmarkRandomData's 64 symbols, in every key), measured").to(section::zram_settings, &ZramSettings::redis_data);
    t.flag(Category::Workload, "workload.redis.bgsave", false, "BGSAVE at the start of the GET run: fork, the child writes every key to the RDB while the server serves", "seed 001: \"no BGSAVE\" / \"with BGSAVE\"").to(section::redis, &RedisConfig::bgsave);
    // ---- kernel build (workload/kbuild.hpp) ----
    t.integer(Category::Workload, "workload.kbuild.jobs", "", 1, 1, 4096, "make -j: recipes run at once", "seed 001: -j6 to -j48").to(section::kbuild, &workload::KbuildConfig::jobs);
    t.integer(Category::Workload, "workload.kbuild.units", "", 2725, 1, 1000000, "compile units of the build", "calibration/workloads/kbuild-defconfig-6.1.json: x86-64 defconfig of Debian linux-source-6.1 (make -n)").to(section::kbuild, &workload::KbuildConfig::units);
    t.real(Category::Workload, "workload.kbuild.heap_reuse", "", 2.93, 0, 50, "re-touches of a compile job's heap over its life, in heaps, uniformly at random (cc1's GC'd heap)", "measured: calibration/workloads/kbuild-heap-reuse-6.1.json (tools/measure_heap_reuse.sh: valgrind lackey on cc1 of lib/string.o, 8 segments, the model's estimator; one unit so far); physical range 0 (each page written once) to ~50 (every GC collection walks the live heap)").to(section::kbuild, &workload::KbuildConfig::heap_reuse);
    t.p({"workload.kbuild.text", Kind::Size, "bytes", 23355 * KiB, 0, 1e10, false, false, {}, "toolchain file pages a compile job maps and touches at each step (cc1's and as's own files: text, rodata), counted in its peak RSS; 0: no file pages", "measured: calibration/workloads/kbuild-text-6.1.json (tools/measure_text_rss.sh: smaps Rss of cc1's and as's own file mappings at their exit, mean over the sample)", Category::Workload}).to(section::kbuild, &workload::KbuildConfig::text_pages, Conv::Pages);
    t.p({"workload.kbuild.toolchain", Kind::Size, "bytes", 39317504, 0, 1e10, false, false, {}, "the toolchain's file on the root disk (cc1, as and the libraries only they use): pages a build's page cache holds of it", "measured: calibration/workloads/kbuild-text-6.1.json (fincore of cc1, as, libbfd, libsframe, libisl, libmpfr, libgmp, libmpc after the sample, from an empty cache)", Category::Workload}).to(section::kbuild, &workload::KbuildConfig::toolchain_pages, Conv::Pages);
    t.choice(Category::Workload, "workload.kbuild.fs", "tmpfs", {"tmpfs", "tmpfs-charged", "disk"}, "where the source tree is and who was charged for its dentries and inodes: tmpfs copied in outside the build's memcg (its lookups charge nothing), tmpfs copied in by the build's memcg (every entry's dentry and shmem inode charged at the start, pinned), or a disk file system (make's walk and the jobs' lookups charge a dentry and an ext4 inode per entry, freed by the superblock shrinker under pressure)", "seed 001: \"defconfig on tmpfs\" (the 4G VMs: not stated); who copied the tree in: inferred, outside. Sizes measured: calibration/workloads/kbuild-slab-6.1.json (tools/measure_slab.sh)").to(section::kbuild, &workload::KbuildConfig::fs);
    t.p({"workload.kbuild.tree", Kind::Size, "bytes", 362734.0 * 4096, 0, 1e12, false, false, {}, "the source tree's shmem pages on tmpfs (each file rounded up to whole pages): in the build's memory with workload.kbuild.fs=tmpfs-charged, or tmpfs and no memcg limit; 0: left out", "measured: calibration/workloads/kbuild-tree-6.1.json (tools/measure_tree_pages.sh: Debian linux-source-6.1, 78,579 files, 1.30 GB in 362,734 pages)", Category::Workload}).to(section::kbuild, &workload::KbuildConfig::tree_pages, Conv::Pages);
    t.integer(Category::Workload, "workload.kbuild.header_reads", "", 1422, 0, 1000000, "header pages a compile unit reads from the tree at its start, drawn from the measured read popularity (when the tree is in the build's memory)", "measured: calibration/workloads/kbuild-headers-6.1.json (tools/measure_headers.sh: 200 units' -MMD dependency lists, 1,421.6 pages a unit, p10-p90 921-1,997)").to(section::kbuild, &workload::KbuildConfig::header_reads);
    t.integer(Category::Workload, "workload.kbuild.fs_entries", "", 83730, 0, 100000000, "files and directories of the source tree: make's walk (or the copy) looks up each once", "measured: calibration/workloads/kbuild-slab-6.1.json (Debian linux-source-6.1: 83,730 entries)").to(section::kbuild, &workload::KbuildConfig::fs_entries);
    t.integer(Category::Workload, "workload.kbuild.fs_lookups", "", 500, 0, 1000000, "path lookups of tree entries per compile job (its source, the headers it includes, make's prerequisites), with workload.kbuild.fs=disk", "measured: 325-683 headers per unit in kbuild's .cmd dependency lists (lib/string.o, mm/mmap.o; docs/workloads.md)").to(section::kbuild, &workload::KbuildConfig::fs_lookups);
    t.integer(Category::Workload, "workload.kbuild.steps", "", 8, 1, 1000, "steps in which a job's heap grows to its peak RSS, its CPU time spread over them", "swapsim: granularity").to(section::kbuild, &workload::KbuildConfig::steps);
    t.integer(Category::Workload, "workload.kbuild.link_steps", "", 3, 0, 100, "serial link tail: vmlinux.o, then the kallsyms links of vmlinux, one after the other", "inferred: design workloads-and-reclaim.md 3.1 (ld -r, 2-3 kallsyms passes)").to(section::kbuild, &workload::KbuildConfig::link_steps);
    t.time(Category::Workload, "workload.kbuild.link_user", 3, 0, 3600, "user CPU time of each link step", "inferred: a defconfig vmlinux link takes a few seconds").to(section::kbuild, &workload::KbuildConfig::link_user_s);
    t.size(Category::Workload, "workload.kbuild.link_rss", 256 * MiB, 4096, 1e12, "peak RSS of each link step (its output to tmpfs: a quarter of it)", "inferred: ld of a ~60 MB vmlinux").to(section::kbuild, &workload::KbuildConfig::link_rss);
    t.nanos("cost.kbuild.fork_exec_ns", 100000, "make's fork of one recipe (the exec and the job's own syscalls are in its measured sys time)", "estimate: fork of a small process ~100 us").to(section::kbuild, &workload::KbuildConfig::fork_exec_s);
    t.size(Category::Workload, "workload.swapinout.size", 100 * MiB, 4096, 1e13, "swapinout: bytes mapped, written, paged out (MADV_PAGEOUT) and read back per round", "seed 003: 100MiB").to(section::swapinout, &workload::SwapinoutConfig::size, whole_pages);
    t.integer(Category::Workload, "workload.swapinout.rounds", "", 100, 1, 100000, "swapinout: rounds of mmap, write, MADV_PAGEOUT, read, munmap", "seed 003: 100 times").to(section::swapinout, &workload::SwapinoutConfig::rounds);
    t.choice(Category::Workload, "workload.swapinout.data", "mixed", kDataKinds, "swapinout: data kind written (compressors.md section 3; its measured ratio and cost per codec and block size)", "compressors.md section 6: mixed is the default typical anonymous page").to(section::zram_settings, &ZramSettings::data);
    t.real(Category::Workload, "workload.swapinout.zero_pages", "%", 0, 0, 100, "swapinout: share of the written pages left zero (same-filled), spread over the mapping", "default: none besides the data kind's own").to(section::zram_settings, &ZramSettings::zero_pages_pct);
    t.integer(Category::Workload, "workload.usemem.nproc", "processes", 70, 1, 100000, "usemem -n: processes, one mapping each", "seed 000: usemem -n 70").to(section::usemem, &workload::UsememConfig::nproc);
    t.size(Category::Workload, "workload.usemem.size", 1.0 * GiB, 0, 1e14, "usemem size: bytes mapped and written per process", "seed 000: usemem 1g").to(section::usemem, &workload::UsememConfig::size, whole_pages);
    t.time(Category::Workload, "workload.usemem.sleep", 10, 0, 86400, "usemem -s: sleep after writing, memory still mapped", "seed 000: usemem -s 10").to(section::usemem, &workload::UsememConfig::sleep_s);
    t.flag(Category::Workload, "workload.usemem.init_time", true, "usemem --init-time: time from just before fork", "seed 000: --init-time").no_field("validated only: the model always times from just before the first fork (--init-time)");
    t.flag(Category::Workload, "workload.usemem.sync_rw", false, "usemem -y: each task mmaps before, not after, the start rendezvous (mmap is not timed: the same run)", "usemem default off").no_field("validated only: with or without -y the run is the same (mmap is not timed)");
    t.flag(Category::Workload, "workload.usemem.sync_free", false, "usemem -x: all tasks munmap together", "usemem default off").to(section::usemem, &workload::UsememConfig::sync_free);
    t.flag(Category::Workload, "workload.usemem.anonymous", true, "usemem -O: MAP_PRIVATE|MAP_ANONYMOUS", "seed 000: -O").no_field("validated only: the model maps anonymous memory only (semantics.cpp rejects false)");
    t.integer(Category::Workload, "workload.usemem.repeat", "", 1, 1, 1000, "usemem -r: passes; later passes read back (verify) then rewrite each word", "usemem default 1").to(section::usemem, &workload::UsememConfig::repeat);
    t.flag(Category::Workload, "workload.usemem.read_again", false, "usemem -Z: read the whole mapping after writing it", "usemem default off").to(section::usemem, &workload::UsememConfig::read_again);
    t.size(Category::Workload, "workload.usemem.misc_anon", 56 * KiB, 0, 1 * GiB, "private anon memory per process besides the mapping (stack, libc and ld.so data and bss, usemem's globals, TLS), laid out as measured (repeated or cut to this size): the pages the write loop keeps touching stay referenced, the rest is touched at start and again after the writes", "measured: calibration/workloads/usemem-footprint.json (tools/measure_usemem_footprint.py: vm-scalability usemem, Debian 12 glibc 2.36, smaps of a child mid-write and at exit_group): 92 KiB anon, of which 36 KiB still shared with the parent (RELRO, left out) and 56 KiB private: 16 KiB touched throughout the writes, 40 KiB again only after them; its ~1000 KiB of file-backed RSS is not modelled").to(section::usemem, &workload::UsememConfig::misc_anon);
    t.p({"workload.cpus", Kind::CpuList, "", "all", -inf, inf, false, false, {}, "logical CPUs the tasks may run on (taskset/numactl -C)", "default: all CPUs", Category::Workload}).to(section::run, &Settings::cpus, allowed_cpus);
    t.integer(Category::Workload, "workload.membind", "node", -1, -1, 15, "NUMA node for all memory (numactl -m), -1: local to the faulting CPU", "default: local allocation").to(section::kernel, &kernel::KConfig::membind);

}

// Simulation control of usemem's steps.
void add_workload_sim_params(Table& t)
{
    t.size(Category::Sim, "sim.write_chunk", 256 * KiB, 4096, 64 * MiB, "pages a task writes per simulated step when it owes no reclaim (accuracy vs speed)", "swapsim: halving it moves metrics < 2% (tests)").to(section::usemem, &workload::UsememConfig::write_chunk);
    t.real(Category::Sim, "sim.fork_jitter", "", 0.5, 0, 0.99, "spread of each fork's and start wakeup's duration around cost.fork_ns and cost.wakeup_ns, drawn from `seed`: seeds sample the timing noise between real runs", "swapsim: fork of a small process varies by tens of percent").to(section::usemem, &workload::UsememConfig::fork_jitter);
}

void add_workload_costs(Table& t)
{
    t.rate(Category::Cost, "cost.user.write_bw", 10e9, "bytes/s of usemem's store loop into freshly cleared pages", "estimate: cache-resident stores, 1 x 8 B per cycle peak", true).to(section::usemem, &workload::UsememConfig::user_write_bw);
    t.nanos("cost.redis.get_ns", 1600, "redis-server CPU per GET of a resident 1 KiB value at -c 12 -P 32 (parse, lookup, reply), no memory pressure", "calibration/workloads/redis-get-1024.json note: 1.60 us in a quiet minute (its loaded runs read 2.9-3.4 us, inflated by sharing 2 cores); range: 0.1 us (a bare lookup) to 1 ms", 100, 1e6).to(section::redis, &workload::RedisConfig::get_s);
    t.nanos("cost.redis.rdb_key_ns", 8000, "the BGSAVE child's CPU per key of 1 KiB (rdbSaveKeyValuePair: LZF attempt, rio write into the page cache)", "calibration/workloads/redis-get-1024.json: BGSAVE 7 s for 400,000 keys (17.5 us/key, 1 s resolution, loaded machine) x the GET cost's quiet/loaded ratio 1.60/3.37; range: 0.1 us to 1 ms", 100, 1e6).to(section::redis, &workload::RedisConfig::rdb_key_s);
    t.nanos("cost.fork_ns", 100000, "fork() of one usemem child by the parent", "estimate: fork of a small process ~100 us; range: 10 us (a tiny mm) to 100 ms (what-ifs of a parent whose fork copies a large mm)", 1e4, 1e8).to(section::usemem, &workload::UsememConfig::fork_cost);
    t.nanos("cost.wakeup_ns", 1500, "the parent's wakeup of one child polling the start pipe (try_to_wake_up of an idle CPU's task)", "estimate: remote wakeup via the wakelist IPI costs the waker ~1-2 us").to(section::usemem, &workload::UsememConfig::wakeup_cost);
}

}  // namespace swapsim::scenario
