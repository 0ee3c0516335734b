#include "hw/iaa.hpp"

#include <algorithm>
#include <stdexcept>

namespace swapsim::hw {

Iaa::Iaa(const Topology& topo, const IaaParams& p) : p_(p), topo_(topo)
{
    int n = p.devices_per_socket * topo.sockets;
    for (int i = 0; i < n; i++)
        devs_.emplace_back(p.comp_engines, p.decomp_engines);
    for (int i = 0; i < n; i++)
        if (std::find(p.offline.begin(), p.offline.end(), i) == p.offline.end())
            online_.push_back(i);
    // Per node, the node's CPUs in id order are cut into equal runs, one per online device
    // of the node (wq_table / rebalance_wq_table); a node without online devices uses all.
    cpu_dev_.assign(size_t(topo.nr_cpus()), {});
    for (int node = 0; node < topo.sockets; node++) {
        std::vector<int> cpus, devs;
        for (int c = 0; c < topo.nr_cpus(); c++)
            if (topo.socket_of(c) == node)
                cpus.push_back(c);
        for (int d : online_)
            if (d / p.devices_per_socket == node)
                devs.push_back(d);
        if (devs.empty())
            devs = online_;
        if (devs.empty())
            continue;
        size_t per = (cpus.size() + devs.size() - 1) / devs.size();
        for (size_t i = 0; i < cpus.size(); i++)
            cpu_dev_[size_t(cpus[i])] = {devs[std::min(devs.size() - 1, i / per)]};
    }
}

bool Iaa::online(int dev) const
{
    return std::find(online_.begin(), online_.end(), dev) != online_.end();
}

int Iaa::device_for(int cpu, bool compress, uint64_t seq) const
{
    if (online_.empty())
        throw std::logic_error("no IAA device online");
    if (compress && p_.per_package) {
        int node = topo_.socket_of(cpu);
        std::vector<int> local;
        for (int d : online_)
            if (d / p_.devices_per_socket == node)
                local.push_back(d);
        const std::vector<int>& use = local.empty() ? online_ : local;
        return use[seq % use.size()];
    }
    return cpu_dev_[size_t(cpu)].front();
}

IaaJob Iaa::submit(double t, int cpu, double service, bool compress, uint64_t seq)
{
    IaaJob j;
    j.device = device_for(cpu, compress, seq);
    Device& d = devs_[size_t(j.device)];
    // WQ occupancy: descriptors accepted and not yet completed.
    double when = t;
    while (!d.inflight.empty() && d.inflight.top() <= when)
        d.inflight.pop();
    while (int(d.inflight.size()) >= p_.wq_size) {
        j.refused++;
        when = d.inflight.top();   // enqcmds retried until a descriptor completes
        d.inflight.pop();
    }
    d.st.refused += j.refused;
    j.submit = when;
    Grant g = compress ? d.comp.submit(when, service) : d.decomp.submit(when, service);
    j.start = g.start;
    j.end = g.end;
    d.inflight.push(j.end);
    (compress ? d.st.comp_jobs : d.st.decomp_jobs)++;
    (compress ? d.st.comp_busy_s : d.st.decomp_busy_s) += service;
    waits_.add(j.start - t);
    wait_s_ += j.start - t;
    jobs_++;
    return j;
}

void Iaa::prune(double now)
{
    for (Device& d : devs_) {
        d.comp.prune(now);
        d.decomp.prune(now);
    }
}

IaaJob Iaa::compress(double t, int cpu, double service, uint64_t seq)
{
    return submit(t, cpu, service, true, seq);
}

IaaJob Iaa::decompress(double t, int cpu, double service, uint64_t seq)
{
    return submit(t, cpu, service, false, seq);
}

}  // namespace swapsim::hw
