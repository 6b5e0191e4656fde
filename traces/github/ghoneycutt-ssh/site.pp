class { 'ssh::server':
  config_files => {
    '50-local' => {
      lines => {
        'PermitRootLogin' => 'prohibit-password',
        'X11Forwarding'   => 'no',
      },
    },
  },
}
class { 'ssh':
  keys => {
    'root_for_userX' => {
      ensure => present,
      user   => 'root',
      type   => 'ssh-rsa',
      key    => 'AAAAB3NzaC1yc2EAAAADAQABAAABAQC7examplekeyonlyforthischeck0123456789abcdefABCDEF==',
    },
  },
}
