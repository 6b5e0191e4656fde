class { 'samba':
  package_ensure       => 'installed',
  os_level             => 50,
  workgroup            => 'EXAMPLE',
  wins_server          => '10.10.10.10',
  server_string        => 'Example File Server 01',
  netbios_name         => 'F01',
  interfaces           => [ 'lo', 'tap0' ],
  hosts_allow          => [ '127.', '192.168.' ],
  hosts_deny           => [ 'ALL' ],
  local_master         => true,
  preferred_master     => 'yes',
  map_to_guest         => 'Bad User',
  additional_config    => {
    server_multi_channel_support => 'yes'
  },
  shares => {
    'homes' => {
      comment    => 'Home Directories',
      browseable => false,
      path       => '/home',
      writable   => true,
    },
    'pictures' => {
      comment        => 'Pictures',
      path           => '/srv/pictures',
      browseable     => true,
      writable       => true,
      create_mask    => '1777',
      directory_mask => '1777',
    },
  },
}
