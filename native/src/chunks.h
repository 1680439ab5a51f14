// Receive chunks: the memory packetRecv copies a batch of frames into (packet.c). A chunk goes back to the
// free list as soon as every frame of its batch has been sent (a device gives away what it transmits), or
// else when the collector finds the batch's Buffer dead. docs/performance.md ("Receive chunks back at the
// send") has the measurements.
#ifndef ROCELAB_CHUNKS_H
#define ROCELAB_CHUNKS_H

#include <node_api.h>
#include <stdint.h>
#include <sys/uio.h>

#define CHUNK_BYTES (256 * 1024)
// Frames one chunk holds at most (the bits of its mask of frames not yet sent).
#define CHUNK_FRAMES 64

typedef struct chunk chunk_t;

// A chunk for a new batch, or NULL when out of memory. Its memory is chunk_data(c), CHUNK_BYTES long.
chunk_t *chunk_take(void);
uint8_t *chunk_data(chunk_t *c);
// The batch copied into `c` holds `n` frames (n <= CHUNK_FRAMES) starting at these offsets, ascending.
void chunk_lend(chunk_t *c, uint32_t n, const uint32_t *offsets);
// The finalizer and hint for the batch's external Buffer (napi_create_external_buffer).
void chunk_finalize(napi_env env, void *data, void *hint);
void *chunk_hint(chunk_t *c);
// Gives back a chunk the batch's Buffer was never made for.
void chunk_drop(chunk_t *c);

// The frames starting at iov[0].iov_base, iov[stride].iov_base, ... (n of them) have been handed to the
// kernel: those that are the frames of a lent chunk no longer hold it (anything else is ignored).
void chunks_sent(const struct iovec *iov, uint32_t n, uint32_t stride);

typedef struct {
  size_t mapped;    // chunks mapped now (lent or free)
  uint32_t free;    // of which on the free list
  uint64_t back_at_send, back_collected;  // batches over: every frame sent, or the Buffer collected
} chunk_stats_t;
void chunks_stats(chunk_stats_t *out);

#endif
