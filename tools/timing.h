// timing.h — how opframe_bench and opframe_tune time a call: medians of
// samples, each sample long enough to dwarf the clock's resolution, the
// samples of the functions compared interleaved (one of each in turn), so
// that a change in the machine's speed (a shared VM, another process, the
// clock) falls on all of them alike instead of on whichever ran then.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <functional>
#include <vector>

namespace opf::timing {

using Clock = std::chrono::steady_clock;

// The median nanoseconds of one call of each of `fns`, over `samples`
// samples of at least `sample_ns` each (at least one call), each sample
// after one untimed call.
inline std::vector<double> medians_ns(const std::vector<std::function<void()>> &fns, int samples, double sample_ns)
{
    std::vector<long> iters;
    for (const auto &fn : fns) {
        fn();   // warm caches and lazy initialisation
        long n = 1;
        for (;;) {
            const auto t0 = Clock::now();
            for (long i = 0; i < n; ++i) fn();
            const double ns = std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
            if (ns > sample_ns || n > (1L << 30)) break;
            n *= 2;
        }
        iters.push_back(n);
    }
    std::vector<std::vector<double>> per_call(fns.size());
    for (int s = 0; s < samples; ++s)
        for (std::size_t k = 0; k < fns.size(); ++k) {
            // One untimed call first: the function before may have left
            // the caches in another state.
            fns[k]();
            const auto t0 = Clock::now();
            for (long i = 0; i < iters[k]; ++i) fns[k]();
            per_call[k].push_back(std::chrono::duration<double, std::nano>(Clock::now() - t0).count() / double(iters[k]));
        }
    std::vector<double> medians;
    for (auto &v : per_call) {
        std::nth_element(v.begin(), v.begin() + samples / 2, v.end());
        medians.push_back(v[std::size_t(samples / 2)]);
    }
    return medians;
}

} // namespace opf::timing
