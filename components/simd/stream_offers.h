// stream_offers.h — the life cycle of the streaming tier (stream.h): its
// parameter, its threshold and its offers, wrapped around a SIMD component's
// own hooks (component.h). Compiled WITHOUT ISA flags, like the rest of the
// life cycle; the kernels reach it as the constant tables declared here.
//
// The tier is offered at the slot's priority + 1 (Component::priority_of) and from a minimum
// count on (opf_offer_t.min_count), so the framework's size tiers send large
// calls to it and everything below to the plain kernels, without a branch in
// any kernel. The threshold is in bytes of one buffer: by default a quarter
// of the last-level cache hwloc reports (one instance of L3, else L2). A
// call whose three buffers fill most of that cache keeps little of its output
// there for the next use, so reading it for ownership first is wasted
// traffic. Measured on a 2-vCPU AMD EPYC VM (AVX2, 32 MiB L3): streaming
// loses at 1-2 MiB, is even at 4 MiB and wins from 8 MiB on (1.4-2x a plain
// vectorised loop, 3-buffer SUM FLOAT; test/bench_big.cpp).
#pragma once

#include <cstdint>

#include "components/simd/component.h"

namespace opf::simd {

extern const SlotTable avx2_stream_table;
extern const SlotTable avx512_stream_table;

// Isa adds to the life-cycle traits of component.h: stream_param, stream_table.
template <class Isa> struct WithStreaming {
    using Base = Component<Isa>;
    static inline int64_t min_bytes = 0;   // the parameter: 0 = the default below
    static inline int64_t cache_bytes = 0; // the default: a quarter of the last-level cache seen at init_query

    static int register_params()
    {
        if (int rc = Base::register_params()) return rc;
        const opf_param_spec_t spec = {
            Isa::stream_param, OPF_PARAM_SIZE, "0",
            "Bytes of one buffer from which this component's kernels store their results with non-temporal "
            "(streaming) stores, past the caches (3-buffer calls); 0: a quarter of the last-level cache (hwloc; "
            "none if it reports none)",
            5, OPF_PARAM_SETTABLE, nullptr, nullptr, &min_bytes};
        return opf_param_register(&spec) == OPF_SUCCESS ? 0 : -1;
    }

    static int init_query(const opf_hw_info_t *hw, char *reason, std::size_t reason_len)
    {
        if (int rc = Base::init_query(hw, reason, reason_len)) return rc;
        cache_bytes = (hw->l3_bytes > 0 ? hw->l3_bytes : hw->l2_bytes) / 4;
        return 0;
    }

    // The component's offers, then the streaming ones for the same slots.
    static int op_query(int op_id, opf_module_t *module)
    {
        const int rc = Base::op_query(op_id, module);
        const int64_t threshold = min_bytes > 0 ? min_bytes : cache_bytes;
        if (rc != 0 || threshold <= 0) return rc;
        for (int kt = 0; kt < OPF_KT_COUNT; ++kt) {
            const SlotFns &s = Isa::stream_table[op_id][kt];
            if (!s.fn3 || !Isa::table[op_id][kt].fn3) continue;
            const int64_t extent = opf_kernel_type_extent(kt);
            opf_offer_t offer{};
            offer.struct_size = sizeof offer;
            offer.kernel_type = kt;
            offer.priority = Base::priority_of(op_id, kt) + 1;
            offer.min_count = (threshold + extent - 1) / extent;
            offer.kernel3 = s.fn3;
            offer.kernel_n = Isa::table[op_id][kt].fn_n ? s.fn_n : nullptr;
            opf_module_offer(module, &offer);
        }
        return rc;
    }

    static constexpr opf_component_t descriptor = [] {
        opf_component_t d = Base::descriptor;
        d.register_params = register_params;
        d.init_query = init_query;
        d.op_query = op_query;
        return d;
    }();
};

} // namespace opf::simd
