// nary_error.cpp — issue 26: the error of opf_reduce_local_n's SUM on
// FLOAT16 and BFLOAT16, rounded at every step (OPF_ROUND_CHAIN, the chain of
// 3-buffer calls) and rounded once (OPF_ROUND_ONCE), against the exact sum
// (in double: exact for these inputs), in units in the last place of the
// type at the exact sum. A measurement, not a test: `make test/nary_error`
// builds it; it prints one line per (type, data, k).
//
// Data (n elements per input):
//   uniform    values uniform in [-1, 1], rounded to the type
//   positive   values uniform in [0, 1]: the partial sums grow, every step rounds
//   gradient   x0 = 1, every other input just below half an ulp of 1 (a
//              gradient update too small for the accumulated value): the
//              chain rounds each one away, once keeps their sum
//   cancel     x0 = 1000, x1 = -1000, then values in [0, 1/64]: the chain's
//              first step is exact, the others round at small magnitude
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <opframe/opframe.h>

#include "base/storage.h"

namespace {

using opf::base::BFloat16;
using opf::base::Half;

template <class N> float widen(N x) { return opf::base::to_float(x); }
template <class N> N round_to(float f)
{
    if constexpr (std::is_same_v<N, Half>) return opf::base::to_half(f);
    else return opf::base::to_bfloat16(f);
}
// One ulp of N at v (mantissa bits: 10 for float16, 7 for bfloat16).
template <class N> double ulp_at(double v)
{
    constexpr int mant = std::is_same_v<N, Half> ? 10 : 7;
    constexpr int min_exp = std::is_same_v<N, Half> ? -14 : -126;
    int e = 0;
    std::frexp(std::fabs(v), &e);   // v = f * 2^e, f in [0.5, 1)
    return std::ldexp(1.0, std::max(e - 1, min_exp) - mant);
}

template <class N> void measure(const char *type_name, opf_datatype_t type, const std::string &data, int k, int n,
                                std::mt19937_64 &rng)
{
    std::vector<std::vector<N>> x(static_cast<std::size_t>(k), std::vector<N>(static_cast<std::size_t>(n)));
    std::uniform_real_distribution<float> uniform(-1, 1), positive(0, 1), tiny(0, 1.0f / 64);
    const float below_half_ulp = std::is_same_v<N, Half> ? 0x1.fp-12f : 0x1.fp-9f;
    for (int j = 0; j < k; ++j)
        for (int i = 0; i < n; ++i) {
            float v = 0;
            if (data == "uniform") v = uniform(rng);
            else if (data == "positive") v = positive(rng);
            else if (data == "gradient") v = j == 0 ? 1.0f : below_half_ulp;
            else v = j == 0 ? 1000.0f : j == 1 ? -1000.0f : tiny(rng);
            x[std::size_t(j)][std::size_t(i)] = round_to<N>(v);
        }
    std::vector<const void *> srcs;
    for (auto &v : x) srcs.push_back(v.data());
    std::vector<N> chain(static_cast<std::size_t>(n)), once(static_cast<std::size_t>(n));
    if (opf_reduce_local_n_mode(srcs.data(), k, chain.data(), n, type, OPF_SUM, OPF_ROUND_CHAIN) != OPF_SUCCESS ||
        opf_reduce_local_n_mode(srcs.data(), k, once.data(), n, type, OPF_SUM, OPF_ROUND_ONCE) != OPF_SUCCESS) {
        std::printf("error: %s\n", opf_last_error());
        return;
    }
    double chain_max = 0, chain_sum = 0, once_max = 0, once_sum = 0;
    int once_correct = 0;
    for (int i = 0; i < n; ++i) {
        double exact = 0;
        for (int j = 0; j < k; ++j) exact += widen(x[std::size_t(j)][std::size_t(i)]);
        const double u = ulp_at<N>(exact);
        const double ec = std::fabs(widen(chain[std::size_t(i)]) - exact) / u,
                     eo = std::fabs(widen(once[std::size_t(i)]) - exact) / u;
        chain_max = std::max(chain_max, ec);
        chain_sum += ec;
        once_max = std::max(once_max, eo);
        once_sum += eo;
        once_correct += eo <= 0.5;
    }
    std::printf("%-9s %-9s %3d %10.2f %10.3f %10.2f %10.3f %9.1f%%\n", type_name, data.c_str(), k, chain_max,
                chain_sum / n, once_max, once_sum / n, 100.0 * once_correct / n);
}

} // namespace

int main()
{
    std::mt19937_64 rng(26);
    const int n = 20000;
    std::printf("# |result - exact sum| in ulps of the type at the exact sum, %d elements per (type, data, k)\n", n);
    std::printf("%-9s %-9s %3s %10s %10s %10s %10s %10s\n", "type", "data", "k", "chain max", "chain mean", "once max",
                "once mean", "once <=.5");
    for (const char *data : {"uniform", "positive", "gradient", "cancel"})
        for (int k : {2, 4, 8, 16, 32, 64}) {
            measure<Half>("FLOAT16", OPF_FLOAT16, data, k, n, rng);
            measure<BFloat16>("BFLOAT16", OPF_BFLOAT16, data, k, n, rng);
        }
    opf_finalize();
    return 0;
}
