include nscd
