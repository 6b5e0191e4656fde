# Debian's own nginx package (the module's default, manage_repo => true, adds nginx.org's apt repository)
class { 'nginx':
  manage_repo => false,
}

nginx::resource::server { 'www.example.com':
  www_root => '/var/www/example',
}
