class { 'nfs':
  client_enabled => true,
  nfs_v4_client  => true,
}
