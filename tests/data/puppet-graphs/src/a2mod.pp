# Debian's puppetlabs-apache a2mod type autorequires Package['httpd'] (its Ruby code, not
# the catalog, says so); the static model knows the rule.
package { 'httpd':
  ensure => present,
  name   => 'apache2',
}

a2mod { 'rewrite':
  ensure => present,
}
