// mkeysim_dpi.sv: the golden model (libmkeysim.so, cosim/mkeysim.h) as
// DPI-C functions, for a SystemVerilog testbench that asks the model what
// its DUT must answer. The C side is cosim/dpi/mkeysim_dpi.c; cosim/README.md
// shows the build (Verilator: add both files, -CFLAGS -I<repo>/cosim and
// -LDFLAGS "-L<dir> -lmkeysim -Wl,-rpath,<dir>").
//
// Types. Images are packed vectors in wire order, byte 00h in the top
// byte, as the golden vectors and the vectors/hdl DUT ports hold them:
//   MKC image   bit [511:0]  (byte 00h in 511:504; free is bit 510, pd 407:384)
//   MTT entry   bit [63:0]   (ptag[63:32] in 63:32, ptag[31:8], wr_en bit 1, rd_en bit 0)
//   KLM entry   bit [127:0]  (byte_count 127:96, mkey 95:64, address 63:0)
//   KLM list    bit [511:0]  (mkeysim_dpi_klm_step: entry 0 in 511:384 .. entry 3 in 127:0)
// Handles (model or cache instance) are longint, > 0. Every function that
// runs a command or a check returns its PRM status (>= 0, enum status of
// the vectors' packages); a negative return is an error of the call
// (-1 unknown handle, -2 bad argument, -3 unobservable KLM step, -4 a
// library bug):
// mkeysim_dpi_last_error() says why, and nothing changed. Outputs are
// written on every return (zeros when nothing applies).
//
// Lists: stage the entries of a CREATE_MKEY or UMR list first, one call an
// entry (mkeysim_dpi_list_mtt or mkeysim_dpi_list_klm, all of one kind);
// the next mkeysim_dpi_create or mkeysim_dpi_umr passes them and empties
// the stage. An empty stage is no list.
//
// Like the vectors' packages, this file sets `timescale 1ns/1ps, which
// carries over to the files compiled after it: list it first.
`timescale 1ns/1ps
package mkeysim_dpi;
  // Statuses (cosim/mkeysim.h enum mkeysim_status, the vectors' enums.status).
  localparam int MKEYSIM_OK = 0, MKEYSIM_INDIRECTION_DEPTH = 1, MKEYSIM_BAD_KEY_INDEX = 2,
                 MKEYSIM_KEY_MISMATCH = 3, MKEYSIM_MKEY_FREE = 4, MKEYSIM_PD_MISMATCH = 5,
                 MKEYSIM_QPN_MISMATCH = 6, MKEYSIM_OUT_OF_RANGE = 7, MKEYSIM_ACCESS_DENIED = 8,
                 MKEYSIM_BAD_ACCESS_MODE = 9, MKEYSIM_MISALIGNED_ATOMIC = 10,
                 MKEYSIM_TRANSLATION_RANGE = 11, MKEYSIM_PAGE_ACCESS = 12, MKEYSIM_PAGE_FAULT = 13,
                 MKEYSIM_BAD_PARAM = 14, MKEYSIM_UMR_CHECK_FREE = 15, MKEYSIM_UMR_DISABLED = 16,
                 MKEYSIM_UMR_PD_UPDATE = 17, MKEYSIM_UMR_ALIGNMENT = 18, MKEYSIM_UMR_CAPACITY = 19,
                 MKEYSIM_REMOTE_INVALIDATE_DENIED = 20, MKEYSIM_IOMMU_FAULT = 21,
                 MKEYSIM_NO_RESOURCES = 22, MKEYSIM_BAD_RES_STATE = 23;
  // Errors of a call.
  localparam int MKEYSIM_ERR_HANDLE = -1, MKEYSIM_ERR_ARG = -2, MKEYSIM_ERR_UNOBSERVABLE = -3,
                 MKEYSIM_ERR_INTERNAL = -4;
  // Access types, cache operations.
  localparam int MKEYSIM_LOCAL_READ = 0, MKEYSIM_LOCAL_WRITE = 1, MKEYSIM_REMOTE_READ = 2,
                 MKEYSIM_REMOTE_WRITE = 3, MKEYSIM_REMOTE_ATOMIC = 4;
  localparam int MKEYSIM_CACHE_LOOKUP = 0, MKEYSIM_CACHE_FILL = 1, MKEYSIM_CACHE_INVAL = 2,
                 MKEYSIM_CACHE_INVAL_ALL = 3;

  // ---- Instances -------------------------------------------------------
  // A model (QPs, MKey table, ICM); max_indirection < 0: the default, 4.
  import "DPI-C" function longint mkeysim_dpi_new(input int max_indirection);
  // Frees a model or cache instance: 0 or -1.
  import "DPI-C" function int mkeysim_dpi_delete(input longint h);
  import "DPI-C" function longint mkeysim_dpi_instances();
  import "DPI-C" function longint unsigned mkeysim_dpi_heap_bytes();
  import "DPI-C" function int mkeysim_dpi_abi_version();
  // The message of the last failed call (negative return or BAD_PARAM).
  import "DPI-C" function string mkeysim_dpi_last_error();

  // ---- Lists -------------------------------------------------------------
  // Each returns the number of entries staged, or -2 (the other kind is
  // staged, or more than 16 MB).
  import "DPI-C" function void mkeysim_dpi_list_clear();
  import "DPI-C" function int mkeysim_dpi_list_mtt(input bit [63:0] entry);
  import "DPI-C" function int mkeysim_dpi_list_klm(input bit [127:0] entry);

  // ---- Commands (translation.md 3) -----------------------------------------
  import "DPI-C" function int mkeysim_dpi_add_qp(input longint h, input int unsigned qpn,
                                                 input int unsigned pd, input int reg_umr);
  // CREATE_MKEY of mkc at index (< 0: the lowest free index) with the staged
  // list; index_out: the index used.
  import "DPI-C" function int mkeysim_dpi_create(input longint h, input bit [511:0] mkc, input longint index,
                                                 input int odp, input int pg_access,
                                                 output int unsigned index_out);
  import "DPI-C" function int mkeysim_dpi_destroy(input longint h, input int unsigned index);
  // QUERY_MKEY: the context and the registration's ODP flag (zeros unless OK).
  import "DPI-C" function int mkeysim_dpi_query(input longint h, input int unsigned index,
                                                output bit [511:0] mkc, output int odp);
  // UMR posted on qpn for key, with the staged list written at offset, the
  // UMR's translation_offset in 16-byte units (its bytes a multiple of 64).
  import "DPI-C" function int mkeysim_dpi_umr(input longint h, input int unsigned qpn, input int unsigned key,
                                              input int check_free, input longint unsigned mask,
                                              input bit [511:0] mkc, input longint unsigned offset);
  import "DPI-C" function int mkeysim_dpi_local_invalidate(input longint h, input int unsigned qpn,
                                                           input int unsigned key);
  import "DPI-C" function int mkeysim_dpi_send_with_invalidate(input longint h, input int unsigned qpn,
                                                               input int unsigned key);

  // ---- ICM (host memory of the translation lists) --------------------------
  // 16 bytes at addr (any alignment), byte addr in bits 127:120, as the top
  // unit's mem_data port holds them: OK or -2.
  import "DPI-C" function int mkeysim_dpi_icm_write16(input longint h, input longint unsigned addr,
                                                      input bit [127:0] data);
  import "DPI-C" function int mkeysim_dpi_icm_read16(input longint h, input longint unsigned addr,
                                                     output bit [127:0] data);

  // ---- Translation -----------------------------------------------------------
  // A whole access (the top unit's outputs); the segments of the last one
  // are read with mkeysim_dpi_access_seg (0..min(nseg, 256)-1).
  import "DPI-C" function int mkeysim_dpi_access(input longint h, input int unsigned qpn, input int unsigned key,
                                                 input longint unsigned va, input int unsigned len,
                                                 input int access_type, output int level,
                                                 output longint unsigned offset, output int unsigned nseg,
                                                 output int unsigned fault_key,
                                                 output longint unsigned fault_addr);
  import "DPI-C" function int mkeysim_dpi_access_seg(input int i, output int space,
                                                     output longint unsigned addr, output longint unsigned len);
  // The MKC checks 2-10 of a piece against the model's current context of
  // key's index: the protcheck unit's status.
  import "DPI-C" function int mkeysim_dpi_check(input longint h, input int unsigned key, input int level,
                                                input longint unsigned va, input int unsigned len,
                                                input int unsigned qpn, input int unsigned pd,
                                                input int access_type);

  // ---- Unit oracles without an instance ------------------------------------
  import "DPI-C" function int mkeysim_dpi_protcheck(input bit [511:0] mkc, input int created,
                                                    input int unsigned key, input int level,
                                                    input longint unsigned va, input int unsigned len,
                                                    input int unsigned qpn, input int unsigned pd,
                                                    input int access_type);
  import "DPI-C" function int mkeysim_dpi_mtt_step(input longint unsigned start_addr, input int log_entity_size,
                                                   input int unsigned tos, input longint unsigned mtt_handle,
                                                   input longint unsigned va, input int unsigned len,
                                                   input int unsigned t, output longint unsigned page_index,
                                                   output longint unsigned entry_addr,
                                                   output int unsigned page_offset,
                                                   output int unsigned piece_len);
  import "DPI-C" function int mkeysim_dpi_klm_step(input int fbs, input int log_entity_size,
                                                   input int unsigned tos, input longint unsigned d,
                                                   input int unsigned len, input bit [511:0] entries,
                                                   output int unsigned entry_index,
                                                   output int unsigned lower_key,
                                                   output longint unsigned lower_addr,
                                                   output int unsigned piece_len);

  // ---- MKC cache tag array (the mptcache unit) -------------------------------
  import "DPI-C" function longint mkeysim_dpi_cache_new(input int unsigned sets, input int unsigned ways,
                                                        input int random, input longint unsigned prng_init);
  import "DPI-C" function int mkeysim_dpi_cache_op(input longint h, input int op, input int unsigned index,
                                                   output bit hit, output int unsigned way, output bit evict,
                                                   output int unsigned evict_index, output int unsigned count);
endpackage
