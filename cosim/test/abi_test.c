/*
 * abi_test.c: the C library's calls from C, as a testbench makes them.
 * Checks a command session, two instances side by side, the unit
 * functions, the errors, and that a thousand instances created, used and
 * deleted leak no memory (the library's live heap and the process's
 * resident size, measured and printed). Exits 0 when all hold, else 1.
 *
 *   go build -buildmode=c-shared -o out/cosim/libmkeysim.so ./cosim/libmkeysim
 *   gcc -std=c11 -Wall -Werror -Icosim cosim/test/abi_test.c \
 *       -Lout/cosim -lmkeysim -Wl,-rpath,$PWD/out/cosim -o out/cosim/abi_test
 *   out/cosim/abi_test
 */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "mkeysim.h"

static int failures;

#define CHECK(cond, ...)                                  \
  do {                                                    \
    if (!(cond)) {                                        \
      failures++;                                         \
      fprintf(stderr, "abi_test.c:%d: FAIL: ", __LINE__); \
      fprintf(stderr, __VA_ARGS__);                       \
      fprintf(stderr, "\n");                              \
    }                                                     \
  } while (0)

/* or_dword ORs v into the big-endian dword at byte offset off. */
static void or_dword(uint8_t *b, int off, uint32_t v) {
  for (int i = 0; i < 4; i++) b[off + i] |= (uint8_t)(v >> (24 - 8 * i));
}

static uint64_t get64(const uint8_t *b) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v = v << 8 | b[i];
  return v;
}

/* mkc_mtt writes the context of an unbound MTT key (translation.md 2.1):
 * lr, lw, rr, umr_en; access mode MTT; variant, pd, start_addr, len;
 * log_entity_size 12; translations_octword_size tos; mtt_handle 0 (the
 * model places the list). */
static void mkc_mtt(uint8_t *m, uint8_t variant, uint32_t pd, uint64_t start, uint64_t len, uint32_t tos) {
  memset(m, 0, 64);
  or_dword(m, 0x00, 1u << 15 | 1u << 12 | 1u << 11 | 1u << 10 | 1u << 8); /* umr_en rr lw lr, access_mode_1_0 = 1 */
  or_dword(m, 0x04, 0xffffffu << 8 | variant);                             /* qpn none, variant */
  or_dword(m, 0x0c, pd & 0xffffff);
  or_dword(m, 0x10, (uint32_t)(start >> 32));
  or_dword(m, 0x14, (uint32_t)start);
  or_dword(m, 0x18, (uint32_t)(len >> 32));
  or_dword(m, 0x1c, (uint32_t)len);
  or_dword(m, 0x34, tos);
  or_dword(m, 0x38, 12);
}

/* mtt_entry writes an 8-byte MTT entry: the page address, rd_en, wr_en. */
static void mtt_entry(uint8_t *e, uint64_t page) {
  uint64_t v = page | 3;
  for (int i = 0; i < 8; i++) e[i] = (uint8_t)(v >> (56 - 8 * i));
}

static const char *last_error(void) {
  static char buf[512];
  mkeysim_last_error(buf, sizeof buf);
  return buf;
}

static long rss_kib(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  long size = 0, res = -1;
  if (f == NULL) return -1;
  if (fscanf(f, "%ld %ld", &size, &res) != 2) res = -1;
  fclose(f);
  return res < 0 ? -1 : res * (sysconf(_SC_PAGESIZE) / 1024);
}

#define KEY(index, variant) ((uint32_t)(index) << 8 | (variant))

static void session(void) {
  mkeysim_handle h = mkeysim_new(-1);
  CHECK(h > 0, "mkeysim_new: %lld", (long long)h);
  CHECK(mkeysim_add_qp(h, 5, 7, 0) == MKEYSIM_OK, "add_qp");
  uint8_t mkc[64], list[3 * 8], got[64];
  mkc_mtt(mkc, 0x42, 7, 0x10000, 0x3000, 4);
  for (int i = 0; i < 3; i++) mtt_entry(list + 8 * i, 0xa0000 + 0x1000 * (uint64_t)i);
  uint32_t index = 0;
  int32_t st = mkeysim_create(h, mkc, 3, 0, 1, MKEYSIM_LIST_MTT, list, sizeof list, &index);
  CHECK(st == MKEYSIM_OK && index == 3, "create: %d index %u (%s)", st, index, last_error());
  int32_t odp = -1;
  st = mkeysim_query(h, 3, got, &odp);
  CHECK(st == MKEYSIM_OK && odp == 0, "query: %d odp %d", st, odp);
  CHECK(memcmp(got, mkc, 0x2c) == 0 && memcmp(got + 0x34, mkc + 0x34, 12) == 0, "query gives another context");
  CHECK((get64(got + 0x2c) & 0xffffffffffffull) == 0x100000000ull, "mtt_handle %#llx, want the first list at 2^32",
        (unsigned long long)(get64(got + 0x2c) & 0xffffffffffffull));

  mkeysim_segment segs[4];
  mkeysim_result r;
  st = mkeysim_access(h, 5, KEY(3, 0x42), 0x10ff0, 0x20, MKEYSIM_LOCAL_READ, &r, segs, 4);
  CHECK(st == MKEYSIM_OK && r.nseg == 2 && segs[0].addr == 0xa0ff0 && segs[0].len == 0x10 && segs[1].addr == 0xa1000 &&
            segs[1].len == 0x10,
        "access across a page: %d nseg %u", st, r.nseg);
  st = mkeysim_access(h, 5, KEY(3, 0x42), 0x10000, 8, MKEYSIM_REMOTE_WRITE, &r, NULL, 0);
  CHECK(st == MKEYSIM_ACCESS_DENIED && r.level == 0 && r.offset == 0, "remote write without rw: %d", st);
  st = mkeysim_access(h, 5, KEY(3, 0x43), 0x10000, 8, MKEYSIM_LOCAL_READ, &r, NULL, 0);
  CHECK(st == MKEYSIM_KEY_MISMATCH, "another variant: %d", st);
  CHECK(mkeysim_check(h, KEY(3, 0x42), 0, 0x10000, 8, 5, 8, MKEYSIM_LOCAL_READ) == MKEYSIM_PD_MISMATCH, "check, other PD");
  CHECK(mkeysim_local_invalidate(h, 5, KEY(3, 0x42)) == MKEYSIM_OK, "local_invalidate");
  CHECK(mkeysim_access(h, 5, KEY(3, 0x42), 0x10000, 8, MKEYSIM_LOCAL_READ, &r, NULL, 0) == MKEYSIM_MKEY_FREE, "after invalidate");
  /* A UMR that needs the key free (check_free 1) and makes it valid again. */
  uint8_t img[64] = {0};
  st = mkeysim_umr(h, 5, KEY(3, 0x42), 1, 1u << 29, img, 0, MKEYSIM_LIST_NONE, NULL, 0);
  CHECK(st == MKEYSIM_OK, "umr free=0: %d (%s)", st, last_error());
  CHECK(mkeysim_access(h, 5, KEY(3, 0x42), 0x10000, 8, MKEYSIM_LOCAL_READ, &r, NULL, 0) == MKEYSIM_OK, "after umr");
  CHECK(mkeysim_destroy(h, 3) == MKEYSIM_OK, "destroy");
  CHECK(mkeysim_query(h, 3, got, NULL) == MKEYSIM_BAD_KEY_INDEX, "query after destroy");
  /* A refused CREATE_MKEY says why. */
  mkc[0x3b] = 11;
  st = mkeysim_create(h, mkc, -1, 0, 0, MKEYSIM_LIST_NONE, NULL, 0, NULL);
  CHECK(st == MKEYSIM_BAD_PARAM && strstr(last_error(), "log_entity_size 11") != NULL, "bad create: %d %s", st,
        last_error());
  CHECK(mkeysim_delete(h) == 0, "delete");
}

/* Two instances hold separate states: the same index means two keys. */
static void two_instances(void) {
  mkeysim_handle a = mkeysim_new(-1), b = mkeysim_new(-1);
  uint8_t mkc[64], e[8];
  mkeysim_segment s;
  mkeysim_add_qp(a, 1, 1, 0);
  mkeysim_add_qp(b, 1, 1, 0);
  mkc_mtt(mkc, 0, 1, 0, 0x1000, 4);
  mtt_entry(e, 0x5000);
  mkeysim_create(a, mkc, 9, 0, 0, MKEYSIM_LIST_MTT, e, 8, NULL);
  mtt_entry(e, 0x7000);
  mkeysim_create(b, mkc, 9, 0, 0, MKEYSIM_LIST_MTT, e, 8, NULL);
  CHECK(mkeysim_access(a, 1, KEY(9, 0), 0x10, 4, 0, NULL, &s, 1) == 0 && s.addr == 0x5010, "instance a: %#llx",
        (unsigned long long)s.addr);
  CHECK(mkeysim_access(b, 1, KEY(9, 0), 0x10, 4, 0, NULL, &s, 1) == 0 && s.addr == 0x7010, "instance b: %#llx",
        (unsigned long long)s.addr);
  CHECK(mkeysim_instances() == 2, "instances: %lld", (long long)mkeysim_instances());
  mkeysim_delete(a);
  mkeysim_delete(b);
}

static void units(void) {
  mkeysim_mtt_step_result m;
  /* Page 4 KiB, start 0x1800 (b = 0x800), va 0x2000, t 0x100: u = 0x800 + 0x800 + 0x100. */
  int32_t st = mkeysim_mtt_step(0x1800, 12, 4, 0x100000000ull, 0x2000, 0x2000, 0x100, &m);
  CHECK(st == MKEYSIM_OK && m.page_index == 1 && m.entry_addr == 0x100000008ull && m.page_offset == 0x100 &&
            m.piece_len == 0xf00,
        "mtt_step: %d i %llu o %#x n %#x", st, (unsigned long long)m.page_index, m.page_offset, m.piece_len);
  st = mkeysim_mtt_step(0, 12, 4, 0x100000000ull, 8 << 12, 1, 0, &m);
  CHECK(st == MKEYSIM_TRANSLATION_RANGE && m.page_index == 0, "mtt_step past the capacity: %d", st);

  uint8_t mkc[64];
  mkc_mtt(mkc, 1, 2, 0x1000, 0x1000, 4);
  CHECK(mkeysim_protcheck(mkc, 1, KEY(1, 1), 0, 0x1000, 0x1000, 9, 2, MKEYSIM_LOCAL_WRITE) == MKEYSIM_OK, "protcheck ok");
  CHECK(mkeysim_protcheck(mkc, 1, KEY(1, 1), 0, 0x1001, 0x1000, 9, 2, MKEYSIM_LOCAL_WRITE) == MKEYSIM_OUT_OF_RANGE,
        "protcheck one past");
  CHECK(mkeysim_protcheck(NULL, 0, KEY(1, 1), 0, 0x1000, 1, 9, 2, 0) == MKEYSIM_BAD_KEY_INDEX, "protcheck not created");

  uint8_t ents[64] = {0};
  mkeysim_klm_step_result k;
  /* Entry 0: 0x100 bytes of key 0x700 at 0x9000; entry 1: 0x100 of key 0x800 at 0xa000. */
  or_dword(ents, 0, 0x100), or_dword(ents, 4, 0x700), or_dword(ents, 12, 0x9000);
  or_dword(ents, 16, 0x100), or_dword(ents, 20, 0x800), or_dword(ents, 28, 0xa000);
  st = mkeysim_klm_step(0, 12, 4, 0x180, 0x100, ents, &k);
  CHECK(st == MKEYSIM_OK && k.entry_index == 1 && k.lower_key == 0x800 && k.lower_addr == 0xa080 && k.piece_len == 0x80,
        "klm_step: %d j %u key %#x addr %#llx n %#x", st, k.entry_index, k.lower_key, (unsigned long long)k.lower_addr,
        k.piece_len);

  mkeysim_handle c = mkeysim_cache_new(2, 2, 0, 0);
  mkeysim_cache_result cr;
  mkeysim_cache_op(c, MKEYSIM_CACHE_FILL, 2, &cr);
  mkeysim_cache_op(c, MKEYSIM_CACHE_FILL, 4, &cr);
  mkeysim_cache_op(c, MKEYSIM_CACHE_LOOKUP, 2, &cr); /* 4 is now the LRU line of set 0 */
  CHECK(cr.hit && cr.way == 0, "lookup 2: hit %d way %u", cr.hit, cr.way);
  mkeysim_cache_op(c, MKEYSIM_CACHE_FILL, 6, &cr);
  CHECK(cr.evict && cr.evict_index == 4 && cr.way == 1, "fill 6: evict %d index %u way %u", cr.evict, cr.evict_index, cr.way);
  mkeysim_cache_op(c, MKEYSIM_CACHE_INVAL_ALL, 0, &cr);
  CHECK(cr.count == 2, "inval_all: count %u", cr.count);
  mkeysim_delete(c);
}

static void errors(void) {
  mkeysim_handle h = mkeysim_new(-1);
  CHECK(mkeysim_add_qp(123456, 1, 1, 0) == MKEYSIM_ERR_HANDLE && strstr(last_error(), "handle 123456"), "unknown handle: %s",
        last_error());
  CHECK(mkeysim_access(h, 1, 1, 0, 1, 9, NULL, NULL, 0) == MKEYSIM_ERR_ARG && strstr(last_error(), "access_type 9"),
        "bad access type: %s", last_error());
  CHECK(mkeysim_create(h, NULL, -1, 0, 0, 0, NULL, 0, NULL) == MKEYSIM_ERR_ARG && strstr(last_error(), "mkc is NULL"),
        "NULL mkc: %s", last_error());
  CHECK(mkeysim_cache_new(3, 1, 0, 0) == MKEYSIM_ERR_ARG && strstr(last_error(), "sets 3"), "3 sets: %s", last_error());
  char small[8];
  size_t n = mkeysim_last_error(small, sizeof small);
  CHECK(n > sizeof small && small[7] == 0, "last_error cut: %zu", n);
  mkeysim_delete(h);
  CHECK(mkeysim_delete(h) == MKEYSIM_ERR_HANDLE, "second delete");
}

/* leak: n instances, each with keys, lists, accesses and a cache. */
static void churn(int n) {
  uint8_t mkc[64], list[256 * 8];
  for (int i = 0; i < 256; i++) mtt_entry(list + 8 * i, (uint64_t)i << 12);
  for (int i = 0; i < n; i++) {
    mkeysim_handle h = mkeysim_new(-1);
    mkeysim_add_qp(h, 1, 1, 0);
    for (int k = 0; k < 32; k++) {
      mkc_mtt(mkc, (uint8_t)k, 1, 0, 1 << 20, 128);
      uint32_t idx;
      mkeysim_create(h, mkc, -1, 0, 0, MKEYSIM_LIST_MTT, list, sizeof list, &idx);
      mkeysim_result r;
      mkeysim_segment s[8];
      mkeysim_access(h, 1, KEY(idx, k), 0x1234, 0x5000, 0, &r, s, 8);
    }
    mkeysim_handle c = mkeysim_cache_new(64, 4, 1, 12345);
    for (int k = 0; k < 512; k++) mkeysim_cache_op(c, k % 2, (uint32_t)k * 7, NULL);
    mkeysim_delete(c);
    mkeysim_delete(h);
  }
}

static void leak(void) {
  churn(100);
  uint64_t heap0 = mkeysim_heap_bytes();
  long rss0 = rss_kib();
  churn(1000);
  uint64_t heap1 = mkeysim_heap_bytes();
  long rss1 = rss_kib();
  printf("abi_test: 1000 instances (32 keys, 64 KiB of lists, a 256-line cache each): live heap %llu -> %llu bytes, "
         "resident %ld -> %ld KiB\n",
         (unsigned long long)heap0, (unsigned long long)heap1, rss0, rss1);
  CHECK(mkeysim_instances() == 0, "%lld instances live", (long long)mkeysim_instances());
  CHECK(heap1 <= heap0 + 256 * 1024, "live heap grew %lld bytes", (long long)(heap1 - heap0));
  CHECK(rss1 <= rss0 + 8 * 1024, "resident size grew %ld KiB", rss1 - rss0);
}

int main(void) {
  CHECK(mkeysim_abi_version() == MKEYSIM_ABI_VERSION, "abi version %d", mkeysim_abi_version());
  session();
  two_instances();
  units();
  errors();
  leak();
  if (failures) {
    fprintf(stderr, "abi_test: %d checks failed\n", failures);
    return 1;
  }
  printf("abi_test: all checks passed\n");
  return 0;
}
