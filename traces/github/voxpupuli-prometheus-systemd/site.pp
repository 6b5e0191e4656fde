# Debian 12 runs systemd; the sandbox's facts say service_provider => 'debian', which the module's
# Prometheus::Initstyle type rejects, so the init style is given as a Debian 12 host's facts would give it.
class { 'prometheus':
  init_style => 'systemd',
}
include prometheus::node_exporter
