// A kernel build, `make -jN` of a defconfig tree on tmpfs, inside the workload's memcg.
//
// Models: make's jobserver: at most N recipes at a time; the compile units first, in order,
// each taken by the first free slot; then the serial link tail. Each recipe is a new process
// (make forks, the gcc driver execs cc1 and as: one fork+exec cost in sys) with the measured
// profile of one compile job (calibration/workloads/kbuild-defconfig-6.1.json: user CPU time,
// sys time, peak RSS), drawn for each unit from the measured jobs with a seeded generator.
// A job's anonymous heap grows to its peak RSS in `steps` equal steps; its user CPU time is
// spread over the steps; after each step it touches `reuse` x (heap so far) / steps pages of
// its heap again, uniformly at random (workload.kbuild.heap_reuse, measured on cc1 under valgrind
// lackey by tools/measure_heap_reuse.sh: the distinct pages a job touches again per eighth of its
// life). It then writes its
// object file to tmpfs (shmem pages charged to the memcg: the build writes them) and exits,
// freeing its heap. The link steps read every object and write their output to tmpfs.
// The source tree is on tmpfs (workload.kbuild.tree bytes of shmem pages, measured). Copied
// in outside the build's memcg (fs=tmpfs under a memcg limit) its pages are neither charged
// nor reclaimed here. In the build's memory (fs=tmpfs-charged, or fs=tmpfs with no memcg
// limit: the build and the tree share the root memcg, as on the seed's 4G VMs) the copy runs
// before make starts (its time is not the build's) and leaves the tree on the anon LRU,
// swap-backed; each compile job then reads workload.kbuild.header_reads pages of the headers
// at its start, drawn from the measured read popularity (kbuild-headers-6.1.json): a resident
// page costs the copy only (in the measured sys time), a swapped one its swap-in.
// Metrics as `time make` prints them: real (make start to the last link step's exit), user and
// sys (summed over every job's task).
// Granularity: a job's heap step is one access pass of sim.write_chunk bytes per simulated
// step; memory in units of sim.page_unit pages (a heap of P pages maps ceil(P / unit) units;
// the objects fill the tmpfs file back to back, unit k's object starting at page 9k). Leaves out: make's own processes and dependency scanning, the gcc driver's and as's
// own small heaps (in the measured peak RSS of the job, which GNU time takes as the largest
// process), objtool, modules.
// The source tree's dentries and inodes (Kernel::dcache_create, kernel/shrinker.cpp), by
// workload.kbuild.fs: on tmpfs copied in from outside the memcg (the default, inferred) nothing
// is charged; copied in by the build's memcg, every entry's dentry and shmem inode are charged
// when make starts and pinned; on a disk file system, make's walk at the start looks up every
// entry (charging its dentry and inode, reclaimable by the superblock shrinker) and each compile
// job looks up workload.kbuild.fs_lookups entries (its source and headers), drawn uniformly
// from the tree with the seeded generator, at its start. Left out with the disk: the tree's file
// pages (the headers' page cache), negative dentries, the objects' own dentries and inodes.
// The toolchain (cc1, as and the libraries only they use) is one file on the root disk
// (Kernel::file_create, kernel/filemap.cpp) of workload.kbuild.toolchain bytes, its page cache
// charged to the build's memcg when first read (inferred: caches dropped before the run; the
// system's shared libraries are charged elsewhere). Each compile job maps it (VM_EXEC) and at
// each step touches its workload.kbuild.text bytes of it (measured: the toolchain's file pages
// cc1 and as map, tools/measure_text_rss.sh), spread evenly over the file (read-around brings
// their cold neighbours, as the measured page cache shows); its private heap is its measured peak
// RSS less those mapped pages (GNU time's maxrss counts them; at least one unit). The link steps
// map no toolchain text (ld is left out).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kernel/kernel.hpp"
#include "workload/process.hpp"

namespace swapsim::workload {

struct KbuildJob {
    double user_s = 0, sys_s = 0;
    uint64_t rss_bytes = 0;
};

// Where the source tree lives and who was charged for its dentries and inodes
// (calibration/workloads/kbuild-slab-6.1.json, tools/measure_slab.sh).
enum class KbuildFs {
    Tmpfs,          // copied into tmpfs outside the build's memcg: lookups charge nothing (measured 0 B)
    TmpfsCharged,   // copied into tmpfs by the build's own memcg: 1,245 B per entry, pinned
    Disk,           // on a disk file system (ext4): the lookups allocate 1,351 B per entry, reclaimable
};

struct KbuildConfig {
    int jobs = 1;                    // make -j
    int units = 2725;                // compile units
    std::vector<KbuildJob> profile;  // measured jobs, drawn with replacement
    std::vector<KbuildJob> links;    // the serial link tail, in order (derive(): link_steps x link_*)
    int link_steps = 3;              // workload.kbuild.link_steps
    double link_user_s = 3;          // workload.kbuild.link_user
    uint64_t link_rss = 256ull << 20;   // workload.kbuild.link_rss
    uint64_t object_bytes = 33023;   // .o written per unit
    double heap_reuse = 1;           // re-touches of a job's heap, in heaps, over its life
    uint64_t text_pages = 0;         // workload.kbuild.text: toolchain file pages a compile job maps
    uint64_t toolchain_pages = 0;    // workload.kbuild.toolchain: the toolchain file's pages (its page cache)
    KbuildFs fs = KbuildFs::Tmpfs;   // workload.kbuild.fs
    uint64_t tree_pages = 0;         // workload.kbuild.tree: the source tree's shmem pages
    uint32_t header_reads = 0;       // workload.kbuild.header_reads: header pages a compile unit reads
    uint32_t fs_entries = 0;         // workload.kbuild.fs_entries: the tree's files and directories
    uint32_t fs_lookups = 0;         // workload.kbuild.fs_lookups: path lookups per compile job
    int steps = 8;                   // heap growth steps per job
    double fork_exec_s = 0;          // sys time of make's fork + exec of one recipe
    double user_bw = 1e10;           // bytes/s of the jobs' memory loops
    uint64_t chunk = 256 * 1024;
    unsigned page_unit = 1;          // sim.page_unit: pages per simulated page (user_bw is per unit)
    uint64_t seed = 1;
    std::vector<int> cpus;           // where the N job slots run
};

// Reads the measured per-job profile (calibration/workloads/kbuild-*.json, compiled in).
std::vector<KbuildJob> kbuild_profile();
uint64_t kbuild_object_bytes();

struct KbuildResult {
    double real_s = 0, user_s = 0, sys_s = 0;
    int jobs_run = 0, peak_concurrency = 0;
    uint64_t object_pages = 0;
};

class Barrier;

class Kbuild {
public:
    Kbuild(kernel::Kernel& k, const KbuildConfig& cfg);
    // Body of job slot `s` (one per -j): takes units until none is left; slot 0 then waits
    // for every slot and runs the link steps.
    // `walked`: every slot waits there for the tree's copy and make's walk of it (slot 0 runs
    // them) when the tree or its dentries are in the build's memory (workload.kbuild.fs).
    void run_slot(int s, kernel::Clock& clk, Barrier& done, Barrier* walked = nullptr);
    double walk_sys_s() const { return walk_sys_s_; }
    const KbuildConfig& cfg() const { return cfg_; }
    const KbuildResult& result() const { return res_; }

private:
    void job(kernel::Clock& clk, int cpu, const KbuildJob& j, uint64_t obj_first, uint64_t obj_pages,
             bool link, uint64_t seed);
    kernel::Kernel& k_;
    KbuildConfig cfg_;
    uint32_t tmpfs_ = 0;             // the objects' tmpfs file(s), one page range per unit
    uint32_t toolchain_ = 0;         // the toolchain's file on the root disk (Kernel::file_create)
    uint32_t tree_ = 0;              // the source tree's tmpfs file when it is in the build's memory
    std::vector<std::pair<double, double>> header_cdf_;   // (share of reads, hottest header pages)
    double make_start_ = 0;          // after the tree's copy: real time counts from here
    std::vector<uint32_t> text_;     // the pages of it a compile job maps, in units
    std::vector<KbuildJob> drawn_;   // the profile of each unit
    int next_unit_ = 0, running_ = 0;
    std::vector<int> pids_;
    double walk_sys_s_ = 0;
    double walk_tree(kernel::Clock& clk, int cpu);   // its sys time
    void copy_tree(kernel::Clock& clk, int cpu);
    uint32_t header_unit(double u) const;   // the tree unit of a header read at quantile u
    KbuildResult res_;
};

}  // namespace swapsim::workload
