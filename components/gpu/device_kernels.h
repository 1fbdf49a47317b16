// device_kernels.h — the GPU kernels, one source for every vendor: one
// kernel template (nary_kernel: k inputs, one output) instantiated for every
// (op, kernel type) slot that device_ops.h says the GPU computes, in the op's
// n-ary rule (base::NaryAcc), and for SUM / AVG of the narrow types in
// round-once too; the 3-buffer calls launch the same kernel with k = 2.
// Tables of them indexed like the base's (kernels.h: slot_kernel,
// nary_kernel).
//
// Included once, by the vendor's kernel file (cuda: cuda_kernels.cu, nvcc;
// hip: hip_kernels.hip, hipcc), after its runtime's header and after it
// defined the one call that differs:
//   Error launch_kernel(const void *kernel, unsigned blocks, unsigned block, void **args, Stream stream);
// (cudaLaunchKernel, hipLaunchKernel), in namespace opf_gpu.
//
// Each kernel is a grid-stride loop over the work items of a Plan (vector,
// scalar or byte-wise, chosen per launch from the buffer addresses; see
// plan_for and nary_item in device_ops.h). The arithmetic is base/semantics.h's
// functors, compiled for the device (OPF_HD); the vendor's flags keep it IEEE
// (no FMA contraction, subnormals kept).
#pragma once

#include <algorithm>

#include "device_ops.h"

namespace opf_gpu {
namespace {

template <class T, class A>
__global__ void nary_kernel(NaryInputs in, unsigned char *o, Plan p)
{
    const int64_t stride = int64_t(gridDim.x) * blockDim.x;
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < p.total; i += stride)
        nary_item<T, A>(in, o, p, i);
}

// Launches `kernel` over the plan's work items with the geometry's blocks.
Error launch_grid(const void *kernel, const Plan &p, Geometry g, void **args, Stream stream)
{
    const int64_t block = std::max(32, g.block);
    const int64_t blocks = std::max<int64_t>(1, std::min<int64_t>((p.total + block - 1) / block,
                                                                  std::max(1, g.max_blocks)));
    return launch_kernel(kernel, unsigned(blocks), unsigned(block), args, stream);
}

template <class T, class A>
Error launch_n(const void *const in[], int k, void *out, int64_t n, Geometry g, Stream stream)
{
    if constexpr (!std::is_same_v<TwoInputs<T, A>, A>)
        if (k == 2) return launch_n<T, TwoInputs<T, A>>(in, k, out, n, g, stream);
    if (n <= 0) return 0;
    if (k < 1 || k > kMaxInputs) return kInvalidValue;
    NaryInputs inputs{};
    for (int j = 0; j < k; ++j) inputs.in[j] = static_cast<const unsigned char *>(in[j]);
    inputs.k = k;
    Plan p = plan_for<T>(in, k, out, n);
    auto *o = static_cast<unsigned char *>(out);
    void *args[] = {&inputs, &o, &p};
    return launch_grid(reinterpret_cast<const void *>(&nary_kernel<T, A>), p, g, args, stream);
}

// The 3-buffer form: the n-ary kernel on two inputs (device_ops.h work_item;
// launch_n takes the two-input accumulator, TwoInputs).
template <class Op, class T>
Error launch(const void *in1, const void *in2, void *out, int64_t n, Geometry g, Stream stream)
{
    const void *const in[2] = {in1, in2};
    return launch_n<T, NaryAccFor<Op, T, kChain>>(in, 2, out, n, g, stream);
}

template <class Op, class T> const SlotKernel *entry()
{
    if constexpr (gpu_computes<Op, T>) {
        static const SlotKernel k = {&launch<Op, T>, &host_kernel<Op, T>,
                                     reinterpret_cast<const void *>(&nary_kernel<T, TwoInputs<T, NaryAccFor<Op, T, kChain>>>),
                                     int(sizeof(T))};
        return &k;
    } else {
        return nullptr;
    }
}

template <class Op, class T, int F> const NaryKernel *nary_entry()
{
    constexpr bool copies = std::is_same_v<Op, base::OpReplace> || std::is_same_v<Op, base::OpNoOp>;
    if constexpr (gpu_computes_n<Op, T, F> && !copies) {
        using A = NaryAccFor<Op, T, F>;
        static const NaryKernel k = {&launch_n<T, A>, &host_kernel_n<T, A>,
                                     reinterpret_cast<const void *>(&nary_kernel<T, A>), int(sizeof(T))};
        return &k;
    } else {
        return nullptr;
    }
}

struct Table {
    const SlotKernel *slot[OPF_OPID_COUNT][OPF_KT_COUNT];
    const NaryKernel *nary[OPF_OPID_COUNT][OPF_KT_COUNT][kNaryForms];
};
template <std::size_t O, std::size_t... K> void fill_row(Table &t, std::index_sequence<K...>)
{
    ((t.slot[O][K] = entry<at_t<O, Ops>, at_t<K, KernelTypes>>()), ...);
    ((t.nary[O][K][kChain] = nary_entry<at_t<O, Ops>, at_t<K, KernelTypes>, kChain>()), ...);
    ((t.nary[O][K][kOnce] = nary_entry<at_t<O, Ops>, at_t<K, KernelTypes>, kOnce>()), ...);
}
template <std::size_t... O> Table make_table(std::index_sequence<O...>)
{
    Table t{};
    (fill_row<O>(t, std::make_index_sequence<OPF_KT_COUNT>{}), ...);
    return t;
}

const Table &table()
{
    static const Table t = make_table(std::make_index_sequence<OPF_OPID_COUNT>{});
    return t;
}
bool in_table(int op_id, int kernel_type)
{
    return op_id > 0 && op_id < OPF_OPID_COUNT && kernel_type >= 0 && kernel_type < OPF_KT_COUNT;
}

} // namespace

const SlotKernel *slot_kernel(int op_id, int kernel_type)
{
    return in_table(op_id, kernel_type) ? table().slot[op_id][kernel_type] : nullptr;
}

const NaryKernel *nary_kernel(int op_id, int kernel_type, int form)
{
    return in_table(op_id, kernel_type) && (form == kChain || form == kOnce) ? table().nary[op_id][kernel_type][form]
                                                                              : nullptr;
}

} // namespace opf_gpu
