class { 'knockd':
  interface => $facts['networking']['primary'],
}

knockd::sequence { 'openCloseSSH':
  sequence      => '2222,3333,4444',
  seq_timeout   => 15,
  start_command => '/sbin/iptables -A INPUT -s %IP% -p tcp --dport ssh -j ACCEPT',
  cmd_timeout   => 30,
  stop_command  => '/sbin/iptables -D INPUT -s %IP% -p tcp --dport ssh -j ACCEPT',
}
