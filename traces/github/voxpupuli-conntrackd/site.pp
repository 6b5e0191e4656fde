# The README's "UDP Sync ... using the ALARM sync mode" example, on the sandbox's interface.
class { 'conntrackd':
  sync_mode      => 'ALARM',
  protocol       => 'UDP',
  interface      => $facts['networking']['primary'],
  ipv4_address   => $facts['networking']['ip'],
  ipv4_interface => $facts['networking']['ip'],
  udp_ipv4_dest  => '192.0.2.10',
}
