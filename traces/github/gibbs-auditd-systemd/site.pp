include auditd
