// live_tb.sv: the live scoreboard. The golden model (libmkeysim.so) holds
// the state: QPs and MKeys are created through it, and UMRs, local and
// remote invalidations, destroys and re-creates change it while the test
// runs. Constrained-random transactions, drawn here from a fixed seed
// (+SEED=, default 1; +N= transactions per DUT, default 3000), go to the
// example DUTs of vectors/hdl, and every output the unit defines is
// compared with what the model answers at that moment:
//   protcheck      inputs from QUERY_MKEY of the key's index (image and
//                  created flag); expected mkeysim_check (the current state)
//   mttwalk        fields of a created MTT key's queried context; expected
//                  mkeysim_mtt_step; reachable steps, page and capacity corners
//   mptcache x 2   clocked; LRU (SETS 4, WAYS 4) and random (SETS 4, WAYS 3);
//                  expected mkeysim_cache_op on a model cache of the same shape,
//                  driven by the protcheck lookups, fills of their misses and
//                  invalidations of the keys the model changed
// The numbers come from a splitmix64 generator here (not $urandom), so
// both simulators draw the same transactions for a seed and print the same
// counts (scripts/cosim-check.sh compares them). That needs care, as
// the 5.006 Verilator compiler treats functions as pure. Measured: it
// evaluates both arms of ?:, turns "if (c) x = A; else x = B;" into a ?:
// (both evaluated), evaluates a case selector once per comparison (6 calls
// for a 4-item case) and an array index twice. So every draw here is a
// statement of its own, made before any if/else or case that uses it.
// (No comment line may start with the word "verilator": it is read as a
// directive.)
//
// Model calls go through mkeysim_live.svh: DPI-C under Verilator, the VPI
// module under Icarus. Build with api_tb.sv: its checks of every call run
// first. Prints the first mismatch of each unit (transaction
// number, unit, every input, got and expected), counts per status and
// corner, then "N passed, M failed"; ends with $fatal (exit 1 under vvp,
// 134 under a Verilated binary) if anything failed or a targeted status
// never occurred. +TRACE_RNG prints every number drawn (to compare the
// two simulators' streams).
`timescale 1ns/1ps
`include "mkeysim_live.svh"
module live_tb;
  // Statuses.
  localparam int OK = 0, BAD_KEY_INDEX = 2, KEY_MISMATCH = 3, MKEY_FREE = 4, PD_MISMATCH = 5,
                 QPN_MISMATCH = 6, OUT_OF_RANGE = 7, ACCESS_DENIED = 8, BAD_ACCESS_MODE = 9,
                 MISALIGNED_ATOMIC = 10, TRANSLATION_RANGE = 11, NSTATUS = 21;
  localparam int NIDX = 40;  // the MKey indices the test uses: 0..NIDX-1
  localparam int NQP = 6;
  localparam logic [63:0] LRU_SETS = 64'd4, LRU_WAYS = 64'd4;
  localparam logic [63:0] RND_SETS = 64'd4, RND_WAYS = 64'd3, RND_PRNG_INIT = 64'h9e3779b97f4a7c15;

  // Every call once, with known answers (cosim/tb/api_tb.sv), at time 0.
  api_tb #(.FINISH(1'b0)) api ();

  // ---- DUTs ---------------------------------------------------------------
  logic clk = 1'b0;
  logic rst = 1'b1;
  always #5 clk = ~clk;

  logic [511:0] pc_mkc = '0;
  logic         pc_created = 1'b0;
  logic [31:0]  pc_key = '0;
  logic [2:0]   pc_level = '0;
  logic [63:0]  pc_va = '0;
  logic [31:0]  pc_len = 32'd1;
  logic [23:0]  pc_qpn = '0, pc_pd = '0;
  logic [2:0]   pc_at = '0;
  wire  [7:0]   pc_status;
  mkeysim_protcheck protcheck (.mkc(pc_mkc), .created(pc_created), .key(pc_key), .level(pc_level),
                               .va(pc_va), .len(pc_len), .qpn(pc_qpn), .pd(pc_pd), .access_type(pc_at),
                               .status(pc_status));

  logic [63:0] mw_start = '0, mw_va = '0;
  logic [4:0]  mw_log = 5'd12;
  logic [31:0] mw_tos = '0, mw_len = 32'd1, mw_t = '0;
  logic [47:0] mw_handle = '0;
  wire  [7:0]  mw_status;
  wire  [63:0] mw_page_index, mw_entry_addr;
  wire  [31:0] mw_page_offset, mw_piece_len;
  mkeysim_mttwalk mttwalk (.start_addr(mw_start), .log_entity_size(mw_log), .translations_octword_size(mw_tos),
                           .mtt_handle(mw_handle), .va(mw_va), .len(mw_len), .t(mw_t), .status(mw_status),
                           .page_index(mw_page_index), .entry_addr(mw_entry_addr),
                           .page_offset(mw_page_offset), .piece_len(mw_piece_len));

  logic        c_valid = 1'b0;
  logic [1:0]  c_op = '0;
  logic [23:0] c_index = '0;
  wire         cl_hit, cl_evict, cr_hit, cr_evict;
  wire  [7:0]  cl_way, cr_way;
  wire  [23:0] cl_evict_index, cl_count, cr_evict_index, cr_count;
  mkeysim_mptcache #(.SETS(LRU_SETS), .WAYS(LRU_WAYS), .REPL_RANDOM(64'd0), .PRNG_INIT(64'd1)) cache_lru (
      .clk(clk), .rst(rst), .op_valid(c_valid), .op(c_op), .index(c_index), .hit(cl_hit), .way(cl_way),
      .evict(cl_evict), .evict_index(cl_evict_index), .count(cl_count));
  mkeysim_mptcache #(.SETS(RND_SETS), .WAYS(RND_WAYS), .REPL_RANDOM(64'd1), .PRNG_INIT(RND_PRNG_INIT)) cache_rnd (
      .clk(clk), .rst(rst), .op_valid(c_valid), .op(c_op), .index(c_index), .hit(cr_hit), .way(cr_way),
      .evict(cr_evict), .evict_index(cr_evict_index), .count(cr_count));

  // ---- Random numbers: splitmix64, the same in every simulator -------------
  longint unsigned rng_state;
  bit trace_rng;
  int sel;  // a drawn case selector
  longint unsigned ra, rb;  // draws made before an if/else or case uses them
  function automatic longint unsigned rnd64();
    longint unsigned z;
    rng_state = rng_state + 64'h9e3779b97f4a7c15;
    z = rng_state;
    z = (z ^ (z >> 30)) * 64'hbf58476d1ce4e5b9;
    z = (z ^ (z >> 27)) * 64'h94d049bb133111eb;
    if (trace_rng) $display("rnd %h", z ^ (z >> 31));
    return z ^ (z >> 31);
  endfunction
  // rnd(n): 0..n-1 (n > 0).
  function automatic int unsigned rnd(input int unsigned n);
    longint unsigned r;
    r = rnd64() % {32'd0, n};
    return r[31:0];
  endfunction

  // ---- Model state and its mirror ------------------------------------------
  longint h, hl, hr;  // model, LRU cache, random cache
  int st;
  bit [511:0] q_mkc;
  int q_odp;
  int unsigned q_index;
  bit [511:0] p_mkc [0:NIDX-1];  // the pool: each index's context after the last change
  bit         p_created [0:NIDX-1];
  bit [23:0]  qp_qpn [0:NQP-1];
  bit [23:0]  qp_pd [0:NQP-1];
  int changed;  // the index the last state change touched (-1: none)

  // A draw passed as a function argument is evaluated once (Verilator
  // evaluates one used as an array index twice).
  function automatic longint unsigned pow2(input int unsigned k);
    return 64'd1 << k;
  endfunction
  function automatic longint unsigned shr(input longint unsigned x, input int unsigned k);
    return x >> k;
  endfunction
  function automatic bit [23:0] qpn_at(input int unsigned i);
    return qp_qpn[i];
  endfunction
  function automatic bit [23:0] pd_at(input int unsigned i);
    return qp_pd[i];
  endfunction


  // Counters.
  int n_txn, total, seed, passed, failed;
  int pc_pass, pc_fail, mw_pass, mw_fail, cl_pass, cl_fail, cr_pass, cr_fail, model_fail;
  int pc_count [0:NSTATUS-1];
  int mw_ok, mw_range, mw_cross, mw_top, mw_last, mw_first_out;
  int pc_last_byte, pc_one_past, pc_wrap, pc_atomic_low;
  int c_lookup, c_hit, c_fill, c_evict, c_inval, c_inval_hit, c_inval_all;
  int op_umr [0:NSTATUS-1];
  int op_inval [0:NSTATUS-1];
  int op_sinv [0:NSTATUS-1];
  int op_create [0:NSTATUS-1];
  int op_destroy, mw_skipped, gen_errors;
  bit pc_printed, mw_printed, cl_printed, cr_printed;

  function automatic bit [4:0] mode_of(input bit [511:0] m);
    return {m[508:506], m[489:488]};
  endfunction
  // A context whose checks 9 pass: mode 0..5, and MTT/FBS with log >= 12.
  function automatic bit mode_ok(input bit [511:0] m);
    bit [4:0] md;
    md = mode_of(m);
    if (md == 5'd1 || md == 5'd3) return m[36:32] >= 5'd12;
    return md <= 5'd5;
  endfunction

  // refresh re-reads every pool index from the model (QUERY_MKEY).
  task refresh;
    int i;
    for (i = 0; i < NIDX; i++) begin
      q_index = i;
      st = `MKEYSIM_QUERY(h, q_index, q_mkc, q_odp);
      p_created[i] = st == OK;
      p_mkc[i] = q_mkc;
      if (st != OK && st != BAD_KEY_INDEX) begin
        $display("live_tb: QUERY_MKEY %0d returned %0d", i, st);
        gen_errors++;
      end
    end
  endtask

  // pick_index: a pool index of the kind asked for, from a random start; any
  // index when none is (kinds: 0 created, not free, mode ok; 1 free; 2 not
  // created; 3 bad mode; 4 bound to a QP; 5 length64 or a range reaching
  // 2^64; 6 MTT with log_entity_size 12..31 (free or not); 7 any).
  function automatic int pick_index(input int kind);
    int i, k, j, found;
    bit [511:0] m;
    bit [64:0] lim;
    found = -1;
    j = int'(rnd(NIDX));
    for (k = 0; k < NIDX && found < 0; k++) begin
      i = (j + k) % NIDX;
      m = p_mkc[i];
      lim = {1'b0, m[383:320]} + {1'b0, m[319:256]};
      case (kind)
        0: if (p_created[i] && !m[510] && mode_ok(m)) found = i;
        1: if (p_created[i] && m[510]) found = i;
        2: if (!p_created[i]) found = i;
        3: if (p_created[i] && !m[510] && !mode_ok(m)) found = i;
        4: if (p_created[i] && !m[510] && mode_ok(m) && m[479:456] != 24'hffffff) found = i;
        5: if (p_created[i] && !m[510] && mode_ok(m) && (m[415] || lim[64])) found = i;
        6: if (p_created[i] && mode_of(m) == 5'd1 && m[36:32] >= 5'd12) found = i;
        default: found = i;
      endcase
    end
    if (found < 0 && kind != 6) found = j;
    return found;
  endfunction

  // ---- Random contexts -------------------------------------------------------
  bit [63:0] mk_start, mk_len;
  // rnd_range draws a start address and length: small, page aligned, near
  // 2^64, passing 2^64, empty, huge.
  task rnd_range;
    sel = int'(rnd(10));
    ra = rnd64();
    rb = rnd64();
    case (sel)
      0: begin mk_start = 64'hffff_ffff_ffff_ffff - (ra % (64'd1 << 20)); mk_len = 64'hffff_ffff_ffff_ffff - mk_start + 64'd1; end
      1: begin mk_start = 64'hffff_ffff_ffff_0000 + (ra % (64'd1 << 16)); mk_len = pow2(32'(rb % 64'd40) + 1); end
      2: begin mk_start = '0; mk_len = pow2(32'(rb % 64'd48)); end
      3: begin mk_start = ra; mk_len = rb % 64'd64; end
      4: begin mk_start = ra & 64'hffff_ffff_ffff_f000; mk_len = pow2(32'(rb % 64'd40) + 1); end
      default: begin mk_start = shr(ra, 32'(rb % 64'd40)); mk_len = 64'd1 + ((rb >> 8) % (64'd1 << 24)); end
    endcase
  endtask

  bit [31:0] mk_tos;
  bit [4:0] mk_log;
  // make_mkc: a context with every reserved bit clear.
  function automatic bit [511:0] make_mkc(input bit free, input bit [4:0] mode, input bit umr_en,
                                          input bit [4:0] rights, input bit [23:0] qpn, input bit [7:0] variant,
                                          input bit length64, input bit en_rinval, input bit [23:0] pd,
                                          input bit [63:0] start, input bit [63:0] len, input bit [31:0] tos,
                                          input bit [4:0] log, input bit [15:0] gen);
    bit [511:0] m;
    m = '0;
    m[510] = free;
    m[508:506] = mode[4:2];
    m[489:488] = mode[1:0];
    m[495] = umr_en;
    m[494:490] = rights;  // a rw rr lw lr
    m[479:456] = qpn;
    m[455:448] = variant;
    m[415] = length64;
    m[408] = en_rinval;
    m[407:384] = pd;
    m[383:320] = start;
    m[319:256] = len;
    m[95:64] = tos;
    m[36:32] = log;
    m[15:0] = gen;
    return m;
  endfunction

  bit [511:0] new_mkc;
  bit [4:0] new_mode;
  // Draws kept apart, one a statement.
  bit v_umr, v_l64, v_rinval;
  bit [7:0] v_variant;
  bit [23:0] v_pd, v_qpn;
  bit [15:0] v_gen;
  bit [4:0] v_log;
  bit [63:0] v_e64, v_len;
  bit [127:0] v_e128;
  int v_odp, v_pga;
  // rnd_mkc builds a valid random context of mode new_mode into new_mkc and
  // stages its list (MTT or KLM entries, up to the capacity).
  task rnd_mkc;
    bit free;
    bit [4:0] rights;
    bit [23:0] qpn;
    int unsigned n, i;
    int r;
    free = rnd(10) == 0;
    rights = 5'(rnd(32));
    if (!free) rights[0] = 1'b1;  // lr: CREATE_MKEY refuses a live object without it
    // No draw inside ?: arms: Verilator evaluates both arms.
    qpn = 24'hffffff;
    if (rnd(5) == 0) qpn = qpn_at(rnd(NQP));
    rnd_range();
    mk_tos = '0;
    mk_log = 5'(rnd(32));
    if (new_mode == 5'd1 || new_mode == 5'd3) begin
      ra = rnd64();
      mk_log = 5'd12 + 5'(ra % 64'd10);
      if (ra[63:62] == 2'd0) mk_log = 5'd31 - 5'(ra[9:8]);
    end
    if (new_mode == 5'd1) mk_tos = 32'd4 * (32'd1 + rnd(6));
    if (new_mode == 5'd2 || new_mode == 5'd3) mk_tos = 32'd4 * rnd(3);
    // One draw a statement: simulators evaluate arguments in different orders.
    v_umr = rnd(8) != 0;
    v_variant = 8'(rnd(256));
    v_l64 = rnd(10) == 0;
    v_rinval = 1'(rnd(2));
    v_pd = pd_at(rnd(NQP - 1));
    v_gen = 16'(rnd(65536));
    new_mkc = make_mkc(free, new_mode, v_umr, rights, qpn, v_variant, v_l64, v_rinval, v_pd, mk_start, mk_len,
                       mk_tos, mk_log, v_gen);
    `MKEYSIM_LIST_CLEAR
    if (new_mode == 5'd1) begin
      n = rnd(2 * mk_tos + 1);
      for (i = 0; i < n; i++) begin
        v_e64 = rnd64() & 64'hffff_ffff_ffff_f000;
        v_e64 = v_e64 | 64'(rnd(4));
        r = `MKEYSIM_LIST_MTT(v_e64);
        if (r < 0) gen_errors++;
      end
    end else if (new_mode == 5'd2 || new_mode == 5'd3) begin
      n = rnd(mk_tos + 1);
      for (i = 0; i < n; i++) begin
        v_e128[127:96] = 32'd0;
        if (new_mode != 5'd3) v_e128[127:96] = rnd(1 << 16);
        v_e128[95:72] = 24'(rnd(NIDX));
        v_e128[71:64] = 8'(rnd(256));
        v_e128[63:0] = rnd64();
        r = `MKEYSIM_LIST_KLM(v_e128);
        if (r < 0) gen_errors++;
      end
    end
  endtask

  // create_one runs CREATE_MKEY of a random context at idx (< 0: the lowest free).
  task create_one(input int idx);
    longint index;
    new_mode = 5'(rnd(6));
    rnd_mkc();
    index = longint'(idx);
    v_odp = rnd(4) == 0 ? 1 : 0;
    v_pga = int'(rnd(2));
    st = `MKEYSIM_CREATE(h, new_mkc, index, v_odp, v_pga, q_index);
    if (st >= 0) op_create[st]++;
    else gen_errors++;
  endtask

  // qp_for: a QP whose PD is pd (and whose QPN is the bound one), else any.
  function automatic int qp_for(input bit [511:0] m);
    int i, k, j, found;
    found = -1;
    j = int'(rnd(NQP));
    for (k = 0; k < NQP && found < 0; k++) begin
      i = (j + k) % NQP;
      if (qp_pd[i] == m[407:384] && (m[479:456] == 24'hffffff || m[479:456] == qp_qpn[i])) found = i;
    end
    if (found < 0) found = j;
    return found;
  endfunction

  // change_state: one command that changes the model's state (UMR, local or
  // remote invalidation, destroy, create); sets changed to its index.
  task change_state;
    int idx, q, live, i;
    int unsigned qpn, key;
    longint unsigned mask;
    bit [511:0] m, img;
    bit [4:0] rights;
    live = 0;
    for (i = 0; i < NIDX; i++) if (p_created[i] && !p_mkc[i][510] && mode_ok(p_mkc[i])) live++;
    changed = -1;
    sel = 9;
    if (live >= NIDX / 3) sel = int'(rnd(10));
    case (sel)
      0, 1, 2, 3: begin  // UMR
        idx = pick_index(rnd(3) == 0 ? 7 : 0);
        m = p_mkc[idx];
        q = NQP - 1;  // mostly the REG_UMR QP
        if (rnd(4) == 0) q = qp_for(m);
        qpn = {8'd0, qp_qpn[q]};
        key = {idx[23:0], m[455:448]};
        if (rnd(4) == 0) key[7:0] = 8'(rnd(256));
        rights = 5'(rnd(32));
        rights[0] = rnd(8) != 0;
        ra = rnd64();
        new_mode = 5'(ra % 64'd6);
        if (ra[63:61] == 3'd0) new_mode = 5'd6 + 5'(ra[8]);  // reserved modes 6, 7
        v_qpn = 24'hffffff;
        if (rnd(3) == 0) v_qpn = qpn_at(rnd(NQP));
        v_variant = 8'(rnd(256));
        v_l64 = rnd(10) == 0;
        v_rinval = 1'(rnd(2));
        v_pd = pd_at(rnd(NQP - 1));
        v_e64 = rnd64();
        v_e64 = shr(v_e64, rnd(64));
        v_len = pow2(rnd(40));
        ra = rnd64();
        v_log = 5'd12 + 5'(ra % 64'd8);
        if (ra[63:62] == 2'd0) v_log = 5'((ra >> 8) % 64'd12);  // below 12 (a quarter)
        v_gen = 16'(rnd(65536));
        img = make_mkc(1'b0, new_mode, 1'b1, rights, v_qpn, v_variant, v_l64, v_rinval, v_pd, v_e64, v_len, 32'd0,
                       v_log, v_gen);
        sel = int'(rnd(5));
        ra = rnd64();
        case (sel)
          0: mask = (64'd1 << 29) | (64'd1 << 13) | (64'h1f << 17);  // re-register: free 0, variant, rights
          1: mask = (64'd1 << 29) | (64'd1 << 13) | 64'd1 | (64'd1 << 6);  // free 0, variant, range
          2: mask = (64'd1 << 16) | (64'd1 << 1);  // mode and log_entity_size
          3: mask = (64'd1 << 7) | (64'd1 << 14) | (64'd1 << 8);  // pd, qpn, en_rinval
          default: mask = ra & 64'hbfff_ffff_a07f_61c3;  // honoured bits and others
        endcase
        `MKEYSIM_LIST_CLEAR
        if (rnd(4) == 0) begin  // a list for the mode after the update
          if ((mask[16] ? new_mode : mode_of(m)) == 5'd1)
            for (i = 0; i < 8; i++) begin
              v_e64 = rnd64() & 64'hffff_ffff_ffff_f000 | 64'd3;
              st = `MKEYSIM_LIST_MTT(v_e64);
            end
          else
            for (i = 0; i < 4; i++) begin
              v_e128[127:96] = rnd(1 << 12);
              v_e128[95:72] = 24'(rnd(NIDX));
              v_e128[71:64] = 8'(rnd(256));
              v_e128[63:0] = rnd64();
              st = `MKEYSIM_LIST_KLM(v_e128);
            end
        end
        v_odp = int'(rnd(3));  // check_free
        v_e64 = 64'd4 * rnd(2);  // translation_offset, 16-byte units: 0 or 64 bytes
        st = `MKEYSIM_UMR(h, qpn, key, v_odp, mask, img, v_e64);
        if (st >= 0) op_umr[st]++;
        else gen_errors++;
        changed = idx;
      end
      4, 5, 6: begin  // LOCAL_INVALIDATE or SEND_WITH_INVALIDATE
        idx = pick_index(rnd(4) == 0 ? 7 : 0);
        m = p_mkc[idx];
        q = qp_for(m);
        if (rnd(5) == 0) q = int'(rnd(NQP));
        qpn = {8'd0, qp_qpn[q]};
        key = {idx[23:0], m[455:448]};
        if (rnd(6) == 0) key[7:0] = 8'(rnd(256));
        if (rnd(3) == 0) begin
          st = `MKEYSIM_SEND_WITH_INVALIDATE(h, qpn, key);
          if (st >= 0) op_sinv[st]++;
          else gen_errors++;
        end else begin
          st = `MKEYSIM_LOCAL_INVALIDATE(h, qpn, key);
          if (st >= 0) op_inval[st]++;
          else gen_errors++;
        end
        changed = idx;
      end
      7: begin  // DESTROY_MKEY
        idx = pick_index(7);
        st = `MKEYSIM_DESTROY(h, idx);
        op_destroy++;
        changed = idx;
      end
      default: begin  // CREATE_MKEY at an index not created (or the lowest)
        idx = pick_index(2);
        if (p_created[idx]) idx = -1;
        create_one(rnd(4) == 0 ? -1 : idx);
        changed = int'(q_index);
      end
    endcase
    refresh();
  endtask

  // ---- protcheck -------------------------------------------------------------
  int pc_exp, pc_exp2;
  task gen_protcheck;
    int target, idx, kind, lvl;
    bit [511:0] m;
    bit [7:0] variant;
    bit [23:0] qpn, pd;
    bit [63:0] s, l, va, off, top;
    bit [64:0] room;
    bit [31:0] len;
    bit [4:0] granted;
    int at, i, k;
    target = int'(rnd(14));
    ra = rnd64();
    case (target)
      2: kind = 1;           // free
      3: kind = 2;           // not created
      8: kind = 3;           // bad access mode
      5: kind = 4;           // QPN mismatch: a bound key
      10: kind = 5;          // passing 2^64
      13: kind = 7;          // anything
      default: kind = ra % 64'd5 == 0 ? 4 : 0;
    endcase
    idx = pick_index(kind);
    q_index = idx;
    st = `MKEYSIM_QUERY(h, q_index, q_mkc, q_odp);
    m = q_mkc;
    pc_created = st == OK;
    if (st != OK) for (i = 0; i < 8; i++) m[64 * i +: 64] = rnd64();  // noise
    variant = m[455:448];
    if (target == 1) variant = variant ^ 8'(1 + rnd(255));
    pd = m[407:384];
    if (target == 4) pd = pd ^ 24'(1 + rnd(7));
    qpn = m[479:456];
    ra = rnd64();
    if (qpn != 24'hffffff && target == 5) qpn = qpn ^ 24'(1 + ra % 64'd7);
    if (qpn == 24'hffffff) qpn = qpn_at(32'(ra % 64'(NQP)));
    granted = m[494:490];  // a rw rr lw lr
    // Access type: one granted, or (target 7) one not granted.
    at = int'(rnd(5));
    for (k = 0; k < 5; k++) begin
      i = (at + k) % 5;
      if ((target == 7) != granted[i]) begin at = i; k = 5; end
    end
    lvl = 0;
    if (rnd(6) == 0) lvl = 1 + int'(rnd(4));
    if (target == 9 || target == 11) at = 4;  // atomic
    if (target == 11) lvl = 1 + int'(rnd(4));
    // Range.
    s = m[383:320];
    l = m[319:256];
    if (m[415]) begin s = '0; l = 64'hffff_ffff_ffff_ffff; end  // length64: all of it (2^64 - 1 here)
    if (s + l < s) l = ~s + 64'd1;  // the range passes 2^64: up to 2^64 only (l = 2^64 - s; 0 if s = 0)
    if (l == 0 && !m[415]) l = 64'd1;  // empty: the one byte at start is out of range
    ra = rnd64();
    len = 32'd1 + 32'(ra % 64'd64);
    if (ra[63:62] == 2'd0) len = 32'd1 + 32'((ra >> 8) % 64'hffff_fffe);
    if ({32'd0, len} > l) len = l[31:0] == 0 ? 32'd1 : (l > 64'hffff_ffff ? 32'hffff_ffff : l[31:0]);
    off = rnd64() % (l - {32'd0, len} + 64'd1);
    va = s + off;
    if (at == 4 && lvl == 0 && target != 9) begin  // aligned 8 bytes, in range if it fits
      len = 32'd8;
      va = (s + 64'd7) & ~64'd7;
      if (l > 64'd24) va = va + ((rnd64() % ((l - 64'd16) >> 3)) << 3);
    end
    case (target)
      6: begin  // the last byte, then one past it, then before the start
        k = int'(rnd(4));
        top = s + l;  // one past the last byte (mod 2^64)
        if (k == 0) begin len = 32'd1 + 32'(rnd(16)); va = top - {32'd0, len}; pc_last_byte++; end  // ends on the last byte
        else if (k == 1) begin len = 32'd1; va = top - 64'd1; pc_last_byte++; end  // the last byte alone
        else if (k == 2) begin len = 32'd1 + 32'(rnd(16)); va = top - {32'd0, len} + 64'd1; pc_one_past++; end  // one past
        else begin len = 32'd1 + 32'(rnd(16)); va = s - 64'd1; end  // starts before
      end
      9: begin  // misaligned atomic at level 0
        if (rnd(2) == 0) begin len = 32'd8; va = va | {32'd0, 32'd1 + rnd(7)}; end
        else begin len = 32'd1 + 32'(rnd(16)); if (len == 32'd8) len = 32'd9; end
      end
      10: begin  // passing 2^64: va + len > 2^64 with va at or above start
        len = 32'd2 + 32'(rnd(64));
        va = 64'hffff_ffff_ffff_ffff - 64'(rnd(len - 32'd1));  // 1 .. len-1 bytes below 2^64
        if (va < s) va = s;
        room = 65'h1_0000_0000_0000_0000 - {1'b0, va};
        if ({33'd0, len} <= room) len = room[31:0] + 32'd1;
        pc_wrap++;
      end
      11: begin  // misaligned atomic below level 0: not checked
        va = va | 64'(rnd(8));
        pc_atomic_low++;
      end
      13: begin  // anything
        ra = rnd64();
        va = s + (ra % (64'd1 << 20));
        if (ra[63]) va = rnd64();
        len = 32'd1 + 32'(rnd(rnd(2) == 0 ? 32'hffff_fffe : 32'd4096));
        at = int'(rnd(5));
      end
      default: ;
    endcase
    pc_mkc = m;
    pc_key = {idx[23:0], variant};
    pc_level = 3'(lvl);
    pc_va = va;
    pc_len = len;
    pc_qpn = qpn;
    pc_pd = pd;
    pc_at = 3'(at);
    pc_exp = `MKEYSIM_CHECK(h, pc_key, lvl, pc_va, pc_len, {8'd0, pc_qpn}, {8'd0, pc_pd}, at);
    pc_exp2 = `MKEYSIM_PROTCHECK(pc_mkc, int'(pc_created), pc_key, lvl, pc_va, pc_len, {8'd0, pc_qpn},
                                 {8'd0, pc_pd}, at);
  endtask

  task compare_protcheck;
    if (pc_exp < 0 || pc_exp >= NSTATUS) begin
      $display("live_tb: txn %0d: mkeysim_check returned %0d", n_txn, pc_exp);
      gen_errors++;
    end else pc_count[pc_exp]++;
    if (pc_exp2 != pc_exp) begin
      model_fail++;
      if (model_fail == 1) $display("MODEL txn %0d: mkeysim_check %0d but mkeysim_protcheck of the queried image %0d", n_txn, pc_exp, pc_exp2);
    end
    if (pc_status !== 8'(pc_exp)) begin
      pc_fail++;
      if (!pc_printed)
        $display("MISMATCH txn %0d unit protcheck: mkc=%h created=%0d key=%h level=%0d va=%h len=%h qpn=%h pd=%h access_type=%0d: got status %0d, expected %0d",
                 n_txn, pc_mkc, pc_created, pc_key, pc_level, pc_va, pc_len, pc_qpn, pc_pd, pc_at, pc_status, pc_exp);
      pc_printed = 1'b1;
    end else pc_pass++;
  endtask

  // ---- mttwalk ---------------------------------------------------------------
  int mw_exp;
  longint unsigned e_page_index, e_entry_addr;
  int unsigned e_page_offset, e_piece_len;
  bit mw_valid;
  task gen_mttwalk;
    int idx, corner;
    bit [511:0] m;
    bit [63:0] s, p, b, o, dt, t64;
    bit [65:0] u, i, cap;
    bit [31:0] t, rest;
    bit [64:0] room;
    mw_valid = 1'b0;
    idx = pick_index(6);
    if (idx < 0) begin mw_skipped++; idx = 0; end
    q_index = idx;
    st = `MKEYSIM_QUERY(h, q_index, q_mkc, q_odp);
    m = q_mkc;
    s = m[383:320];
    mw_start = s;
    mw_log = m[36:32];
    mw_tos = m[95:64];
    mw_handle = m[143:96];
    p = 64'd1 << mw_log;
    b = s & (p - 64'd1);
    cap = {33'd0, mw_tos, 1'b0};
    corner = int'(rnd(9));
    sel = int'(rnd(4));
    ra = rnd64();
    rb = rnd64();
    case (sel)
      0: o = '0;
      1: o = p - 64'd1;
      2: o = b;
      default: o = ra & (p - 64'd1);
    endcase
    case (corner)
      0: i = '0;
      1: i = cap == 0 ? '0 : cap - 66'd1;  // the last entry inside
      2: i = cap;  // the first one past the capacity
      3: i = cap + {2'd0, rb % 64'd1000};
      4: i = cap == 0 ? '0 : {2'd0, rb % cap[63:0]};
      5: i = {2'd0, rb >> mw_log};
      default: i = {2'd0, rb % 64'd4};
    endcase
    u = (i << mw_log) + {2'd0, o};
    if (u < {2'd0, b}) u = {2'd0, b};
    if (u - {2'd0, b} > 66'h0_ffff_ffff_ffff_ffff) u = {2'd0, b} + 66'h0_ffff_ffff_ffff_ffff;
    dt = 64'(u - {2'd0, b});  // d + t
    if (corner == 7 && b != 0) begin  // u past 2^64: d + t = 2^64 - 1 - r, r < b
      dt = 64'hffff_ffff_ffff_ffff - (rnd64() % b);
      mw_top++;
    end
    if (corner == 8) dt = rnd64();
    // t: bytes already translated (t <= d + t), and len = t + rest < 2^32.
    t64 = 64'd0;
    if (rnd(3) != 0) t64 = 64'(rnd(rnd(2) == 0 ? 32'd16 : 32'h7fff_ffff));
    if (t64 > dt) t64 = dt;
    t = t64[31:0];
    sel = int'(rnd(4));
    ra = rnd64();
    case (sel)
      0: rest = 32'd1 + 32'(ra % 64'd16);
      1: rest = 32'(p - ((b + dt) & (p - 64'd1)));  // exactly to the page end
      2: rest = 32'(p - ((b + dt) & (p - 64'd1))) + 32'd1;  // one byte into the next page
      default: rest = 32'd1 + 32'(ra % 64'h7fff_ffff);
    endcase
    if (rest == 0) rest = 32'd1;
    if ({1'b0, rest} + {1'b0, t} > 33'h0_ffff_ffff) rest = 32'hffff_ffff - t;
    // A step of a piece that passed the checks: va + len <= 2^64.
    mw_va = s + (dt - {32'd0, t});
    room = 65'h1_0000_0000_0000_0000 - {1'b0, mw_va};
    if (room < {33'd0, t} + 65'd1) begin
      t = '0;
      mw_va = s + dt;
      room = 65'h1_0000_0000_0000_0000 - {1'b0, mw_va};
    end
    if ({33'd0, t} + {33'd0, rest} > room) rest = 32'(room - {33'd0, t});
    mw_t = t;
    mw_len = t + rest;
    if (p_created[idx] && mode_of(p_mkc[idx]) == 5'd1 && p_mkc[idx][36:32] >= 5'd12)
    mw_exp = `MKEYSIM_MTT_STEP(mw_start, int'(mw_log), mw_tos, {16'd0, mw_handle}, mw_va, mw_len, mw_t,
                               e_page_index, e_entry_addr, e_page_offset, e_piece_len);
    else mw_exp = -100;
    if (mw_exp == -100) ;  // no MTT key at this moment
    else if (mw_exp < 0) begin
      $display("live_tb: txn %0d: mkeysim_mtt_step returned %0d (an unreachable step)", n_txn, mw_exp);
      gen_errors++;
    end else mw_valid = 1'b1;
    if (corner == 1 && cap != 0) mw_last++;
    if (corner == 2) mw_first_out++;
  endtask

  task compare_mttwalk;
    bit bad;
    if (mw_valid) begin
    if (mw_exp == OK) mw_ok++; else mw_range++;
    if (mw_exp == OK && e_piece_len < mw_len - mw_t) mw_cross++;
    bad = mw_status !== 8'(mw_exp);
    if (mw_exp == OK)
      bad = bad || mw_page_index !== e_page_index || mw_entry_addr !== e_entry_addr ||
            mw_page_offset !== e_page_offset || mw_piece_len !== e_piece_len;
    if (bad) begin
      mw_fail++;
      if (!mw_printed && mw_exp == OK)
        $display("MISMATCH txn %0d unit mttwalk: start_addr=%h log_entity_size=%0d translations_octword_size=%0d mtt_handle=%h va=%h len=%h t=%h: got status=%0d page_index=%h entry_addr=%h page_offset=%h piece_len=%h, expected status=%0d page_index=%h entry_addr=%h page_offset=%h piece_len=%h",
                 n_txn, mw_start, mw_log, mw_tos, mw_handle, mw_va, mw_len, mw_t, mw_status, mw_page_index,
                 mw_entry_addr, mw_page_offset, mw_piece_len, mw_exp, e_page_index, e_entry_addr,
                 e_page_offset, e_piece_len);
      else if (!mw_printed)
        $display("MISMATCH txn %0d unit mttwalk: start_addr=%h log_entity_size=%0d translations_octword_size=%0d mtt_handle=%h va=%h len=%h t=%h: got status=%0d page_index=%h entry_addr=%h page_offset=%h piece_len=%h, expected status=%0d (the other outputs are compared only when OK)",
                 n_txn, mw_start, mw_log, mw_tos, mw_handle, mw_va, mw_len, mw_t, mw_status, mw_page_index,
                 mw_entry_addr, mw_page_offset, mw_piece_len, mw_exp);
      mw_printed = 1'b1;
    end else mw_pass++;
    end
  endtask

  // ---- mptcache --------------------------------------------------------------
  int cl_rc, cr_rc;
  bit el_hit, el_evict, er_hit, er_evict;
  int unsigned el_way, el_evict_index, el_count, er_way, er_evict_index, er_count;
  int miss_index;  // a lookup that missed: filled next (-1: none)
  task gen_cache;
    int unsigned index;
    int op;
    if (rnd(100) == 0) begin op = 3; index = rnd(1 << 24); end
    else if (changed >= 0) begin op = 2; index = changed; changed = -1; end  // coherency: drop the changed key
    else if (miss_index >= 0) begin op = 1; index = miss_index; miss_index = -1; end
    else if (rnd(5) != 0) begin op = 0; index = {8'd0, pc_key[31:8]}; end  // the key protcheck checks
    else begin
      op = int'(rnd(3));
      ra = rnd64();
      index = 32'(ra % 64'd64);
      if (ra[63:62] == 2'd0) index = 32'((ra >> 8) % (64'd1 << 24));
    end
    c_valid = 1'b1;
    c_op = 2'(op);
    c_index = index[23:0];
    cl_rc = `MKEYSIM_CACHE_OP(hl, op, index, el_hit, el_way, el_evict, el_evict_index, el_count);
    cr_rc = `MKEYSIM_CACHE_OP(hr, op, index, er_hit, er_way, er_evict, er_evict_index, er_count);
    if (cl_rc != 0 || cr_rc != 0) begin
      $display("live_tb: txn %0d: mkeysim_cache_op returned %0d, %0d", n_txn, cl_rc, cr_rc);
      gen_errors++;
    end
    if (op == 0 && !el_hit) miss_index = int'(index);
    case (op)
      0: begin c_lookup++; if (el_hit) c_hit++; end
      1: begin c_fill++; if (el_evict) c_evict++; end
      2: begin c_inval++; if (el_hit) c_inval_hit++; end
      default: c_inval_all++;
    endcase
  endtask

  // The unit's compare_when: hit for LOOKUP and INVAL, way for FILL and
  // hits, evict for FILL, evict_index for an evicting FILL, count for
  // INVAL_ALL (the other outputs are not defined for that operation).
  function automatic bit cache_bad(input bit hit, input bit [7:0] way, input bit evict, input bit [23:0] evict_index,
                                   input bit [23:0] count, input logic g_hit, input logic [7:0] g_way,
                                   input logic g_evict, input logic [23:0] g_evict_index,
                                   input logic [23:0] g_count);
    bit bad;
    bad = 1'b0;
    if (c_op != 2'd1 && c_op != 2'd3 && g_hit !== hit) bad = 1'b1;
    if ((c_op == 2'd1 || (c_op != 2'd3 && hit)) && g_way !== way) bad = 1'b1;
    if (c_op == 2'd1 && g_evict !== evict) bad = 1'b1;
    if (c_op == 2'd1 && evict && g_evict_index !== evict_index) bad = 1'b1;
    if (c_op == 2'd3 && g_count !== count) bad = 1'b1;
    return bad;
  endfunction

  task compare_cache;
    if (cache_bad(el_hit, el_way[7:0], el_evict, el_evict_index[23:0], el_count[23:0], cl_hit, cl_way, cl_evict,
                  cl_evict_index, cl_count)) begin
      cl_fail++;
      if (!cl_printed)
        $display("MISMATCH txn %0d unit mptcache_lru (SETS %0d WAYS %0d): op=%0d index=%h: got hit=%0d way=%0d evict=%0d evict_index=%h count=%0d, expected hit=%0d way=%0d evict=%0d evict_index=%h count=%0d (compared as the unit defines them for op)",
                 n_txn, LRU_SETS, LRU_WAYS, c_op, c_index, cl_hit, cl_way, cl_evict, cl_evict_index, cl_count,
                 el_hit, el_way, el_evict, el_evict_index, el_count);
      cl_printed = 1'b1;
    end else cl_pass++;
    if (cache_bad(er_hit, er_way[7:0], er_evict, er_evict_index[23:0], er_count[23:0], cr_hit, cr_way, cr_evict,
                  cr_evict_index, cr_count)) begin
      cr_fail++;
      if (!cr_printed)
        $display("MISMATCH txn %0d unit mptcache_rnd (SETS %0d WAYS %0d random): op=%0d index=%h: got hit=%0d way=%0d evict=%0d evict_index=%h count=%0d, expected hit=%0d way=%0d evict=%0d evict_index=%h count=%0d (compared as the unit defines them for op)",
                 n_txn, RND_SETS, RND_WAYS, c_op, c_index, cr_hit, cr_way, cr_evict, cr_evict_index, cr_count,
                 er_hit, er_way, er_evict, er_evict_index, er_count);
      cr_printed = 1'b1;
    end else cr_pass++;
  endtask

  // ---- The run ---------------------------------------------------------------
  function automatic string status_name(input int s);
    case (s)
      0: return "OK";
      1: return "INDIRECTION_DEPTH";
      2: return "BAD_KEY_INDEX";
      3: return "KEY_MISMATCH";
      4: return "MKEY_FREE";
      5: return "PD_MISMATCH";
      6: return "QPN_MISMATCH";
      7: return "OUT_OF_RANGE";
      8: return "ACCESS_DENIED";
      9: return "BAD_ACCESS_MODE";
      10: return "MISALIGNED_ATOMIC";
      11: return "TRANSLATION_RANGE";
      12: return "PAGE_ACCESS";
      13: return "PAGE_FAULT";
      14: return "BAD_PARAM";
      15: return "UMR_CHECK_FREE";
      16: return "UMR_DISABLED";
      17: return "UMR_PD_UPDATE";
      18: return "UMR_ALIGNMENT";
      19: return "UMR_CAPACITY";
      default: return "REMOTE_INVALIDATE_DENIED";
    endcase
  endfunction

  task print_counts(input string what, input int which);
    string line;
    int s, v;
    line = "";
    for (s = 0; s < NSTATUS; s++) begin
      case (which)
        0: v = pc_count[s];
        1: v = op_umr[s];
        2: v = op_inval[s];
        3: v = op_sinv[s];
        default: v = op_create[s];
      endcase
      if (v != 0) line = {line, $sformatf(" %s %0d", status_name(s), v)};
    end
    $display("%s:%s", what, line);
  endtask

  int i, holes, total_fail;
  initial begin
    if (!$value$plusargs("SEED=%d", seed)) seed = 1;
    if (!$value$plusargs("N=%d", total)) total = 3000;
    rng_state = 64'(seed);
    trace_rng = $test$plusargs("TRACE_RNG");
    for (i = 0; i < NSTATUS; i++) begin
      pc_count[i] = 0; op_umr[i] = 0; op_inval[i] = 0; op_sinv[i] = 0; op_create[i] = 0;
    end
    // The model: QPs (the last one REG_UMR, on its own PD), then objects of
    // every access mode, created through CREATE_MKEY.
    h = `MKEYSIM_NEW(-1);
    hl = `MKEYSIM_CACHE_NEW(LRU_SETS[31:0], LRU_WAYS[31:0], 0, 64'd1);
    hr = `MKEYSIM_CACHE_NEW(RND_SETS[31:0], RND_WAYS[31:0], 1, RND_PRNG_INIT);
    if (h <= 0 || hl <= 0 || hr <= 0) $fatal(1, "live_tb: the model did not start (%0d %0d %0d)", h, hl, hr);
    $display("live_tb: model ABI %0d, seed %0d, %0d transactions per DUT, %s", `MKEYSIM_ABI_VERSION, seed,
             total,
`ifdef MKEYSIM_USE_DPI
             "DPI-C"
`else
             "VPI"
`endif
             );
    for (i = 0; i < NQP; i++) begin
      qp_qpn[i] = 24'h10 + 24'(i);
      qp_pd[i] = i == NQP - 1 ? 24'h9 : 24'h1 + 24'(i % 4);
      st = `MKEYSIM_ADD_QP(h, {8'd0, qp_qpn[i]}, {8'd0, qp_pd[i]}, i == NQP - 1 ? 1 : 0);
    end
    for (i = 0; i < NIDX - 8; i++) begin
      new_mode = 5'(i % 6);
      rnd_mkc();
      v_odp = rnd(4) == 0 ? 1 : 0;
      v_pga = int'(rnd(2));
      st = `MKEYSIM_CREATE(h, new_mkc, longint'(i), v_odp, v_pga, q_index);
      if (st >= 0) op_create[st]++;
      else gen_errors++;
    end
    // One key that a UMR gives a log_entity_size below 12 (BAD_ACCESS_MODE
    // from the first transaction on; later UMRs make more).
    new_mode = 5'd1;
    rnd_mkc();
    new_mkc[510] = 1'b0;  // not free
    new_mkc[495] = 1'b1;  // umr_en
    new_mkc[490] = 1'b1;  // lr
    st = `MKEYSIM_CREATE(h, new_mkc, longint'(NIDX) - 64'sd8, 0, 0, q_index);
    if (st >= 0) op_create[st]++;
    else gen_errors++;
    st = `MKEYSIM_UMR(h, {8'd0, qp_qpn[NQP - 1]}, {q_index[23:0], new_mkc[455:448]}, 0, 64'd2,
                      make_mkc(1'b0, 5'd0, 1'b0, 5'd0, 24'd0, 8'd0, 1'b0, 1'b0, 24'd0, 64'd0, 64'd0, 32'd0, 5'd11,
                               16'd0), 64'd0);
    if (st >= 0) op_umr[st]++;
    else gen_errors++;
    refresh();
    changed = -1;
    miss_index = -1;
    repeat (2) @(posedge clk);
    #1 rst = 1'b0;
    for (n_txn = 0; n_txn < total; n_txn++) begin
      if (rnd(8) == 0) change_state();
      gen_protcheck();
      gen_mttwalk();
      gen_cache();
      #3;
      compare_protcheck();
      compare_mttwalk();
      compare_cache();
      @(posedge clk);
      #1 c_valid = 1'b0;
    end
    // Counts.
    print_counts("protcheck expected", 0);
    $display("protcheck corners: last byte %0d, one past the end %0d, passing 2^64 %0d, misaligned atomic below level 0 %0d",
             pc_last_byte, pc_one_past, pc_wrap, pc_atomic_low);
    $display("mttwalk expected: OK %0d TRANSLATION_RANGE %0d; page crossings %0d, last entry %0d, first past the capacity %0d, u past 2^64 %0d, skipped %0d",
             mw_ok, mw_range, mw_cross, mw_last, mw_first_out, mw_top, mw_skipped);
    $display("mptcache ops: lookup %0d (hit %0d), fill %0d (evict %0d), inval %0d (hit %0d), inval_all %0d",
             c_lookup, c_hit, c_fill, c_evict, c_inval, c_inval_hit, c_inval_all);
    print_counts("model CREATE_MKEY", 4);
    print_counts("model UMR", 1);
    print_counts("model LOCAL_INVALIDATE", 2);
    print_counts("model SEND_WITH_INVALIDATE", 3);
    $display("model DESTROY_MKEY: %0d", op_destroy);
    // Every status the protcheck DUT can give must have been expected.
    holes = 0;
    for (i = 0; i <= MISALIGNED_ATOMIC; i++)
      if (i != 1 && pc_count[i] == 0) begin
        $display("COVERAGE: protcheck status %s never expected", status_name(i));
        holes++;
      end
    if (mw_ok == 0 || mw_range == 0 || mw_cross == 0 || mw_top == 0 || mw_first_out == 0) begin
      $display("COVERAGE: an mttwalk corner never occurred");
      holes++;
    end
    $display("unit protcheck: %0d passed, %0d failed", pc_pass, pc_fail);
    $display("unit mttwalk: %0d passed, %0d failed", mw_pass, mw_fail);
    $display("unit mptcache_lru: %0d passed, %0d failed", cl_pass, cl_fail);
    $display("unit mptcache_rnd: %0d passed, %0d failed", cr_pass, cr_fail);
    if (model_fail != 0 || gen_errors != 0)
      $display("model: %0d check/protcheck disagreements, %0d calls that failed", model_fail, gen_errors);
    passed = pc_pass + mw_pass + cl_pass + cr_pass;
    failed = pc_fail + mw_fail + cl_fail + cr_fail;
    total_fail = failed + model_fail + gen_errors + holes;
    st = `MKEYSIM_DELETE(h);
    st = `MKEYSIM_DELETE(hl);
    st = `MKEYSIM_DELETE(hr);
    $display("%0d passed, %0d failed", passed, failed);
    if (total_fail != 0) $fatal(1, "live_tb: %0d transactions failed, %0d model errors, %0d coverage holes", failed, model_fail + gen_errors, holes);
    $finish;
  end
endmodule
