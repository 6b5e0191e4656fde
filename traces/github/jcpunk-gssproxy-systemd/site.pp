class { 'gssproxy':
  gssproxy_services => {
    'service/nfs-client' => {
      'settings' => {
         'mechs' => 'krb5',
         'cred_store' => [
            'keytab:/etc/krb5.keytab',
            'ccache:FILE:/var/lib/gssproxy/clients/krb5cc_%U',
            'client_keytab:/var/lib/gssproxy/clients/%U.keytab' ],
         'cred_usage' =>  'initiate',
         'allow_any_uid' => 'yes',
         'trusted' => 'yes',
         'euid' => 0,
    } },

    'service/nfs-server' => {
      'settings' => {
        'mechs' => 'krb5',
        'socket' => '/run/gssproxy.sock',
        'cred_store' => 'keytab:/etc/krb5.keytab',
        'trusted' => 'yes',
        'kernel_nfsd' => 'yes',
        'euid' => 0,
    } }
  }
}
