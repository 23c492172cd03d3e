// mkeysim_live.svh: one spelling of the golden model's calls for both
// simulators. Under Verilator (or with MKEYSIM_USE_DPI defined) each macro
// is a call of the DPI-C package mkeysim_dpi (cosim/dpi/mkeysim_dpi.sv, C
// glue mkeysim_dpi.c); otherwise (Icarus Verilog, or MKEYSIM_USE_VPI) the
// $mkeysim_* system function of the VPI module (cosim/vpi/mkeysim_vpi.c,
// vvp -M DIR -m mkeysim). Arguments, in the C API's order with outputs
// last, and return values are the same in both: a status (>= 0), a handle
// (> 0) or a negative error. Pass outputs as variables of these types:
// bit [511:0] for an MKC image, int for flags and levels, int unsigned for
// 32-bit values, longint unsigned for 64-bit ones, bit for hit/evict.
// Handles fit a longint (the VPI functions return 32 bits). The VPI
// macros cast each call to int: iverilog compiles an unknown system
// function as 32-bit unsigned (measured: -1 reads 4294967295), unless the
// module is given to iverilog too (-L DIR -m mkeysim), which cosim/README.md
// recommends.
// `MKEYSIM_LAST_ERROR(s) (s a string), `MKEYSIM_HEAP_BYTES(v) (v a
// longint unsigned) and `MKEYSIM_LIST_CLEAR are statements (begin ...
// end blocks: no semicolon needed), not expressions; `MKEYSIM_INSTANCES and `MKEYSIM_ABI_VERSION take no
// parentheses (Icarus 11 has no empty macro argument lists).
//
// Include it once per compilation unit, before the first use:
//   `include "mkeysim_live.svh"      (+incdir+<repo>/cosim/tb)
`ifndef MKEYSIM_LIVE_SVH
`define MKEYSIM_LIVE_SVH
`ifndef MKEYSIM_USE_VPI
`ifdef VERILATOR
`define MKEYSIM_USE_DPI
`endif
`endif

`ifdef MKEYSIM_USE_DPI
`define MKEYSIM_NEW(max_ind) mkeysim_dpi::mkeysim_dpi_new(max_ind)
`define MKEYSIM_DELETE(h) mkeysim_dpi::mkeysim_dpi_delete(h)
`define MKEYSIM_INSTANCES mkeysim_dpi::mkeysim_dpi_instances()
`define MKEYSIM_ABI_VERSION mkeysim_dpi::mkeysim_dpi_abi_version()
`define MKEYSIM_LAST_ERROR(s) begin s = mkeysim_dpi::mkeysim_dpi_last_error(); end
`define MKEYSIM_HEAP_BYTES(v) begin v = mkeysim_dpi::mkeysim_dpi_heap_bytes(); end
`define MKEYSIM_LIST_CLEAR begin mkeysim_dpi::mkeysim_dpi_list_clear(); end
`define MKEYSIM_LIST_MTT(e) mkeysim_dpi::mkeysim_dpi_list_mtt(e)
`define MKEYSIM_LIST_KLM(e) mkeysim_dpi::mkeysim_dpi_list_klm(e)
`define MKEYSIM_ADD_QP(h, qpn, pd, reg_umr) mkeysim_dpi::mkeysim_dpi_add_qp(h, qpn, pd, reg_umr)
`define MKEYSIM_CREATE(h, mkc, index, odp, pg_access, index_out) \
  mkeysim_dpi::mkeysim_dpi_create(h, mkc, index, odp, pg_access, index_out)
`define MKEYSIM_DESTROY(h, index) mkeysim_dpi::mkeysim_dpi_destroy(h, index)
`define MKEYSIM_QUERY(h, index, mkc, odp) mkeysim_dpi::mkeysim_dpi_query(h, index, mkc, odp)
`define MKEYSIM_UMR(h, qpn, key, check_free, mask, mkc, offset) \
  mkeysim_dpi::mkeysim_dpi_umr(h, qpn, key, check_free, mask, mkc, offset)
`define MKEYSIM_LOCAL_INVALIDATE(h, qpn, key) mkeysim_dpi::mkeysim_dpi_local_invalidate(h, qpn, key)
`define MKEYSIM_SEND_WITH_INVALIDATE(h, qpn, key) mkeysim_dpi::mkeysim_dpi_send_with_invalidate(h, qpn, key)
`define MKEYSIM_ICM_WRITE16(h, addr, data) mkeysim_dpi::mkeysim_dpi_icm_write16(h, addr, data)
`define MKEYSIM_ICM_READ16(h, addr, data) mkeysim_dpi::mkeysim_dpi_icm_read16(h, addr, data)
`define MKEYSIM_ACCESS(h, qpn, key, va, len, at, level, offset, nseg, fault_key, fault_addr) \
  mkeysim_dpi::mkeysim_dpi_access(h, qpn, key, va, len, at, level, offset, nseg, fault_key, fault_addr)
`define MKEYSIM_ACCESS_SEG(i, space, addr, len) mkeysim_dpi::mkeysim_dpi_access_seg(i, space, addr, len)
`define MKEYSIM_CHECK(h, key, level, va, len, qpn, pd, at) \
  mkeysim_dpi::mkeysim_dpi_check(h, key, level, va, len, qpn, pd, at)
`define MKEYSIM_PROTCHECK(mkc, created, key, level, va, len, qpn, pd, at) \
  mkeysim_dpi::mkeysim_dpi_protcheck(mkc, created, key, level, va, len, qpn, pd, at)
`define MKEYSIM_MTT_STEP(s, log, tos, handle, va, len, t, page_index, entry_addr, page_offset, piece_len) \
  mkeysim_dpi::mkeysim_dpi_mtt_step(s, log, tos, handle, va, len, t, page_index, entry_addr, page_offset, piece_len)
`define MKEYSIM_KLM_STEP(fbs, log, tos, d, len, entries, entry_index, lower_key, lower_addr, piece_len) \
  mkeysim_dpi::mkeysim_dpi_klm_step(fbs, log, tos, d, len, entries, entry_index, lower_key, lower_addr, piece_len)
`define MKEYSIM_CACHE_NEW(sets, ways, random, prng_init) mkeysim_dpi::mkeysim_dpi_cache_new(sets, ways, random, prng_init)
`define MKEYSIM_CACHE_OP(h, op, index, hit, way, evict, evict_index, count) \
  mkeysim_dpi::mkeysim_dpi_cache_op(h, op, index, hit, way, evict, evict_index, count)
`else
`define MKEYSIM_NEW(max_ind) int'($mkeysim_new(max_ind))
`define MKEYSIM_DELETE(h) int'($mkeysim_delete(h))
`define MKEYSIM_INSTANCES int'($mkeysim_instances)
`define MKEYSIM_ABI_VERSION int'($mkeysim_abi_version)
`define MKEYSIM_LAST_ERROR(s) begin if (int'($mkeysim_last_error(s)) < 0) s = ""; end
`define MKEYSIM_HEAP_BYTES(v) begin if (int'($mkeysim_heap_bytes(v)) < 0) v = 0; end
`define MKEYSIM_LIST_CLEAR begin if (int'($mkeysim_list_clear) < 0) ; end
`define MKEYSIM_LIST_MTT(e) int'($mkeysim_list_mtt(e))
`define MKEYSIM_LIST_KLM(e) int'($mkeysim_list_klm(e))
`define MKEYSIM_ADD_QP(h, qpn, pd, reg_umr) int'($mkeysim_add_qp(h, qpn, pd, reg_umr))
`define MKEYSIM_CREATE(h, mkc, index, odp, pg_access, index_out) \
  int'($mkeysim_create(h, mkc, index, odp, pg_access, index_out))
`define MKEYSIM_DESTROY(h, index) int'($mkeysim_destroy(h, index))
`define MKEYSIM_QUERY(h, index, mkc, odp) int'($mkeysim_query(h, index, mkc, odp))
`define MKEYSIM_UMR(h, qpn, key, check_free, mask, mkc, offset) \
  int'($mkeysim_umr(h, qpn, key, check_free, mask, mkc, offset))
`define MKEYSIM_LOCAL_INVALIDATE(h, qpn, key) int'($mkeysim_local_invalidate(h, qpn, key))
`define MKEYSIM_SEND_WITH_INVALIDATE(h, qpn, key) int'($mkeysim_send_with_invalidate(h, qpn, key))
`define MKEYSIM_ICM_WRITE16(h, addr, data) int'($mkeysim_icm_write16(h, addr, data))
`define MKEYSIM_ICM_READ16(h, addr, data) int'($mkeysim_icm_read16(h, addr, data))
`define MKEYSIM_ACCESS(h, qpn, key, va, len, at, level, offset, nseg, fault_key, fault_addr) \
  int'($mkeysim_access(h, qpn, key, va, len, at, level, offset, nseg, fault_key, fault_addr))
`define MKEYSIM_ACCESS_SEG(i, space, addr, len) int'($mkeysim_access_seg(i, space, addr, len))
`define MKEYSIM_CHECK(h, key, level, va, len, qpn, pd, at) int'($mkeysim_check(h, key, level, va, len, qpn, pd, at))
`define MKEYSIM_PROTCHECK(mkc, created, key, level, va, len, qpn, pd, at) \
  int'($mkeysim_protcheck(mkc, created, key, level, va, len, qpn, pd, at))
`define MKEYSIM_MTT_STEP(s, log, tos, handle, va, len, t, page_index, entry_addr, page_offset, piece_len) \
  int'($mkeysim_mtt_step(s, log, tos, handle, va, len, t, page_index, entry_addr, page_offset, piece_len))
`define MKEYSIM_KLM_STEP(fbs, log, tos, d, len, entries, entry_index, lower_key, lower_addr, piece_len) \
  int'($mkeysim_klm_step(fbs, log, tos, d, len, entries, entry_index, lower_key, lower_addr, piece_len))
`define MKEYSIM_CACHE_NEW(sets, ways, random, prng_init) int'($mkeysim_cache_new(sets, ways, random, prng_init))
`define MKEYSIM_CACHE_OP(h, op, index, hit, way, evict, evict_index, count) \
  int'($mkeysim_cache_op(h, op, index, hit, way, evict, evict_index, count))
`endif
`endif
