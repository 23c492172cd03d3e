// api_tb.sv: every call of mkeysim_live.svh once, with known answers, so
// that the DPI-C package (Verilator) and the VPI module (Icarus) are seen
// to pass each argument and output the same way: lists staged for CREATE
// and UMR, access segments, ICM reads and writes, the unit oracles, the
// cache, errors and their message. Prints "api_tb: N checks passed", or
// $fatal on the first wrong answer. Alone it ends with $finish; live_tb
// instantiates it with FINISH 0 and so runs these checks first (its own
// instances are separate; neither block waits between calls, so they do
// not interleave on the list stage).
`timescale 1ns/1ps
`include "mkeysim_live.svh"
module api_tb #(parameter bit FINISH = 1'b1);
  longint h, c;
  int st, odp, lvl, sp, i, checks;
  int unsigned idx, nseg, fk, ei, lk, pl, way, eidx, cnt, po;
  longint unsigned off, fa, la, addr, slen, hb, pi, ea;
  bit [511:0] m, q, ents;
  bit [127:0] d16;
  bit hit, ev;
  string msg;

  task expect_eq(input string what, input longint got, input longint want);
    checks++;
    if (got != want) $fatal(1, "api_tb: %s: got %0h, expected %0h", what, got, want);
  endtask

  initial begin
    checks = 0;
    h = `MKEYSIM_NEW(-1);
    expect_eq("new", longint'(h > 0), 1);
    expect_eq("add_qp", longint'(`MKEYSIM_ADD_QP(h, 32'h10, 32'h7, 0)), 0);
    expect_eq("add_qp reg_umr", longint'(`MKEYSIM_ADD_QP(h, 32'h20, 32'h9, 1)), 0);
    // An MTT key: lr lw rr rw a, umr_en, variant 0x11, pd 7, [0x10000, 0x12000),
    // 4 KiB pages, capacity 8 entries, two staged (pg_access 1: as given).
    m = '0;
    m[495] = 1'b1;
    m[494:490] = 5'b11111;
    m[489:488] = 2'd1;
    m[479:456] = 24'hffffff;
    m[455:448] = 8'h11;
    m[407:384] = 24'h7;
    m[383:320] = 64'h10000;
    m[319:256] = 64'h2000;
    m[95:64] = 32'd4;
    m[36:32] = 5'd12;
    expect_eq("list_mtt", longint'(`MKEYSIM_LIST_MTT(64'h0000_00ab_cdef_0003)), 1);
    expect_eq("list_mtt", longint'(`MKEYSIM_LIST_MTT(64'h0000_0012_3456_7003)), 2);
    expect_eq("list_klm after mtt", longint'(`MKEYSIM_LIST_KLM(128'd0)), -64'sd2);  // -2: one kind
    `MKEYSIM_LAST_ERROR(msg)
    expect_eq("last_error after list_klm", longint'(msg == "list_klm: MTT entries are staged: a list is of one kind (list_clear empties the stage)"), 1);
    expect_eq("create", longint'(`MKEYSIM_CREATE(h, m, -1, 0, 1, idx)), 0);
    expect_eq("create index", longint'(idx), 0);
    expect_eq("instances", longint'(`MKEYSIM_INSTANCES), 1);
    expect_eq("query", longint'(`MKEYSIM_QUERY(h, idx, q, odp)), 0);
    expect_eq("query mtt_handle (bump allocator)", longint'(q[143:96]), 64'h1_0000_0000);
    expect_eq("query image", longint'(q[511:144] == m[511:144] && q[95:0] == m[95:0]), 1);
    // 32 bytes across the page boundary: two segments.
    expect_eq("access", longint'(`MKEYSIM_ACCESS(h, 32'h10, {idx[23:0], 8'h11}, 64'h10ff0, 32'h20, 1, lvl, off, nseg, fk, fa)), 0);
    expect_eq("access nseg", longint'(nseg), 2);
    expect_eq("seg 0", longint'(`MKEYSIM_ACCESS_SEG(0, sp, addr, slen)), 0);
    expect_eq("seg 0 addr", addr, 64'h0000_00ab_cdef_0ff0);
    expect_eq("seg 0 len", slen, 16);
    expect_eq("seg 1", longint'(`MKEYSIM_ACCESS_SEG(1, sp, addr, slen)), 0);
    expect_eq("seg 1 addr", addr, 64'h0000_0012_3456_7000);
    expect_eq("seg 2 (none)", longint'(`MKEYSIM_ACCESS_SEG(2, sp, addr, slen)), -64'sd2);
    `MKEYSIM_LAST_ERROR(msg)
    expect_eq("last_error after seg 2", longint'(msg == "access_seg: no such segment of the last access"), 1);
    // ICM: the list as stored, and a write read back at an unaligned address.
    expect_eq("icm_read16", longint'(`MKEYSIM_ICM_READ16(h, 64'h1_0000_0000, d16)), 0);
    expect_eq("icm_read16 data", longint'(d16 == 128'h0000_00ab_cdef_0003_0000_0012_3456_7003), 1);
    expect_eq("icm_write16", longint'(`MKEYSIM_ICM_WRITE16(h, 64'h2_0000_0000, 128'h0011_2233_4455_6677_8899_aabb_ccdd_eeff)), 0);
    expect_eq("icm_read16 +8", longint'(`MKEYSIM_ICM_READ16(h, 64'h2_0000_0008, d16)), 0);
    expect_eq("icm_read16 +8 data", longint'(d16 == 128'h8899_aabb_ccdd_eeff_0000_0000_0000_0000), 1);
    // UMR from the REG_UMR QP writes a read-only page 0 (padded with zero
    // entries to 64 bytes): a write to it is then PAGE_ACCESS.
    `MKEYSIM_LIST_CLEAR
    expect_eq("list_mtt", longint'(`MKEYSIM_LIST_MTT(64'h0000_0000_1111_1001)), 1);
    expect_eq("umr", longint'(`MKEYSIM_UMR(h, 32'h20, {idx[23:0], 8'h11}, 0, 64'd0, 512'd0, 64'd0)), 0);
    expect_eq("access after umr", longint'(`MKEYSIM_ACCESS(h, 32'h10, {idx[23:0], 8'h11}, 64'h10000, 32'h10, 1, lvl, off, nseg, fk, fa)), 12);
    expect_eq("local_invalidate", longint'(`MKEYSIM_LOCAL_INVALIDATE(h, 32'h10, {idx[23:0], 8'h11})), 0);
    expect_eq("check after invalidate", longint'(`MKEYSIM_CHECK(h, {idx[23:0], 8'h11}, 0, 64'h10000, 32'h10, 32'h10, 32'h7, 0)), 4);
    expect_eq("send_with_invalidate (en_rinval clear)", longint'(`MKEYSIM_SEND_WITH_INVALIDATE(h, 32'h10, {idx[23:0], 8'h11})), 20);
    expect_eq("destroy", longint'(`MKEYSIM_DESTROY(h, idx)), 0);
    expect_eq("query destroyed", longint'(`MKEYSIM_QUERY(h, idx, q, odp)), 2);
    // Unit oracles.
    ents = '0;
    ents[511:480] = 32'h1000;
    ents[479:448] = 32'h0000_0501;
    ents[447:384] = 64'h5000;
    expect_eq("klm_step", longint'(`MKEYSIM_KLM_STEP(0, 12, 32'd4, 64'h10, 32'h20, ents, ei, lk, la, pl)), 0);
    expect_eq("klm_step lower", {32'(lk), 32'(pl)}, {32'h501, 32'h20});
    expect_eq("klm_step addr", la, 64'h5010);
    expect_eq("mtt_step", longint'(`MKEYSIM_MTT_STEP(64'h1234, 12, 32'd4, 64'h1_0000_0000, 64'h1ff0, 32'd100, 32'd0, pi, ea, po, pl)), 0);
    expect_eq("mtt_step out", {32'(po), 32'(pl)}, {32'hff0, 32'd16});
    expect_eq("mtt_step entry", ea, 64'h1_0000_0000);
    expect_eq("protcheck", longint'(`MKEYSIM_PROTCHECK(m, 1, {idx[23:0], 8'h12}, 0, 64'h10000, 32'h1, 32'h10, 32'h7, 0)), 3);
    c = `MKEYSIM_CACHE_NEW(32'd2, 32'd2, 0, 64'd1);
    expect_eq("cache fill", longint'(`MKEYSIM_CACHE_OP(c, 1, 32'd3, hit, way, ev, eidx, cnt)), 0);
    expect_eq("cache lookup", longint'(`MKEYSIM_CACHE_OP(c, 0, 32'd3, hit, way, ev, eidx, cnt)), 0);
    expect_eq("cache hit", longint'(hit), 1);
    expect_eq("cache inval_all", longint'(`MKEYSIM_CACHE_OP(c, 3, 32'd0, hit, way, ev, eidx, cnt)), 0);
    expect_eq("cache count", longint'(cnt), 1);
    // Errors.
    expect_eq("delete unknown", longint'(`MKEYSIM_DELETE(12345)), -64'sd1);
    `MKEYSIM_LAST_ERROR(msg)
    expect_eq("last_error", longint'(msg == "mkeysim_delete: handle 12345: no such instance"), 1);
    `MKEYSIM_HEAP_BYTES(hb)
    expect_eq("heap_bytes", longint'(hb != 0), 1);
    expect_eq("delete", longint'(`MKEYSIM_DELETE(h)), 0);
    expect_eq("delete cache", longint'(`MKEYSIM_DELETE(c)), 0);
    expect_eq("instances", longint'(`MKEYSIM_INSTANCES), 0);
    expect_eq("abi", longint'(`MKEYSIM_ABI_VERSION), 1);
    $display("api_tb: %0d checks passed", checks);
    if (FINISH) $finish;
  end
endmodule
