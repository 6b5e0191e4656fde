class { 'smokeping':
  mode       => 'standalone',
  cgiurl     => 'http://localhost/cgi-bin/smokeping.cgi',
  master_url => 'http://localhost/cgi-bin/smokeping.cgi',
}

smokeping::target { 'Local':
  menu      => 'Local',
  pagetitle => 'Loopback',
  host      => '127.0.0.1',
}
