#include "addon.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

napi_value rl_throw_errno(napi_env env, const char *what) {
  char msg[512];
  snprintf(msg, sizeof msg, "%s: %s", what, strerror(errno));
  napi_throw_error(env, NULL, msg);
  return NULL;
}

static napi_value init(napi_env env, napi_value exports) {
  if (rl_register_shm(env, exports) != napi_ok) return NULL;
  if (rl_register_packet(env, exports) != napi_ok) return NULL;
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
