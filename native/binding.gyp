{
  "targets": [
    {
      "target_name": "rocelab_native",
      "sources": ["src/addon.c", "src/shm.c", "src/packet.c", "src/chunks.c"],
      "cflags": ["-O2", "-Wall", "-Wextra", "-Wno-unused-parameter"]
    }
  ]
}
