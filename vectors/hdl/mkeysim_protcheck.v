// mkeysim_protcheck: an example DUT for the protcheck golden vectors.
//
// The protection checker of translation.md section 4, checks 2 to 10, as
// pure combinational logic, written from translation.md and the
// protcheck manifest only (not from the Go model). Synthesizable,
// width-clean for Verilator (-Wall).
//
// Define MKEYSIM_BREAK to get a broken checker (the range check drops the
// carry of va + len, so a piece that passes 2^64 looks in range): the
// vectors must catch it.
`timescale 1ns/1ps
module mkeysim_protcheck (
  /* verilator lint_off UNUSEDSIGNAL */
  input  wire [511:0] mkc,         // MKey Context image, byte 00h in bits 511:504
  input  wire [31:0]  key,         // index 31:8 is the caller's; variant 7:0 checked here
  /* verilator lint_on UNUSEDSIGNAL */
  input  wire         created,
  input  wire [2:0]   level,
  input  wire [63:0]  va,
  input  wire [31:0]  len,
  input  wire [23:0]  qpn,
  input  wire [23:0]  pd,
  input  wire [2:0]   access_type,
  output reg  [7:0]   status
);
  // Status codes (enums.status of the manifest).
  localparam [7:0] OK = 8'd0, BAD_KEY_INDEX = 8'd2, KEY_MISMATCH = 8'd3,
                   MKEY_FREE = 8'd4, PD_MISMATCH = 8'd5, QPN_MISMATCH = 8'd6,
                   OUT_OF_RANGE = 8'd7, ACCESS_DENIED = 8'd8,
                   BAD_ACCESS_MODE = 8'd9, MISALIGNED_ATOMIC = 8'd10;
  // Access types (enums.access_type).
  localparam [2:0] LOCAL_READ = 3'd0, LOCAL_WRITE = 3'd1, REMOTE_READ = 3'd2,
                   REMOTE_WRITE = 3'd3, REMOTE_ATOMIC = 3'd4;

  // MKC fields (formats.mkc: dword 00h bit b is image bit 480 + b, dword
  // at offset O bit b is image bit 480 - 8 O + b).
  wire        m_free     = mkc[510];
  wire [4:0]  m_mode     = {mkc[508:506], mkc[489:488]};
  wire        m_a        = mkc[494];
  wire        m_rw       = mkc[493];
  wire        m_rr       = mkc[492];
  wire        m_lw       = mkc[491];
  wire        m_lr       = mkc[490];
  wire [23:0] m_qpn      = mkc[479:456];
  wire [7:0]  m_variant  = mkc[455:448];
  wire        m_length64 = mkc[415];
  wire [23:0] m_pd       = mkc[407:384];
  wire [63:0] m_start    = mkc[383:320];
  wire [63:0] m_len      = mkc[319:256];
  wire [4:0]  m_log      = mkc[36:32];

  // Check 7, exact: va + len <= 2^64, and length64 or
  // start <= va and va + len <= start + len_mkc, all on 65 bits.
  wire [64:0] lim = {1'b0, m_start} + {1'b0, m_len};
`ifdef MKEYSIM_BREAK
  wire [63:0] end64 = va + {32'd0, len};
  wire [64:0] fin = {1'b0, end64};
`else
  wire [64:0] fin = {1'b0, va} + {33'd0, len};
`endif
  wire in_space = fin <= {1'b1, 64'd0};
  wire in_range = in_space && (m_length64 || (va >= m_start && fin <= lim));

  reg granted;
  always @* begin
    case (access_type)
      LOCAL_READ:    granted = m_lr;
      LOCAL_WRITE:   granted = m_lw;
      REMOTE_READ:   granted = m_rr;
      REMOTE_WRITE:  granted = m_rw;
      REMOTE_ATOMIC: granted = m_a;
      default:       granted = 1'b0;
    endcase
  end

  // Check 9: a reserved mode, or MTT (1) / Fixed Buffer Size (3) with
  // log_entity_size below 12.
  wire paged   = m_mode == 5'd1 || m_mode == 5'd3;
  wire mode_ok = paged ? m_log >= 5'd12 : m_mode <= 5'd5;
  wire misaligned = level == 3'd0 && access_type == REMOTE_ATOMIC &&
                    (len != 32'd8 || va[2:0] != 3'd0);

  always @* begin
    if (!created)                                  status = BAD_KEY_INDEX;
    else if (m_variant != key[7:0])                status = KEY_MISMATCH;
    else if (m_free)                               status = MKEY_FREE;
    else if (m_pd != pd)                           status = PD_MISMATCH;
    else if (m_qpn != 24'hffffff && m_qpn != qpn)  status = QPN_MISMATCH;
    else if (!in_range)                            status = OUT_OF_RANGE;
    else if (!granted)                             status = ACCESS_DENIED;
    else if (!mode_ok)                             status = BAD_ACCESS_MODE;
    else if (misaligned)                           status = MISALIGNED_ATOMIC;
    else                                           status = OK;
  end
endmodule
