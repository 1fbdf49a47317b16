// cuda_kernels_cpu.cpp — components/cuda/cuda_kernels.cu, unchanged, compiled
// as C++ for the stand-in runtime (kernel_shim.h is included first), and the
// registration of its kernels with the stand-in: every slot's __global__
// function, with an invoker for its signature.
#include "test/cudastub/kernel_shim.h"

#include "components/cuda/cuda_kernels.cu"

#include <tuple>
#include <type_traits>
#include <utility>

#include "test/cudastub/cudastub.h"

namespace {

// Calls f with cudaLaunchKernel's argument array (one pointer per argument).
template <class... A> struct Invoke {
    template <std::size_t... I> static void call(const void *func, void **args, std::index_sequence<I...>)
    {
        auto f = reinterpret_cast<void (*)(A...)>(const_cast<void *>(func));
        f(*static_cast<std::remove_reference_t<A> *>(args[I])...);
    }
    static void run(const void *func, void **args) { call(func, args, std::index_sequence_for<A...>{}); }
    static unsigned pointers()
    {
        unsigned mask = 0, bit = 1;
        ((mask |= std::is_pointer_v<A> ? bit : 0u, bit <<= 1), ...);
        return mask;
    }
};
template <class... A> void register_as(void (*)(A...), const void *func)
{
    cudastub::register_kernel(func, &Invoke<A...>::run, Invoke<A...>::pointers());
}

// Every slot kernel has reduce_kernel's signature.
const bool registered = [] {
    using Signature = void (*)(const unsigned char *, const unsigned char *, unsigned char *, opf_cuda::Plan);
    for (int op = 1; op < OPF_OPID_COUNT; ++op)
        for (int kt = 0; kt < OPF_KT_COUNT; ++kt)
            if (const opf_cuda::SlotKernel *k = opf_cuda::slot_kernel(op, kt))
                register_as(Signature(nullptr), k->kernel);
    return true;
}();

} // namespace
