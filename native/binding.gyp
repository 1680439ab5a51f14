{
  "targets": [
    {
      "target_name": "rocelab_native",
      "sources": ["src/addon.c", "src/shm.c", "src/packet.c"],
      "cflags": ["-O2", "-Wall", "-Wextra", "-Wno-unused-parameter"]
    }
  ]
}
