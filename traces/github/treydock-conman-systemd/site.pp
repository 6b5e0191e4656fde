include conman
conman::console { 'compute01':
  device   => 'ipmi:bmc-compute01',
  ipmiopts => 'U:admin,P:bmcpassword',
}
