class { 'munge':
  munge_key_source  => 'puppet:///modules/site_munge/munge.key',
}
