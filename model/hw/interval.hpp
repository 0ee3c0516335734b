// A busy interval [first, second) of a lock's or a server's timeline. Trivially copyable, so
// inserting into a sorted vector is one memmove (std::pair's assignment is not trivial).
#pragma once

namespace swapsim::hw {

struct BusyInterval {
    double first, second;
};

}  // namespace swapsim::hw
