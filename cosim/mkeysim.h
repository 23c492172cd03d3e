/*
 * mkeysim.h: the golden model (mkeysim's ref/) as a C library, for live
 * co-simulation: a testbench asks the model what its DUT must answer.
 *
 * Build:  make cosim        (out/cosim/libmkeysim.so and this header)
 * Link:   cc ... -Iout/cosim -Lout/cosim -lmkeysim -Wl,-rpath,$PWD/out/cosim
 *
 * Instances. mkeysim_new() makes a model instance (QPs, MKey table, ICM)
 * and mkeysim_cache_new() an MKC cache tag array; each is named by a
 * handle, a positive integer that is never reused in a process. Any number
 * of instances may live in one process; mkeysim_delete() frees one and
 * every memory it holds. A deleted or unknown handle gives
 * MKEYSIM_ERR_HANDLE. Calls may come from any thread; they are serialised.
 *
 * Byte formats are the PRM's, in wire order (byte 00h first), as
 * docs/formats.md and the golden vectors give them:
 *   MKC image     64 bytes (translation.md 2.1)
 *   MTT entry      8 bytes (translation.md 2.2)
 *   KLM entry     16 bytes: byte_count, mkey, address (translation.md 2.3)
 * A list is an array of entries of one kind, list_bytes long; a list of
 * 0 bytes is no list, whatever its kind.
 *
 * Return values. Every call that runs a command or a check returns its
 * PRM status, >= 0, numbered as the vectors' enums.status (and below);
 * a negative value is an error of the call itself, not of the command:
 * nothing changed, and mkeysim_last_error() says which argument and why.
 *
 * Ownership. The library never keeps a pointer it was given: inputs are
 * copied before the call returns, outputs are written to the caller's
 * memory before it returns. Nothing it returns needs freeing.
 */
#ifndef MKEYSIM_H
#define MKEYSIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* MKEYSIM_IN marks input arrays: const for users. (The library's own
 * build defines it empty, since Go's cgo writes its prototypes without
 * const; the two are the same ABI.) */
#ifndef MKEYSIM_IN
#define MKEYSIM_IN const
#endif

/* The version of this interface; it changes when a call changes. */
#define MKEYSIM_ABI_VERSION 1

/* A model or cache instance: > 0. */
typedef int64_t mkeysim_handle;

/* Errors of a call (negative returns). */
#define MKEYSIM_ERR_HANDLE (-1)       /* no live instance of that kind has this handle */
#define MKEYSIM_ERR_ARG (-2)          /* an argument is out of range or a NULL pointer */
#define MKEYSIM_ERR_UNOBSERVABLE (-3) /* mkeysim_klm_step: the lower piece passes 2^64, which the
                                         model refuses one level down before any lower address exists */
#define MKEYSIM_ERR_INTERNAL (-4)     /* the library failed (a bug: please report mkeysim_last_error's text) */

/* PRM statuses (translation.md 7): the first failing check. */
enum mkeysim_status {
  MKEYSIM_OK = 0,
  MKEYSIM_INDIRECTION_DEPTH = 1,
  MKEYSIM_BAD_KEY_INDEX = 2,
  MKEYSIM_KEY_MISMATCH = 3,
  MKEYSIM_MKEY_FREE = 4,
  MKEYSIM_PD_MISMATCH = 5,
  MKEYSIM_QPN_MISMATCH = 6,
  MKEYSIM_OUT_OF_RANGE = 7,
  MKEYSIM_ACCESS_DENIED = 8,
  MKEYSIM_BAD_ACCESS_MODE = 9,
  MKEYSIM_MISALIGNED_ATOMIC = 10,
  MKEYSIM_TRANSLATION_RANGE = 11,
  MKEYSIM_PAGE_ACCESS = 12,
  MKEYSIM_PAGE_FAULT = 13,
  MKEYSIM_BAD_PARAM = 14,
  MKEYSIM_UMR_CHECK_FREE = 15,
  MKEYSIM_UMR_DISABLED = 16,
  MKEYSIM_UMR_PD_UPDATE = 17,
  MKEYSIM_UMR_ALIGNMENT = 18,
  MKEYSIM_UMR_CAPACITY = 19,
  MKEYSIM_REMOTE_INVALIDATE_DENIED = 20,
  MKEYSIM_IOMMU_FAULT = 21,
  MKEYSIM_NO_RESOURCES = 22,
  MKEYSIM_BAD_RES_STATE = 23
};

/* Access types (translation.md 1). */
enum mkeysim_access_type {
  MKEYSIM_LOCAL_READ = 0,
  MKEYSIM_LOCAL_WRITE = 1,
  MKEYSIM_REMOTE_READ = 2,
  MKEYSIM_REMOTE_WRITE = 3,
  MKEYSIM_REMOTE_ATOMIC = 4
};

/* The kind of a translation list argument. */
enum mkeysim_list_kind {
  MKEYSIM_LIST_NONE = 0, /* no list: list must be NULL or list_bytes 0 */
  MKEYSIM_LIST_MTT = 1,  /* 8-byte MTT entries (access mode MTT) */
  MKEYSIM_LIST_KLM = 2   /* 16-byte KLM entries (access mode KLM or FIXED_BUFFER_SIZE) */
};

/* Address spaces of a segment. */
enum mkeysim_space { MKEYSIM_SPACE_DMA = 0, MKEYSIM_SPACE_SW_ICM = 1, MKEYSIM_SPACE_MEMIC = 2 };

/* MKC cache operations (the vectors' enums.cache_op). */
enum mkeysim_cache_op { MKEYSIM_CACHE_LOOKUP = 0, MKEYSIM_CACHE_FILL = 1, MKEYSIM_CACHE_INVAL = 2, MKEYSIM_CACHE_INVAL_ALL = 3 };

/* One DMA segment of a translation. */
typedef struct {
  uint32_t space; /* enum mkeysim_space */
  uint64_t addr;
  uint64_t len;
} mkeysim_segment;

/* The outcome of mkeysim_access. */
typedef struct {
  int32_t status;      /* as returned */
  int32_t level;       /* failure: KLM level where it arose (0: the request's key) */
  uint64_t offset;     /* failure: byte offset in the request of the failing piece */
  uint32_t nseg;       /* OK: the number of segments (all of them, even past max_segs) */
  uint32_t fault_key;  /* PAGE_FAULT: the key whose MTT page faulted */
  uint64_t fault_addr; /* PAGE_FAULT: the address, in that key's space, of the faulting piece */
} mkeysim_result;

/* One MTT address step (the mttwalk unit's outputs). */
typedef struct {
  uint64_t page_index;  /* i = floor(u / P), u = (S mod P) + ((V - S) mod 2^64) + t exactly */
  uint64_t entry_addr;  /* mtt_handle + 8 i */
  uint32_t page_offset; /* o = u mod P */
  uint32_t piece_len;   /* min(len - t, P - o) */
} mkeysim_mtt_step_result;

/* One KLM level's first piece (the klmwalk unit's outputs). */
typedef struct {
  uint32_t entry_index; /* j */
  uint32_t lower_key;   /* the mkey of entry j */
  uint64_t lower_addr;  /* address[j] + (d - T[j]) (Fixed Buffer Size: + d mod B), mod 2^64 */
  uint32_t piece_len;   /* bytes of the piece inside entry j */
} mkeysim_klm_step_result;

/* One MKC cache operation's outputs (the mptcache unit's). */
typedef struct {
  int32_t hit;          /* LOOKUP: a valid line holds index; INVAL: one did (and is dropped) */
  uint32_t way;         /* LOOKUP/INVAL hit: its way; FILL: the way written */
  int32_t evict;        /* FILL: a valid line of another index was replaced */
  uint32_t evict_index; /* FILL with evict: that index */
  uint32_t count;       /* INVAL_ALL: the valid lines dropped */
} mkeysim_cache_result;

/* ---- Instances ------------------------------------------------------ */

/* mkeysim_new makes an empty model: no QPs, no keys. max_indirection is
 * the deepest KLM level whose key may be looked up (translation.md 4);
 * a negative value takes the default, 4. Returns the handle, or
 * MKEYSIM_ERR_ARG. */
mkeysim_handle mkeysim_new(int32_t max_indirection);

/* mkeysim_delete frees a model or cache instance. Returns 0 or
 * MKEYSIM_ERR_HANDLE. */
int32_t mkeysim_delete(mkeysim_handle h);

/* mkeysim_instances is the number of live instances (models and caches). */
int64_t mkeysim_instances(void);

/* mkeysim_heap_bytes runs the library's garbage collector, returns the
 * freed pages to the system, and returns the bytes its heap holds live:
 * with mkeysim_instances() and the process's resident size, what a leak
 * check measures. */
uint64_t mkeysim_heap_bytes(void);

/* mkeysim_last_error copies the message of the last failed call (the
 * last negative return, or BAD_PARAM's reason) into buf, NUL-terminated
 * and cut to n bytes, and returns the message's full length. There is one
 * message per process: the last failed call of any thread. */
size_t mkeysim_last_error(char *buf, size_t n);

/* mkeysim_abi_version returns MKEYSIM_ABI_VERSION of the built library. */
int32_t mkeysim_abi_version(void);

/* ---- Commands (translation.md 3) ------------------------------------ */

/* mkeysim_add_qp declares QP qpn with protection domain pd; reg_umr != 0
 * makes it a REG_UMR QP (may change an MKey's PD by UMR). A later call
 * with the same qpn replaces it. Returns MKEYSIM_OK. */
int32_t mkeysim_add_qp(mkeysim_handle h, uint32_t qpn, uint32_t pd, int32_t reg_umr);

/* mkeysim_create runs CREATE_MKEY with the context mkc (64 bytes) at
 * index (index < 0: the lowest index not created), odp != 0 for an
 * on-demand-paging registration, pg_access != 0 to keep the MTT entries'
 * rd_en/wr_en as given, and the first entries of its translation list.
 * The index used is written to *index_out (may be NULL). Returns OK or
 * the refusal's status (BAD_PARAM's reason in mkeysim_last_error). */
int32_t mkeysim_create(mkeysim_handle h, MKEYSIM_IN uint8_t *mkc, int64_t index, int32_t odp, int32_t pg_access,
                       int32_t list_kind, MKEYSIM_IN uint8_t *list, size_t list_bytes, uint32_t *index_out);

/* mkeysim_load stores the context mkc (64 bytes) at index as it is,
 * without CREATE_MKEY's checks, replacing any object there, with the ODP
 * flag odp: a backdoor for a state that UMRs may reach but CREATE_MKEY
 * refuses (the top vectors' MKC table, top.mkc.hex, holds such). Returns
 * OK or MKEYSIM_ERR_ARG. */
int32_t mkeysim_load(mkeysim_handle h, uint32_t index, MKEYSIM_IN uint8_t *mkc, int32_t odp);

/* mkeysim_destroy runs DESTROY_MKEY on index: OK or BAD_KEY_INDEX. */
int32_t mkeysim_destroy(mkeysim_handle h, uint32_t index);

/* mkeysim_query runs QUERY_MKEY on index: writes its 64-byte context to
 * mkc_out and its ODP flag to *odp_out (either may be NULL). Returns OK
 * or BAD_KEY_INDEX (nothing written). The translation list QUERY_MKEY
 * also returns is in the ICM at the context's mtt_handle:
 * mkeysim_icm_read reads it. */
int32_t mkeysim_query(mkeysim_handle h, uint32_t index, uint8_t *mkc_out, int32_t *odp_out);

/* mkeysim_umr runs a UMR WQE posted on QP qpn for key: check_free (0 none,
 * 1 run only if free, 2 only if in use), mkey_ctx_mask mask, the image
 * mkc (64 bytes; only the masked fields count; NULL: all zero), and a list
 * written at translation_offset offset (16-byte units). Returns OK or the
 * refusal's status; a refused UMR changes nothing. */
int32_t mkeysim_umr(mkeysim_handle h, uint32_t qpn, uint32_t key, int32_t check_free, uint64_t mask,
                    MKEYSIM_IN uint8_t *mkc, uint64_t offset, int32_t list_kind, MKEYSIM_IN uint8_t *list,
                    size_t list_bytes);

/* mkeysim_local_invalidate and mkeysim_send_with_invalidate run LOCAL_INVALIDATE
 * and SEND_WITH_INVALIDATE of key from QP qpn: OK or the refusal. */
int32_t mkeysim_local_invalidate(mkeysim_handle h, uint32_t qpn, uint32_t key);
int32_t mkeysim_send_with_invalidate(mkeysim_handle h, uint32_t qpn, uint32_t key);

/* ---- Translation ---------------------------------------------------- */

/* mkeysim_access translates [va, va+len) of key for QP qpn and access
 * type access_type against the current state, without changing it (a
 * page fault is reported, not stalled, so there is no PAGE_FAULT_RESUME:
 * make the page present, by a UMR with an MTT list or mkeysim_icm_write,
 * and ask again): the top unit's outputs. Fills
 * *res (may be NULL) and the first max_segs segments into segs (may be
 * NULL when max_segs is 0); the model keeps the first 65,536 segments of
 * an access (scenario.md), so at most that many are written, while
 * res->nseg counts them all. Returns the status. */
int32_t mkeysim_access(mkeysim_handle h, uint32_t qpn, uint32_t key, uint64_t va, uint32_t len,
                       int32_t access_type, mkeysim_result *res, mkeysim_segment *segs, size_t max_segs);

/* mkeysim_check runs the MKC checks 2-10 (translation.md 4) of the piece
 * [va, va+len) reaching key at KLM level, against the model's current
 * context of key's index: the protcheck unit's status. qpn and pd are the
 * requesting QP's (the QP need not be declared). */
int32_t mkeysim_check(mkeysim_handle h, uint32_t key, int32_t level, uint64_t va, uint32_t len, uint32_t qpn,
                      uint32_t pd, int32_t access_type);

/* mkeysim_icm_write writes n bytes of data at ICM address addr, as a host
 * writes a translation list (or a testbench loads the top vectors' ICM
 * image, top.mem.hex); mkeysim_icm_read reads n bytes (never-written
 * bytes read 0): what a DUT's ICM read port must return. Both return OK
 * or MKEYSIM_ERR_ARG (addr + n past 2^64, NULL data). */
int32_t mkeysim_icm_write(mkeysim_handle h, uint64_t addr, MKEYSIM_IN uint8_t *data, size_t n);
int32_t mkeysim_icm_read(mkeysim_handle h, uint64_t addr, uint8_t *data, size_t n);

/* ---- Unit functions without an instance: the vectors' oracles -------- */

/* mkeysim_protcheck is the protcheck unit: checks 2-10 on mkc (64 bytes;
 * created == 0: the index is not created and mkc is ignored). */
int32_t mkeysim_protcheck(MKEYSIM_IN uint8_t *mkc, int32_t created, uint32_t key, int32_t level, uint64_t va,
                          uint32_t len, uint32_t qpn, uint32_t pd, int32_t access_type);

/* mkeysim_mtt_step is the mttwalk unit: the MTT step at t of the piece
 * [va, va+len) of a key with start_addr, log_entity_size (12..31),
 * translations_octword_size tos and mtt_handle (one CREATE_MKEY accepts:
 * at least 2^32, a multiple of 64, the list below 2^48). Needs len >= 1,
 * t < len, va + len <= 2^64 and (va - start_addr) mod 2^64 + t < 2^64
 * (else MKEYSIM_ERR_ARG).
 * Returns OK (fills *out) or TRANSLATION_RANGE (*out zeroed). */
int32_t mkeysim_mtt_step(uint64_t start_addr, int32_t log_entity_size, uint32_t tos, uint64_t mtt_handle,
                         uint64_t va, uint32_t len, uint32_t t, mkeysim_mtt_step_result *out);

/* mkeysim_klm_step is the klmwalk unit: the first piece at d (bytes into
 * the key's space) of length len of one level, fbs != 0 for Fixed Buffer
 * Size (entries of 2^log_entity_size bytes, 12..31), tos 0 or 4, and the
 * four 16-byte KLM entries (64 bytes). Returns OK (fills *out),
 * TRANSLATION_RANGE (*out zeroed) or MKEYSIM_ERR_UNOBSERVABLE. */
int32_t mkeysim_klm_step(int32_t fbs, int32_t log_entity_size, uint32_t tos, uint64_t d, uint32_t len,
                         MKEYSIM_IN uint8_t *entries, mkeysim_klm_step_result *out);

/* ---- MKC cache tag array (the mptcache unit) ------------------------ */

/* mkeysim_cache_new makes an empty tag array of sets (a power of two,
 * 1..2^20) x ways (1..256) lines; random != 0 chooses victims by the
 * xorshift64 generator starting at prng_init (non-zero; the vectors'
 * PRNG_INIT), else true LRU. Returns the handle or MKEYSIM_ERR_ARG. */
mkeysim_handle mkeysim_cache_new(uint32_t sets, uint32_t ways, int32_t random, uint64_t prng_init);

/* mkeysim_cache_op applies one operation (enum mkeysim_cache_op) on
 * index (24 bits) and writes its outputs to *out (may be NULL). Returns 0,
 * MKEYSIM_ERR_HANDLE or MKEYSIM_ERR_ARG. */
int32_t mkeysim_cache_op(mkeysim_handle h, int32_t op, uint32_t index, mkeysim_cache_result *out);

#ifdef __cplusplus
}
#endif
#endif /* MKEYSIM_H */
