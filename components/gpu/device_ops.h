// device_ops.h — which slots a GPU component's device kernels compute, and
// how a launch covers a buffer (launch plans, work items), for every vendor:
// compiled by nvcc and hipcc for their devices, and by the host compiler for
// the host path, the tests and the CPU stand-in. The vendor's kernel file
// includes its runtime's header first (uint4: CUDA's vector_types.h, HIP's
// hip_runtime.h).
//
// The arithmetic is not here: the kernels call base/semantics.h's functors
// and base/storage.h's element access themselves (OPF_HD), with the lists of
// base/type_list.h. The file is compiled with -fmad=false (and the host half
// with -ffp-contract=off), so a complex product is rounded product by product
// as the base's, and -ftz=false keeps subnormals.
// Not computed on the GPU: int128, long double, float128 and their complex /
// pair types (no exact GPU arithmetic).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "base/type_list.h"
#include "fp8_words.h"
#include "kernels.h"

namespace opf_gpu {

namespace base = opf::base;
using base::at_t;
using base::KernelTypes;
using base::Ops;

// A scalar the GPU computes exactly: integers up to 64 bits, float, double,
// and float16 / bfloat16 / fp8 (base::Narrow: computed in float).
template <class S> inline constexpr bool gpu_scalar =
    (base::is_integer<S> && sizeof(S) <= 8) || std::is_same_v<S, float> || std::is_same_v<S, double> || base::Narrow<S>;
template <class T> inline constexpr bool on_gpu = gpu_scalar<T>;
template <class R> inline constexpr bool on_gpu<base::Complex<R>> = gpu_scalar<R>;
template <class V, class I> inline constexpr bool on_gpu<base::Pair<V, I>> = gpu_scalar<V> && gpu_scalar<I>;
// The MX block formats: base/mx.h's rule, in 64-bit integers (exact).
template <class F> inline constexpr bool on_gpu<base::MxBlock<F>> = true;

// The slots with a device kernel: the base's `defined` on the GPU's types.
// REPLACE and NO_OP included: their kernels copy data bytes only, where a
// plain copy of n x extent would write a pair's padding and past its true end.
template <class Op, class T> inline constexpr bool gpu_computes = on_gpu<T> && Op::template defined<T>;

// ---- how a launch covers n elements ---------------------------------------------
// The kernels run work items 0 .. total-1 in a grid-stride loop; the host
// computes the plan from the buffer addresses:
//   vector: the elements have no padding and tile 16 bytes, in1, in2 and out
//           share their address modulo 16, and an element boundary falls on a
//           16-byte boundary: items 0 .. nvec-1 are 16-byte vectors starting
//           after `head` single elements; the items after them are the head's
//           elements, then the tail's;
//   scalar: every address is aligned to the element type: item i is element i,
//           loaded and stored field by field (a pair's padding is not data);
//   bytes:  anything else (an element at an odd address): element i, through
//           base::load / base::store (memcpy of the data bytes).
// Each item reads its elements before writing them, so out may be in1 or in2.
// test/cuda_semantics.cpp runs work_item on the host for every plan shape.
constexpr int kVectorBytes = 16;
enum PlanMode : int { kVector, kScalar, kBytes };
struct Plan {
    int64_t n;       // elements
    int64_t head;    // vector mode: single elements before the first 16-byte boundary
    int64_t nvec;    // vector mode: 16-byte vectors after the head
    int64_t total;   // work items
    int mode;
};

// A 16-byte store writes every byte: only elements without padding.
template <class T> inline constexpr bool vectorizable =
    kVectorBytes % sizeof(T) == 0 && base::data_layout<T>.dense(sizeof(T));

// The plan for inputs in[0..k) and out (the n-ary kernels: every input
// shares out's address modulo 16 for the vector mode).
template <class T> Plan plan_for(const void *const in[], int k, const void *out, int64_t n)
{
    const auto po = reinterpret_cast<uintptr_t>(out);
    constexpr uintptr_t size = sizeof(T), align = alignof(T), vec = kVectorBytes;
    uintptr_t any = po;
    bool same_phase = true;
    for (int j = 0; j < k; ++j) {
        const auto pj = reinterpret_cast<uintptr_t>(in[j]);
        any |= pj;
        same_phase &= (pj - po) % vec == 0;
    }
    Plan p{n, 0, 0, n, kScalar};
    if (any % align != 0) {
        p.mode = kBytes;
        return p;
    }
    const uintptr_t head_bytes = (vec - po % vec) % vec;
    if (vectorizable<T> && same_phase && head_bytes % size == 0) {
        const int64_t per = int64_t(vec / size > 0 ? vec / size : 1);   // (an MX block is wider than a vector: never here)
        p.mode = kVector;
        p.head = n < int64_t(head_bytes / size) ? n : int64_t(head_bytes / size);
        p.nvec = (n - p.head) / per;
        p.total = n - p.nvec * (per - 1);
    }
    return p;
}
template <class T> Plan plan_for(const void *in1, const void *in2, const void *out, int64_t n)
{
    const void *const in[2] = {in1, in2};
    return plan_for<T>(in, 2, out, n);
}

// Aligned access, data bytes only: typed loads and stores on the device (a
// pair's value and index one by one), base::load / base::store on the host.
template <class T> OPF_HD inline T load_aligned(const unsigned char *p)
{
#if defined(OPF_DEVICE_BRANCHES)
    if constexpr (base::is_pair<T>) {
        T v{};
        v.value = *reinterpret_cast<const decltype(v.value) *>(p + offsetof(T, value));
        v.index = *reinterpret_cast<const decltype(v.index) *>(p + offsetof(T, index));
        return v;
    } else {
        return *reinterpret_cast<const T *>(p);
    }
#else
    return base::load<T>(p);
#endif
}
template <class T> OPF_HD inline void store_aligned(unsigned char *p, const T &v)
{
#if defined(OPF_DEVICE_BRANCHES)
    if constexpr (base::is_pair<T>) {
#if defined(OPF_STUB_MUTATIONS)   // the CPU stand-in's mutation pair-store, which its checks must catch: the whole struct
        static const bool whole_struct = OPF_STUB_MUTATED("pair-store");
        if (whole_struct) {
            std::memcpy(p, &v, sizeof v);
            return;
        }
#endif
        *reinterpret_cast<decltype(v.value) *>(p + offsetof(T, value)) = v.value;
        *reinterpret_cast<decltype(v.index) *>(p + offsetof(T, index)) = v.index;
    } else {
        *reinterpret_cast<T *>(p) = v;
    }
#else
    base::store(p, v);
#endif
}

// The element of vector-plan work item i >= nvec, one of the single
// elements: the head's, then the tail's.
template <int V> OPF_HD inline int64_t single_element(const Plan &p, int64_t i)
{
    const int64_t j = i - p.nvec;
    return j < p.head ? j : p.head + p.nvec * V + (j - p.head);
}

// ---- n-ary kernels ------------------------------------------------------------
// The inputs of one n-ary launch, passed by value as a kernel argument (520
// bytes, within every GPU's 4 KiB of kernel parameters).
struct NaryInputs {
    const unsigned char *in[kMaxInputs];
    int k;
};
static_assert(sizeof(NaryInputs) + sizeof(unsigned char *) + sizeof(struct Plan) <= 4096,
              "an n-ary launch's arguments fit the 4 KiB every GPU takes");

// The n-ary forms (kernels.h NaryForm) follow base::NaryAcc's rule.
template <class Op, class T, int F> using NaryAccFor =
    base::NaryAcc<Op, T, F == kOnce ? base::Rounding::Once : base::Rounding::Chain>;
template <class Op, class T, int F> inline constexpr bool gpu_computes_n =
    gpu_computes<Op, T> && (F == kChain || base::rounds_once_apart<Op, T>);

// The accumulator a launch of exactly two inputs runs (the 3-buffer calls,
// n-ary calls with k = 2): A itself, or the same result by a kernel with an
// fp8 word rule (fp8_words.h): fp8 SUM rounded once is the chain's sum of
// two (one rounding either way), and the mean of two has a rule of its own.
template <class T, class A> struct TwoInputsOf {
    using type = A;
};
template <class T> requires fp8::is_fp8<T> struct TwoInputsOf<T, base::SumAcc<T, base::Rounding::Once>> {
    using type = base::SumAcc<T, base::Rounding::Chain>;
};
template <class T, base::Rounding M> requires fp8::is_fp8<T> struct TwoInputsOf<T, base::MeanAcc<T, M>> {
    using type = fp8::MeanOfTwo<T>;
};
template <class T, class A> using TwoInputs = typename TwoInputsOf<T, A>::type;

template <class T> OPF_HD inline T load_item(const unsigned char *p, int mode)
{
    return mode == kBytes ? base::load<T>(p) : load_aligned<T>(p);
}

// How a vector work item reduces its inputs' 16 bytes: element by element
// through A, or four codes at a time where fp8_words.h has a word rule.
template <class T, class A, class Rule = fp8::WordRule<T, A>> struct VectorAcc {
    static constexpr int V = kVectorBytes / int(sizeof(T));
    struct Acc {
        typename A::Acc e[V];
    };
    OPF_HD static Acc first(const uint4 &v, int k)
    {
        T e[V];
        std::memcpy(e, &v, sizeof v);
        Acc a;
        for (int l = 0; l < V; ++l) a.e[l] = A::first(e[l], k);
        return a;
    }
    OPF_HD static Acc add(Acc a, const uint4 &v, int k)
    {
        T e[V];
        std::memcpy(e, &v, sizeof v);
        for (int l = 0; l < V; ++l) a.e[l] = A::add(a.e[l], e[l], k);
        return a;
    }
    OPF_HD static uint4 result(const Acc &a, int k)
    {
        T e[V];
        for (int l = 0; l < V; ++l) e[l] = A::result(a.e[l], k);
        uint4 v;
        std::memcpy(&v, e, sizeof v);
        return v;
    }
};
template <class T, class A, class Rule> requires(!std::is_void_v<Rule>) struct VectorAcc<T, A, Rule> {
    struct Acc {
        typename Rule::Acc w[4];
    };
    OPF_HD static Acc first(const uint4 &v, int k)
    {
        return {{Rule::first(v.x, k), Rule::first(v.y, k), Rule::first(v.z, k), Rule::first(v.w, k)}};
    }
    OPF_HD static Acc add(const Acc &a, const uint4 &v, int k)
    {
        return {{Rule::add(a.w[0], v.x, k), Rule::add(a.w[1], v.y, k), Rule::add(a.w[2], v.z, k), Rule::add(a.w[3], v.w, k)}};
    }
    OPF_HD static uint4 result(const Acc &a, int k)
    {
        return {Rule::result(a.w[0], k), Rule::result(a.w[1], k), Rule::result(a.w[2], k), Rule::result(a.w[3], k)};
    }
};

// Work item i of a launch (see the plan above): every input of the item read
// before its output is stored, so out may be any input.
template <class T, class A>
OPF_HD void nary_item(const NaryInputs &in, unsigned char *o, const Plan &p, int64_t i)
{
    constexpr int64_t size = int64_t(sizeof(T));
    const int k = in.k;
    if constexpr (base::is_mx<T> && requires { A::op; }) {   // MX blocks: the rule straight from the k blocks
        const uint8_t *blocks[kMaxInputs] = {};   // (zeroed: GCC cannot see that k >= 1)
        for (int j = 0; j < k; ++j) blocks[j] = in.in[j] + i * size;
        return base::mx_reduce<typename T::format>(blocks, k, o + i * size, A::op, A::mean);
    }
    if constexpr (vectorizable<T>) {
        if (p.mode == kVector) {
            constexpr int V = kVectorBytes / int(sizeof(T));
            if (i < p.nvec) {
                using VA = VectorAcc<T, A>;
                const int64_t at = (p.head + i * V) * size;
                typename VA::Acc acc = VA::first(load_aligned<uint4>(in.in[0] + at), k);
                for (int j = 1; j < k; ++j) acc = VA::add(acc, load_aligned<uint4>(in.in[j] + at), k);
                store_aligned(o + at, VA::result(acc, k));
                return;
            }
            i = single_element<V>(p, i);
        }
    }
    const int64_t at = i * size;
    typename A::Acc acc = A::first(load_item<T>(in.in[0] + at, p.mode), k);
    for (int j = 1; j < k; ++j) acc = A::add(acc, load_item<T>(in.in[j] + at, p.mode), k);
    const T r = A::result(acc, k);
    if (p.mode == kBytes) base::store(o + at, r);
    else store_aligned(o + at, r);
}

// The 3-buffer kernels' work item: the n-ary one on two inputs (out = in1 op
// in2 is every op's n-ary result for k = 2, AVG's mean of two included), so
// one kernel template serves both (and nvcc compiles it once per slot).
template <class Op, class T>
OPF_HD void work_item(const unsigned char *a, const unsigned char *b, unsigned char *o, const Plan &p, int64_t i)
{
    NaryInputs in;
    in.in[0] = a;
    in.in[1] = b;
    in.k = 2;
    nary_item<T, TwoInputs<T, NaryAccFor<Op, T, kChain>>>(in, o, p, i);
}

// The same on the host (the host path of small mixed calls), any alignment.
template <class T, class A> void host_kernel_n(const void *const in[], int k, void *out, int64_t n)
{
    auto o = static_cast<unsigned char *>(out);
    for (int64_t i = 0; i < n; ++i) {
        const int64_t at = i * int64_t(sizeof(T));
        typename A::Acc acc = A::first(base::load<T>(static_cast<const unsigned char *>(in[0]) + at), k);
        for (int j = 1; j < k; ++j) acc = A::add(acc, base::load<T>(static_cast<const unsigned char *>(in[j]) + at), k);
        base::store(o + at, A::result(acc, k));
    }
}

// out[i] = in1[i] op in2[i] on the host, any alignment, out may be in1 or in2
// (the component's path for small mixed host/device calls).
template <class Op, class T> void host_kernel(const void *in1, const void *in2, void *out, int64_t n)
{
    auto a = static_cast<const unsigned char *>(in1);
    auto b = static_cast<const unsigned char *>(in2);
    auto o = static_cast<unsigned char *>(out);
    for (int64_t i = 0; i < n; ++i) {
        const int64_t at = i * int64_t(sizeof(T));
        base::store(o + at, Op::apply(base::load<T>(a + at), base::load<T>(b + at)));
    }
}

} // namespace opf_gpu
