// mkeysim_mptcache_age: a second DUT for the mptcache golden vectors,
// written to the rules of docs/vectors-mptcache.md with another LRU
// representation than mkeysim_mptcache.v, to check that the page's rules
// are enough. (Its author also wrote the page. An engineer given only the
// page, vectors/README.md and tools.md then wrote a third, not kept here:
// it passed 8 geometries, LRU and random, under both simulators at its
// first replay; the gaps that engineer found are now closed in the page.)
//
// It keeps true LRU as the page's age order, with per-way age counters
// instead of use stamps: in each set the valid lines have the ages 0 (the
// most recently used) to k-1 (the least), k the number of valid lines. A
// use (LOOKUP hit or FILL) of a line gives it age 0 and ages by one every
// valid line younger than it was (every valid line, if it was invalid); an
// INVAL makes the lines older than the dropped one one younger. When the
// set is full, the victim is the line of age WAYS-1. Random replacement
// steps the global xorshift64 state before taking way x mod WAYS.
// Synthesizable, width-clean for Verilator (-Wall).
`timescale 1ns/1ps
module mkeysim_mptcache_age #(
  parameter logic [63:0] SETS = 64'd16,         // a power of two
  parameter logic [63:0] WAYS = 64'd4,          // 1..64
  parameter logic [63:0] REPL_RANDOM = 64'd0,   // 0: LRU, 1: random
  parameter logic [63:0] PRNG_INIT = 64'h1      // the generator after reset
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
  reg [7:0]  age   [0:NL-1];
  reg [63:0] x;

  wire [23:0] set = index & 24'(NS - 1);
  wire [31:0] base = 32'(set) * 32'(NW);
  wire [63:0] s1 = x ^ (x << 13);
  wire [63:0] s2 = s1 ^ (s1 >> 7);
  wire [63:0] x_next = s2 ^ (s2 << 17);

  integer w, l;
  reg found, free, victim;
  reg [7:0] hit_way, free_way, old_way, fill_way;
  reg [7:0] hit_lim, fill_lim;   // a use ages the valid lines younger than this
  always @* begin
    found = 1'b0; hit_way = 8'd0;
    free = 1'b0; free_way = 8'd0;
    old_way = 8'd0;
    for (w = 0; w < NW; w = w + 1) begin
      if (!found && valid[base + 32'(w)] && tag[base + 32'(w)] == index) begin
        found = 1'b1;
        hit_way = 8'(w);
      end
      if (!free && !valid[base + 32'(w)]) begin
        free = 1'b1;
        free_way = 8'(w);
      end
      if (age[base + 32'(w)] == 8'(NW - 1)) old_way = 8'(w);
    end
    victim = !found && !free;
    if (found) fill_way = hit_way;
    else if (free) fill_way = free_way;
    else if (REPL_RANDOM != 64'd0) fill_way = 8'(x_next % WAYS);
    else fill_way = old_way;
    hit_lim = age[base + 32'(hit_way)];
    fill_lim = valid[base + 32'(fill_way)] ? age[base + 32'(fill_way)] : 8'(NW);
    count = 24'd0;
    for (l = 0; l < NL; l = l + 1) count = count + {23'd0, valid[l]};

    hit = 1'b0; way = 8'd0; evict = 1'b0; evict_index = 24'd0;
    case (op)
      LOOKUP, INVAL: begin hit = found; way = hit_way; end
      FILL: begin
        way = fill_way;
        evict = victim;
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
        age[l] <= 8'd0;
      end
      x <= PRNG_INIT;
    end else if (op_valid) begin
      case (op)
        LOOKUP: if (found) begin
          for (w = 0; w < NW; w = w + 1)
            if (valid[base + 32'(w)] && age[base + 32'(w)] < hit_lim) age[base + 32'(w)] <= age[base + 32'(w)] + 8'd1;
          age[base + 32'(hit_way)] <= 8'd0;
        end
        FILL: begin
          for (w = 0; w < NW; w = w + 1)
            if (valid[base + 32'(w)] && age[base + 32'(w)] < fill_lim) age[base + 32'(w)] <= age[base + 32'(w)] + 8'd1;
          age[base + 32'(fill_way)] <= 8'd0;
          valid[base + 32'(fill_way)] <= 1'b1;
          tag[base + 32'(fill_way)] <= index;
          if (victim && REPL_RANDOM != 64'd0) x <= x_next;
        end
        INVAL: if (found) begin
          for (w = 0; w < NW; w = w + 1)
            if (valid[base + 32'(w)] && age[base + 32'(w)] > hit_lim) age[base + 32'(w)] <= age[base + 32'(w)] - 8'd1;
          valid[base + 32'(hit_way)] <= 1'b0;
        end
        INVAL_ALL: for (l = 0; l < NL; l = l + 1) valid[l] <= 1'b0;
      endcase
    end
  end
endmodule
