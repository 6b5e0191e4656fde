class { 'haveged':
  write_wakeup_threshold => 2048,
}
