class { 'knot':
  packages => ['knot'],
  domains => {
    'exampe.org' => {
      'comment'          => 'example.org domain',
      'zone_soa_mname'   => 'ns0.example.org.',
      'manage_zone'      => true,
      'zone_nameservers' => ['ns0.example.org.'],
      'zone_records'     => [
        { 'rname' => 'ns0', 'rcontent' => '127.0.0.1' },
        { 'rname' => 'ns0', 'rtype' => 'AAAA', 'rcontent' => '::1' },
      ],
    },
  },
}
