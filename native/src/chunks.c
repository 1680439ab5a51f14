// Receive chunks (chunks.h). Each chunk is CHUNK_BYTES of anonymous memory aligned to CHUNK_BYTES, so the
// chunk a frame lies in is found from the frame's address alone, in a table of the chunks mapped.
//
// Why a chunk comes back at the send: a batch's Buffer dies only when the collector finds it dead, and a
// device process that allocates little (the port I/O alone; a lab's devices at thousands of frames a
// second) collects rarely, so nearly every batch took a fresh chunk and page-faulted every page of the
// copy into it, and the collector later gave back far more chunks than the free list keeps, which were
// unmapped: 34 % of the port I/O's CPU in page faults and 6 % in munmap at 200,000 frames/s (perf, 2026-12-07).
// A frame a device transmits is the runtime's (DeviceEnv.transmit: the device must not touch it again),
// so once the kernel has copied every frame of a batch, its chunk serves the next batch, still in the cache.
// A frame a device keeps or consumes holds its chunk until the collector frees the Buffer, as before.
//
// A Buffer and the chunk's later batches never mix: every batch gets a new generation number, and the
// finalizer of a Buffer of an earlier one leaves the chunk alone. Mapped and unmapped, not
// malloc()ed: glibc raises its mmap threshold the first time a 256 KiB block is freed, after which such
// blocks come from the brk heap, which fragments and never shrinks (a 6-minute soak: the leaves' RSS grew
// 24-27 MiB that way; docs/reliability.md).
#include "chunks.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

// Chunks kept for later batches. A collection frees many batches' Buffers at once (50-100 at a few
// hundred thousand frames a second): a shorter list unmapped the surplus only to map and page-fault
// fresh chunks for the next batches.
#define MAX_FREE_CHUNKS 128

struct chunk {
  uint8_t *base;
  uintptr_t gen;
  int lent;  // a Buffer of generation `gen` views the chunk
  uint32_t n;
  uint64_t pending;  // bit i: frame i of the batch not sent yet
  uint32_t off[CHUNK_FRAMES];
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static chunk_t *free_list[MAX_FREE_CHUNKS];
static int nfree;

// Open addressing over the mapped chunks, keyed by base address; grown at half full, linear probing,
// deletion by backward shift.
static chunk_t **table;
static size_t cap, count;
// Batches whose chunk came back because every frame was sent, and because the collector freed the Buffer.
static uint64_t back_at_send, back_collected;
// Generations are numbered across all chunks, not per chunk: an unmapped chunk's address may come back
// as a new chunk's, and the finalizer of a Buffer of the old one must not match the new one's batch.
static uintptr_t last_gen;

static size_t slot_of(uintptr_t base) {
  uint64_t k = (uint64_t)(base / CHUNK_BYTES) * 0x9E3779B97F4A7C15ull;
  return (size_t)(k >> 20) & (cap - 1);
}

static int table_put(chunk_t *c) {
  if ((count + 1) * 2 > cap) {
    size_t old_cap = cap;
    chunk_t **old = table;
    size_t next = cap == 0 ? 256 : cap * 2;
    chunk_t **t = calloc(next, sizeof *t);
    if (t == NULL) return -1;
    table = t;
    cap = next;
    for (size_t i = 0; i < old_cap; i++)
      if (old[i] != NULL) {
        size_t j = slot_of((uintptr_t)old[i]->base);
        while (table[j] != NULL) j = (j + 1) & (cap - 1);
        table[j] = old[i];
      }
    free(old);
  }
  size_t j = slot_of((uintptr_t)c->base);
  while (table[j] != NULL) j = (j + 1) & (cap - 1);
  table[j] = c;
  count++;
  return 0;
}

static chunk_t *table_find(uintptr_t base) {
  if (cap == 0) return NULL;
  for (size_t j = slot_of(base);; j = (j + 1) & (cap - 1)) {
    if (table[j] == NULL) return NULL;
    if ((uintptr_t)table[j]->base == base) return table[j];
  }
}

static void table_remove(chunk_t *c) {
  size_t j = slot_of((uintptr_t)c->base);
  while (table[j] != c) j = (j + 1) & (cap - 1);
  table[j] = NULL;
  count--;
  // Move later entries of the run back into the hole when their home slot allows it.
  for (size_t k = (j + 1) & (cap - 1); table[k] != NULL; k = (k + 1) & (cap - 1)) {
    size_t home = slot_of((uintptr_t)table[k]->base);
    if (((k - home) & (cap - 1)) >= ((k - j) & (cap - 1))) {
      table[j] = table[k];
      table[k] = NULL;
      j = k;
    }
  }
}

static chunk_t *chunk_new(void) {
  // Twice the size, then the unaligned ends unmapped: what is left is aligned to CHUNK_BYTES.
  uint8_t *m = mmap(NULL, 2 * CHUNK_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return NULL;
  uintptr_t a = ((uintptr_t)m + CHUNK_BYTES - 1) & ~(uintptr_t)(CHUNK_BYTES - 1);
  if (a > (uintptr_t)m) munmap(m, a - (uintptr_t)m);
  uintptr_t end = (uintptr_t)m + 2 * CHUNK_BYTES;
  if (end > a + CHUNK_BYTES) munmap((void *)(a + CHUNK_BYTES), end - (a + CHUNK_BYTES));
  chunk_t *c = calloc(1, sizeof *c);
  if (c != NULL) {
    c->base = (uint8_t *)a;
    if (table_put(c) != 0) {
      free(c);
      c = NULL;
    }
  }
  if (c == NULL) munmap((void *)a, CHUNK_BYTES);
  return c;
}

// The chunk's batch is over (every frame sent, or its Buffer collected): keep it or unmap it. Locked.
static void release(chunk_t *c) {
  c->lent = 0;
  c->pending = 0;
  c->n = 0;
  if (nfree < MAX_FREE_CHUNKS) {
    free_list[nfree++] = c;
    return;
  }
  table_remove(c);
  munmap(c->base, CHUNK_BYTES);
  free(c);
}

chunk_t *chunk_take(void) {
  pthread_mutex_lock(&lock);
  chunk_t *c = nfree > 0 ? free_list[--nfree] : chunk_new();
  if (c != NULL) {
    c->gen = ++last_gen;
    c->lent = 1;
    c->n = 0;
    c->pending = 0;
  }
  pthread_mutex_unlock(&lock);
  return c;
}

uint8_t *chunk_data(chunk_t *c) {
  return c->base;
}

void chunk_lend(chunk_t *c, uint32_t n, const uint32_t *offsets) {
  if (n > CHUNK_FRAMES) n = CHUNK_FRAMES;
  pthread_mutex_lock(&lock);
  c->n = n;
  memcpy(c->off, offsets, n * sizeof *offsets);
  c->pending = n == 64 ? ~0ull : (1ull << n) - 1;
  pthread_mutex_unlock(&lock);
}

void *chunk_hint(chunk_t *c) {
  return (void *)c->gen;
}

// Runs when the batch's Buffer is collected (Node calls it on the JS thread).
void chunk_finalize(napi_env env, void *data, void *hint) {
  pthread_mutex_lock(&lock);
  chunk_t *c = table_find((uintptr_t)data);
  if (c != NULL && c->lent && c->gen == (uintptr_t)hint) {
    back_collected++;
    release(c);
  }
  pthread_mutex_unlock(&lock);
}

void chunk_drop(chunk_t *c) {
  pthread_mutex_lock(&lock);
  release(c);
  pthread_mutex_unlock(&lock);
}

void chunks_sent(const struct iovec *iov, uint32_t n, uint32_t stride) {
  pthread_mutex_lock(&lock);
  for (uint32_t k = 0; k < n; k++) {
    uintptr_t at = (uintptr_t)iov[(size_t)k * stride].iov_base;
    chunk_t *c = table_find(at & ~(uintptr_t)(CHUNK_BYTES - 1));
    if (c == NULL || !c->lent || c->pending == 0) continue;
    uint32_t off = (uint32_t)(at - (uintptr_t)c->base);
    // The frame's index: binary search over the batch's offsets (a view that starts elsewhere is not one
    // of the batch's frames, and holds the chunk until the collector frees it).
    uint32_t lo = 0, hi = c->n;
    while (lo < hi) {
      uint32_t mid = (lo + hi) / 2;
      if (c->off[mid] < off) lo = mid + 1;
      else hi = mid;
    }
    if (lo == c->n || c->off[lo] != off) continue;
    c->pending &= ~(1ull << lo);
    if (c->pending == 0) {
      back_at_send++;
      release(c);
    }
  }
  pthread_mutex_unlock(&lock);
}

void chunks_stats(chunk_stats_t *out) {
  pthread_mutex_lock(&lock);
  out->mapped = count;
  out->free = (uint32_t)nfree;
  out->back_at_send = back_at_send;
  out->back_collected = back_collected;
  pthread_mutex_unlock(&lock);
}
