// mkeysim_mptcache: an example DUT for the mptcache golden vectors.
//
// The MKC cache's tag array with its replacement (docs/vectors-mptcache.md
// and the mptcache manifest): SETS x WAYS lines of {valid, tag = the full
// 24-bit mkey_index, last-use stamp}. Outputs are combinational from the
// registered array and the presented operation; the operation takes
// effect at the rising edge. LRU keeps a 64-bit use stamp per line (a
// hardware design would keep a few age bits; the order is the same);
// random replacement draws xorshift64 mod WAYS. Synthesizable, width-clean
// for Verilator (-Wall).
//
// Define MKEYSIM_BREAK to get a broken cache (a lookup hit does not make
// its line the most recently used): the vectors must catch it under LRU.
`timescale 1ns/1ps
module mkeysim_mptcache #(
  parameter logic [63:0] SETS = 64'd16,         // a power of two
  parameter logic [63:0] WAYS = 64'd4,          // 1..64
  parameter logic [63:0] REPL_RANDOM = 64'd0,   // 0: LRU, 1: random
  parameter logic [63:0] PRNG_INIT = 64'h0      // splitmix64(seed)
) (
  input  wire        clk,
  input  wire        rst,
  input  wire        op_valid,
  input  wire [1:0]  op,      // 0 LOOKUP, 1 FILL, 2 INVAL, 3 INVAL_ALL
  input  wire [23:0] index,
  output reg         hit,
  output reg  [7:0]  way,
  output reg         evict,
  output reg  [23:0] evict_index,
  output reg  [23:0] count
);
  localparam int NS = int'(SETS);
  localparam int NW = int'(WAYS);
  localparam int NL = NS * NW;
  localparam [1:0] LOOKUP = 2'd0, FILL = 2'd1, INVAL = 2'd2, INVAL_ALL = 2'd3;

  reg        valid [0:NL-1];
  reg [23:0] tag   [0:NL-1];
  reg [63:0] used  [0:NL-1];
  reg [63:0] stamp;
  reg [63:0] prng;

  wire [23:0] set = index & 24'(NS - 1);
  wire [31:0] base = 32'(set) * 32'(NW);

  // xorshift64, advanced only when a victim is drawn.
  wire [63:0] x1 = prng ^ (prng << 13);
  wire [63:0] x2 = x1 ^ (x1 >> 7);
  wire [63:0] next_prng = x2 ^ (x2 << 17);

  integer w, l;
  reg found, has_free;
  reg [7:0] hit_way, free_way, lru_way, fill_way;
  always @* begin
    found = 1'b0; hit_way = 8'd0;
    has_free = 1'b0; free_way = 8'd0;
    lru_way = 8'd0;
    for (w = 0; w < NW; w = w + 1) begin
      if (!found && valid[base + w] && tag[base + w] == index) begin
        found = 1'b1;
        hit_way = 8'(w);
      end
      if (!has_free && !valid[base + w]) begin
        has_free = 1'b1;
        free_way = 8'(w);
      end
      if (used[base + w] < used[base + 32'(lru_way)]) lru_way = 8'(w);
    end
    if (found) fill_way = hit_way;
    else if (has_free) fill_way = free_way;
    else if (REPL_RANDOM != 64'd0) fill_way = 8'(next_prng % WAYS);
    else fill_way = lru_way;
    count = 24'd0;
    for (l = 0; l < NL; l = l + 1) count = count + {23'd0, valid[l]};

    hit = 1'b0; way = 8'd0; evict = 1'b0; evict_index = 24'd0;
    case (op)
      LOOKUP, INVAL: begin hit = found; way = hit_way; end
      FILL: begin
        way = fill_way;
        evict = !found && !has_free;
        evict_index = tag[base + 32'(fill_way)];
      end
      default: ;
    endcase
  end

  always @(posedge clk) begin
    if (rst) begin
      for (l = 0; l < NL; l = l + 1) begin
        valid[l] <= 1'b0;
        tag[l] <= 24'd0;
        used[l] <= 64'd0;
      end
      stamp <= 64'd0;
      prng <= PRNG_INIT;
    end else if (op_valid) begin
      case (op)
        LOOKUP: if (found) begin
`ifndef MKEYSIM_BREAK
          used[base + 32'(hit_way)] <= stamp + 64'd1;
          stamp <= stamp + 64'd1;
`endif
        end
        FILL: begin
          valid[base + 32'(fill_way)] <= 1'b1;
          tag[base + 32'(fill_way)] <= index;
          used[base + 32'(fill_way)] <= stamp + 64'd1;
          stamp <= stamp + 64'd1;
          if (!found && !has_free && REPL_RANDOM != 64'd0) prng <= next_prng;
        end
        INVAL: if (found) valid[base + 32'(hit_way)] <= 1'b0;
        INVAL_ALL: for (l = 0; l < NL; l = l + 1) valid[l] <= 1'b0;
      endcase
    end
  end
endmodule
