include lldpd
