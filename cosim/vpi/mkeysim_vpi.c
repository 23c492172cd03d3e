/*
 * mkeysim_vpi.c: the golden model (libmkeysim.so, cosim/mkeysim.h) as VPI
 * system functions, for Icarus Verilog (and any VPI simulator):
 *
 *   cd DIR && LD_RUN_PATH=LIBDIR iverilog-vpi --name=mkeysim -I<repo>/cosim \
 *       <repo>/cosim/vpi/mkeysim_vpi.c -LLIBDIR -lmkeysim
 *   iverilog -g2012 -L DIR -m mkeysim -o sim.vvp ...
 *   vvp -M DIR -m mkeysim sim.vvp
 *
 * (iverilog-vpi passes no -Wl options; LD_RUN_PATH gives the module its
 * run path to libmkeysim.so. Given to iverilog too, the module tells the
 * compiler the functions return signed 32-bit ints; without it iverilog
 * compiles them as unsigned, and -1 reads 4294967295.)
 *
 * Every $mkeysim_* is a system function returning a 32-bit signed integer:
 * the PRM status (>= 0) of a command or check, a handle (> 0), a count, or
 * a negative error of the call (-1 unknown handle, -2 bad argument, -3
 * unobservable KLM step, -4 a library bug), exactly as the C call returns
 * it. Arguments are
 * the C call's, in its order, with outputs last; an output argument must be
 * a variable (reg, logic, bit, int, integer, longint, an array word) wide
 * enough for the value, and is written with vpi_put_value before the
 * function returns (zeros when nothing applies). The table below
 * (tasks[]) is the reference; cosim/README.md prints it.
 *
 * Images are packed vectors in wire order, byte 00h in the top byte: an
 * MKC image is exactly 512 bits (byte 00h in 511:504), an MTT entry 64, a
 * KLM entry 128, the four KLM entries of $mkeysim_klm_step 512.
 *
 * Lists are staged like the DPI package's: $mkeysim_list_mtt(entry) or
 * $mkeysim_list_klm(entry) one entry a call; the next $mkeysim_create or
 * $mkeysim_umr passes them and empties the stage.
 *
 * Checks. At compile time (compiletf) each call's argument count, each
 * image's width and each output's kind and width are checked; a wrong call
 * prints "ERROR: FILE:LINE: $task: argument N (name): reason" and ends the
 * simulation before time 0 (vpiFinish, vvp exits 1). At run time an input
 * with X or Z bits or a value that does not fit the C argument is refused
 * the same way, naming the argument, and the function returns -2 without
 * calling the library; a negative return of the library prints its
 * message (mkeysim_last_error) unless +mkeysim_quiet is given. Nothing
 * here ends the simulator on a run-time error: the testbench decides.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sv_vpi_user.h>
#include <vpi_user.h>

#include "mkeysim.h"
#include "mkeysim_stage.h"

/* An Icarus extension (vvp exports it): the exit status of vvp. Weak, so
 * that the module loads in a simulator without it. */
#pragma weak vpip_set_return_value

#define MAXARGS 12
#define MAX_SEGS 256

typedef enum {
  A_I32,  /* input, int32_t */
  A_U32,  /* input, uint32_t */
  A_I64,  /* input, int64_t */
  A_U64,  /* input, uint64_t */
  A_IMG,  /* input, an image of bits/8 bytes, exactly bits wide */
  A_OUT,  /* output integer, at least bits wide */
  A_OIMG, /* output image, exactly bits wide */
  A_OSTR  /* output string: a string variable or a vector of bytes */
} akind;

typedef struct {
  const char *name;
  akind kind;
  int bits;
} argspec;

struct call;
typedef int64_t (*callfn)(struct call *);

typedef struct {
  const char *name;
  int nargs;
  argspec args[MAXARGS];
  callfn fn;
  const char *doc; /* one line: what it returns */
} taskspec;

/* One call's values: inputs read, outputs to write. */
struct call {
  const taskspec *t;
  int64_t in[MAXARGS];
  uint8_t img[MAXARGS][64];
  uint64_t out[MAXARGS];
  uint8_t oimg[MAXARGS][64];
  char ostr[1024];
};

static int quiet = -1;

/* ---- The list stage and the last access's segments ------------------- */

static mkeysim_stage stage; /* cosim/mkeysim_stage.h */

/* werr is this module's last refusal (cosim/mkeysim_stage.h): a stage's,
 * a segment index's, an argument's. */
static mkeysim_wrap_err werr;

static mkeysim_segment segs[MAX_SEGS];
static uint32_t nsegs;

/* ---- The calls -------------------------------------------------------- */

#define I(k) (c->in[k])

static int64_t f_new(struct call *c) { return mkeysim_new((int32_t)I(0)); }
static int64_t f_delete(struct call *c) { return mkeysim_delete(I(0)); }
static int64_t f_instances(struct call *c) { (void)c; return mkeysim_instances(); }
static int64_t f_heap_bytes(struct call *c) {
  c->out[0] = mkeysim_heap_bytes();
  return 0;
}
static int64_t f_abi_version(struct call *c) { (void)c; return mkeysim_abi_version(); }
static int64_t f_last_error(struct call *c) {
  return (int64_t)mkeysim_wrap_last_error(&werr, c->ostr, sizeof c->ostr);
}
static int64_t f_list_clear(struct call *c) {
  (void)c;
  mkeysim_stage_clear(&stage);
  return 0;
}
static int64_t f_list_mtt(struct call *c) {
  return mkeysim_stage_add(&stage, &werr, "list_mtt", MKEYSIM_LIST_MTT, c->img[0], 8);
}
static int64_t f_list_klm(struct call *c) {
  return mkeysim_stage_add(&stage, &werr, "list_klm", MKEYSIM_LIST_KLM, c->img[0], 16);
}
static int64_t f_add_qp(struct call *c) {
  return mkeysim_add_qp(I(0), (uint32_t)I(1), (uint32_t)I(2), (int32_t)I(3));
}
static int64_t f_create(struct call *c) {
  uint32_t idx = 0;
  int32_t rc = mkeysim_create(I(0), c->img[1], I(2), (int32_t)I(3), (int32_t)I(4), stage.kind,
                              mkeysim_stage_list(&stage), stage.len, &idx);
  mkeysim_stage_clear(&stage);
  c->out[5] = idx;
  return rc;
}
static int64_t f_destroy(struct call *c) { return mkeysim_destroy(I(0), (uint32_t)I(1)); }
static int64_t f_query(struct call *c) {
  int32_t odp = 0;
  int32_t rc = mkeysim_query(I(0), (uint32_t)I(1), c->oimg[2], &odp);
  if (rc != MKEYSIM_OK) {
    memset(c->oimg[2], 0, 64);
    odp = 0;
  }
  c->out[3] = (uint64_t)(odp != 0);
  return rc;
}
static int64_t f_umr(struct call *c) {
  int32_t rc = mkeysim_umr(I(0), (uint32_t)I(1), (uint32_t)I(2), (int32_t)I(3), (uint64_t)I(4), c->img[5],
                           (uint64_t)I(6), stage.kind, mkeysim_stage_list(&stage), stage.len);
  mkeysim_stage_clear(&stage);
  return rc;
}
static int64_t f_local_invalidate(struct call *c) {
  return mkeysim_local_invalidate(I(0), (uint32_t)I(1), (uint32_t)I(2));
}
static int64_t f_send_with_invalidate(struct call *c) {
  return mkeysim_send_with_invalidate(I(0), (uint32_t)I(1), (uint32_t)I(2));
}
static int64_t f_icm_write16(struct call *c) { return mkeysim_icm_write(I(0), (uint64_t)I(1), c->img[2], 16); }
static int64_t f_icm_read16(struct call *c) {
  int32_t rc = mkeysim_icm_read(I(0), (uint64_t)I(1), c->oimg[2], 16);
  if (rc != MKEYSIM_OK) memset(c->oimg[2], 0, 16);
  return rc;
}
static int64_t f_access(struct call *c) {
  mkeysim_result r;
  int32_t rc;
  memset(&r, 0, sizeof r);
  rc = mkeysim_access(I(0), (uint32_t)I(1), (uint32_t)I(2), (uint64_t)I(3), (uint32_t)I(4), (int32_t)I(5), &r,
                      segs, MAX_SEGS);
  if (rc < 0) memset(&r, 0, sizeof r);
  nsegs = rc == MKEYSIM_OK ? (r.nseg < MAX_SEGS ? r.nseg : MAX_SEGS) : 0;
  c->out[6] = (uint64_t)(uint32_t)r.level;
  c->out[7] = r.offset;
  c->out[8] = r.nseg;
  c->out[9] = r.fault_key;
  c->out[10] = r.fault_addr;
  return rc;
}
static int64_t f_access_seg(struct call *c) {
  int64_t i = I(0);
  if (i < 0 || i >= (int64_t)nsegs)
    return mkeysim_wrap_refuse(&werr, "access_seg", "no such segment of the last access");
  c->out[1] = segs[i].space;
  c->out[2] = segs[i].addr;
  c->out[3] = segs[i].len;
  return 0;
}
static int64_t f_check(struct call *c) {
  return mkeysim_check(I(0), (uint32_t)I(1), (int32_t)I(2), (uint64_t)I(3), (uint32_t)I(4), (uint32_t)I(5),
                       (uint32_t)I(6), (int32_t)I(7));
}
static int64_t f_protcheck(struct call *c) {
  return mkeysim_protcheck(c->img[0], (int32_t)I(1), (uint32_t)I(2), (int32_t)I(3), (uint64_t)I(4),
                           (uint32_t)I(5), (uint32_t)I(6), (uint32_t)I(7), (int32_t)I(8));
}
static int64_t f_mtt_step(struct call *c) {
  mkeysim_mtt_step_result r;
  int32_t rc;
  memset(&r, 0, sizeof r);
  rc = mkeysim_mtt_step((uint64_t)I(0), (int32_t)I(1), (uint32_t)I(2), (uint64_t)I(3), (uint64_t)I(4),
                        (uint32_t)I(5), (uint32_t)I(6), &r);
  if (rc < 0) memset(&r, 0, sizeof r);
  c->out[7] = r.page_index;
  c->out[8] = r.entry_addr;
  c->out[9] = r.page_offset;
  c->out[10] = r.piece_len;
  return rc;
}
static int64_t f_klm_step(struct call *c) {
  mkeysim_klm_step_result r;
  int32_t rc;
  memset(&r, 0, sizeof r);
  rc = mkeysim_klm_step((int32_t)I(0), (int32_t)I(1), (uint32_t)I(2), (uint64_t)I(3), (uint32_t)I(4), c->img[5],
                        &r);
  if (rc < 0) memset(&r, 0, sizeof r);
  c->out[6] = r.entry_index;
  c->out[7] = r.lower_key;
  c->out[8] = r.lower_addr;
  c->out[9] = r.piece_len;
  return rc;
}
static int64_t f_cache_new(struct call *c) {
  return mkeysim_cache_new((uint32_t)I(0), (uint32_t)I(1), (int32_t)I(2), (uint64_t)I(3));
}
static int64_t f_cache_op(struct call *c) {
  mkeysim_cache_result r;
  int32_t rc;
  memset(&r, 0, sizeof r);
  rc = mkeysim_cache_op(I(0), (int32_t)I(1), (uint32_t)I(2), &r);
  if (rc < 0) memset(&r, 0, sizeof r);
  c->out[3] = (uint64_t)(r.hit != 0);
  c->out[4] = r.way;
  c->out[5] = (uint64_t)(r.evict != 0);
  c->out[6] = r.evict_index;
  c->out[7] = r.count;
  return rc;
}

#define IN32(n) {n, A_I32, 32}
#define INU(n) {n, A_U32, 32}
#define IN64(n) {n, A_I64, 64}
#define INU64(n) {n, A_U64, 64}
#define IMG(n, b) {n, A_IMG, b}
#define OUT(n, b) {n, A_OUT, b}
#define OIMG(n, b) {n, A_OIMG, b}

static const taskspec tasks[] = {
    {"$mkeysim_new", 1, {IN32("max_indirection")}, f_new, "handle > 0 or -2"},
    {"$mkeysim_delete", 1, {IN64("h")}, f_delete, "0 or -1"},
    {"$mkeysim_instances", 0, {{0}}, f_instances, "live instances"},
    {"$mkeysim_heap_bytes", 1, {OUT("bytes", 64)}, f_heap_bytes, "0"},
    {"$mkeysim_abi_version", 0, {{0}}, f_abi_version, "MKEYSIM_ABI_VERSION"},
    {"$mkeysim_last_error", 1, {{"msg", A_OSTR, 8}}, f_last_error, "the message's full length"},
    {"$mkeysim_list_clear", 0, {{0}}, f_list_clear, "0"},
    {"$mkeysim_list_mtt", 1, {IMG("entry", 64)}, f_list_mtt, "entries staged or -2"},
    {"$mkeysim_list_klm", 1, {IMG("entry", 128)}, f_list_klm, "entries staged or -2"},
    {"$mkeysim_add_qp", 4, {IN64("h"), INU("qpn"), INU("pd"), IN32("reg_umr")}, f_add_qp, "status"},
    {"$mkeysim_create",
     6,
     {IN64("h"), IMG("mkc", 512), IN64("index"), IN32("odp"), IN32("pg_access"), OUT("index_out", 24)},
     f_create,
     "status"},
    {"$mkeysim_destroy", 2, {IN64("h"), INU("index")}, f_destroy, "status"},
    {"$mkeysim_query", 4, {IN64("h"), INU("index"), OIMG("mkc", 512), OUT("odp", 1)}, f_query, "status"},
    {"$mkeysim_umr",
     7,
     {IN64("h"), INU("qpn"), INU("key"), IN32("check_free"), INU64("mask"), IMG("mkc", 512), INU64("offset")},
     f_umr,
     "status"},
    {"$mkeysim_local_invalidate", 3, {IN64("h"), INU("qpn"), INU("key")}, f_local_invalidate, "status"},
    {"$mkeysim_send_with_invalidate", 3, {IN64("h"), INU("qpn"), INU("key")}, f_send_with_invalidate, "status"},
    {"$mkeysim_icm_write16", 3, {IN64("h"), INU64("addr"), IMG("data", 128)}, f_icm_write16, "status"},
    {"$mkeysim_icm_read16", 3, {IN64("h"), INU64("addr"), OIMG("data", 128)}, f_icm_read16, "status"},
    {"$mkeysim_access",
     11,
     {IN64("h"), INU("qpn"), INU("key"), INU64("va"), INU("len"), IN32("access_type"), OUT("level", 8),
      OUT("offset", 32), OUT("nseg", 32), OUT("fault_key", 32), OUT("fault_addr", 64)},
     f_access,
     "status"},
    {"$mkeysim_access_seg", 4, {IN32("i"), OUT("space", 2), OUT("addr", 64), OUT("len", 32)}, f_access_seg,
     "0 or -2"},
    {"$mkeysim_check",
     8,
     {IN64("h"), INU("key"), IN32("level"), INU64("va"), INU("len"), INU("qpn"), INU("pd"), IN32("access_type")},
     f_check,
     "status"},
    {"$mkeysim_protcheck",
     9,
     {IMG("mkc", 512), IN32("created"), INU("key"), IN32("level"), INU64("va"), INU("len"), INU("qpn"), INU("pd"),
      IN32("access_type")},
     f_protcheck,
     "status"},
    {"$mkeysim_mtt_step",
     11,
     {INU64("start_addr"), IN32("log_entity_size"), INU("tos"), INU64("mtt_handle"), INU64("va"), INU("len"),
      INU("t"), OUT("page_index", 64), OUT("entry_addr", 64), OUT("page_offset", 32), OUT("piece_len", 32)},
     f_mtt_step,
     "status"},
    {"$mkeysim_klm_step",
     10,
     {IN32("fbs"), IN32("log_entity_size"), INU("tos"), INU64("d"), INU("len"), IMG("entries", 512),
      OUT("entry_index", 8), OUT("lower_key", 32), OUT("lower_addr", 64), OUT("piece_len", 32)},
     f_klm_step,
     "status"},
    {"$mkeysim_cache_new", 4, {INU("sets"), INU("ways"), IN32("random"), INU64("prng_init")}, f_cache_new,
     "handle > 0 or -2"},
    {"$mkeysim_cache_op",
     8,
     {IN64("h"), IN32("op"), INU("index"), OUT("hit", 1), OUT("way", 8), OUT("evict", 1), OUT("evict_index", 24),
      OUT("count", 24)},
     f_cache_op,
     "0, -1 or -2"},
};

/* ---- Argument plumbing ------------------------------------------------ */

static void where(vpiHandle sys, char *buf, size_t n) {
  const char *file = vpi_get_str(vpiFile, sys);
  snprintf(buf, n, "%s:%d", file ? file : "?", (int)vpi_get(vpiLineNo, sys));
}

static void complain(vpiHandle sys, const taskspec *t, int i, const char *fmt, const char *detail) {
  char loc[512];
  where(sys, loc, sizeof loc);
  if (i >= 0)
    vpi_printf("ERROR: %s: %s: argument %d (%s): ", loc, t->name, i + 1, t->args[i].name);
  else
    vpi_printf("ERROR: %s: %s: ", loc, t->name);
  vpi_printf(fmt, detail);
  vpi_printf("\n");
}

static int is_var(int type) {
  switch (type) {
  case vpiReg:
  case vpiIntegerVar:
  case vpiBitVar:
  case vpiIntVar:
  case vpiLongIntVar:
  case vpiShortIntVar:
  case vpiByteVar:
  case vpiMemoryWord:
  case vpiStringVar:
    return 1;
  }
  return 0;
}

static int is_output(akind k) { return k == A_OUT || k == A_OIMG || k == A_OSTR; }

/* check_args is compiletf's work: 0 if the call is well formed. */
static int check_args(vpiHandle sys, const taskspec *t) {
  vpiHandle it = vpi_iterate(vpiArgument, sys), a;
  int n = 0, bad = 0;
  char detail[128];
  while (it != NULL && (a = vpi_scan(it)) != NULL) {
    if (n < t->nargs && n < MAXARGS) {
      const argspec *s = &t->args[n];
      int type = vpi_get(vpiType, a);
      int size = vpi_get(vpiSize, a);
      if (type == vpiRealVar || (type == vpiConstant && vpi_get(vpiConstType, a) == vpiRealConst)) {
        complain(sys, t, n, "a real value%s; an integral value is needed", "");
        bad = 1;
      } else if (is_output(s->kind)) {
        if (!is_var(type)) {
          complain(sys, t, n, "is an output: it must be a variable (reg, logic, bit, int, longint, integer, an array word)%s", "");
          bad = 1;
        } else if (s->kind == A_OSTR) {
          if (type != vpiStringVar && (size < 8 || size % 8 != 0)) {
            snprintf(detail, sizeof detail, "%d", size);
            complain(sys, t, n, "a string output must be a string variable or a vector of whole bytes, got %s bits", detail);
            bad = 1;
          }
        } else if (type == vpiStringVar) {
          complain(sys, t, n, "is an integral output, got a string variable%s", "");
          bad = 1;
        } else if (s->kind == A_OIMG && size != s->bits) {
          snprintf(detail, sizeof detail, "must be exactly %d bits wide (a %d-byte image), got %d", s->bits,
                   s->bits / 8, size);
          complain(sys, t, n, "%s", detail);
          bad = 1;
        } else if (s->kind == A_OUT && size < s->bits) {
          snprintf(detail, sizeof detail, "must be at least %d bits wide to hold the value, got %d", s->bits, size);
          complain(sys, t, n, "%s", detail);
          bad = 1;
        }
      } else {
        if (type == vpiStringVar) {
          complain(sys, t, n, "a string; an integral value is needed%s", "");
          bad = 1;
        } else if (s->kind == A_IMG && size != s->bits) {
          snprintf(detail, sizeof detail, "must be exactly %d bits wide (a %d-byte image in wire order), got %d",
                   s->bits, s->bits / 8, size);
          complain(sys, t, n, "%s", detail);
          bad = 1;
        }
      }
    }
    n++;
  }
  if (n != t->nargs) {
    char want[64];
    snprintf(want, sizeof want, "%d", t->nargs);
    snprintf(detail, sizeof detail, "takes %d argument%s, got %d", t->nargs, t->nargs == 1 ? "" : "s", n);
    complain(sys, t, -1, "%s", detail);
    bad = 1;
  }
  return bad;
}

/* read_int reads argument a as a 64-bit integer, sign-extended when it is
 * signed and narrower. Returns 0, or an error text. */
static const char *read_int(vpiHandle a, uint64_t *v, int *width) {
  s_vpi_value val;
  int size = vpi_get(vpiSize, a), words, i;
  val.format = vpiVectorVal;
  vpi_get_value(a, &val);
  if (size <= 0) size = 32;
  *width = size;
  words = (size + 31) / 32;
  for (i = 0; i < words; i++)
    if (val.value.vector[i].bval != 0) return "has X or Z bits";
  *v = (uint64_t)(uint32_t)val.value.vector[0].aval;
  if (words > 1) *v |= (uint64_t)(uint32_t)val.value.vector[1].aval << 32;
  for (i = 2; i < words; i++)
    if (val.value.vector[i].aval != 0) return "does not fit 64 bits";
  if (size < 64) {
    uint64_t mask = (UINT64_C(1) << size) - 1;
    *v &= mask;
    if (vpi_get(vpiSigned, a) && (*v >> (size - 1)) & 1) *v |= ~mask;
  }
  return NULL;
}

/* read_img reads an image argument of n bytes (8 n bits) in wire order. */
static const char *read_img(vpiHandle a, uint8_t *b, int n) {
  s_vpi_value val;
  int i;
  val.format = vpiVectorVal;
  vpi_get_value(a, &val);
  for (i = 0; i < n / 4; i++)
    if (val.value.vector[i].bval != 0) return "has X or Z bits";
  for (i = 0; i < n; i++) {
    int pos = n - 1 - i;
    b[i] = (uint8_t)((uint32_t)val.value.vector[pos / 4].aval >> (8 * (pos % 4)));
  }
  return NULL;
}

/* put_vec writes the nw words w (word 0 = bits 31:0), zero-extended to
 * the variable's whole width (however wide it is). */
static void put_vec(vpiHandle a, const uint32_t *w, int nw) {
  s_vpi_value val;
  s_vpi_vecval small[16], *vec = small;
  int size = vpi_get(vpiSize, a), words = size > 0 ? (size + 31) / 32 : 1, i;
  if (words > 16) {
    vec = calloc((size_t)words, sizeof *vec);
    if (vec == NULL) return;
  }
  for (i = 0; i < words; i++) {
    vec[i].aval = (PLI_INT32)(i < nw ? w[i] : 0);
    vec[i].bval = 0;
  }
  val.format = vpiVectorVal;
  val.value.vector = vec;
  vpi_put_value(a, &val, NULL, vpiNoDelay);
  if (vec != small) free(vec);
}

static void put_int(vpiHandle a, uint64_t v) {
  uint32_t w[2];
  w[0] = (uint32_t)v;
  w[1] = (uint32_t)(v >> 32);
  put_vec(a, w, 2);
}

static void put_img(vpiHandle a, const uint8_t *b, int n) {
  uint32_t w[16];
  int i;
  memset(w, 0, sizeof w);
  for (i = 0; i < n; i++) {
    int pos = n - 1 - i;
    w[pos / 4] |= (uint32_t)b[i] << (8 * (pos % 4));
  }
  put_vec(a, w, n / 4);
}

static void put_str(vpiHandle a, const char *s) {
  s_vpi_value val;
  val.format = vpiStringVal;
  val.value.str = (PLI_BYTE8 *)s;
  vpi_put_value(a, &val, NULL, vpiNoDelay);
}

static void put_ret(vpiHandle sys, int32_t v) {
  s_vpi_value val;
  val.format = vpiIntVal;
  val.value.integer = v;
  vpi_put_value(sys, &val, NULL, vpiNoDelay);
}

/* ---- compiletf, calltf, sizetf ---------------------------------------- */

static PLI_INT32 compiletf(PLI_BYTE8 *ud) {
  const taskspec *t = (const taskspec *)ud;
  vpiHandle sys = vpi_handle(vpiSysTfCall, NULL);
  if (check_args(sys, t)) {
    vpi_put_userdata(sys, (void *)t); /* marks the call bad */
    if (vpip_set_return_value != NULL) vpip_set_return_value(1); /* Icarus: vvp exits 1 */
    vpi_control(vpiFinish, 1);
  }
  return 0;
}

static PLI_INT32 sizetf(PLI_BYTE8 *ud) {
  (void)ud;
  return 32;
}

static PLI_INT32 calltf(PLI_BYTE8 *ud) {
  const taskspec *t = (const taskspec *)ud;
  vpiHandle sys = vpi_handle(vpiSysTfCall, NULL), it, a;
  vpiHandle args[MAXARGS];
  struct call c;
  int n = 0, i;
  int64_t rc;
  char detail[160];

  if (quiet < 0) {
    s_vpi_vlog_info info;
    quiet = 0;
    if (vpi_get_vlog_info(&info))
      for (i = 0; i < info.argc; i++)
        if (info.argv[i] && strcmp(info.argv[i], "+mkeysim_quiet") == 0) quiet = 1;
  }
  if (vpi_get_userdata(sys) != NULL) { /* refused at compile time */
    put_ret(sys, MKEYSIM_ERR_ARG);
    return 0;
  }
  memset(&c, 0, sizeof c);
  c.t = t;
  it = vpi_iterate(vpiArgument, sys);
  while (it != NULL && (a = vpi_scan(it)) != NULL) {
    if (n < MAXARGS) args[n] = a;
    n++;
  }
  if (n != t->nargs) { /* compiletf said so already */
    put_ret(sys, MKEYSIM_ERR_ARG);
    return 0;
  }
  for (i = 0; i < t->nargs; i++) {
    const argspec *s = &t->args[i];
    const char *err = NULL;
    uint64_t v = 0;
    int width = 0;
    switch (s->kind) {
    case A_IMG:
      err = read_img(args[i], c.img[i], s->bits / 8);
      break;
    case A_I32:
    case A_U32:
    case A_I64:
    case A_U64:
      err = read_int(args[i], &v, &width);
      if (err != NULL) break;
      if (s->kind == A_I32 && (int64_t)v != (int64_t)(int32_t)v) {
        snprintf(detail, sizeof detail, "value %" PRId64 " does not fit a 32-bit signed int", (int64_t)v);
        err = detail;
      } else if (s->kind == A_U32) {
        if (width <= 32)
          v &= 0xffffffffu; /* as SystemVerilog converts an int to an int unsigned */
        else if (v > 0xffffffffu) {
          snprintf(detail, sizeof detail, "value 0x%" PRIx64 " does not fit 32 bits", v);
          err = detail;
        }
      }
      c.in[i] = (int64_t)v;
      break;
    default:
      break;
    }
    if (err != NULL) {
      char why[256];
      complain(sys, t, i, "%s", err);
      snprintf(why, sizeof why, "argument %d (%s): %s", i + 1, s->name, err);
      put_ret(sys, (int32_t)mkeysim_wrap_refuse(&werr, t->name, why));
      return 0;
    }
  }
  rc = t->fn(&c);
  /* The functions of this module alone record their own refusals; a
   * library call's failure makes the library's message the last one. */
  if (t->fn == f_create || t->fn == f_destroy || t->fn == f_query || t->fn == f_umr ||
      t->fn == f_local_invalidate || t->fn == f_send_with_invalidate)
    mkeysim_wrap_cmd(&werr, rc);
  else if (t->fn != f_list_mtt && t->fn != f_list_klm && t->fn != f_access_seg && t->fn != f_list_clear)
    mkeysim_wrap_lib(&werr, rc);
  if (rc > INT32_MAX) { /* a handle beyond 31 bits: not representable here */
    complain(sys, t, -1, "%s", "the handle does not fit the 32-bit return value");
    rc = mkeysim_wrap_refuse(&werr, t->name, "the handle does not fit the 32-bit return value");
  }
  if (rc < 0 && !quiet && t->fn != f_access_seg && t->fn != f_list_mtt && t->fn != f_list_klm) {
    char msg[512], loc[512];
    mkeysim_wrap_last_error(&werr, msg, sizeof msg);
    where(sys, loc, sizeof loc);
    vpi_printf("WARNING: %s: %s returned %d: %s\n", loc, t->name, (int)rc, msg);
  }
  for (i = 0; i < t->nargs; i++) {
    switch (t->args[i].kind) {
    case A_OUT:
      put_int(args[i], c.out[i]);
      break;
    case A_OIMG:
      put_img(args[i], c.oimg[i], t->args[i].bits / 8);
      break;
    case A_OSTR:
      put_str(args[i], c.ostr);
      break;
    default:
      break;
    }
  }
  put_ret(sys, (int32_t)rc);
  return 0;
}

static void mkeysim_register(void) {
  size_t i;
  for (i = 0; i < sizeof tasks / sizeof tasks[0]; i++) {
    s_vpi_systf_data d;
    memset(&d, 0, sizeof d);
    d.type = vpiSysFunc;
    d.sysfunctype = vpiIntFunc;
    d.tfname = (PLI_BYTE8 *)tasks[i].name;
    d.calltf = calltf;
    d.compiletf = compiletf;
    d.sizetf = sizetf;
    d.user_data = (PLI_BYTE8 *)&tasks[i];
    vpi_register_systf(&d);
  }
}

void (*vlog_startup_routines[])(void) = {mkeysim_register, 0};
