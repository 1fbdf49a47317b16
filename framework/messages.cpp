// messages.cpp — see messages.h.
#include "framework/messages.h"

#include <cerrno>
#include <cstdlib>
#include <unistd.h>

#include "framework/params.h"

namespace opf {
namespace {

const char *first_env(std::initializer_list<const char *> names)
{
    for (const char *name : names)
        if (const char *value = std::getenv(name); value && *value) return value;
    return nullptr;
}

// Open MPI's launcher, PMIx (Open MPI 5, Slurm, PRRTE), Hydra (MPICH, Intel MPI).
const char *world_rank() { return first_env({"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"}); }
const char *node_rank() { return first_env({"OMPI_COMM_WORLD_LOCAL_RANK", "PMIX_LOCAL_RANK", "MPI_LOCALRANKID"}); }

} // namespace

const std::string &job_place()
{
    static const std::string place = [] {
        const char *rank = world_rank();
        if (!rank) return std::string();
        char host[256] = "?";
        gethostname(host, sizeof host - 1);
        host[sizeof host - 1] = '\0';
        return std::string(host) + ":rank " + rank;
    }();
    return place;
}

void say_line(Say kind, const std::string &text)
{
    if (kind != Say::Verbose && params.verbose < 1) {
        const char *local = node_rank();
        if (local && std::atoi(local) != 0) return;   // the node's first rank speaks for it
    }
    const std::string &place = job_place();
    std::string line = place.empty() ? "opframe: " : "opframe[" + place + "]: ";
    if (kind == Say::Warning) line += "warning: ";
    line += text;
    line += '\n';
    for (std::size_t done = 0; done < line.size();) {   // one write: lines of ranks do not interleave
        const ssize_t n = write(STDERR_FILENO, line.data() + done, line.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        done += std::size_t(n);
    }
}

} // namespace opf
