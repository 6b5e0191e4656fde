class { '::powerman':
  listen => '0.0.0.0',
  user   => 'powerman',
  group  => 'root',
}
powerman::device { 'compute-ipmi':
  driver   => 'ipmipower',
  endpoint => '/usr/sbin/ipmipower -D LAN_2_0 -u admin -p changeme -h bmc-compute[01-04] |&',
}
powerman::node { 'compute[01-04]':
  device => 'compute-ipmi',
  port   => 'bmc-compute[01-04]',
}
powerman::alias { 'compute':
  nodes => 'compute[01-04]',
}
