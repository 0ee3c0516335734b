#include "hw/topology.hpp"

#include <stdexcept>

namespace swapsim::hw {

int Topology::sibling(int cpu) const
{
    if (threads_per_core < 2)
        return -1;
    return thread_of(cpu) == 0 ? cpu + nr_cores() : cpu - nr_cores();
}

std::vector<int> place_tasks(const Topology& t, const std::vector<int>& allowed, int n)
{
    if (allowed.empty())
        throw std::invalid_argument("no CPU allowed");
    // Order the allowed CPUs: thread 0 before thread 1; within a thread level, alternate
    // sockets (the idlest node wins) and walk cores in order within a socket.
    std::vector<std::vector<std::vector<int>>> by(size_t(t.threads_per_core),
                                                  std::vector<std::vector<int>>(size_t(t.sockets)));
    for (int cpu : allowed)
        by[size_t(t.thread_of(cpu))][size_t(t.socket_of(cpu))].push_back(cpu);
    std::vector<int> order;
    for (auto& level : by) {
        size_t longest = 0;
        for (auto& s : level)
            longest = std::max(longest, s.size());
        for (size_t i = 0; i < longest; i++)
            for (auto& s : level)
                if (i < s.size())
                    order.push_back(s[i]);
    }
    std::vector<int> out;
    out.reserve(size_t(n));
    for (int i = 0; i < n; i++)
        out.push_back(order[size_t(i) % order.size()]);
    return out;
}

}  // namespace swapsim::hw
