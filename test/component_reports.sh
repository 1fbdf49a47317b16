#!/bin/sh
# component_reports.sh — what a component writer reads about their component
# (issue 24): each listing names every provider with the counts it serves
# (--explain, --kernels, --parsable), a file that fails to load and a
# component whose offers are all refused appear in the default listing, the
# parsable one and --show-failed, --param for a component that did not load
# says so and exits non-zero, a hidden symbol is told from a misspelled one,
# and opf_component_log keeps the component's prefix in kernels and hooks on
# any thread. About a second: a few opframe_info runs on test components.
check_name=component_reports
. "${srcdir:-.}/test/check_lib.sh"
info="$top/tools/opframe_info"
libs="$top/test/components"
for c in alpha tier nosym spurn hidden chatty; do
    [ -f "$libs/opf_op_$c.so" ] || { echo "component_reports: $libs/opf_op_$c.so is missing (make check builds it)"; exit 1; }
done
run() {   # run DIR ARGS...: opframe_info on DIR; $out its stdout, $rc its status
    dir=$1
    shift
    out=$("$info" --mca mca_component_path "$dir" "$@" 2>"$scratch/stderr")
    rc=$?
}
mkdir "$scratch/tier" "$scratch/broken" "$scratch/chatty"
cp "$libs/opf_op_alpha.so" "$libs/opf_op_tier.so" "$scratch/tier/"
cp "$libs/opf_op_alpha.so" "$libs/opf_op_nosym.so" "$libs/opf_op_spurn.so" "$libs/opf_op_hidden.so" "$scratch/broken/"
cp "$libs/opf_op_chatty.so" "$scratch/chatty/"

# ---- 1. the counts each provider serves ---------------------------------------------
run "$scratch/tier" --explain sum int32_t
check "explain: the tiered provider serves large counts, each of its tiers its own" contains "$out" "
  tier priority 90, counts >= 64000: SELECTED, serves counts >= 64000
  tier priority 90, counts >= 1000: SELECTED, serves counts 1000 to 63999
"
check "explain: the all-sizes winner serves the small counts only" contains "$out" "
  alpha priority 50: SELECTED, serves counts < 1000
"
check "explain: the base serves no count" contains "$out" "
  base (default): serves no count"
run "$scratch/tier" --mca op_tier_priority 40 --explain sum int32_t
check "explain: a tier outranked at every count serves none" contains "$out" "
  tier priority 40, counts >= 1000: outranked, serves no count"
check "explain: ... and alpha every count" contains "$out" "alpha priority 50: SELECTED, serves every count"
run "$scratch/tier" --kernels --op SUM --type INT32
check "--kernels: each provider with its counts" sh -c 'echo "$1" | grep -Eq "^INT32 +alpha<1000,tier>=1000 *\$"' - "$out"
run "$scratch/tier" --parsable --kernels --op SUM --type INT32
check "--parsable --kernels: the same text" contains "$out" "kernel:host:SUM:INT32:2buf:alpha<1000,tier>=1000"
run "$scratch/tier" --mca op_tier_min_count 10 --mca op_tier_priority 40 --mca op_alpha_priority 30 --kernels --op SUM --type INT32
check "--kernels: a tier from count 10" sh -c 'echo "$1" | grep -Eq "^INT32 +alpha<10,tier>=10 *\$"' - "$out"

# ---- 2. failures on stdout, in the parsable form, and in the exit status ----------------
run "$scratch/broken"
check "listing: a file that failed to load" contains "$out" \
    "MCA op: nosym (file $scratch/broken/opf_op_nosym.so) failed: missing symbol opf_op_nosym_component"
check "listing: a component whose offers were all refused is not available" contains "$out" \
    "MCA op: spurn (MCA v2, API v2, Component v1.0.0) failed: every offer was refused (1 offer refused, the first: SUM: struct_size 0"
check "listing: alpha is available" contains "$out" "MCA op: alpha (MCA v2, API v2, Component v1.0.0) available"
run "$scratch/broken" --parsable
check "--parsable: the failed file's status" contains "$out" "mca:op:nosym:status:failed: missing symbol opf_op_nosym_component"
check "--parsable: the refused component's status" contains "$out" "mca:op:spurn:status:failed: every offer was refused"
run "$scratch/broken" --show-failed
check "--show-failed: the component whose offers were refused" contains "$out" "failed: $scratch/broken/opf_op_spurn.so (component spurn)"
check "--show-failed: exit status 1 when something failed" test "$rc" -eq 1
run "$scratch/broken" --param op nosym
check "--param op nosym: non-zero exit" test "$rc" -ne 0
check "--param op nosym: says it did not load, and why" contains "$out" "MCA op nosym: no parameters: the component is not loaded, failed: $scratch/broken/opf_op_nosym.so: missing symbol"
run "$scratch/broken" --param op nosuch
check "--param op nosuch: non-zero exit" test "$rc" -ne 0
check "--param op nosuch: not found" contains "$out" "nosuch: no parameters: the component is not found on mca_component_path"
run "$scratch/broken" --param op alpha
check "--param op alpha: exit 0" test "$rc" -eq 0
check "--param op alpha: its parameters" contains "$out" "op_alpha_priority"

# ---- 3. a hidden symbol is not a misspelled one --------------------------------------------
run "$scratch/broken" --show-failed
check "hidden: says it is not exported and how to export it" contains "$out" \
    "symbol opf_op_hidden_component is defined but not exported (hidden visibility, as -fvisibility=hidden makes it): declare it with OPF_COMPONENT_DECLARE(hidden), which exports it"
check "nosym: still a missing symbol" contains "$out" "missing symbol opf_op_nosym_component"

# ---- 4. opf_component_log's prefix in kernels and hooks, on every thread -----------------
out=$(OPF_MCA_mca_component_path="$scratch/chatty" OPF_MCA_op_base_verbose=1 "$top/test/component_log" 2>&1)
rc=$?
check "component_log ran" test "$rc" -eq 0
lines=$(echo "$out" | grep -E '(kernel|hook) ')
check "component_log: chatty logged from kernels and hooks" test "$(echo "$lines" | grep -c 'kernel sum_int32_[23] ran')" -eq 4
check "component_log: module_enable logged" contains "$lines" "hook module_enable"
check "component_log: every line keeps the prefix" sh -c '! echo "$1" | grep -v "^opframe: chatty: "' - "$lines"
[ $failures -eq 0 ] || echo "$out" | sed 's/^/    | /'
# ---- 5. settings nothing reads are said at default verbosity (issue 34) -------------------
err() { cat "$scratch/stderr"; }
OPF_MCA_opp=avx2 OPF_MCA_op_base_verbos=5 run "$scratch/tier" --mca op_tier_prio 60
check "env: a misspelt framework name, with the closest" contains "$(err)" \
    "opframe: warning: ignoring unknown parameter opp (environment OPF_MCA_opp): did you mean op?"
check "env: op_base_verbos" contains "$(err)" "ignoring unknown parameter op_base_verbos (environment OPF_MCA_op_base_verbos): did you mean op_base_verbose?"
check "--mca: a misspelt component parameter" contains "$(err)" \
    "ignoring unknown parameter op_tier_prio (command line): did you mean op_tier_priority?"
check "each said once" test "$(err | grep -c 'unknown parameter opp ')" -eq 1
printf 'op_vendorx_priority = 60\nop_alpha_priorit = 3\n' >"$scratch/params.conf"
OPF_MCA_PARAM_FILE_USER="$scratch/params.conf" run "$scratch/tier"
check "file: a component not on the path" contains "$(err)" \
    "ignoring unknown parameter op_vendorx_priority (file $scratch/params.conf:1): no component vendorx was found on mca_component_path (op_base_quiet_absent=1 quiets settings of absent components)"
check "file: the line of a misspelt name" contains "$(err)" "op_alpha_priorit (file $scratch/params.conf:2): did you mean op_alpha_priority?"
OPF_MCA_PARAM_FILE_USER="$scratch/params.conf" OPF_MCA_op_base_quiet_absent=1 run "$scratch/tier"
check "op_base_quiet_absent: the absent component's name is quiet" lacks "$(err)" "op_vendorx_priority"
check "op_base_quiet_absent: a misspelt name is still said" contains "$(err)" "did you mean op_alpha_priority?"
OPF_MCA_op_nosym_priority=60 run "$scratch/broken"
check "a setting of a component that failed to load: its state" contains "$(err)" \
    "ignoring unknown parameter op_nosym_priority (environment OPF_MCA_op_nosym_priority): component nosym failed to load from $scratch/broken/opf_op_nosym.so (missing symbol opf_op_nosym_component): nothing reads it"
run "$scratch/tier" --mca op '^tier' --mca op_tier_min_count 5
check "a setting of an excluded component: its state" contains "$(err)" \
    "ignoring unknown parameter op_tier_min_count (command line): component tier is excluded by op=^tier: nothing reads it"
run /nonexistent/dir
check "a component path that names no directory" contains "$(err)" \
    "opframe: warning: mca_component_path names /nonexistent/dir, which is not a directory: no component is loaded from it"
run "$scratch/broken"
check "a component whose every offer was refused: said at default verbosity" contains "$(err)" \
    "opframe: warning: component spurn: serves nothing: all 1 of its 1 offers were refused, the first: SUM: struct_size 0"
run "$scratch/tier" --kernels --op SUM --type INT32 --mca op_base_pin 'sum:int32_t@64-127=alpha,sum:int32_t@1K-2K=tier' --mca op_tier_min_count 10
check "--kernels: a long cell is never cut" sh -c 'echo "$1" | grep -Eq "^INT32 +alpha<10,tier>=10<16,alpha@64-127>=16<32,tier>=32<256,tier@1K-2K>=256<513,tier>=513 *\$"' - "$out"
# in an MPI job: host and rank, said by each node's first rank only
OMPI_COMM_WORLD_RANK=3 OMPI_COMM_WORLD_LOCAL_RANK=0 OPF_MCA_opp=1 run "$scratch/tier"
check "MPI job: the rank and host prefix" contains "$(err)" "opframe[$(hostname):rank 3]: warning: ignoring unknown parameter opp"
OMPI_COMM_WORLD_RANK=4 OMPI_COMM_WORLD_LOCAL_RANK=1 OPF_MCA_opp=1 run "$scratch/tier"
check "MPI job: a node's other ranks stay quiet" lacks "$(err)" "unknown parameter opp"
# The README's count of the avx512 component's slots is the tool's (where
# the CPU runs avx512: elsewhere the component is disqualified, nothing to count).
# Counted on a 512-bit datapath, where the component wins every slot it offers.
readme=${srcdir:-.}/README.md
run "$(built_components_path)" --mca op_base_avx512_datapath 512 --kernels --parsable
counted=$(echo "$out" | grep -c ':2buf:.*avx512')
whole=$out
if [ "$counted" -gt 0 ]; then
    check "README: the avx512 slot count is opframe_info's ($counted)" grep -q "| \`avx512\` | $counted host slots" "$readme"

    # ---- the avx512 component on a core that splits 512-bit operations (Zen 4)
    # The kernels that are AVX2's widened go to avx2 (op_avx512_split_priority
    # 35 < 40), in both forms and the streaming tier; those that use what
    # AVX-512 adds stay with avx512; a 512-bit datapath keeps them all.
    slot() { echo "$1" | grep "^kernel:host:$2:" | cut -d: -f6- | tr '\n' ' '; }
    run "$(built_components_path)" --mca op_base_avx512_datapath 256 --kernels --parsable
    split=$out
    for s in SUM:FLOAT:2buf SUM:FLOAT:3buf MAX:DOUBLE:3buf BAND:INT8:2buf LOR:INT32:3buf SUM:INT64:3buf PROD:C_DOUBLE_COMPLEX:2buf \
             AVG:FLOAT:3buf SUM:FLOAT16:2buf PROD:FLOAT16:3buf; do
        check "split datapath: $s goes to avx2 ($(slot "$split" "$s"))" sh -c \
            'echo "$1" | grep -q "avx2" && ! echo "$1" | grep -q avx512' - "$(slot "$split" "$s")"
    done
    for s in MAX:INT64:2buf PROD:UINT64:3buf LAND:INT8:2buf MAX:FLOAT16:3buf SUM:BFLOAT16:3buf MAX:FLOAT8_E4M3:2buf \
             MAXLOC:FLOAT_INT:3buf SUM:MXFP8_E4M3:2buf SUM:NVFP4:3buf; do
        check "split datapath: $s stays with avx512 ($(slot "$split" "$s"))" contains "$(slot "$split" "$s")" avx512
    done
    check "512-bit datapath: SUM FLOAT is avx512's ($(slot "$whole" SUM:FLOAT:3buf))" \
        contains "$(slot "$whole" SUM:FLOAT:3buf)" avx512
    run "$(built_components_path)" --mca op_base_avx512_datapath 256 --mca op_avx512_split_priority 60 --kernels --parsable
    check "split datapath, op_avx512_split_priority 60: SUM FLOAT back to avx512" \
        contains "$(slot "$out" SUM:FLOAT:3buf)" avx512
    check "split datapath, op_avx512_split_priority 60: as many avx512 slots as on 512 bits" \
        test "$(echo "$out" | grep -c ':2buf:.*avx512')" = "$counted"
    run "$(built_components_path)" --mca op_base_avx512_datapath 256 --explain sum float
    check "explain, split datapath: avx512 offers SUM FLOAT at 35" contains "$out" "avx512 priority 35"
    run "$(built_components_path)" --mca op_base_avx512_datapath 256 --hw
    check "--hw names the datapath it was given" contains "$out" "AVX-512 datapath: 256 bits"
    run "$(built_components_path)" --mca op_base_avx512_datapath 128 --hw
    check "op_base_avx512_datapath 128 is refused, said" contains "$(err)" "op_base_avx512_datapath"
fi
summary
