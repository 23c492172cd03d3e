/*
 * mkeysim_stage.h: what the SystemVerilog wrappers (cosim/dpi/mkeysim_dpi.c
 * and cosim/vpi/mkeysim_vpi.c) share, one piece of code for both. It is
 * not part of the library's API (cosim/mkeysim.h).
 *
 * The translation-list stage: a testbench cannot pass a C array, so it
 * stages a list one entry a call (all of one kind); the next CREATE_MKEY
 * or UMR passes the staged bytes as the call's list and clears the stage.
 *
 * The wrappers' own refusals: a call the wrapper refuses without calling
 * the library (a stage refusal, a segment index past the last access's, an
 * argument it cannot pass) returns MKEYSIM_ERR_ARG, and the library's
 * mkeysim_last_error knows nothing of it. The wrapper keeps its message
 * (mkeysim_wrap_refuse), and its last_error returns that message until the
 * library fails again (mkeysim_wrap_lib), so that a testbench always reads
 * the reason of its last failed call.
 */
#ifndef MKEYSIM_STAGE_H
#define MKEYSIM_STAGE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mkeysim.h"

/* MKEYSIM_STAGE_MAX is the bytes a stage may hold: 2^21 MTT entries. */
#define MKEYSIM_STAGE_MAX (1u << 24)

/* A wrapper's last refusal; all zero is none. */
typedef struct {
  char msg[512];
  int set; /* msg is the reason of the last failed call */
} mkeysim_wrap_err;

/* mkeysim_wrap_refuse records why the wrapper refused a call (the
 * function's name first, as the library's messages have it) and returns
 * MKEYSIM_ERR_ARG. */
static inline int64_t mkeysim_wrap_refuse(mkeysim_wrap_err *w, const char *fn, const char *why) {
  snprintf(w->msg, sizeof w->msg, "%s: %s", fn, why);
  w->set = 1;
  return MKEYSIM_ERR_ARG;
}

/* mkeysim_wrap_lib passes on the return rc of a library call: a failure
 * makes the library's message the last one again. */
static inline int64_t mkeysim_wrap_lib(mkeysim_wrap_err *w, int64_t rc) {
  if (rc < 0) w->set = 0;
  return rc;
}

/* mkeysim_wrap_cmd is mkeysim_wrap_lib for a command (create, destroy,
 * query, umr, the invalidations), whose refusal's status may come with a
 * reason in the library's message. */
static inline int64_t mkeysim_wrap_cmd(mkeysim_wrap_err *w, int64_t rc) {
  if (rc != 0) w->set = 0;
  return rc;
}

/* mkeysim_wrap_last_error is mkeysim_last_error for a testbench: the
 * wrapper's refusal when it failed last, else the library's message. */
static inline size_t mkeysim_wrap_last_error(const mkeysim_wrap_err *w, char *buf, size_t n) {
  size_t len;
  if (!w->set) return mkeysim_last_error(buf, n);
  len = strlen(w->msg);
  if (n > 0) {
    size_t k = len < n - 1 ? len : n - 1;
    memcpy(buf, w->msg, k);
    buf[k] = 0;
  }
  return len;
}

/* A stage; all zero is empty (kind MKEYSIM_LIST_NONE). */
typedef struct {
  uint8_t *buf;
  size_t len, cap;
  int32_t kind; /* enum mkeysim_list_kind of the entries staged */
} mkeysim_stage;

/* mkeysim_stage_add appends the n-byte entry e of kind and returns the
 * number of entries staged, or MKEYSIM_ERR_ARG, the reason in w (as fn's),
 * when a list of the other kind is staged, the stage is full or memory
 * runs out. */
static inline int64_t mkeysim_stage_add(mkeysim_stage *s, mkeysim_wrap_err *w, const char *fn, int32_t kind,
                                        const uint8_t *e, size_t n) {
  if (s->kind != MKEYSIM_LIST_NONE && s->kind != kind)
    return mkeysim_wrap_refuse(w, fn,
                               kind == MKEYSIM_LIST_KLM
                                   ? "MTT entries are staged: a list is of one kind (list_clear empties the stage)"
                                   : "KLM entries are staged: a list is of one kind (list_clear empties the stage)");
  if (s->len + n > MKEYSIM_STAGE_MAX)
    return mkeysim_wrap_refuse(w, fn, "the stage is full (16 MiB: 2^21 MTT or 2^20 KLM entries)");
  if (s->len + n > s->cap) {
    size_t cap = s->cap ? 2 * s->cap : 1024;
    uint8_t *p;
    while (cap < s->len + n) cap *= 2;
    p = (uint8_t *)realloc(s->buf, cap);
    if (p == NULL) return mkeysim_wrap_refuse(w, fn, "out of memory growing the stage");
    s->buf = p;
    s->cap = cap;
  }
  memcpy(s->buf + s->len, e, n);
  s->len += n;
  s->kind = kind;
  return (int64_t)(s->len / n);
}

/* mkeysim_stage_list is the staged bytes as a call's list argument (NULL
 * when empty); s->kind and s->len are its kind and length. */
static inline const uint8_t *mkeysim_stage_list(const mkeysim_stage *s) { return s->len ? s->buf : NULL; }

/* mkeysim_stage_clear empties the stage (its memory is kept for reuse). */
static inline void mkeysim_stage_clear(mkeysim_stage *s) {
  s->len = 0;
  s->kind = MKEYSIM_LIST_NONE;
}

#endif /* MKEYSIM_STAGE_H */
