// mapShared(path, bytes): maps a file (normally under /dev/shm) MAP_SHARED into an ArrayBuffer, so that
// the device processes of one lab see each other's published clocks (synchronised emulated time). The file
// is created 0600 when missing (never through a link) and grown to `bytes`; the mapping is released when
// the ArrayBuffer is collected. Node has no mmap of its own, and SharedArrayBuffer does not cross processes.
// mapSharedFd(fd, bytes): the same for a file already open — one the supervisor opened and handed to a
// device process that runs as an unprivileged user, which could not open the lab's root-only files itself.
#include "addon.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
  void *addr;
  size_t len;
} mapping_t;

static void unmap(napi_env env, void *data, void *hint) {
  mapping_t *m = hint;
  munmap(m->addr, m->len);
  free(m);
}

/** Maps the open file `fd` (grown to `bytes` if shorter) into an external ArrayBuffer; closes nothing. */
static napi_value map_fd(napi_env env, int fd, int64_t bytes, const char *what) {
  struct stat st;
  if (fstat(fd, &st) != 0 || (st.st_size < bytes && ftruncate(fd, bytes) != 0)) return rl_throw_errno(env, what);
  void *addr = mmap(NULL, (size_t)bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (addr == MAP_FAILED) return rl_throw_errno(env, what);
  mapping_t *m = malloc(sizeof *m);
  if (m == NULL) {
    munmap(addr, (size_t)bytes);
    napi_throw_error(env, NULL, "mapShared: out of memory");
    return NULL;
  }
  m->addr = addr;
  m->len = (size_t)bytes;
  napi_value buffer;
  if (napi_create_external_arraybuffer(env, addr, (size_t)bytes, unmap, m, &buffer) != napi_ok) {
    unmap(env, NULL, m);
    napi_throw_error(env, NULL, "mapShared: cannot wrap the mapping");
    return NULL;
  }
  return buffer;
}

static napi_value map_shared_fd(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  int32_t fd = -1;
  int64_t bytes = 0;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 2 ||
      napi_get_value_int32(env, argv[0], &fd) != napi_ok || fd < 0) {
    napi_throw_type_error(env, NULL, "mapSharedFd(fd, bytes)");
    return NULL;
  }
  if (napi_get_value_int64(env, argv[1], &bytes) != napi_ok || bytes <= 0 || bytes > (1 << 30)) {
    napi_throw_range_error(env, NULL, "mapSharedFd: bytes must be in 1..2^30");
    return NULL;
  }
  return map_fd(env, fd, bytes, "mapSharedFd");
}

static napi_value map_shared(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 2) {
    napi_throw_type_error(env, NULL, "mapShared(path, bytes)");
    return NULL;
  }
  char path[4096];
  size_t pathLen = 0;
  if (napi_get_value_string_utf8(env, argv[0], path, sizeof path, &pathLen) != napi_ok) {
    napi_throw_type_error(env, NULL, "mapShared: path must be a string");
    return NULL;
  }
  int64_t bytes = 0;
  if (napi_get_value_int64(env, argv[1], &bytes) != napi_ok || bytes <= 0 || bytes > (1 << 30)) {
    napi_throw_range_error(env, NULL, "mapShared: bytes must be in 1..2^30");
    return NULL;
  }
  int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return rl_throw_errno(env, path);
  napi_value buffer = map_fd(env, fd, bytes, path);
  int saved = errno;
  close(fd);
  errno = saved;
  return buffer;
}

napi_status rl_register_shm(napi_env env, napi_value exports) {
  napi_value fn;
  napi_status s = napi_create_function(env, "mapShared", NAPI_AUTO_LENGTH, map_shared, NULL, &fn);
  if (s != napi_ok) return s;
  s = napi_set_named_property(env, exports, "mapShared", fn);
  if (s != napi_ok) return s;
  s = napi_create_function(env, "mapSharedFd", NAPI_AUTO_LENGTH, map_shared_fd, NULL, &fn);
  if (s != napi_ok) return s;
  return napi_set_named_property(env, exports, "mapSharedFd", fn);
}
