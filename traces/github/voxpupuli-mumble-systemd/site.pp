include mumble
