#!/usr/bin/env bash
# tb/pwc/mutate.sh — mutation check of the page-walk-cache RTL (make mutate).
#
# Applies single-point mutations (inverted comparison, dropped term,
# off-by-one width or index, stuck valid, ...) to COPIES of rtl/cpwc.sv,
# rtl/tpc.sv and rtl/pwc_pipe.sv in the build dir (the tracked RTL is never
# touched), verilates each mutant with the bench's flags (--assert,
# --x-assign/--x-initial unique) at a small geometry (a survivor again at
# a second geometry: other block size, entry count and a 3-cycle pipeline;
# a CPWC survivor then at a third, of one-entry blocks as the paper's),
# and runs a short
# seeded lock-step random bench against the C model (outputs every cycle,
# storage, latency, SVA). A mutant is caught when the bench fails.
#
# Env: BUILD_DIR (CMake build dir), MUTATE_JOBS (parallel mutants, 2),
# MUTATE_CYCLES (cycles per seed, 4000), MUTATE_SEEDS ("1 2 3 4"),
# MUTATE_ONLY (run only mutants whose id matches this regex), MUTATE_HANG_S
# (seconds before a mutant's run counts as a hang, 300), MUTATE_REPORT (the
# Markdown report, docs/results/mutation_pwc.md; written only by a run of
# every mutant), MUTATE_PAGE_ONLY=1 (run nothing: write the report again from
# the last full run's results in the build dir, e.g. after tb/dpi/mutate.sh
# has added its verdicts).
#
# The report has a "DPI bench" column: the verdict of the SystemVerilog class
# benches (tb/dpi/mutate.sh, run first by `make mutate`) on the same mutant,
# read from BUILD_DIR/tb/dpi/mutate (tb/dpi/dpi_verdicts.py).
#
# Score: caught / (mutants that build), per file, hangs NOT counted as
# caught (they are listed with their timeout); mutants that do not build are
# listed and left out. Exits 1 if any file's score is below MUTATE_TARGET.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
TWINS=$ROOT/platforms/rtl # the Verilated wrapper classes
BUILD_DIR=${BUILD_DIR:-$ROOT/build-rtl-pwc}
WORK=$BUILD_DIR/tb/pwc/mutate
JOBS=${MUTATE_JOBS:-2}
CYCLES=${MUTATE_CYCLES:-4000}
SEEDS=${MUTATE_SEEDS:-"1 2 3 4"}
TARGET=${MUTATE_TARGET:-95}
ONLY=${MUTATE_ONLY:-.}
HANG_S=${MUTATE_HANG_S:-300} # a mutant whose bench has not finished by then is a hang
REPORT=${MUTATE_REPORT:-$ROOT/docs/results/mutation_pwc.md}
mkdir -p "$WORK"

PAGE_ONLY=${MUTATE_PAGE_ONLY:-0}
if [ "$PAGE_ONLY" = 1 ]; then
  [ -f "$WORK/mutants.txt" ] && [ -f "$WORK/run_info" ] ||
    { echo "mutate.sh: MUTATE_PAGE_ONLY=1 needs a full run's results in $WORK" >&2; exit 2; }
fi

if [ "$PAGE_ONLY" != 1 ]; then
LIBMODELS=$(find "$BUILD_DIR" -name libgmmu_models.a 2>/dev/null | head -1)
if [ -z "$LIBMODELS" ]; then
  cmake --build "$BUILD_DIR" --target gmmu_models >/dev/null
  LIBMODELS=$(find "$BUILD_DIR" -name libgmmu_models.a | head -1)
fi
CXXFLAGS_COMMON="-std=c++17 -O1 -I$ROOT/models/include -I$HERE -I$TWINS"

# the bench objects do not depend on the RTL: build them once
if [ ! -f "$WORK/pwc_bench.o" ] || [ "$HERE/pwc_bench.cpp" -nt "$WORK/pwc_bench.o" ] ||
   [ -n "$(find "$HERE" "$TWINS" -name '*.h' -newer "$WORK/pwc_bench.o")" ]; then
  g++ $CXXFLAGS_COMMON -c "$HERE/pwc_bench.cpp" -o "$WORK/pwc_bench.o"
fi
if [ ! -f "$WORK/mutant_main.o" ] || [ "$HERE/mutant_main.cpp" -nt "$WORK/mutant_main.o" ]; then
  g++ $CXXFLAGS_COMMON -c "$HERE/mutant_main.cpp" -o "$WORK/mutant_main.o"
fi

# Write the mutant list: id|file|occurrence|search|replace|what. The search
# text must occur in the file; occurrence picks which (1 = first).
python3 - "$ROOT/rtl" "$WORK/mutants.txt" <<'PY'
import sys
rtl, out = sys.argv[1], sys.argv[2]
M = []
def m(f, search, repl, what, occ=1):
    M.append((f, occ, search, repl, what))

# ---- cpwc.sv and its phase modules (rtl/cpwc.f): ids cpwc_NN, in this order --
c, lk, fl, iv, sl = 'cpwc.sv', 'cpwc_lookup.sv', 'cpwc_fill.sv', 'cpwc_inval.sv', 'cpwc_slot.sv'
m(lk, "(&lookup_va_i[63:47]) | ~(|lookup_va_i[63:47])", "(&lookup_va_i[63:47])", "canonical check drops the low half")
m(lk, "assign lk_i2    = lookup_va_i[29:21];", "assign lk_i2    = lookup_va_i[30:22];", "lookup L2 index off by one")
m(lk, "assign lk_i3    = lookup_va_i[38:30];", "assign lk_i3    = lookup_va_i[37:29];", "lookup L3 index off by one")
m(lk, "(l4_tag_q[s] == lk_i4)", "(l4_tag_q[s] != lk_i4)", "L4 tag compare inverted")
m(lk, "lk_dec3[t] && l3_valid_q[t] && (l3_tag_q[t] == lk_i3)", "lk_dec3[t] && (l3_tag_q[t] == lk_i3)", "L3 hit ignores valid")
m(lk, "l2_valid_q[k] && (l2_tag_q[k] == lk_i2)", "(l2_tag_q[k] == lk_i2)", "L2 hit ignores valid")
m(lk, "lk_tag_hit[k] && lk_sel[k / BE]", "lk_tag_hit[k]", "mask mux dropped: any block hits")
m(lk, "assign lk_l3_hit = lk_l4_hit && (|lk_l3_hits);", "assign lk_l3_hit = (|lk_l3_hits);", "L3 hit without L4 hit")
m(lk, "      lk_code = 2'd2;\n      lk_base = lk_l4_base;", "      lk_code = 2'd1;\n      lk_base = lk_l4_base;", "L4 hit reports the wrong start level")
m(lk, "      lk_base = lk_l3_base;", "      lk_base = lk_l4_base;", "L3 hit returns the L4 entry's base")
m(lk, "lk_canon && lk_l2_hit) ? lk_ent_hit", "lk_canon) ? lk_ent_hit", "LRU touch without a full hit")
m(c, "assign age_a = touch_a[NE-1:i+1] | (age_q", "assign age_a = (age_q", "lookup use not recorded as newest")
m(c, "(age_a & {(NE-1-i){!touch_b[i]}})", "(age_a & {(NE-1-i){touch_b[i]}})", "fill touch inverted in the age matrix")
m(fl, "assign older[i][j] = !gen_age[j].gen_up.age_a[i-j-1];", "assign older[i][j] = gen_age[j].gen_up.age_a[i-j-1];", "age matrix lower half not inverted")
m(fl, "assign f_i2 = fill_va_i[29:21];", "assign f_i2 = fill_va_i[28:20];", "fill L2 index off by one")
m(fl, "assign f_b1 = fill_base_l1_i[63:12];", "assign f_b1 = fill_base_l2_i[63:12];", "L2 entry filled with the L2-table base")
m(fl, "!(l4_valid_q[s] && f_l4_tag_eq[s] && (l4_base_q[s] == f_b3))", "!(l4_valid_q[s] && f_l4_tag_eq[s])", "L4 fill ignores a changed base")
m(fl, "fill_valid_i && fill_levels_i[2] && f_dec4[s]", "fill_valid_i && fill_levels_i[1] && f_dec4[s]", "L4 fill keyed on the wrong level bit")
m(fl, "assign f_kill3_a[t]  = f_l4_evict[t / L3PerL4] && l3_valid_q[t];", "assign f_kill3_a[t]  = 1'b0;", "L4 replacement keeps dependent L3 entries")
m(fl, "fill_valid_i && fill_levels_i[1] && f_l4_ok && f_dec3[t]", "fill_valid_i && fill_levels_i[1] && f_dec3[t]", "L3 fill without its L4 entry")
m(fl, "assign own_b[t]       = f_l3_wr[t] ? '0 : own_a[t];", "assign own_b[t]       = own_a[t];", "new L3 entry inherits the old mask")
m(fl, "(f_l3_wr[t] || f_l3_tag_eq[t])", "(f_l3_tag_eq[t])", "fresh L3 entry not usable by the same fill")
m(fl, "l2_valid_q[k] && !f_killb_a[k / BE] && !f_killb_b[k / BE]", "l2_valid_q[k] && !f_killb_a[k / BE]", "L3 replacement keeps its blocks' entries")
m(fl, "f_l2_en && l2_valid_b[k] && f_own[k / BE] && (l2_tag_q[k] == f_i2)", "f_l2_en && l2_valid_b[k] && (l2_tag_q[k] == f_i2)", "existing-path check ignores the owner")
m(fl, "assign f_free[k]     = !l2_valid_b[k] && f_own[k / BE];", "assign f_free[k]     = !l2_valid_b[k];", "free entry taken from any block")
m(fl, "assign f_oldest[k] = &newer;", "assign f_oldest[k] = |newer;", "oldest-entry reduction AND->OR")
m(fl, "!l2_valid_b[a*BE + wi] || gen_mat.older", "gen_mat.older", "block stamp counts invalid entries")
m(fl, "assign younger[wj] = l2_valid_b[b*BE + wj] && (&beats);", "assign younger[wj] = (&beats);", "block stamp counts invalid younger entries")
m(fl, "assign wins[a] = f_bs_lt[b][a];", "assign wins[a] = !f_bs_lt[a][b];", "victim tie-break: lower block no longer wins ties")
m(fl, "assign f_first_unowned = f_unowned & (~f_unowned + 1'b1);", "assign f_first_unowned = f_unowned;", "all unowned blocks claimed")
m(fl, "        f_target = f_first_free;", "        f_target = f_free;", "every free entry written")
m(fl, "f_target[b*BE] = f_target[b*BE] | f_claim[b];", "f_target[b*BE+BE-1] = f_target[b*BE+BE-1] | f_claim[b];", "claimed block filled from its last entry")
m(fl, "assign touch_b = f_target | ((Lru && f_l2_en) ? f_exist : '0);", "assign touch_b = f_target;", "refill of a cached path not a use")
m(fl, "(f_target[k] || f_exist[k]) ? f_b1", "(f_target[k]) ? f_b1", "refill keeps the old L1 base")
m(fl, "(l2_valid_b[k] && !f_drop[k / BE]) || f_target[k]", "l2_valid_b[k] || f_target[k]", "taken-over block keeps its entries")
m(fl, "(own_b[t] & ~f_drop) | (f_claim & {NB{f_dec3[t]}})", "own_b[t] | (f_claim & {NB{f_dec3[t]}})", "taken-over block keeps its old owner")
m(iv, "assign inv_range_ok = inv_lo_i[47:0] <= inv_hi_i[47:0];", "assign inv_range_ok = inv_lo_i[47:0] < inv_hi_i[47:0];", "range check <= -> <")
m(iv, "(l4_tag_d[s] >= inv_lo4) && (l4_tag_d[s] <= inv_hi4)", "(l4_tag_d[s] >= inv_lo4)", "range invalidation ignores hi")
m(iv, "assign inv_lo4      = inv_lo_i[47:39];", "assign inv_lo4      = inv_lo_i[46:38];", "range lo index off by one")
m(iv, "assign own_d[t]      = inv_l3[t] ? '0 : own_c[t];", "assign own_d[t]      = own_c[t];", "invalidated L3 entry keeps its mask")
m(iv, "assign inv_l3[t]     = inv_l4[t / L3PerL4];", "assign inv_l3[t]     = inv_l4[0];", "L3 entry invalidated with the wrong L4 slot")
m(sl, "hi << $clog2(L3PerL4)", "hi << ($clog2(L3PerL4) + 1)", "L3 slot: L4 bits shifted one too far")
m(c, "      l2_valid_q <= '0;", "      l2_valid_q <= '1;", "L2 valid bits reset to 1")
m(iv, "assign l4_valid_d[s] = l4_valid_a[s] && !inv_l4[s];", "assign l4_valid_d[s] = l4_valid_a[s];", "stuck L4 valid")
m(fl, "lo = lo & (~above(a) | ", "lo = lo & (", "victim (one-entry blocks): the lower-entry rule applied at and below a")
m(fl, "({NE{l2_valid_b[a]}} & ~(l2_valid_b & row[a]))", "(~(l2_valid_b & row[a]))", "victim (one-entry blocks): an invalid lower entry counts as valid")
m(fl, "hi[b] = !l2_valid_b[b] || &(", "hi[b] = &(", "victim (one-entry blocks): an invalid entry loses to older higher ones")
m(fl, "&((l2_valid_b & row[b]) | ~above(b))", "&((row[b]) | ~above(b))", "victim (one-entry blocks): invalid higher entries count as used later")
m(fl, "assign f_victim = lo & hi;", "assign f_victim = lo;", "victim (one-entry blocks): higher entries ignored")
m(fl, "assign row[a] = {gen_age[a].gen_up.age_a, (a + 1)'(0)};", "assign row[a] = {(a + 1)'(0), gen_age[a].gen_up.age_a};", "victim (one-entry blocks): age row not aligned to its columns")

# ---- tpc.sv ---------------------------------------------------------------------
t = 'tpc.sv'
m(t, "(&lookup_va_i[63:47]) | ~(|lookup_va_i[63:47])", "(&lookup_va_i[63:47])", "canonical check drops the low half")
m(t, "assign lk_idx   = {lookup_va_i[29:21], lookup_va_i[38:30], lookup_va_i[47:39]};", "assign lk_idx   = {lookup_va_i[38:30], lookup_va_i[29:21], lookup_va_i[47:39]};", "lookup L3/L2 index parts swapped")
m(t, "assign lk_ge1[i] = valid_q[i] && pv_q[i][0]", "assign lk_ge1[i] = pv_q[i][0]", "lookup ignores valid")
m(t, "assign lk_ge2[i] = lk_ge1[i] && pv_q[i][1] &&", "assign lk_ge2[i] = lk_ge1[i] &&", "lookup ignores part-valid of L3")
m(t, "(idx_q[i][2*TagW +: TagW] == lk_idx[2*TagW +: TagW])", "(idx_q[i][2*TagW +: TagW] != lk_idx[2*TagW +: TagW])", "L2 index compare inverted")
m(t, "      lk_best = lk_ge2;\n      lk_code = 2'd1;", "      lk_best = lk_ge2;\n      lk_code = 2'd2;", "L3-prefix hit reports the wrong start level")
m(t, "      lk_best = lk_ge3;", "      lk_best = lk_ge2;", "full hit selects a shorter match")
m(t, "assign lk_sel = lk_best & (~lk_best + 1'b1);", "assign lk_sel = lk_best;", "no priority among matching entries")
m(t, "2'd0:    lk_base = lk_base | (base2_q[i]", "2'd0:    lk_base = lk_base | (base1_q[i]", "full hit returns the L2-table base")
m(t, "assign touch_a = (Lru && lookup_valid_i) ? lk_sel : '0;", "assign touch_a = '0;", "lookup hits not recorded (LRU)")
m(t, "assign age_a = touch_a[N-1:i+1] | (age_q", "assign age_a = (age_q", "lookup use not recorded as newest")
m(t, "(age_a & {(N-1-i){!touch_b[i]}})", "(age_a & {(N-1-i){touch_b[i]}})", "fill touch inverted in the age matrix")
m(t, "assign older[i][j] = !gen_age[j].gen_up.age_a[i-j-1];", "assign older[i][j] = gen_age[j].gen_up.age_a[i-j-1];", "age matrix lower half not inverted")
m(t, "!fill_levels_i[1] ? 2'd1 :", "!fill_levels_i[0] ? 2'd1 :", "fill depth from the wrong level bit")
m(t, "assign f_b2    = fill_base_l2_i[63:12];", "assign f_b2    = fill_base_l2_i[62:11];", "L2-table base off by one bit")
m(t, "assign f_ge1[i] = valid_q[i] && pv_q[i][0]", "assign f_ge1[i] = pv_q[i][0]", "fill match ignores valid")
m(t, "(f_depth == 2'd2) ? f_ge2[i] : f_ge3[i];", "(f_depth == 2'd2) ? f_ge1[i] : f_ge3[i];", "2-level fill covered by a 1-level match")
m(t, "(f_ge1[i] && !pv_q[i][1])", "(f_ge1[i] && pv_q[i][1])", "extend condition inverted")
m(t, " || (f_ge2[i] && !pv_q[i][2])", "", "depth-2 entries never extended")
m(t, "assign f_oldest[i] = &newer;", "assign f_oldest[i] = |newer;", "oldest-entry reduction AND->OR")
m(t, "assign f_first_free   = ~valid_q & (valid_q + 1'b1);", "assign f_first_free   = ~valid_q;", "every free entry written")
m(t, "assign f_ff = |(~valid_q);", "assign f_ff = &(~valid_q);", "free entry only when all are free")
m(t, "      if (f_fe) begin\n        f_target = f_first_extend;", "      if (1'b0) begin\n        f_target = f_first_extend;", "stuck: never extend")
m(t, "        f_target = f_oldest;", "        f_target = '0;", "stuck: no victim when full")
m(t, "f_from = !pv_q[i][1] ? 2'd1 : 2'd2;", "f_from = !pv_q[i][1] ? 2'd0 : 2'd2;", "extend rewrites the L4 part")
m(t, "(2'(j) >= f_from) && (2'(j) < f_depth)", "(2'(j) >= f_from) && (2'(j) <= f_depth)", "one part too many written")
m(t, "assign f_clear[j] = !f_fe && (2'(j) >= f_depth);", "assign f_clear[j] = 1'b0;", "stale deeper parts kept in a new entry")
m(t, "assign touch_b = f_target | ((Lru && f_en && f_fc) ? f_first_cover : '0);", "assign touch_b = f_target;", "covered fill not a use (LRU)")
m(t, "((pv_q[i] | f_write) & ~f_clear)", "(f_write & ~f_clear)", "extend forgets the existing parts")
m(t, "(idx_d[i][0 +: TagW] <= inv_hi4)", "(idx_d[i][0 +: TagW] < inv_hi4)", "range hi compare <= -> <")
m(t, "assign inv_range_ok = inv_lo_i[47:0] <= inv_hi_i[47:0];", "assign inv_range_ok = inv_lo_i[47:0] >= inv_hi_i[47:0];", "reversed-range check inverted")
m(t, "assign valid_d[i] = (valid_q[i] || f_target[i]) && !inv_hit;", "assign valid_d[i] = (valid_q[i] || f_target[i]);", "stuck valid: invalidation ignored")
m(t, "assign inv_every    = inv_valid_i && (inv_all_i || !inv_range_ok);", "assign inv_every    = inv_valid_i && inv_all_i;", "reversed range not a full flush")
m(t, "assign base0_d[i] = (f_target[i] && f_write[0]) ? f_b3", "assign base0_d[i] = (f_target[i]) ? f_b3", "L3-table base rewritten on extend")
m(t, "      valid_q <= '0;", "      valid_q <= '1;", "valid bits reset to 1")

# ---- pwc_pipe.sv (used by both; mutants run on the CPWC bench) -------------------
p = 'pwc_pipe.sv'
m(p, "      assign code_d  = squash_i ? 2'd3 : in_code_i;", "      assign code_d  = in_code_i;", "squash misses the new lookup")
m(p, "      assign code_d  = squash_i ? 2'd3 : code_q[i-1];", "      assign code_d  = code_q[i-1];", "squash misses lookups in flight")
m(p, "      assign valid_d = in_valid_i;", "      assign valid_d = 1'b1;", "stuck valid")
m(p, "      assign valid_d = valid_q[i-1];", "      assign valid_d = valid_q[0];", "stage index off by one")
m(p, "      assign base_d  = base_q[i-1];", "      assign base_d  = base_q[0];", "base not shifted")
m(p, "      assign root_d  = root_q[i-1];", "      assign root_d  = root_q[0];", "root not shifted")
m(p, "{1'b0, out_code} + 3'd1", "{1'b0, out_code} + 3'd0", "level off by one")
m(p, "(out_code == 2'd3)   ? root_q[Lat-1]", "(out_code == 2'd2)   ? root_q[Lat-1]", "miss decoded as L4 hit")
m(p, "{base_q[Lat-1], 12'h000}", "{base_q[Lat-1][50:0], 13'h0000}", "base shifted by one bit")
m(p, "assign hit_valid_o = valid_q[Lat-1];", "assign hit_valid_o = valid_q[0];", "result one stage early")
m(p, "        valid_q[i] <= 1'b0;", "        valid_q[i] <= 1'b1;", "valid reset to 1")
m(p, "hit_valid_o ? {1'b0, out_code} + 3'd1 : 3'd0", "{1'b0, out_code} + 3'd1", "level not qualified by valid")
m(p, "      assign code_d  = squash_i ? 2'd3 : in_code_i;", "      assign code_d  = squash_i ? 2'd2 : in_code_i;", "squashed new lookup reports an L4 hit")
m(p, "      assign code_d  = squash_i ? 2'd3 : code_q[i-1];", "      assign code_d  = squash_i ? 2'd0 : code_q[i-1];", "squashed lookup in flight reports an L1 hit")
m(p, "      assign code_d  = squash_i ? 2'd3 : in_code_i;", "      assign code_d  = !squash_i ? 2'd3 : in_code_i;", "squash of the new lookup inverted")
m(p, "      assign code_d  = squash_i ? 2'd3 : code_q[i-1];", "      assign code_d  = in_valid_i ? 2'd3 : code_q[i-1];", "lookups in flight squashed by the wrong signal")
m(p, "      assign base_d  = in_base_i;", "      assign base_d  = 52'd0;", "hit base dropped at entry")
m(p, "      assign root_d  = in_root_i;", "      assign root_d  = 64'd0;", "root dropped at entry")
m(p, "      assign valid_d = in_valid_i;", "      assign valid_d = in_valid_i && !squash_i;", "squashed new lookup dropped, not turned into a miss")
m(p, "      assign valid_d = valid_q[i-1];", "      assign valid_d = valid_q[i-1] && !squash_i;", "squashed lookups in flight dropped")
m(p, "        valid_q[i] <= valid_d;", "        valid_q[i] <= valid_q[i];", "valid held instead of shifted")
m(p, "      code_q[i] <= code_d;", "      code_q[i] <= in_code_i;", "every stage takes the new code")
m(p, "      base_q[i] <= base_d;", "      base_q[i] <= in_base_i;", "every stage takes the new base")
m(p, "      root_q[i] <= root_d;", "      root_q[i] <= in_root_i;", "every stage takes the new root")
m(p, "  assign out_code = code_q[Lat-1];", "  assign out_code = code_q[0];", "output code from the first stage")
m(p, "(out_code == 2'd3)   ? root_q[Lat-1]", "(out_code == 2'd3)   ? root_q[0]", "miss returns the first stage's root")
m(p, "{base_q[Lat-1], 12'h000}", "{base_q[0], 12'h000}", "hit returns the first stage's base")
m(p, "{base_q[Lat-1], 12'h000}", "{base_q[Lat-1], 12'hfff}", "hit base low bits set")
m(p, "(out_code == 2'd3)   ? root_q[Lat-1]", "(out_code[1])        ? root_q[Lat-1]", "L3-table hit decoded as a miss")
m(p, "      if (!rst_ni) begin\n        valid_q[i] <= 1'b0;", "      if (rst_ni) begin\n        valid_q[i] <= 1'b0;", "reset polarity inverted")
m(p, "assign hit_base_o  = !hit_valid_o         ? 64'd0 :", "assign hit_base_o  = 1'b0                ? 64'd0 :", "base not qualified by valid")
m(p, "hit_valid_o ? {1'b0, out_code} + 3'd1 : 3'd0", "hit_valid_o ? {1'b0, out_code} + 3'd1 : 3'd4", "idle level not zero")
m(p, "{1'b0, out_code} + 3'd1", "{out_code[1], out_code} + 3'd1", "level code sign-extended")

import os
with open(out, 'w') as fo:
    n = {}
    for f, occ, s, r, what in M:
        text = open(os.path.join(rtl, f)).read()
        cnt = text.count(s)
        if cnt < occ:
            sys.exit(f"mutate.sh: mutant '{what}' of {f}: search text not found:\n{s}")
        # the CPWC's mutants are numbered together over its files
        unit = 'cpwc' if f.startswith('cpwc') else f.split('.')[0]
        n[unit] = n.get(unit, 0) + 1
        mid = f"{unit}_{n[unit]:02d}"
        fo.write("\x1f".join([mid, f, str(occ), s.encode('unicode_escape').decode(),
                              r.encode('unicode_escape').decode(), what]) + "\n")
PY

run_mutant() {
  local line=$1
  local id file occ what dir kind params srcs
  IFS=$'\x1f' read -r id file occ _ _ what <<< "$line"
  dir=$WORK/$id
  rm -rf "$dir"
  mkdir -p "$dir/rtl"
  cp "$ROOT"/rtl/pwc_pipe.sv "$ROOT"/rtl/cpwc.f "$ROOT"/rtl/cpwc*.sv "$ROOT"/rtl/tpc.sv "$dir/rtl/"
  python3 - "$dir/rtl" "$line" <<'PY'
import sys, os
d, line = sys.argv[1], sys.argv[2]
mid, f, occ, s, r, what = line.split("\x1f")
s = s.encode().decode('unicode_escape'); r = r.encode().decode('unicode_escape')
p = os.path.join(d, f); t = open(p).read()
i = -1
for _ in range(int(occ)):
    i = t.index(s, i + 1)
open(p, 'w').write(t[:i] + r + t[i + len(s):])
PY
  # geometry 1 first; a survivor is tried again at geometry 2 (other block
  # size / entry count), so a fault one geometry cannot show is still sought;
  # the CPWC's third has one-entry blocks, whose victim logic
  # (gen_vic_entry) the first two do not elaborate
  local geoms g verdict="" last=""
  if [ "$file" = tpc.sv ]; then
    kind=tpc
    srcs="rtl/pwc_pipe.sv rtl/tpc.sv"
    geoms=("6 2" "3 3")
  else
    kind=cpwc
    srcs="-F rtl/cpwc.f"   # the CPWC's files, its mutated one among them
    geoms=("2 8 5 2 1 1" "2 4 3 4 2 1" "2 4 6 1 1 1")
  fi
  for g in "${geoms[@]}"; do
    set -- $g
    if [ $kind = tpc ]; then
      params="-GEntries=$1 -GHitCycles=$2 -GLru=1'b1"
      printf '#include "Vmut.h"\n#include "Vmut___024root.h"\n#define GMMU_RTL_PWC_VARIANTS(CPWC, TPC) TPC(mut, %s, %s, 1)\n' \
        "$1" "$2" > "$dir/rtl_pwc_variants.inc"
    else
      params="-GL4Entries=$1 -GL3Entries=$2 -GL2Blocks=$3 -GBlockEntries=$4 -GLookupCycles=$5 -GMuxCycles=$6 -GLru=1'b1"
      printf '#include "Vmut.h"\n#include "Vmut___024root.h"\n#define GMMU_RTL_PWC_VARIANTS(CPWC, TPC) CPWC(mut, %s, %s, %s, %s, %s, %s, 1)\n' \
        "$1" "$2" "$3" "$4" "$5" "$6" > "$dir/rtl_pwc_variants.inc"
    fi
    rm -rf "$dir/obj_dir"
    # shellcheck disable=SC2086
    if ! (cd "$dir" && verilator --cc --exe --build -j 1 -Wno-fatal --prefix Vmut --top-module $kind \
          --x-assign unique --x-initial unique --assert $params \
          -MAKEFLAGS "OPT_FAST=-O0 OPT_SLOW=-O0 OPT_GLOBAL=-O0" \
          -CFLAGS "-std=c++17 -O0 -I$ROOT/models/include -I$HERE -I$TWINS -I$dir" \
          $srcs "$TWINS/rtl_cpwc.cpp" \
          "$WORK/pwc_bench.o" "$WORK/mutant_main.o" "$LIBMODELS" -o mut > build.log 2>&1); then
      echo "$id|uncompilable|$what|does not build: see $dir/build.log" > "$dir/result"
      return
    fi
    # shellcheck disable=SC2086
    local rc=0
    (cd "$dir" && timeout "$HANG_S" ./obj_dir/mut "$CYCLES" $SEEDS > run.log 2>&1) || rc=$?
    if [ $rc -eq 0 ]; then
      last="survived geometry [$g]: $(tail -1 "$dir/run.log")"
    elif [ $rc -eq 124 ]; then
      # no verdict from the bench: a hang is not a catch
      verdict="hung"
      last="no result within ${HANG_S} s at geometry [$g] (timeout; a correct run takes a few seconds)"
      break
    else
      verdict="caught at geometry [$g]: $(grep -m1 -A1 'FAILED' "$dir/run.log" | tail -1 | cut -c1-100)"
      break
    fi
  done
  if [ "$verdict" = hung ]; then
    echo "$id|hung|$what|$last" > "$dir/result"
  elif [ -n "$verdict" ]; then
    echo "$id|caught|$what|$verdict" > "$dir/result"
  else
    echo "$id|survived|$what|$last" > "$dir/result"
  fi
  rm -rf "$dir/obj_dir/"*.o
}

echo "mutate.sh: $(grep -c . "$WORK/mutants.txt") mutants, $JOBS at a time, seeds [$SEEDS] x $CYCLES cycles, in $WORK"
while IFS= read -r line; do
  id=${line%%$'\x1f'*}
  [[ $id =~ $ONLY ]] || continue
  run_mutant "$line" &
  while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do sleep 1; done
done < "$WORK/mutants.txt"
wait
# what the page says of the run, kept for MUTATE_PAGE_ONLY
if [ "$ONLY" = . ]; then printf '%s\n' "$(date +%F)" "$SECONDS" "$CYCLES" "$SEEDS" "$HANG_S" > "$WORK/run_info"; fi
fi

python3 - "$WORK" "$TARGET" "$ONLY" "$REPORT" "$CYCLES" "$SEEDS" "$HANG_S" "$BUILD_DIR" "$HERE/../dpi" <<'PY'
import sys, os, re
work, target, only, report = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4]
cycles, seeds, hang_s, build = sys.argv[5], sys.argv[6], sys.argv[7], sys.argv[8]
sys.path.insert(0, sys.argv[9])
import dpi_verdicts  # tb/dpi/dpi_verdicts.py: the DPI bench's column
dpi, dpi_day = dpi_verdicts.load(build)
if only == ".":  # the full run's own figures (MUTATE_PAGE_ONLY writes them again)
    run_day, wall, cycles, seeds, hang_s = open(os.path.join(work, "run_info")).read().split("\n")[:5]
per, rows, order = {}, [], []
for l in open(os.path.join(work, "mutants.txt")):
    mid, f = l.split("\x1f")[:2]
    if not re.search(only, mid):
        continue
    r = open(os.path.join(work, mid, "result")).read().strip().split("|")
    # scored per block: the CPWC's files (rtl/cpwc.f) together
    u = 'cpwc.sv' if f.startswith('cpwc') else f
    if u not in per:
        per[u] = dict(caught=0, survived=0, hung=0, uncompilable=0)
        order.append(u)
    per[u][r[1]] += 1
    rows.append((f, r[0], r[1], r[2], r[3] if len(r) > 3 else ""))
for f, mid, res, what, how in rows:
    print(f"  {mid:10s} {res:12s} {what}" + (f"   [{how}]" if res != 'caught' else ""))
ok, summary = True, []
for f in order:
    d = per[f]
    built = d['caught'] + d['survived'] + d['hung']
    score = 100.0 * d['caught'] / built if built else 0.0
    ok = ok and score >= target
    summary.append((f, d, built, score))
    print(f"mutate.sh: {f}: caught {d['caught']}/{built} ({score:.1f}%), {d['survived']} survived, "
          f"{d['hung']} hung, {d['uncompilable']} did not build (not counted)")
print(f"mutate.sh: target {target:.0f}% per file: {'met' if ok else 'MISSED'}")
if only == ".":
    md = ["# Mutation of the page-walk-cache RTL",
          "",
          "Generated by `tb/pwc/mutate.sh` (`make mutate`); do not edit. Each mutant is one",
          "single-point change to a copy of the CPWC's files (`rtl/cpwc.f`: `rtl/cpwc*.sv`, scored together",
          "as `cpwc.sv`), `rtl/tpc.sv` or `rtl/pwc_pipe.sv`,",
          "verilated with `--assert` and run in lock-step with the C model "
          f"({len(seeds.split())} seeds x {cycles} cycles at a small geometry; a survivor again at a second one, "
          "and a CPWC survivor at a third of one-entry blocks).",
          "Score = caught / mutants that build; a run without a verdict after "
          f"{hang_s} s is a hang and is not counted as caught.",
          "",
          "| file | mutants | built | caught | survived | hung | score | DPI bench killed |",
          "|---|---|---|---|---|---|---|---|"]
    for f, d, built, score in summary:
        n = built + d['uncompilable']
        ids = [r[1] for r in rows if ('cpwc.sv' if r[0].startswith('cpwc') else r[0]) == f]
        md.append(f"| `{f}` | {n} | {built} | {d['caught']} | {d['survived']} | {d['hung']} | {score:.1f}% | "
                  f"{dpi_verdicts.count(dpi, ids)} |")
    md += ["", f"Target {target:.0f}% per file: {'met' if ok else 'missed'}. "
           f"Run of {run_day}, {wall} s wall.", "",
           dpi_verdicts.paragraph(dpi, dpi_day, [r[1] for r in rows]), "",
           "| id | file | result | mutation | detail | DPI bench |", "|---|---|---|---|---|---|"]
    for f, mid, res, what, how in rows:
        md.append(f"| {mid} | `{f}` | {res} | {what} | {how.replace('|', '/')} | {dpi_verdicts.cell(dpi, mid)} |")
    tmp = report + ".tmp"
    with open(tmp, "w") as fo:
        fo.write("\n".join(md) + "\n")
    os.replace(tmp, report)
    if os.path.realpath(os.path.dirname(report)).endswith(os.sep + os.path.join('docs', 'results')):
        import subprocess  # the page's provenance stamp (scripts/page_provenance.py)
        subprocess.run([sys.executable, os.path.join(os.path.dirname(report), '..', '..', 'scripts', 'page_provenance.py'),
                        'stamp', os.path.basename(report)], check=True)
    print(f"mutate.sh: report written to {report}")
sys.exit(0 if ok else 1)
PY
