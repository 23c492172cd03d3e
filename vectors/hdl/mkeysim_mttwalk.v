// mkeysim_mttwalk: an example DUT for the mttwalk golden vectors.
//
// One address step of the MTT walker (translation.md section 5) as pure
// combinational logic: page index, entry address, offset in the page,
// the page split and TRANSLATION_RANGE. Written from translation.md and
// the mttwalk manifest only. Synthesizable, width-clean for Verilator
// (-Wall).
//
// Define MKEYSIM_BREAK to get a broken walker (u = b + d + t is computed
// on 64 bits, dropping the carry that the spec keeps exact): the vectors
// must catch it.
`timescale 1ns/1ps
module mkeysim_mttwalk (
  input  wire [63:0] start_addr,
  input  wire [4:0]  log_entity_size,            // 12..31
  input  wire [31:0] translations_octword_size,  // capacity = 2 x this MTT entries
  input  wire [47:0] mtt_handle,
  input  wire [63:0] va,
  input  wire [31:0] len,
  input  wire [31:0] t,
  output wire [7:0]  status,
  output wire [63:0] page_index,
  output wire [63:0] entry_addr,
  output wire [31:0] page_offset,
  output wire [31:0] piece_len
);
  localparam [7:0] OK = 8'd0, TRANSLATION_RANGE = 8'd11;

  wire [63:0] pmask = (64'd1 << log_entity_size) - 64'd1;   // P - 1
  wire [63:0] b = start_addr & pmask;                      // S mod P
  wire [63:0] d = va - start_addr;                         // mod 2^64
`ifdef MKEYSIM_BREAK
  wire [63:0] u64 = b + d + {32'd0, t};
  wire [65:0] u = {2'b00, u64};
`else
  wire [65:0] u = {2'b00, b} + {2'b00, d} + {34'd0, t};    // exact
`endif
  wire [65:0] i = u >> log_entity_size;
  wire [65:0] capacity = {33'd0, translations_octword_size, 1'b0};
  assign status = i >= capacity ? TRANSLATION_RANGE : OK;

  // o = u mod P < 2^31; n = min(len - t, P - o).
  /* verilator lint_off UNUSEDSIGNAL */
  wire [63:0] o = u[63:0] & pmask;
  /* verilator lint_on UNUSEDSIGNAL */
  wire [32:0] room = (33'd1 << log_entity_size) - {1'b0, o[31:0]};
  wire [32:0] rest = {1'b0, len - t};
  wire [31:0] n = rest < room ? rest[31:0] : room[31:0];  // both fit 32 bits then

  assign page_index  = i[63:0];
  assign entry_addr  = {16'd0, mtt_handle} + {i[60:0], 3'b000};
  assign page_offset = o[31:0];
  assign piece_len   = n;
endmodule
