class { 'sssd':
  main_config => {
    'sssd' => {
      'services' => ['nss', 'pam'],
      'domains'  => ['local'],
    },
  },
  configs     => {
    'local' => {
      'stanzas' => {
        'domain/local' => {
          'id_provider'    => 'proxy',
          'proxy_lib_name' => 'files',
          'auth_provider'  => 'none',
        },
      },
    },
  },
}
