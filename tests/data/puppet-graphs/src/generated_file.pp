# A File whose link target is the File puppetlabs-concat generates at apply time
# (Concat_file's `generate`): Puppet orders the link after the Concat_file and after what
# the generated File autorequires (its parent directory, its owner), none of which the
# catalog says. Compiled with Debian's puppet-module-puppetlabs-concat (regenerate.sh).
file { '/tmp/fsmove-gen':
  ensure => directory,
}

user { 'fsmovegen':
  ensure => present,
}

concat { '/tmp/fsmove-gen/app.conf':
  owner => 'fsmovegen',
}

concat::fragment { 'app.conf header':
  target  => '/tmp/fsmove-gen/app.conf',
  content => "# generated\n",
}

file { '/tmp/fsmove-gen-link':
  ensure => link,
  target => '/tmp/fsmove-gen/app.conf',
}
