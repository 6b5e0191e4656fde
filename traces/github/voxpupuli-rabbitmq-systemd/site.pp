# The module's examples/site.pp passes `config => '[ {rabbit_stomp, ...} ].'`, which v15 takes as a template
# name ("Could not find template"); this is the README's minimal use.
include rabbitmq
