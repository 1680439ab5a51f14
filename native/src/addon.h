// rocelab's native addon: the few things a live device process needs from the platform that Node does
// not offer (shared memory between processes; AF_PACKET rings). N-API, so it does not depend on V8's ABI.
#ifndef ROCELAB_ADDON_H
#define ROCELAB_ADDON_H

#include <node_api.h>

// Throws a JS Error "<what>: <strerror(errno)>" and returns NULL (for use as `return rl_throw_errno(...)`).
napi_value rl_throw_errno(napi_env env, const char *what);

// Each part of the addon adds its functions to `exports`.
napi_status rl_register_shm(napi_env env, napi_value exports);
napi_status rl_register_packet(napi_env env, napi_value exports);

#endif
