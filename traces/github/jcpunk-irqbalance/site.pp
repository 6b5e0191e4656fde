class { 'irqbalance':
  irqbalance_env_file => '/etc/default/irqbalance',
}
