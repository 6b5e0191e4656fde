class { 'exim':
  manage_service => true,
}
