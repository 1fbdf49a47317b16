// op.h — ops as the reduction path sees them: predefined ops are their id
// and a row of the mixed kernel table; user ops are a callback.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <opframe/component.h>

namespace opf {

// One half (2- or 3-buffer) of a table slot: the kernel that serves it and
// who provided it. `larger` lists offers that take over from a minimum count
// on (a device or threaded kernel that only pays off for large counts).
template <class Fn> struct Offer {
    Fn *fn = nullptr;
    const char *provider = nullptr;
    opf_count_t min_count = 0;
    // Where a size-bounded op_base_pin cuts the slot: the min_count the
    // provider offered (min_count is where this piece starts) and, inside a
    // pinned band, the band as written ("64K-1M").
    opf_count_t offered_from = 0;
    const char *pinned = nullptr;
    // n-ary halves only: `provider` serves these counts with its 3-buffer
    // kernel composed left to right (it offers no n-ary kernel here); `fn`
    // is the base's, for calls that cannot be composed (components.cpp:
    // install_chain).
    bool chains_three = false;
};

template <class Fn> struct SlotHalf {
    Offer<Fn> offer;                  // serves counts below every larger offer
    const Offer<Fn> *larger = nullptr;  // sorted by min_count, descending; ends with fn == nullptr
    int n_larger = 0;

    Fn *pick(opf_count_t count) const
    {
        if (!larger) [[likely]] return offer.fn;
        for (int i = 0; i < n_larger; ++i)
            if (count >= larger[i].min_count) return larger[i].fn;
        return offer.fn;
    }
    const Offer<Fn> &offer_for(opf_count_t count) const
    {
        for (int i = 0; i < n_larger; ++i)
            if (count >= larger[i].min_count) return larger[i];
        return offer;
    }
};

// A slot of host memory: the kernels opf_reduce_local runs in place.
struct HostSlot {
    SlotHalf<opf_kernel2_fn> two;
    SlotHalf<opf_kernel3_fn> three;
    // opf_reduce_local_n's kernels, by base::NaryForm (a form the base has
    // not for this slot stays empty: kNOnce where it equals kN, the premul
    // forms outside SUM's row).
    SlotHalf<opf_kernel_n_fn> nary[4];
};

// A slot of a device memory kind: synchronous kernels that may fail, and
// kernels enqueued on a caller's stream / queue.
struct DeviceSlot {
    SlotHalf<opf_device_kernel2_fn> two;
    SlotHalf<opf_device_kernel3_fn> three;
    SlotHalf<opf_stream_kernel2_fn> stream2;
    SlotHalf<opf_stream_kernel3_fn> stream3;
    // opf_reduce_local_n's device kernels by form (base::kN, base::kNOnce;
    // kNOnce only where the base has it), synchronous and on a stream.
    SlotHalf<opf_device_kernel_n_fn> nary[2];
    SlotHalf<opf_stream_kernel_n_fn> stream_nary[2];
};

template <class S> struct SlotTable {
    S slot[OPF_OPID_COUNT][OPF_KT_COUNT];
};

// The mixed tables: host memory, and one per memory kind a device component
// registered (kind k at device_tables[k - 1]; filled at init, fixed until
// finalize).
extern SlotTable<HostSlot> host_table;
extern std::vector<SlotTable<DeviceSlot>> device_tables;

// The counts one offer serves in a slot half: [from, to), to < 0 for no
// bound; `from` is the offer's min_count (0 for the all-sizes offer). A slot
// half is a list of them in ascending counts, from count 0.
struct TierSpan {
    const char *provider;   // nullptr: no kernel for these counts
    opf_count_t from, to;
    opf_count_t offered_from = 0;   // the offer's own min_count (Offer)
    const char *pinned = nullptr;   // a band of op_base_pin: "64K-1M"
    bool chains_three = false;      // n-ary: the provider's 3-buffer kernel, composed (Offer)
};
std::vector<TierSpan> slot_spans(int op_id, int mem, int kt, int nbuf, bool stream);
// The same for a host n-ary form (base::NaryForm); empty where the base has no such form.
std::vector<TierSpan> slot_spans_n(int op_id, int kt, int form);
// The counts `provider` serves in `spans` (only with its offer from
// `min_count` on, unless min_count < 0): "every count", "counts < 32",
// "counts >= 32", "counts 32 to 999" (joined by " and "), or "" for none.
std::string counts_served(const std::vector<TierSpan> &spans, const std::string &provider, opf_count_t min_count = -1);
// Each provider with its counts: "avx512" (every count), "base<32,avx2>=32",
// "avx512<16384,avx2 (pinned 64K-1M)>=16384<262145,avx512>=262145"; an
// n-ary piece that composes 3-buffer calls reads "example(chain)".
std::string spans_text(const std::vector<TierSpan> &spans);

// Fills host_table from the base and drops the device tables (init, finalize).
void load_base_table();

// The call rows of reduce.cpp's short path (a predefined op on a predefined
// type): built from the selected table as the last step of init, cleared
// first thing at finalize. A cleared row sends every call the general way.
void build_call_rows();
void clear_call_rows();

struct UserOp {
    opf_user_function *fn = nullptr;
    opf_user_function_c *fn_c = nullptr;
    bool commutative = true;
    // A PreMulSum op (opf_op_create_premul): no callback; the kernel type it
    // reduces and its scalar, one element of that type.
    int premul_kt = -1;
    alignas(16) unsigned char scalar[32] = {};
};

// A predefined op id (1 .. OPF_OPID_COUNT-1), or 0 when `op` is not predefined.
inline int predefined_op_id(opf_op_t op)
{
    const auto h = reinterpret_cast<uintptr_t>(op);
    return h - 1 < OPF_OPID_COUNT - 1 ? int(h) : 0;
}

// The user op of a live handle, or nullptr. Dereference it only while
// holding a use (UserOpUse), or where nothing can free it concurrently.
const UserOp *find_user_op(opf_op_t op);

const UserOp *begin_user_op_use(opf_op_t op);
void end_user_op_use(opf_op_t op);

// A user op handle resolved for the length of a call: the op stays valid
// even if the handle is freed meanwhile (MPI: freeing marks for
// deallocation), from inside its own callback too.
class UserOpUse {
public:
    explicit UserOpUse(opf_op_t op) : op_(op), u_(begin_user_op_use(op)) {}
    ~UserOpUse()
    {
        if (u_) end_user_op_use(op_);
    }
    UserOpUse(const UserOpUse &) = delete;
    UserOpUse &operator=(const UserOpUse &) = delete;
    const UserOp *get() const { return u_; }

private:
    opf_op_t op_;
    const UserOp *u_;
};

// Frees every user op (finalize); ops in use go when their use ends.
void release_all_user_ops();

} // namespace opf
