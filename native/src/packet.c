// AF_PACKET port I/O for live device processes. Per port: a receiving packet socket bound to the interface
// with a PACKET_MMAP receive ring (TPACKET_V2) read in bounded batches from a libuv poll handle, and a
// sending socket (PACKET_VNET_HDR, for linear skbs) used in batches, one sendmmsg() per flush. See
// docs/live-lab.md ("Port I/O") for why this shape.
//
//   packetOpen(ifname, snaplen, ringBytes, times: Float64Array, lens: Uint32Array,
//              onReadable: () => void) -> handle
//                                          snaplen 0: the interface's MTU + 14 + 4 (one VLAN tag). Frames
//                                          longer than snaplen are skipped (counted in packetStats).
//   packetRecv(handle) -> Buffer | null   up to times.length frames (at most 64, and CHUNK_BYTES) packed back
//                                          to back in one Buffer of its own (a recycled chunk, chunks.c);
//                                          lens[i] their lengths, times[i] their kernel arrival times as
//                                          CLOCK_MONOTONIC ns (process.hrtime's base), lens[times.length]
//                                          the count. null when the ring is empty.
//   packetSend(handle, frames: Uint8Array[], n) -> errors
//                                          sends frames[0..n) (n <= 1024) straight from their own memory,
//                                          one sendmmsg() per run of successes; returns the frames refused.
//                                          The frames are given away: a received frame among them no longer
//                                          holds its chunk, which serves a later batch once all of its
//                                          frames are sent (DeviceEnv.transmit's ownership rule).
//   packetStats(handle) -> { drops, truncated, slots, slotBytes }
//                                          drops: frames the kernel dropped (ring full), cumulative;
//                                          truncated: frames longer than snaplen, skipped; the ring's geometry.
//   packetChunks() -> { mapped, free, backAtSend, backCollected }
//                                          the process's receive chunks (chunks.c): mapped now, of which
//                                          free; batches whose chunk came back because every frame was sent,
//                                          and because the collector freed the batch's Buffer (cumulative).
//   packetClose(handle)
//
// Receive timestamps: the kernel stamps tp_sec/tp_nsec with CLOCK_REALTIME (skb->tstamp, or the time of the
// copy into the ring). We convert them to CLOCK_MONOTONIC with the REALTIME−MONOTONIC offset sampled once per
// batch (between two MONOTONIC reads, taking the midpoint), so a clock step is picked up by the next batch.
#define _GNU_SOURCE  // sendmmsg
#include "addon.h"
#include "chunks.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/virtio_net.h>
#include <endian.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

// Receive ring geometry: 64 KiB blocks (the kernel allocates each block contiguously, order 4).
#define BLOCK_BYTES (64 * 1024)
#define MAX_TX_BATCH 1024
// Received batches are copied into chunks (chunks.c), one per batch, which come back for later batches as
// soon as the kernel has copied every frame of theirs out again (packetSend), else when the collector frees
// the batch's Buffer. A batch stops early when its next frame would not fit (or at CHUNK_FRAMES frames).

typedef struct {
  napi_env env;
  int fd;     // receives (the ring); never sends
  int tx_fd;  // sends (PACKET_VNET_HDR, see setup_tx); bound with protocol 0, so it receives nothing
  uint8_t *ring;
  size_t ring_len;
  uint32_t frame_size, frames_per_block, frame_nr, next;
  uint32_t snaplen;
  // JS-owned arrays (kept alive by references).
  double *times;
  uint32_t *lens;
  uint32_t batch;
  napi_ref refs[3];  // times, lens, onReadable
  napi_async_context async;
  uv_poll_t poll;
  int open;
  int uv_closed, finalized;  // the struct is freed when both libuv and the JS handle are done with it
  uint64_t drops, truncated;
  struct mmsghdr msgs[MAX_TX_BATCH];
  struct iovec iov[2 * MAX_TX_BATCH];
  struct virtio_net_hdr vnet[MAX_TX_BATCH];
} port_t;

static int64_t clock_ns(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/** CLOCK_REALTIME − CLOCK_MONOTONIC, ns. */
static int64_t realtime_offset(void) {
  int64_t m0 = clock_ns(CLOCK_MONOTONIC);
  int64_t r = clock_ns(CLOCK_REALTIME);
  int64_t m1 = clock_ns(CLOCK_MONOTONIC);
  return r - (m0 + (m1 - m0) / 2);
}

static struct tpacket2_hdr *slot(port_t *p, uint32_t i) {
  return (struct tpacket2_hdr *)(p->ring + (size_t)(i / p->frames_per_block) * BLOCK_BYTES +
                                 (size_t)(i % p->frames_per_block) * p->frame_size);
}

static void call_readable(port_t *p) {
  napi_env env = p->env;
  napi_handle_scope scope;
  if (napi_open_handle_scope(env, &scope) != napi_ok) return;
  napi_value fn, recv, result;
  // make_callback wants an object as `this`: the global one (onReadable is an arrow function anyway).
  if (napi_get_reference_value(env, p->refs[2], &fn) == napi_ok && fn != NULL &&
      napi_get_global(env, &recv) == napi_ok) {
    // make_callback (not call_function): Node drains process.nextTick and microtasks after it, which is
    // where the port flushes what the device sent while handling the batch.
    if (napi_make_callback(env, p->async, recv, fn, 0, NULL, &result) == napi_pending_exception) {
      napi_value err;
      napi_get_and_clear_last_exception(env, &err);
      napi_fatal_exception(env, err);
    }
  }
  napi_close_handle_scope(env, scope);
}

static void on_poll(uv_poll_t *h, int status, int events) {
  port_t *p = h->data;
  if (!p->open) return;
  if (status < 0) {
    // A socket error (ENETDOWN when the interface went down; the kernel re-attaches the socket when it
    // comes back up). libuv stops the handle on POLLERR: take the error off the socket and poll again.
    int err;
    socklen_t len = sizeof err;
    getsockopt(p->fd, SOL_SOCKET, SO_ERROR, &err, &len);
    uv_poll_start(&p->poll, UV_READABLE, on_poll);
  }
  // Level-triggered: while frames remain in the ring after a bounded batch, libuv calls us again on the
  // next loop iteration, after timers and I/O of others have had their turn.
  call_readable(p);
}

static void on_closed(uv_handle_t *h) {
  port_t *p = h->data;
  p->uv_closed = 1;
  if (p->finalized) free(p);
}

static void on_finalize(napi_env env, void *data, void *hint) {
  port_t *p = data;
  p->finalized = 1;
  // While open, the reference to onReadable (which holds the JS port, which holds this handle) keeps the
  // handle alive: it is only collected after packetClose.
  if (p->uv_closed) free(p);
}

static void port_close(port_t *p) {
  if (!p->open) return;
  p->open = 0;
  uv_poll_stop(&p->poll);
  for (int i = 0; i < 3; i++) napi_delete_reference(p->env, p->refs[i]);
  napi_async_destroy(p->env, p->async);
  munmap(p->ring, p->ring_len);
  close(p->fd);
  close(p->tx_fd);
  uv_close((uv_handle_t *)&p->poll, on_closed);
}

static port_t *get_port(napi_env env, napi_value v) {
  port_t *p = NULL;
  if (napi_get_value_external(env, v, (void **)&p) != napi_ok || p == NULL || !p->open) {
    napi_throw_error(env, NULL, "packet port: not an open handle");
    return NULL;
  }
  return p;
}

static int typed(napi_env env, napi_value v, napi_typedarray_type want, void **data, size_t *len) {
  napi_typedarray_type type;
  napi_value ab;
  size_t off;
  bool is;
  if (napi_is_typedarray(env, v, &is) != napi_ok || !is) return 0;
  if (napi_get_typedarray_info(env, v, &type, len, data, &ab, &off) != napi_ok) return 0;
  return type == want;
}

// The sending socket. Frames longer than a page would otherwise be built as paged skbs, which the kernel
// then copies a second time to linearise them for a device without scatter-gather (the lab turns it off):
// a virtio_net_hdr whose hdr_len is the whole frame makes packet_snd() allocate one linear skb instead.
static int setup_tx(port_t *p, int ifindex) {
  int fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  p->tx_fd = fd;
  int v = 1;
  if (setsockopt(fd, SOL_PACKET, PACKET_VNET_HDR, &v, sizeof v) != 0) return -1;
  struct sockaddr_ll sll = {.sll_family = AF_PACKET, .sll_protocol = 0, .sll_ifindex = ifindex};
  return bind(fd, (struct sockaddr *)&sll, sizeof sll);
}

static int setup_socket(port_t *p, const char *ifname, size_t ring_bytes) {
  // Protocol 0 until bound: no frame of any interface is queued before the ring exists.
  int fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  p->fd = fd;
  int ifindex = (int)if_nametoindex(ifname);
  if (ifindex == 0) return -1;
  if (p->snaplen == 0) {
    // The largest frame the interface can receive: its MTU, the Ethernet header and one 802.1Q tag.
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    memcpy(ifr.ifr_name, ifname, strnlen(ifname, IFNAMSIZ - 1));
    if (ioctl(fd, SIOCGIFMTU, &ifr) != 0) return -1;
    p->snaplen = (uint32_t)ifr.ifr_mtu + ETH_HLEN + 4;
  }
  int v = TPACKET_V2;
  if (setsockopt(fd, SOL_PACKET, PACKET_VERSION, &v, sizeof v) != 0) return -1;
  // The device models the wire: frames other sockets send out of this interface are not arriving ones,
  // and our own sends are never looped back to us (the kernel skips the sending socket anyway).
  v = 1;
  if (setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &v, sizeof v) != 0) return -1;
  // Slot: tpacket2 header + sockaddr_ll, the MAC header placed so the network header is aligned, then the
  // frame (what the kernel computes in tpacket_rcv: macoff = TPACKET_ALIGN(hdrlen + 14) - 14).
  uint32_t macoff = TPACKET_ALIGN(TPACKET2_HDRLEN + ETH_HLEN) - ETH_HLEN;
  p->frame_size = TPACKET_ALIGN(macoff + p->snaplen);
  if (p->frame_size > BLOCK_BYTES) {
    errno = EMSGSIZE;
    return -1;
  }
  p->frames_per_block = BLOCK_BYTES / p->frame_size;
  uint32_t blocks = (uint32_t)((ring_bytes + BLOCK_BYTES - 1) / BLOCK_BYTES);
  if (blocks < 2) blocks = 2;
  struct tpacket_req req = {
      .tp_block_size = BLOCK_BYTES,
      .tp_block_nr = blocks,
      .tp_frame_size = p->frame_size,
      .tp_frame_nr = blocks * p->frames_per_block,
  };
  if (setsockopt(fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof req) != 0) return -1;
  p->frame_nr = req.tp_frame_nr;
  p->ring_len = (size_t)blocks * BLOCK_BYTES;
  p->ring = mmap(NULL, p->ring_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p->ring == MAP_FAILED) return -1;
  struct sockaddr_ll sll = {
      .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL), .sll_ifindex = ifindex};
  if (bind(fd, (struct sockaddr *)&sll, sizeof sll) != 0) return -1;
  // Promiscuous like libpcap: PFC and LLDP go to multicast MACs, forwarded frames to other hosts' MACs.
  struct packet_mreq mr = {.mr_ifindex = ifindex, .mr_type = PACKET_MR_PROMISC};
  if (setsockopt(fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof mr) != 0) return -1;
  return setup_tx(p, ifindex);
}

static napi_value packet_open(napi_env env, napi_callback_info info) {
  size_t argc = 6;
  napi_value argv[6];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 6) {
    napi_throw_type_error(env, NULL, "packetOpen(ifname, snaplen, ringBytes, times, lens, onReadable)");
    return NULL;
  }
  char ifname[IF_NAMESIZE + 1];
  size_t n;
  uint32_t snaplen, ring_bytes;
  if (napi_get_value_string_utf8(env, argv[0], ifname, sizeof ifname, &n) != napi_ok ||
      napi_get_value_uint32(env, argv[1], &snaplen) != napi_ok ||
      napi_get_value_uint32(env, argv[2], &ring_bytes) != napi_ok) {
    napi_throw_type_error(env, NULL, "packetOpen: ifname string, snaplen and ringBytes numbers");
    return NULL;
  }
  port_t *p = calloc(1, sizeof *p);
  if (p == NULL) {
    napi_throw_error(env, NULL, "packetOpen: out of memory");
    return NULL;
  }
  p->env = env;
  p->fd = -1;
  p->tx_fd = -1;
  p->ring = MAP_FAILED;
  p->snaplen = snaplen;
  size_t times_n, lens_n;
  if (!typed(env, argv[3], napi_float64_array, (void **)&p->times, &times_n) ||
      !typed(env, argv[4], napi_uint32_array, (void **)&p->lens, &lens_n) || lens_n != times_n + 1 ||
      times_n == 0) {
    free(p);
    napi_throw_type_error(env, NULL, "packetOpen: times Float64Array(n), lens Uint32Array(n + 1)");
    return NULL;
  }
  p->batch = (uint32_t)times_n;
  if (setup_socket(p, ifname, ring_bytes) != 0) {
    int saved = errno;
    if (p->ring != MAP_FAILED) munmap(p->ring, p->ring_len);
    if (p->fd >= 0) close(p->fd);
    if (p->tx_fd >= 0) close(p->tx_fd);
    free(p);
    errno = saved;
    char what[64];
    snprintf(what, sizeof what, "AF_PACKET on %s", ifname);
    return rl_throw_errno(env, what);
  }
  for (int i = 0; i < 3; i++) napi_create_reference(env, argv[3 + i], 1, &p->refs[i]);
  napi_value resource, name;
  napi_create_object(env, &resource);
  napi_create_string_utf8(env, "rocelab.packet", NAPI_AUTO_LENGTH, &name);
  napi_async_init(env, resource, name, &p->async);
  uv_loop_t *loop;
  napi_get_uv_event_loop(env, &loop);
  uv_poll_init(loop, &p->poll, p->fd);
  p->poll.data = p;
  p->open = 1;
  uv_poll_start(&p->poll, UV_READABLE, on_poll);
  napi_value handle;
  napi_create_external(env, p, on_finalize, NULL, &handle);
  return handle;
}

#define VLAN_TAG_BYTES 4

// The kernel takes a received frame's 802.1Q tag out of the frame (skb_vlan_untag) and reports it in the
// ring header instead; the devices must see the frame as it was on the wire, tag (and its PCP) included.
static int vlan_stripped(const struct tpacket2_hdr *h) {
  return (h->tp_status & TP_STATUS_VLAN_VALID) != 0 && h->tp_snaplen >= 12;
}

// Copies the frame in slot `h` to `dst`, with its 802.1Q tag put back after the MAC addresses; returns
// the bytes written.
static uint32_t copy_frame(uint8_t *dst, const struct tpacket2_hdr *h) {
  const uint8_t *src = (const uint8_t *)h + h->tp_mac;
  if (!vlan_stripped(h)) {
    memcpy(dst, src, h->tp_snaplen);
    return h->tp_snaplen;
  }
  uint16_t tpid = (h->tp_status & TP_STATUS_VLAN_TPID_VALID) && h->tp_vlan_tpid != 0 ? h->tp_vlan_tpid : 0x8100;
  memcpy(dst, src, 12);
  dst[12] = (uint8_t)(tpid >> 8);
  dst[13] = (uint8_t)tpid;
  dst[14] = (uint8_t)(h->tp_vlan_tci >> 8);
  dst[15] = (uint8_t)h->tp_vlan_tci;
  memcpy(dst + 16, src + 12, h->tp_snaplen - 12);
  return h->tp_snaplen + VLAN_TAG_BYTES;
}

static napi_value packet_recv(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  port_t *p = argc == 1 ? get_port(env, argv[0]) : NULL;
  if (p == NULL) return NULL;
  // First pass: which slots are ours, how many bytes they hold.
  uint32_t count = 0, total = 0, i = p->next;
  while (count < p->batch && count < CHUNK_FRAMES) {
    struct tpacket2_hdr *h = slot(p, i);
    if (!(__atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE) & TP_STATUS_USER)) break;
    uint32_t len = h->tp_snaplen + (vlan_stripped(h) ? VLAN_TAG_BYTES : 0);
    if (total + len > CHUNK_BYTES) break;
    total += len;
    count++;
    i = (i + 1) % p->frame_nr;
  }
  napi_value out;
  if (count == 0) {
    p->lens[p->batch] = 0;
    napi_get_null(env, &out);
    return out;
  }
  chunk_t *chunk = chunk_take();
  if (chunk == NULL) {
    napi_throw_error(env, NULL, "packetRecv: out of memory");
    return NULL;
  }
  uint8_t *data = chunk_data(chunk);
  if (napi_create_external_buffer(env, total, data, chunk_finalize, chunk_hint(chunk), &out) != napi_ok) {
    chunk_drop(chunk);
    return NULL;
  }
  uint32_t offsets[CHUNK_FRAMES];
  int64_t offset = realtime_offset();
  uint32_t kept = 0, at = 0;
  for (uint32_t k = 0; k < count; k++) {
    struct tpacket2_hdr *h = slot(p, p->next);
    // A frame longer than the slot arrives truncated: the device must never see half a frame.
    if (h->tp_snaplen == h->tp_len) {
      uint32_t len = copy_frame(data + at, h);
      offsets[kept] = at;
      p->lens[kept] = len;
      p->times[kept] = (double)((int64_t)h->tp_sec * 1000000000 + h->tp_nsec - offset);
      at += len;
      kept++;
    } else {
      p->truncated++;
    }
    __atomic_store_n(&h->tp_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
    p->next = (p->next + 1) % p->frame_nr;
  }
  p->lens[p->batch] = kept;
  chunk_lend(chunk, kept, offsets);
  return out;
}

static napi_value packet_send(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  port_t *p = argc == 3 ? get_port(env, argv[0]) : NULL;
  if (p == NULL) return NULL;
  uint32_t n;
  if (napi_get_value_uint32(env, argv[2], &n) != napi_ok || n > MAX_TX_BATCH) {
    napi_throw_range_error(env, NULL, "packetSend: count out of range");
    return NULL;
  }
  // The frames are the caller's (the runtime owns what a device transmits): no copy before the kernel's.
  for (uint32_t k = 0; k < n; k++) {
    napi_value v;
    size_t len;
    void *data;
    if (napi_get_element(env, argv[1], k, &v) != napi_ok || !typed(env, v, napi_uint8_array, &data, &len)) {
      napi_throw_type_error(env, NULL, "packetSend: frames must be Uint8Arrays");
      return NULL;
    }
    if (len > 0xffff) {
      napi_throw_range_error(env, NULL, "packetSend: frame longer than 65535 bytes");
      return NULL;
    }
    memset(&p->vnet[k], 0, sizeof p->vnet[k]);
    p->vnet[k].hdr_len = htole16((uint16_t)len);  // virtio is little-endian for packet sockets
    p->iov[2 * k].iov_base = &p->vnet[k];
    p->iov[2 * k].iov_len = sizeof p->vnet[k];
    p->iov[2 * k + 1].iov_base = data;
    p->iov[2 * k + 1].iov_len = len;
    memset(&p->msgs[k], 0, sizeof p->msgs[k]);
    p->msgs[k].msg_hdr.msg_iov = &p->iov[2 * k];
    p->msgs[k].msg_hdr.msg_iovlen = 2;
  }
  uint32_t errors = 0, k = 0;
  while (k < n) {
    int r = sendmmsg(p->tx_fd, p->msgs + k, n - k, MSG_DONTWAIT);
    if (r > 0) {
      k += (uint32_t)r;
    } else if (r < 0 && errno == EINTR) {
      continue;
    } else {
      // The first remaining frame was refused (ENOBUFS, EAGAIN, ENETDOWN...): count it, go on after it.
      errors++;
      k++;
    }
  }
  // The kernel has copied them (or refused them): frames of a receive chunk no longer hold it.
  chunks_sent(p->iov + 1, n, 2);
  napi_value out;
  napi_create_uint32(env, errors, &out);
  return out;
}

static napi_value packet_stats(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  port_t *p = argc == 1 ? get_port(env, argv[0]) : NULL;
  if (p == NULL) return NULL;
  // The kernel resets its counters on every read: we accumulate.
  struct tpacket_stats st;
  socklen_t len = sizeof st;
  if (getsockopt(p->fd, SOL_PACKET, PACKET_STATISTICS, &st, &len) == 0) p->drops += st.tp_drops;
  napi_value out, v;
  napi_create_object(env, &out);
  napi_create_double(env, (double)p->drops, &v);
  napi_set_named_property(env, out, "drops", v);
  napi_create_double(env, (double)p->truncated, &v);
  napi_set_named_property(env, out, "truncated", v);
  napi_create_uint32(env, p->frame_nr, &v);
  napi_set_named_property(env, out, "slots", v);
  napi_create_uint32(env, p->frame_size, &v);
  napi_set_named_property(env, out, "slotBytes", v);
  return out;
}

static napi_value packet_chunks(napi_env env, napi_callback_info info) {
  chunk_stats_t st;
  chunks_stats(&st);
  napi_value out, v;
  napi_create_object(env, &out);
  napi_create_double(env, (double)st.mapped, &v);
  napi_set_named_property(env, out, "mapped", v);
  napi_create_uint32(env, st.free, &v);
  napi_set_named_property(env, out, "free", v);
  napi_create_double(env, (double)st.back_at_send, &v);
  napi_set_named_property(env, out, "backAtSend", v);
  napi_create_double(env, (double)st.back_collected, &v);
  napi_set_named_property(env, out, "backCollected", v);
  return out;
}

static napi_value packet_close(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  port_t *p = NULL;
  if (argc == 1 && napi_get_value_external(env, argv[0], (void **)&p) == napi_ok && p != NULL) port_close(p);
  return NULL;
}

napi_status rl_register_packet(napi_env env, napi_value exports) {
  static const struct {
    const char *name;
    napi_callback fn;
  } fns[] = {{"packetOpen", packet_open},
             {"packetRecv", packet_recv},
             {"packetSend", packet_send},
             {"packetStats", packet_stats},
             {"packetChunks", packet_chunks},
             {"packetClose", packet_close}};
  for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
    napi_value f;
    napi_status s = napi_create_function(env, fns[i].name, NAPI_AUTO_LENGTH, fns[i].fn, NULL, &f);
    if (s != napi_ok) return s;
    s = napi_set_named_property(env, exports, fns[i].name, f);
    if (s != napi_ok) return s;
  }
  return napi_ok;
}
