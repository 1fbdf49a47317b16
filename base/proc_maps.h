// proc_maps.h — the process's mappings as /proc/self/maps lists them: one
// reader for the framework (host_memory.cpp), the cuda component and its
// tests, each with its own rule about what a mapping may hold.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>

namespace opf::base {

struct ProcMapping {
    uintptr_t low, high;   // [low, high)
    char perms[8];         // "rw-p", "---p", ...
    const char *name;      // a path, "[heap]", "[stack]", "[anon:...]", or "" (anonymous)

    bool readable() const { return perms[0] == 'r'; }
    // Anonymous memory: no name, or one the kernel gives it.
    bool anonymous() const
    {
        return !*name || std::strcmp(name, "[heap]") == 0 || std::strncmp(name, "[stack", 6) == 0 ||
               std::strncmp(name, "[anon:", 6) == 0;
    }
    // A device's file (a driver's memory), /dev/zero (shared anonymous
    // memory) and /dev/shm/ (POSIX shared memory) aside.
    bool device_file() const
    {
        return std::strncmp(name, "/dev/", 5) == 0 && std::strncmp(name, "/dev/zero", 9) != 0 &&
               std::strncmp(name, "/dev/shm/", 9) != 0;
    }
};

// Calls visit(const ProcMapping &) for each mapping, in address order, until
// it returns true. False when the list cannot be read.
template <class Visit> bool for_each_mapping(Visit &&visit)
{
    FILE *maps = std::fopen("/proc/self/maps", "r");
    if (!maps) return false;
    char line[4096];
    while (std::fgets(line, sizeof line, maps)) {
        unsigned long long low = 0, high = 0;
        ProcMapping m{};
        int path = 0;
        if (std::sscanf(line, "%llx-%llx %7s %*s %*s %*s %n", &low, &high, m.perms, &path) < 3 || !path) continue;
        line[std::strcspn(line, "\n")] = 0;
        m.low = uintptr_t(low), m.high = uintptr_t(high), m.name = line + path;
        if (visit(static_cast<const ProcMapping &>(m))) break;
    }
    std::fclose(maps);
    return true;
}

} // namespace opf::base
