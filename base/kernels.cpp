// kernels.cpp — instantiates the base kernels for the whole (op x kernel
// type) matrix from the two lists in type_list.h.
#include "base/kernels.h"

#include <cstddef>
#include <algorithm>
#include <cstring>

#include "base/compare.h"
#include "base/matrix.h"
#include "base/type_list.h"

namespace opf::base {
namespace {

// out[i] = in1[i] op in2[i]. Element-wise with out == in1 or out == in2
// allowed: each element is read before it is written, so the loop carries no
// dependence and may be vectorised.
template <class Op, class T>
void kernel3(const void *in1, const void *in2, void *out, opf_count_t n)
{
    auto a = static_cast<const unsigned char *>(in1);
    auto b = static_cast<const unsigned char *>(in2);
    auto o = static_cast<unsigned char *>(out);
#if defined(__clang__)
// (a request: where a type's loop cannot be vectorised it runs as written;
// configure adds -Wno-pass-failed for clang)
#pragma clang loop vectorize(assume_safety)
#elif defined(__GNUC__)
#pragma GCC ivdep
#endif
    for (opf_count_t i = 0; i < n; ++i) {
        const std::size_t at = std::size_t(i) * sizeof(T);
        store(o + at, Op::apply(load<T>(a + at), load<T>(b + at)));
    }
}

template <class Op, class T>
void kernel2(const void *in, void *inout, opf_count_t n)
{
    kernel3<Op, T>(in, inout, inout, n);
}


// Types with bytes that are not data: an x87 long double's 6 bytes (also in
// complex and pairs), a pair's hole or tail.
template <class T> constexpr bool has_padding = false;
template <> constexpr bool has_padding<long double> = true;
template <class R> constexpr bool has_padding<Complex<R>> = has_padding<R>;
template <class V, class I>
constexpr bool has_padding<Pair<V, I>> = has_padding<V> || sizeof(V) + sizeof(I) < sizeof(Pair<V, I>);

// REPLACE and NO_OP copy data bytes only (component.h): one memcpy where
// every byte is data, element by element through store() (which writes the
// members' value bytes) where there is padding.
template <class T> void copy_elements(void *to, const void *from, opf_count_t n)
{
    if (to == from || n <= 0) return;
    auto o = static_cast<unsigned char *>(to);
    auto i = static_cast<const unsigned char *>(from);
    if constexpr (has_padding<T>) {
        for (std::size_t k = 0; k < std::size_t(n); ++k)
            store(o + k * sizeof(T), load<T>(i + k * sizeof(T)));
    } else {
        std::memcpy(o, i, std::size_t(n) * sizeof(T));
    }
}

// One cell of the table: the slot's kernels, or none where the op is not
// defined on the type.
struct SlotGen {
    template <std::size_t O, std::size_t K> static constexpr SlotKernels entry()
    {
        using Op = at_t<O, Ops>;
        using T = at_t<K, KernelTypes>;
        if constexpr (!Op::template defined<T> || !is_supported<T>)
            return {};
        else if constexpr (std::is_same_v<Op, OpNoOp>)
            return {[](const void *, void *, opf_count_t) {},
                    [](const void *, const void *in2, void *out, opf_count_t n) { copy_elements<T>(out, in2, n); }};
        else if constexpr (std::is_same_v<Op, OpReplace>)
            return {[](const void *in, void *inout, opf_count_t n) { copy_elements<T>(inout, in, n); },
                    [](const void *in1, const void *, void *out, opf_count_t n) { copy_elements<T>(out, in1, n); }};
        else
            return {&kernel2<Op, T>, &kernel3<Op, T>};
    }
};
constexpr auto table = make_matrix<SlotKernels, SlotGen>();

// ---- n-ary kernels ------------------------------------------------------------
// The accumulators of semantics.h (NaryAcc, PremulWith), as objects:
// Acc, first(x, k), add(acc, x, k), result(acc, k).

// out = the accumulator's result over in[0..k), block by block: a block of
// accumulators (4 KiB, in L1) takes in[0], then each further input in turn,
// then goes to out. Each input is read once and out written once, and all
// inputs of a block are read before its output is stored: out may be any of
// them. Each inner loop is a plain element-wise loop, vectorised like kernel3.
template <class T, class A>
void fold_n(const A &acc, const void *const in[], int k, void *out, opf_count_t n)
{
    using Acc = typename A::Acc;
    constexpr std::size_t block = sizeof(Acc) >= 4096 ? 1 : 4096 / sizeof(Acc);
    Acc buf[block];
    auto o = static_cast<unsigned char *>(out);
    for (std::size_t at = 0; at < std::size_t(n); at += block) {
        const std::size_t m = std::min(block, std::size_t(n) - at);
        const auto *p = static_cast<const unsigned char *>(in[0]) + at * sizeof(T);
        for (std::size_t e = 0; e < m; ++e) buf[e] = acc.first(load<T>(p + e * sizeof(T)), k);
        for (int j = 1; j < k; ++j) {
            p = static_cast<const unsigned char *>(in[j]) + at * sizeof(T);
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC ivdep
#endif
            for (std::size_t e = 0; e < m; ++e) buf[e] = acc.add(buf[e], load<T>(p + e * sizeof(T)), k);
        }
        unsigned char *q = o + at * sizeof(T);
        for (std::size_t e = 0; e < m; ++e) store(q + e * sizeof(T), acc.result(buf[e], k));
    }
}

template <class T, class A> void nary(const void *const in[], int k, void *out, opf_count_t n, const void *)
{
    fold_n<T>(A{}, in, k, out, n);
}
// MX blocks: each result block straight from its k input blocks (mx.h's
// rule; no accumulator copied between inputs). mx_reduce reads every input
// block before it writes the result: out may be any input.
template <class Op, class F> void mx_nary(const void *const in[], int k, void *out, opf_count_t n, const void *)
{
    constexpr std::size_t B = sizeof(MxBlock<F>);
    const MxOp op = std::is_same_v<Op, OpMax> ? MxOp::Max : std::is_same_v<Op, OpMin> ? MxOp::Min : MxOp::Sum;
    const uint8_t *p[OPF_REDUCE_N_MAX];
    for (std::size_t b = 0; b < std::size_t(n); ++b) {
        for (int j = 0; j < k; ++j) p[j] = static_cast<const uint8_t *>(in[j]) + b * B;
        mx_reduce<F>(p, k, static_cast<uint8_t *>(out) + b * B, op, std::is_same_v<Op, OpAvg>);
    }
}
template <class Op, class T> struct MxNary;
template <class Op, class F> struct MxNary<Op, MxBlock<F>> {
    static constexpr opf_kernel_n_fn *fn = &mx_nary<Op, F>;
};

template <class T, Rounding M> void premul(const void *const in[], int k, void *out, opf_count_t n, const void *scalar)
{
    fold_n<T>(PremulWith<T, M>{load<T>(static_cast<const unsigned char *>(scalar))}, in, k, out, n);
}

struct NaryGen {
    template <std::size_t O, std::size_t K> static constexpr NaryKernels entry()
    {
        using Op = at_t<O, Ops>;
        using T = at_t<K, KernelTypes>;
        NaryKernels r{};
        if constexpr (Op::template defined<T> && is_supported<T>) {
            constexpr bool sum = std::is_same_v<Op, OpSum>;
            if constexpr (is_mx<T> && !std::is_same_v<Op, OpReplace> && !std::is_same_v<Op, OpNoOp>)
                r.fn[kN] = MxNary<Op, T>::fn;   // (no PreMulSum: its scalar would be a block)
            else
                r.fn[kN] = &nary<T, NaryAcc<Op, T, Rounding::Chain>>;
            if constexpr (rounds_once_apart<Op, T>) r.fn[kNOnce] = &nary<T, NaryAcc<Op, T, Rounding::Once>>;
            if constexpr (sum && !is_mx<T>) r.fn[kPremul] = &premul<T, Rounding::Chain>;
            if constexpr (sum && Narrow<T>) r.fn[kPremulOnce] = &premul<T, Rounding::Once>;
        }
        return r;
    }
};
constexpr auto nary_table = make_matrix<NaryKernels, NaryGen>();

// What the framework knows of each kernel type, one column each.
template <class V, class I> constexpr int data_size(Pair<V, I> *) { return sizeof(V) + sizeof(I); }
template <class T> constexpr int data_size(T *) { return sizeof(T); }
using Comparator = opf_count_t (*)(const void *, const void *, opf_count_t);
struct TypeFacts {
    int extent, alignment, data_size, data_end;
    bool supported;
    Comparator first_difference;
};
struct TypeGen {
    template <std::size_t K> static constexpr TypeFacts entry()
    {
        using T = at_t<K, KernelTypes>;
        return {int(sizeof(T)), int(alignof(T)), data_size(static_cast<T *>(nullptr)), int(data_end<T>),
                is_supported<T>, &first_difference<T>};
    }
};
constexpr auto facts = make_kernel_type_table<TypeFacts, TypeGen>();

} // namespace

opf_count_t first_difference(int kt, const void *a, const void *b, opf_count_t n)
{
    return facts[kt].first_difference(a, b, n);
}

const SlotKernels &kernels(int op_id, int kernel_type) { return table[op_id][kernel_type]; }
const NaryKernels &nary_kernels(int op_id, int kernel_type) { return nary_table[op_id][kernel_type]; }
int kernel_type_extent(int kt) { return facts[kt].extent; }
int kernel_type_alignment(int kt) { return facts[kt].alignment; }
int kernel_type_data_size(int kt) { return facts[kt].data_size; }
int kernel_type_data_end(int kt) { return facts[kt].data_end; }
bool kernel_type_supported(int kt) { return facts[kt].supported; }
const char *kernel_type_name(int kt) { return kernel_type_names[kt]; }
const char *op_name(int op_id) { return op_names[op_id]; }

} // namespace opf::base
