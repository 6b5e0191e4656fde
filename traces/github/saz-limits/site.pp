include limits
limits::limits { "*/nofile":
  both => 65536,
}
