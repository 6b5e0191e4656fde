class { 'postfix':
  parameters => {
    # the module's defaults (data/common/parameters.yaml), which Hiera's hash merge would keep
    'myhostname'          => {
      'comments' => ['The internet hostname of this mail system'],
      'value'    => $facts['networking']['fqdn'],
    },
    'myorigin'            => $facts['networking']['fqdn'],
    'mydestination'       => [$facts['networking']['fqdn'], $facts['networking']['hostname'], 'localhost'],
    'mynetworks'          => ['127.0.0.0/8', '[::ffff:127.0.0.0]/104', '[::1]/128'],
    'append_dot_mydomain' => {
      'comments' => ['appending .domain is the MUAs job.'],
      'value'    => 'no',
    },
    'smtpd_banner'        => {
      'value' => '$myhostname ESMTP $mail_name',
    },
    # the README's first example
    'bounce_size_limit'   => {
      'comments' => [
        'The maximal amount of original message text that is sent in a',
        'non-delivery notification',
      ],
      'value'    => 50000,
    },
    'header_size_limit'   => {
      'comments' => [
        'The maximal amount of memory in bytes for storing a message header.',
        'If a header is larger, the excess is discarded',
      ],
      'value'    => 102400,
    },
  },
}
