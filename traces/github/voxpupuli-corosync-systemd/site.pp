class { 'corosync':
  authkey_source => 'string',
  authkey        => 'fjjpmScyFKaoALxwiQQx+rQ9gCJ37dxwdKv5YgnsGQRvPf5tX4IyHPpCLPZ/1EKKcZaDJeXidoKag+BMwZnLiEZRMAukNXyX8aX8321GV0wkzruBQTyHqJ/QkHdICY4Xkyw1AfivVDMW57lyobINDBUberfdrzMUwQBuytf6hLQ=',
  bind_address   => '127.0.0.1',
  cluster_name   => 'sample3',
  enable_secauth => true,
  set_votequorum => true,
  quorum_members => ['127.0.0.1'],
}

corosync::service { 'pacemaker':
  version => '0',
}
