include dovecot
