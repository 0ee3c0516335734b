// Intel In-Memory Analytics Accelerator (IAA) devices as the iaa_crypto driver uses them.
//
// Models: N devices per socket, each with C compress and D decompress engines behind work
// queues of `wq_size` entries in total (descriptors queued or in service); a job holds one
// engine for fixed + per-KiB time, FIFO per engine type (hw::ServerPool). CPU-to-device
// mapping of the 6.x driver (per node, cpus_per_iaa = CPUs of the node / devices of the node,
// in the node's CPU order) or of the batching series (per package: compress jobs round-robin
// over every online device of the socket). An offline device's CPUs are remapped over the
// remaining devices (rebalance_wq_table). A submission to a full WQ is refused (enqcmds
// retry): the submitter retries until a descriptor completes.
// Granularity: one call per job, exact FIFO times. Leaves out: shared-WQ priorities, PASID and
// ATS costs, page faults on the device, multiple WQs with different sizes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <queue>
#include <vector>

#include "hw/server.hpp"
#include "hw/topology.hpp"

namespace swapsim::hw {

struct IaaParams {
    int devices_per_socket = 4;
    int comp_engines = 2, decomp_engines = 8;
    int wq_size = 128;
    bool per_package = false;         // batching series: spread compress jobs over the socket
    std::vector<int> offline;         // global device ids taken offline
};

struct IaaJob {
    double submit = 0, start = 0, end = 0;
    int device = 0;
    unsigned refused = 0;             // WQ-full refusals before it was accepted
};

struct IaaDeviceStats {
    uint64_t comp_jobs = 0, decomp_jobs = 0, refused = 0;
    double comp_busy_s = 0, decomp_busy_s = 0;
};

class Iaa {
public:
    Iaa(const Topology& topo, const IaaParams& p);

    bool available() const { return !online_.empty(); }
    int nr_devices() const { return int(devs_.size()); }
    bool online(int dev) const;
    // Device a CPU's compress / decompress jobs go to (the `seq`-th job, for round-robin).
    int device_for(int cpu, bool compress, uint64_t seq) const;

    // A job of `service` seconds submitted at `t` from `cpu`.
    IaaJob compress(double t, int cpu, double service, uint64_t seq = 0);
    IaaJob decompress(double t, int cpu, double service, uint64_t seq = 0);

    void prune(double now);
    const IaaDeviceStats& stats(int dev) const { return devs_[size_t(dev)].st; }
    const WaitHistogram& queue_waits() const { return waits_; }
    double queue_wait_s() const { return wait_s_; }
    uint64_t jobs() const { return jobs_; }

private:
    struct Device {
        ServerPool comp, decomp;
        std::priority_queue<double, std::vector<double>, std::greater<double>> inflight;   // completion times
        IaaDeviceStats st;
        Device(int c, int d) : comp(c), decomp(d) {}
    };
    IaaJob submit(double t, int cpu, double service, bool compress, uint64_t seq);

    IaaParams p_;
    Topology topo_;
    std::vector<Device> devs_;
    std::vector<int> online_;                  // online device ids
    std::vector<std::vector<int>> cpu_dev_;    // per CPU: [device for per-CPU mapping]
    WaitHistogram waits_;
    double wait_s_ = 0;
    uint64_t jobs_ = 0;
};

}  // namespace swapsim::hw
