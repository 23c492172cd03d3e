`timescale 1ns/1ps
// mkeysim_atc: an example ATS translation cache for the atc vectors,
// written from vectors/README.md and the manifest (ports, formats), not
// from the Go. ENTRIES fully associative entries, each a naturally
// aligned range (base, 2^lg bytes) with its translated base, R, W, the
// number of OK results holding it and a dying flag (an invalidation
// dropped it while held: no lookup finds it, it frees with its last
// holder). One lookup at a time: a hit answers the next cycle; a miss
// sends one Translation Request for its 4 KiB page and fills from the
// completion (an invalid entry first, else the first one no result
// holds). Invalidate Requests wait in a queue of 32; the head completes,
// one a cycle, once no dying entry meets its range.
// -DMKEYSIM_BREAK: a release does not free a dying entry's last holder's
// dying flag, so completions behind it never leave.
module mkeysim_atc #(
  parameter int ENTRIES = 16
) (
  input  logic        clk,
  input  logic        rst,
  input  logic        in_valid,
  output logic        in_ready,
  input  logic [15:0] in_tag,
  input  logic [63:0] in_addr,
  input  logic [31:0] in_len,
  input  logic        in_write,
  output logic        tr_valid,
  output logic [15:0] tr_id,
  input  logic        tc_valid,
  input  logic [15:0] tc_id,
  input  logic        tc_ok,
  input  logic [63:0] tc_entry,
  input  logic        rel_valid,
  input  logic [15:0] rel_entry,
  input  logic        inv_valid,
  input  logic [4:0]  inv_itag,
  input  logic [63:0] inv_body,
  output logic [63:0] tr_addr,
  output logic        out_valid,
  output logic        out_ok,
  output logic [63:0] out_addr,
  output logic [31:0] out_len,
  output logic [15:0] out_tag,
  output logic [15:0] out_entry,
  output logic        done_valid,
  output logic [31:0] done_itag_vector
);
  localparam int EW = $clog2(ENTRIES);

  logic        valid [ENTRIES];
  logic        dying [ENTRIES];
  logic [63:0] base  [ENTRIES];
  logic [6:0]  lg    [ENTRIES];
  logic [63:0] pa    [ENTRIES];
  logic        rd    [ENTRIES];
  logic        wr    [ENTRIES];
  logic [7:0]  users [ENTRIES];

  logic [4:0]  q_itag [32];
  logic [63:0] q_base [32];
  logic [6:0]  q_lg   [32];
  logic [5:0]  q_head, q_tail; // q_tail - q_head requests wait

  // 0 idle, 1 waiting for the completion
  logic        waiting;
  logic [15:0] l_tag;
  logic [63:0] l_addr;
  logic        l_write;

  // The range an address and S bit name (PCIe 10.2.3.2): 4 KiB with S
  // clear; else 2^(k+1) bytes, k the lowest clear bit above bit 11.
  function automatic logic [6:0] range_lg(input logic [63:0] a);
    range_lg = 7'd12;
    if (a[11]) begin
      range_lg = 7'd64;
      for (int i = 63; i >= 12; i--) if (!a[i]) range_lg = 7'(i + 1);
    end
  endfunction

  function automatic logic [63:0] mask_of(input logic [6:0] l);
    mask_of = l >= 7'd64 ? 64'hffff_ffff_ffff_ffff : (64'd1 << l[5:0]) - 64'd1;
  endfunction

  // Two aligned ranges meet when one holds the other's base.
  function automatic logic meets(input logic [63:0] b1, input logic [6:0] l1, input logic [63:0] b2, input logic [6:0] l2);
    logic [63:0] m;
    m = mask_of(l1 > l2 ? l1 : l2);
    meets = (b1 & ~m) == (b2 & ~m);
  endfunction

  logic [6:0]  tc_lg, inv_lg;
  logic [63:0] tc_base, inv_base;
  assign tc_lg = range_lg(tc_entry);
  assign tc_base = {tc_entry[63:12], 12'd0} & ~mask_of(tc_lg);
  assign inv_lg = range_lg(inv_body);
  assign inv_base = {inv_body[63:12], 12'd0} & ~mask_of(inv_lg);

  assign in_ready = !waiting && !rst;
  // Entries are numbered below 2^EW: a release's upper bits are 0.
  wire unused_rel = &{1'b0, rel_entry[15:EW]};
  assign tr_addr = {l_addr[63:12], 12'd0}; // ats_tr_addr: untranslated address, NW 0

  // Everything is computed at the clock edge from the registers: the
  // live entry holding in_addr (hit), where a fill goes (an invalid entry,
  // else one no result holds), and whether a dying entry meets the range
  // of the queue's head (its completion waits).
  always @(posedge clk) begin : edge_
    logic          hit, fill_ok, head_blocked, fv, fu;
    logic [EW-1:0] hit_i, fill_i, fu_i;
    hit = 1'b0; hit_i = '0;
    fv = 1'b0; fill_i = '0;
    fu = 1'b0; fu_i = '0;
    head_blocked = 1'b0;
    for (int i = ENTRIES - 1; i >= 0; i--) begin
      if (valid[i] && !dying[i] && meets(base[i], lg[i], in_addr, 7'd12)) begin hit = 1'b1; hit_i = EW'(i); end
      if (!valid[i]) begin fv = 1'b1; fill_i = EW'(i); end
      if (users[i] == 8'd0) begin fu = 1'b1; fu_i = EW'(i); end
      if (valid[i] && dying[i] && meets(base[i], lg[i], q_base[q_head[4:0]], q_lg[q_head[4:0]])) head_blocked = 1'b1;
    end
    fill_ok = fv || fu;
    if (!fv) fill_i = fu_i;
    out_valid <= 1'b0;
    tr_valid <= 1'b0;
    done_valid <= 1'b0;
    if (rst) begin
      waiting <= 1'b0;
      q_head <= '0;
      q_tail <= '0;
      for (int i = 0; i < ENTRIES; i++) begin
        valid[i] <= 1'b0; dying[i] <= 1'b0; users[i] <= 8'd0;
      end
    end else begin
      // A lookup: a hit answers now, a miss asks the host.
      if (in_valid && in_ready) begin
        l_tag <= in_tag; l_addr <= in_addr; l_write <= in_write;
        out_tag <= in_tag;
        out_len <= in_len;
        if (hit) begin
          out_valid <= 1'b1;
          out_ok <= in_write ? wr[hit_i] : rd[hit_i];
          out_addr <= pa[hit_i] | (in_addr & mask_of(lg[hit_i]));
          out_entry <= 16'(hit_i);
          if (in_write ? wr[hit_i] : rd[hit_i]) users[hit_i] <= users[hit_i] + 8'd1;
        end else begin
          waiting <= 1'b1;
          tr_valid <= 1'b1;
          tr_id <= in_tag;
        end
      end
      // The completion of the request in flight: fill, then answer.
      if (waiting && tc_valid && tc_id == l_tag) begin
        waiting <= 1'b0;
        out_valid <= 1'b1;
        out_ok <= 1'b0;
        out_addr <= 64'd0;
        out_entry <= 16'd0;
        if (tc_ok && (tc_entry[0] || tc_entry[1]) && fill_ok) begin
          valid[fill_i] <= 1'b1;
          dying[fill_i] <= 1'b0;
          base[fill_i] <= l_addr & ~mask_of(tc_lg);
          lg[fill_i] <= tc_lg;
          pa[fill_i] <= tc_base;
          rd[fill_i] <= tc_entry[0];
          wr[fill_i] <= tc_entry[1];
          users[fill_i] <= 8'd0;
          if (l_write ? tc_entry[1] : tc_entry[0]) begin
            out_ok <= 1'b1;
            out_addr <= tc_base | (l_addr & mask_of(tc_lg));
            out_entry <= 16'(fill_i);
            users[fill_i] <= 8'd1;
          end
        end
      end
      // A release: the last holder of a dying entry frees it.
      if (rel_valid && users[rel_entry[EW-1:0]] != 8'd0) begin
        users[rel_entry[EW-1:0]] <= users[rel_entry[EW-1:0]] - 8'd1;
`ifndef MKEYSIM_BREAK
        if (users[rel_entry[EW-1:0]] == 8'd1 && dying[rel_entry[EW-1:0]]) begin
          valid[rel_entry[EW-1:0]] <= 1'b0;
          dying[rel_entry[EW-1:0]] <= 1'b0;
        end
`endif
      end
      // An Invalidate Request: drop what it meets (held entries die), queue it.
      if (inv_valid) begin
        for (int i = 0; i < ENTRIES; i++)
          if (valid[i] && meets(base[i], lg[i], inv_base, inv_lg)) begin
            if (users[i] != 8'd0) dying[i] <= 1'b1;
            else valid[i] <= 1'b0;
          end
        q_itag[q_tail[4:0]] <= inv_itag;
        q_base[q_tail[4:0]] <= inv_base;
        q_lg[q_tail[4:0]] <= inv_lg;
        q_tail <= q_tail + 6'd1;
      end else if (q_head != q_tail && !head_blocked) begin
        // One completion a cycle, in order (not in a cycle that queues).
        done_valid <= 1'b1;
        done_itag_vector <= 32'd1 << q_itag[q_head[4:0]];
        q_head <= q_head + 6'd1;
      end
    end
  end
endmodule
