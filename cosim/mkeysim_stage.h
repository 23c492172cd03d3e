/*
 * mkeysim_stage.h: the translation-list stage of the SystemVerilog
 * wrappers (cosim/dpi/mkeysim_dpi.c and cosim/vpi/mkeysim_vpi.c), one
 * piece of code for both. A testbench cannot pass a C array, so it stages
 * a list one entry a call (all of one kind); the next CREATE_MKEY or UMR
 * passes the staged bytes as the call's list and clears the stage. It is
 * not part of the library's API (cosim/mkeysim.h).
 */
#ifndef MKEYSIM_STAGE_H
#define MKEYSIM_STAGE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mkeysim.h"

/* MKEYSIM_STAGE_MAX is the bytes a stage may hold: 2^21 MTT entries. */
#define MKEYSIM_STAGE_MAX (1u << 24)

/* A stage; all zero is empty (kind MKEYSIM_LIST_NONE). */
typedef struct {
  uint8_t *buf;
  size_t len, cap;
  int32_t kind; /* enum mkeysim_list_kind of the entries staged */
} mkeysim_stage;

/* mkeysim_stage_add appends the n-byte entry e of kind and returns the
 * number of entries staged, or MKEYSIM_ERR_ARG when a list of the other
 * kind is staged, the stage is full or memory runs out. */
static inline int64_t mkeysim_stage_add(mkeysim_stage *s, int32_t kind, const uint8_t *e, size_t n) {
  if (s->kind != MKEYSIM_LIST_NONE && s->kind != kind) return MKEYSIM_ERR_ARG;
  if (s->len + n > MKEYSIM_STAGE_MAX) return MKEYSIM_ERR_ARG;
  if (s->len + n > s->cap) {
    size_t cap = s->cap ? 2 * s->cap : 1024;
    uint8_t *p;
    while (cap < s->len + n) cap *= 2;
    p = (uint8_t *)realloc(s->buf, cap);
    if (p == NULL) return MKEYSIM_ERR_ARG;
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
