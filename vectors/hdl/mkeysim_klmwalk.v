// mkeysim_klmwalk: an example DUT for the klmwalk golden vectors.
//
// The first step of one KLM level (translation.md section 6) as pure
// combinational logic: the entry search of a variable KLM key, or the
// indexing of a Fixed Buffer Size key, and the lower address and piece
// length. Written from translation.md and the klmwalk manifest only.
// Synthesizable, width-clean for Verilator (-Wall).
//
// Define MKEYSIM_BREAK to get a broken search (entries of byte_count 0 are
// not skipped when d falls on their start): the vectors must catch it.
`timescale 1ns/1ps
module mkeysim_klmwalk (
  input  wire         fbs,                        // 0: variable KLM, 1: Fixed Buffer Size
  input  wire [4:0]   log_entity_size,
  input  wire [31:0]  translations_octword_size,  // capacity in entries
  input  wire [63:0]  d,
  input  wire [31:0]  len,
  input  wire [127:0] entry0,
  input  wire [127:0] entry1,
  input  wire [127:0] entry2,
  input  wire [127:0] entry3,
  output reg  [7:0]   status,
  output reg  [7:0]   entry_index,
  output reg  [31:0]  lower_key,
  output reg  [63:0]  lower_addr,
  output reg  [31:0]  piece_len
);
  localparam [7:0] OK = 8'd0, TRANSLATION_RANGE = 8'd11;
  localparam K = 4;

  wire [127:0] e [0:K-1];
  assign e[0] = entry0;
  assign e[1] = entry1;
  assign e[2] = entry2;
  assign e[3] = entry3;

  // Fixed Buffer Size: j = d / B, offset d mod B.
  wire [63:0] bmask = (64'd1 << log_entity_size) - 64'd1;
  wire [63:0] fj = d >> log_entity_size;
  wire [63:0] fin = d & bmask;

  integer j;
  reg found;
  reg [1:0] hit;
  reg [63:0] t, tnext;   // T[j] and T[j] + byte_count[j] (< 2^34)
  reg [63:0] off, room;
  always @* begin
    status = TRANSLATION_RANGE;
    entry_index = 8'd0;
    lower_key = 32'd0;
    lower_addr = 64'd0;
    piece_len = 32'd0;
    found = 1'b0;
    hit = 2'd0;
    off = 64'd0;
    room = 64'd0;
    t = 64'd0;
    tnext = 64'd0;
    if (fbs) begin
      if (fj < {32'd0, translations_octword_size} && fj < K) begin
        found = 1'b1;
        hit = fj[1:0];
        off = fin;
        room = (bmask + 64'd1) - fin;
      end
    end else begin
      for (j = 0; j < K; j = j + 1) begin
        tnext = t + {32'd0, e[j][127:96]};
`ifdef MKEYSIM_BREAK
        if (!found && j < translations_octword_size && d >= t && (d < tnext || d == t)) begin
`else
        if (!found && j < translations_octword_size && d >= t && d < tnext) begin
`endif
          found = 1'b1;
          hit = j[1:0];
          off = d - t;
          room = tnext - d;
        end
        t = tnext;
      end
    end
    if (found) begin
      status = OK;
      entry_index = {6'd0, hit};
      lower_key = e[hit][95:64];
      lower_addr = e[hit][63:0] + off;
      piece_len = room < {32'd0, len} ? room[31:0] : len;
    end
  end
endmodule
