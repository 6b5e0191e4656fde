# An exec that puts a descriptor at the top of its table, then keeps 300 forked children
# alive at once: every child's descriptor table is a copy of one that ends at fd 19999.
file { '/usr/local/bin/fd-bomb':
  mode    => '0755',
  content => "#!/bin/sh\nulimit -n 20000\nexec perl -MPOSIX -e 'POSIX::dup2(0, 19999) or die; for (1..300) { if (!fork) { sleep 2; exit 0 } } 1 while wait != -1'\n",
}
exec { 'fd-bomb':
  command => '/usr/local/bin/fd-bomb',
  require => File['/usr/local/bin/fd-bomb'],
}
