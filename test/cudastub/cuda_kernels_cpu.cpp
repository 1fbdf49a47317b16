// cuda_kernels_cpu.cpp — components/cuda/cuda_kernels.cu, unchanged, compiled
// as C++ for the stand-in runtime (kernel_shim.h is included first), and the
// registration of its kernels with the stand-in: every slot's __global__
// functions (all of nary_kernel's signature), with an invoker for it.
#include "test/cudastub/kernel_shim.h"

#include "components/cuda/cuda_kernels.cu"

#include <tuple>
#include <type_traits>
#include <utility>

#include "test/cudastub/cudastub.h"

namespace {

// Calls f with cudaLaunchKernel's argument array (one pointer per argument).
template <class... A> struct Invoke {
    using Values = std::tuple<std::remove_cvref_t<A>...>;
    static void call(const void *func, const void *values)
    {
        auto f = reinterpret_cast<void (*)(A...)>(const_cast<void *>(func));
        std::apply(f, *static_cast<const Values *>(values));
    }
    template <std::size_t... I> static cudastub::BoundArgs bind(void **args, std::index_sequence<I...>)
    {
        auto *v = new Values(*static_cast<std::remove_cvref_t<A> *>(args[I])...);
        cudastub::BoundArgs b{&call, v, [](void *p) { delete static_cast<Values *>(p); }, {}, 0};
        auto add = [&](const void *p) { b.pointer[b.n_pointer++] = const_cast<void *>(p); };
        auto note = [&](const auto &x) {
            using X = std::remove_cvref_t<decltype(x)>;
            if constexpr (std::is_pointer_v<X>) add(x);
            if constexpr (std::is_same_v<X, opf_cuda::NaryInputs>)   // the addresses a GPU would dereference
                for (int j = 0; j < x.k && j < opf_cuda::kMaxInputs; ++j) add(x.in[j]);
        };
        std::apply([&](const auto &...x) { (note(x), ...); }, *v);
        return b;
    }
    static cudastub::BoundArgs run(void **args) { return bind(args, std::index_sequence_for<A...>{}); }
};
template <class... A> void register_as(void (*)(A...), const void *func)
{
    cudastub::register_kernel(func, &Invoke<A...>::run);
}

// Every kernel is an nary_kernel (the 3-buffer ones too: k = 2).
const bool registered = [] {
    using Signature = void (*)(opf_cuda::NaryInputs, unsigned char *, opf_cuda::Plan);
    for (int op = 1; op < OPF_OPID_COUNT; ++op)
        for (int kt = 0; kt < OPF_KT_COUNT; ++kt) {
            if (const opf_cuda::SlotKernel *k = opf_cuda::slot_kernel(op, kt)) register_as(Signature(nullptr), k->kernel);
            for (int form = 0; form < opf_cuda::kNaryForms; ++form)
                if (const opf_cuda::NaryKernel *k = opf_cuda::nary_kernel(op, kt, form))
                    register_as(Signature(nullptr), k->kernel);
        }
    return true;
}();

} // namespace
