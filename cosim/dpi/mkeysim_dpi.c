/*
 * mkeysim_dpi.c: the DPI-C glue between cosim/dpi/mkeysim_dpi.sv and the
 * golden model's C library (cosim/mkeysim.h, libmkeysim.so).
 *
 * It turns SystemVerilog's packed vectors (svBitVecVal words, word 0 holding
 * bits 31:0) into the header's byte arrays in wire order (byte 00h of an
 * image in the vector's top byte: an MKC image bit [511:0] has byte 00h in
 * bits 511:504, an MTT entry bit [63:0] in 63:56, a KLM entry bit [127:0]
 * in 127:120) and back, and calls the library.
 *
 * Lists. CREATE_MKEY and UMR take a translation list: the testbench stages
 * it first, one entry a call, with mkeysim_dpi_list_mtt() or
 * mkeysim_dpi_list_klm() (all of one kind), and the next mkeysim_dpi_create()
 * or mkeysim_dpi_umr() consumes it (passes it and empties the stage, whatever
 * the outcome). An empty stage is "no list" (MKEYSIM_LIST_NONE).
 * mkeysim_dpi_list_clear() empties it without a call.
 *
 * Segments. mkeysim_dpi_access() keeps the segments of the last access (up
 * to MKEYSIM_DPI_MAX_SEGS); mkeysim_dpi_access_seg(i, ...) reads one.
 *
 * The stage and the segments are per process, not per model instance:
 * call from one SystemVerilog thread at a time (Verilator without
 * --threads, or one initial block), as the scoreboard does.
 *
 * Under Verilator this file is compiled as C++ (it is in the common subset
 * of C and C++); gcc -std=c11 -fsyntax-only also accepts it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mkeysim.h"
#include "mkeysim_stage.h"
#include "svdpi.h"

#ifdef __cplusplus
#define MKEYSIM_DPI_EXPORT extern "C"
#else
#define MKEYSIM_DPI_EXPORT
#endif

#define MKEYSIM_DPI_MAX_SEGS 256

/* ---- Conversions ---------------------------------------------------- */

/* vec_to_bytes writes the n-byte image held in the packed vector v
 * (8 n bits, word 0 = bits 31:0) to b in wire order: b[0] is the top byte. */
static void vec_to_bytes(const svBitVecVal *v, uint8_t *b, size_t n) {
  size_t i;
  for (i = 0; i < n; i++) {
    size_t pos = n - 1 - i; /* byte i sits at bits 8 pos + 7 : 8 pos */
    b[i] = (uint8_t)(v[pos / 4] >> (8 * (pos % 4)));
  }
}

/* bytes_to_vec is the inverse: the n-byte wire-order image b into v. */
static void bytes_to_vec(const uint8_t *b, svBitVecVal *v, size_t n) {
  size_t i;
  for (i = 0; i < n / 4; i++) v[i] = 0;
  for (i = 0; i < n; i++) {
    size_t pos = n - 1 - i;
    v[pos / 4] |= (svBitVecVal)b[i] << (8 * (pos % 4));
  }
}

/* ---- The list stage ------------------------------------------------- */

static mkeysim_stage stage; /* cosim/mkeysim_stage.h */

/* werr is the wrapper's last refusal (cosim/mkeysim_stage.h); LIB(call)
 * and CMD(call) pass on a library call's return, and a command's,
 * forgetting the refusal if the call failed. */
static mkeysim_wrap_err werr;
#define LIB(call) mkeysim_wrap_lib(&werr, (call))
#define CMD(call) mkeysim_wrap_cmd(&werr, (call))

/* stage_add stages the n-byte entry held in the packed vector (fn names
 * the call in a refusal's message). */
static int stage_add(const char *fn, int32_t kind, const svBitVecVal *entry, size_t n) {
  uint8_t e[16];
  vec_to_bytes(entry, e, n);
  return (int)mkeysim_stage_add(&stage, &werr, fn, kind, e, n);
}

MKEYSIM_DPI_EXPORT void mkeysim_dpi_list_clear(void) { mkeysim_stage_clear(&stage); }

/* Both return the number of entries staged, or MKEYSIM_ERR_ARG (a list
 * of the other kind is staged, or the stage is full). */
MKEYSIM_DPI_EXPORT int mkeysim_dpi_list_mtt(const svBitVecVal *entry) {
  return stage_add("list_mtt", MKEYSIM_LIST_MTT, entry, 8);
}

MKEYSIM_DPI_EXPORT int mkeysim_dpi_list_klm(const svBitVecVal *entry) {
  return stage_add("list_klm", MKEYSIM_LIST_KLM, entry, 16);
}

/* ---- Instances ------------------------------------------------------ */

MKEYSIM_DPI_EXPORT long long mkeysim_dpi_new(int max_indirection) { return LIB(mkeysim_new(max_indirection)); }

MKEYSIM_DPI_EXPORT int mkeysim_dpi_delete(long long h) { return (int)LIB(mkeysim_delete(h)); }

MKEYSIM_DPI_EXPORT long long mkeysim_dpi_instances(void) { return mkeysim_instances(); }

MKEYSIM_DPI_EXPORT unsigned long long mkeysim_dpi_heap_bytes(void) { return mkeysim_heap_bytes(); }

MKEYSIM_DPI_EXPORT int mkeysim_dpi_abi_version(void) { return mkeysim_abi_version(); }

static char last_error[1024];

/* The reason of the last failed call: the wrapper's own refusal when it
 * came last, else the library's message. */
MKEYSIM_DPI_EXPORT const char *mkeysim_dpi_last_error(void) {
  mkeysim_wrap_last_error(&werr, last_error, sizeof last_error);
  return last_error;
}

/* ---- Commands ------------------------------------------------------- */

MKEYSIM_DPI_EXPORT int mkeysim_dpi_add_qp(long long h, unsigned int qpn, unsigned int pd, int reg_umr) {
  return (int)LIB(mkeysim_add_qp(h, qpn, pd, reg_umr));
}

MKEYSIM_DPI_EXPORT int mkeysim_dpi_create(long long h, const svBitVecVal *mkc, long long index, int odp,
                                          int pg_access, unsigned int *index_out) {
  uint8_t b[64];
  uint32_t idx = 0;
  int32_t rc;
  vec_to_bytes(mkc, b, 64);
  rc = (int32_t)CMD(
      mkeysim_create(h, b, index, odp, pg_access, stage.kind, mkeysim_stage_list(&stage), stage.len, &idx));
  mkeysim_dpi_list_clear();
  *index_out = idx;
  return rc;
}

MKEYSIM_DPI_EXPORT int mkeysim_dpi_destroy(long long h, unsigned int index) {
  return (int)CMD(mkeysim_destroy(h, index));
}

MKEYSIM_DPI_EXPORT int mkeysim_dpi_query(long long h, unsigned int index, svBitVecVal *mkc, int *odp) {
  uint8_t b[64];
  int32_t o = 0;
  int32_t rc;
  memset(b, 0, sizeof b);
  rc = (int32_t)CMD(mkeysim_query(h, index, b, &o));
  if (rc != MKEYSIM_OK) { /* nothing written by the library: zeros */
    memset(b, 0, sizeof b);
    o = 0;
  }
  bytes_to_vec(b, mkc, 64);
  *odp = o;
  return rc;
}

MKEYSIM_DPI_EXPORT int mkeysim_dpi_umr(long long h, unsigned int qpn, unsigned int key, int check_free,
                                       unsigned long long mask, const svBitVecVal *mkc, unsigned long long offset) {
  uint8_t b[64];
  int32_t rc;
  vec_to_bytes(mkc, b, 64);
  rc = (int32_t)CMD(
      mkeysim_umr(h, qpn, key, check_free, mask, b, offset, stage.kind, mkeysim_stage_list(&stage), stage.len));
  mkeysim_dpi_list_clear();
  return rc;
}

MKEYSIM_DPI_EXPORT int mkeysim_dpi_local_invalidate(long long h, unsigned int qpn, unsigned int key) {
  return (int)CMD(mkeysim_local_invalidate(h, qpn, key));
}

MKEYSIM_DPI_EXPORT int mkeysim_dpi_send_with_invalidate(long long h, unsigned int qpn, unsigned int key) {
  return (int)CMD(mkeysim_send_with_invalidate(h, qpn, key));
}

/* ---- ICM ------------------------------------------------------------ */

MKEYSIM_DPI_EXPORT int mkeysim_dpi_icm_write16(long long h, unsigned long long addr, const svBitVecVal *data) {
  uint8_t b[16];
  vec_to_bytes(data, b, 16);
  return (int)LIB(mkeysim_icm_write(h, addr, b, 16));
}

MKEYSIM_DPI_EXPORT int mkeysim_dpi_icm_read16(long long h, unsigned long long addr, svBitVecVal *data) {
  uint8_t b[16];
  int32_t rc;
  memset(b, 0, sizeof b);
  rc = (int32_t)LIB(mkeysim_icm_read(h, addr, b, 16));
  if (rc != MKEYSIM_OK) memset(b, 0, sizeof b);
  bytes_to_vec(b, data, 16);
  return rc;
}

/* ---- Translation ---------------------------------------------------- */

static mkeysim_segment segs[MKEYSIM_DPI_MAX_SEGS];
static uint32_t nsegs; /* stored in segs */

MKEYSIM_DPI_EXPORT int mkeysim_dpi_access(long long h, unsigned int qpn, unsigned int key, unsigned long long va,
                                          unsigned int len, int access_type, int *level,
                                          unsigned long long *offset, unsigned int *nseg, unsigned int *fault_key,
                                          unsigned long long *fault_addr) {
  mkeysim_result r;
  int32_t rc;
  memset(&r, 0, sizeof r);
  rc = (int32_t)LIB(mkeysim_access(h, qpn, key, va, len, access_type, &r, segs, MKEYSIM_DPI_MAX_SEGS));
  if (rc < 0) memset(&r, 0, sizeof r);
  nsegs = rc == MKEYSIM_OK ? (r.nseg < MKEYSIM_DPI_MAX_SEGS ? r.nseg : MKEYSIM_DPI_MAX_SEGS) : 0;
  *level = r.level;
  *offset = r.offset;
  *nseg = r.nseg;
  *fault_key = r.fault_key;
  *fault_addr = r.fault_addr;
  return rc;
}

/* Segment i of the last mkeysim_dpi_access: 0, or MKEYSIM_ERR_ARG when i
 * is not below min(nseg, 256) (outputs zeroed). */
MKEYSIM_DPI_EXPORT int mkeysim_dpi_access_seg(int i, int *space, unsigned long long *addr,
                                              unsigned long long *len) {
  if (i < 0 || (uint32_t)i >= nsegs) {
    *space = 0;
    *addr = 0;
    *len = 0;
    return (int)mkeysim_wrap_refuse(&werr, "access_seg", "no such segment of the last access");
  }
  *space = (int)segs[i].space;
  *addr = segs[i].addr;
  *len = segs[i].len;
  return 0;
}

MKEYSIM_DPI_EXPORT int mkeysim_dpi_check(long long h, unsigned int key, int level, unsigned long long va,
                                         unsigned int len, unsigned int qpn, unsigned int pd, int access_type) {
  return (int)LIB(mkeysim_check(h, key, level, va, len, qpn, pd, access_type));
}

/* ---- Unit oracles ----------------------------------------------------- */

MKEYSIM_DPI_EXPORT int mkeysim_dpi_protcheck(const svBitVecVal *mkc, int created, unsigned int key, int level,
                                             unsigned long long va, unsigned int len, unsigned int qpn,
                                             unsigned int pd, int access_type) {
  uint8_t b[64];
  vec_to_bytes(mkc, b, 64);
  return (int)LIB(mkeysim_protcheck(b, created, key, level, va, len, qpn, pd, access_type));
}

MKEYSIM_DPI_EXPORT int mkeysim_dpi_mtt_step(unsigned long long start_addr, int log_entity_size, unsigned int tos,
                                            unsigned long long mtt_handle, unsigned long long va, unsigned int len,
                                            unsigned int t, unsigned long long *page_index,
                                            unsigned long long *entry_addr, unsigned int *page_offset,
                                            unsigned int *piece_len) {
  mkeysim_mtt_step_result r;
  int32_t rc;
  memset(&r, 0, sizeof r);
  rc = (int32_t)LIB(mkeysim_mtt_step(start_addr, log_entity_size, tos, mtt_handle, va, len, t, &r));
  if (rc < 0) memset(&r, 0, sizeof r);
  *page_index = r.page_index;
  *entry_addr = r.entry_addr;
  *page_offset = r.page_offset;
  *piece_len = r.piece_len;
  return rc;
}

MKEYSIM_DPI_EXPORT int mkeysim_dpi_klm_step(int fbs, int log_entity_size, unsigned int tos, unsigned long long d,
                                            unsigned int len, const svBitVecVal *entries, unsigned int *entry_index,
                                            unsigned int *lower_key, unsigned long long *lower_addr,
                                            unsigned int *piece_len) {
  uint8_t b[64];
  mkeysim_klm_step_result r;
  int32_t rc;
  vec_to_bytes(entries, b, 64);
  memset(&r, 0, sizeof r);
  rc = (int32_t)LIB(mkeysim_klm_step(fbs, log_entity_size, tos, d, len, b, &r));
  if (rc < 0) memset(&r, 0, sizeof r);
  *entry_index = r.entry_index;
  *lower_key = r.lower_key;
  *lower_addr = r.lower_addr;
  *piece_len = r.piece_len;
  return rc;
}

/* ---- MKC cache tag array ---------------------------------------------- */

MKEYSIM_DPI_EXPORT long long mkeysim_dpi_cache_new(unsigned int sets, unsigned int ways, int random,
                                                   unsigned long long prng_init) {
  return LIB(mkeysim_cache_new(sets, ways, random, prng_init));
}

MKEYSIM_DPI_EXPORT int mkeysim_dpi_cache_op(long long h, int op, unsigned int index, svBit *hit, unsigned int *way,
                                            svBit *evict, unsigned int *evict_index, unsigned int *count) {
  mkeysim_cache_result r;
  int32_t rc;
  memset(&r, 0, sizeof r);
  rc = (int32_t)LIB(mkeysim_cache_op(h, op, index, &r));
  if (rc < 0) memset(&r, 0, sizeof r);
  *hit = (svBit)(r.hit != 0);
  *way = r.way;
  *evict = (svBit)(r.evict != 0);
  *evict_index = r.evict_index;
  *count = r.count;
  return rc;
}
