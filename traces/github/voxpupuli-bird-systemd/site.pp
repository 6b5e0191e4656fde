class { 'bird':
  manage_conf       => true,
  manage_service    => true,
  config_content_v4 => "router id 192.0.2.1;\nprotocol device {\n  scan time 10;\n}\n",
}
